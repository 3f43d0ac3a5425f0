package series

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
)

// callCountingAPI counts the calls a Store makes to the table: the reads
// a queryCounter counts, and the writes.
type callCountingAPI struct{ queryCounter }

func (a *callCountingAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.calls.Add(1)
	return a.API.BatchWriteItem(ctx, in, opts...)
}

func (a *callCountingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	a.calls.Add(1)
	return a.API.PutItem(ctx, in, opts...)
}

func (a *callCountingAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	a.calls.Add(1)
	return a.API.DeleteItem(ctx, in, opts...)
}

// manySeries returns one reading at t of each of n series named
// prefix0000000 and on, as one line-protocol request from n devices
// decodes.
func manySeries(prefix string, n int, t time.Time) []SeriesReadings {
	batch := make([]SeriesReadings, n)
	for i := range batch {
		batch[i] = SeriesReadings{ID: fmt.Sprintf("%s%07d", prefix, i), Readings: []Reading{{Time: t, Values: []float64{float64(i)}}}}
	}
	return batch
}

// TestFlush_WorkLinearInSeries counts the work of a flush of n series new
// to it, and of the rollup pass that follows, for n and 4n: the steps of
// the per-series bookkeeping (Store.stats.steps: entries sealed and
// applied, directory and marker-cache lookups, sweeps of the marker
// cache, markers grouped and scanned by recomputations) and the calls to
// the table. Both grow as n: 4 times the series cost about 4 times the
// work, not 16 (a list searched per series in the directory's
// bookkeeping, the marker cache scanned whole per series once large, or
// every marker of the kind scanned per recomputed period, made it
// quadratic).
func TestFlush_WorkLinearInSeries(t *testing.T) {
	// Small enough for the race detector: the ratio tells linear from
	// quadratic at any size.
	n := 2_500
	if raceEnabled || testing.Short() {
		n = 1_000
	}
	type work struct{ flushSteps, flushCalls, rollupSteps, rollupCalls int64 }
	measure := func(n int) work {
		clk := newClock(t0.Add(time.Hour))
		api := &callCountingAPI{queryCounter{API: openEngine(t, clk)}}
		// One flush for the whole write, whatever its size.
		opts := testOptions(t, clk)
		opts.FlushSize, opts.MaxBuffered = 10*n, 10*n
		st := openStore(t, api, opts, Schema{Name: "DEV", Fields: []string{"v"}})
		ctx := context.Background()
		k := mustKind(t, st, "DEV")
		if err := k.WriteMany(ctx, manySeries("dev", n, t0.Add(30*time.Minute))); err != nil {
			t.Fatal(err)
		}
		var w work
		steps, calls := st.stats.steps.Load(), api.calls.Load()
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		w.flushSteps, w.flushCalls = int64(st.stats.steps.Load()-steps), api.calls.Load()-calls
		// The hour's rollups of every series are due.
		clk.Advance(time.Hour + st.opts.LateWindow)
		steps, calls = st.stats.steps.Load(), api.calls.Load()
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		w.rollupSteps, w.rollupCalls = int64(st.stats.steps.Load()-steps), api.calls.Load()-calls
		// The work was done: every series is in the directory and has
		// its hourly rollup.
		ids, _, err := k.Series(ctx, "", n+1, "")
		if err != nil || len(ids) != n {
			t.Fatalf("Series: %d ids, %v; want %d", len(ids), err, n)
		}
		ps, err := k.Rollups(ctx, ids[n-1], Hourly, time.Time{}, time.Time{})
		if err != nil || len(ps) != 1 || ps[0].Count != 1 {
			t.Fatalf("Rollups of %s: %+v, %v", ids[n-1], ps, err)
		}
		return w
	}
	small, large := measure(n), measure(4*n)
	t.Logf("%d series: %+v", n, small)
	t.Logf("%d series: %+v", 4*n, large)
	for _, c := range []struct {
		what         string
		small, large int64
	}{
		{"flush steps", small.flushSteps, large.flushSteps},
		{"flush table calls", small.flushCalls, large.flushCalls},
		{"rollup steps", small.rollupSteps, large.rollupSteps},
		{"rollup table calls", small.rollupCalls, large.rollupCalls},
	} {
		if c.small <= 0 {
			t.Errorf("%s: none counted for %d series", c.what, n)
			continue
		}
		// Linear work gives 4; quadratic 16.
		if r := float64(c.large) / float64(c.small); r < 3 || r > 5 {
			t.Errorf("%s: %d for %d series, %d for %d: ratio %.1f, want about 4 (linear)", c.what, c.small, n, c.large, 4*n, r)
		}
	}
}

// TestMarkCache_WorkLinear checks that the marker cache's work per set is
// constant, amortized, however many series it holds (it used to scan all
// its entries on every set once it held 100,000), and that its sweeps
// drop the entries no longer trusted.
func TestMarkCache_WorkLinear(t *testing.T) {
	visits := func(n int) uint64 {
		var st storeStats
		c := markCache{stats: &st}
		for i := range n {
			c.set("DEV", fmt.Sprint("dev", i), rollupSlot, 0, 1000, 1)
		}
		return st.steps.Load()
	}
	n := 100_000
	if raceEnabled || testing.Short() {
		n = 25_000
	}
	small, large := visits(n), visits(4*n)
	if r := float64(large) / float64(small); r < 3 || r > 5 {
		t.Errorf("entries visited: %d for %d series, %d for %d: ratio %.1f, want about 4 (linear)", small, n, large, 4*n, r)
	}

	var st storeStats
	c := markCache{stats: &st}
	c.set("DEV", "a", rollupSlot, 0, 1000, 1)
	c.set("DEV", "a", compactSlot, 0, 2000, 1)
	if !c.valid("DEV", "a", rollupSlot, 0, 999) || c.valid("DEV", "a", rollupSlot, 0, 1000) {
		t.Error("a rollup marker is trusted until its time, not after")
	}
	if c.valid("DEV", "a", rollupSlot, 3_600_000, 1) || c.valid("DEV", "b", rollupSlot, 0, 1) || c.valid("HOST", "a", rollupSlot, 0, 1) {
		t.Error("a marker of another period, series or kind is trusted")
	}
	// Entries trusted until 1500 at most, then new ones from 1500 on:
	// the sweeps drop the old ones ("a" stays: its compaction marker is
	// trusted until 2000).
	for i := range minMarkSweep {
		c.set("DEV", fmt.Sprint("old", i), rollupSlot, 0, 1500, 1)
	}
	for i := range 2 * minMarkSweep {
		c.set("DEV", fmt.Sprint("new", i), rollupSlot, 0, 5000, 1500)
	}
	if _, ok := c.m[markKey{"DEV", "old0"}]; ok || len(c.m) > 2*minMarkSweep+1 {
		t.Errorf("%d entries after the sweeps; want the stale ones dropped", len(c.m))
	}
	if !c.valid("DEV", "a", compactSlot, 0, 1999) {
		t.Error("a sweep dropped an entry trusted still")
	}
	c.forget("DEV", "a")
	if c.valid("DEV", "a", compactSlot, 0, 1999) {
		t.Error("forget left the series' entry")
	}
}

// TestFlush_100kNewSeries writes 100,000 series of one reading each in
// one call, as one line-protocol request from 100,000 devices, with a
// write-ahead log, and flushes them through the Store: the flush ends
// (it took minutes when the bookkeeping was quadratic) and wrote them
// all.
func TestFlush_100kNewSeries(t *testing.T) {
	n := 100_000
	if raceEnabled || testing.Short() {
		n = 10_000
	}
	clk := newClock(t0.Add(time.Hour))
	opts := testOptions(t, clk)
	opts.WALDir = t.TempDir()
	st := openStore(t, openEngine(t, clk), opts, Schema{Name: "DEV", Fields: []string{"v"}})
	ctx := context.Background()
	k := mustKind(t, st, "DEV")
	if err := k.WriteMany(ctx, manySeries("dev", n, t0.Add(30*time.Minute))); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := st.Stats().Buffered; got != 0 {
		t.Fatalf("%d readings still buffered after Flush", got)
	}
	ids, _, err := k.Series(ctx, "", n+1, "")
	if err != nil || len(ids) != n {
		t.Fatalf("Series: %d ids, %v; want %d", len(ids), err, n)
	}
	for _, i := range []int{0, n / 2, n - 1} {
		id := fmt.Sprintf("dev%07d", i)
		r, err := k.Latest(ctx, id)
		if err != nil || r.Values[0] != float64(i) {
			t.Fatalf("Latest(%s) = %+v, %v", id, r, err)
		}
	}
}

// gateAPI holds every BatchWriteItem call until open is closed or the
// call's context ends, as a slow table would; started is closed at the
// first call.
type gateAPI struct {
	timetable.API
	open, started chan struct{}
	once          sync.Once
}

func (a *gateAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.once.Do(func() { close(a.started) })
	select {
	case <-a.open:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return a.API.BatchWriteItem(ctx, in, opts...)
}

// TestShutdown_StopsALongFlush checks that a flush that takes long does
// not hold up the Store: a Flush waiting for it gives up when its context
// ends (a write with ?sync=true used to hang), Shutdown stops it when its
// context ends, and every acknowledged reading is still in the
// write-ahead log, written by the next Store's flush.
func TestShutdown_StopsALongFlush(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	db := openEngine(t, clk)
	api := &gateAPI{API: db, open: make(chan struct{}), started: make(chan struct{})}
	const n = 1000
	opts := testOptions(t, clk)
	opts.WALDir = t.TempDir()
	// The write fills a batch: the background flusher takes it at once.
	opts.FlushSize, opts.MaxBuffered = n, 10*n
	sc := Schema{Name: "DEV", Fields: []string{"v"}}
	st := openStore(t, api, opts, sc)
	if err := mustKind(t, st, "DEV").WriteMany(ctx, manySeries("dev", n, t0.Add(30*time.Minute))); err != nil {
		t.Fatal(err)
	}
	<-api.started // the background flush is under way, and held

	wctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err := st.Flush(wctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush behind a held flush, its context ended: %v; want DeadlineExceeded", err)
	}
	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	err = st.Shutdown(sctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown with a held flush: %v; want DeadlineExceeded", err)
	}
	if err := st.Flush(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("Flush after Shutdown: %v; want ErrClosed", err)
	}

	// The next Store, on a table that answers, writes them all.
	close(api.open)
	opts.Table = st.opts.Table
	st2 := mustOpen(t, ctx, db, opts, sc)
	defer st2.Close()
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	k := mustKind(t, st2, "DEV")
	ids, _, err := k.Series(ctx, "", 2*n, "")
	if err != nil || len(ids) != n {
		t.Fatalf("Series after the restart: %d ids, %v; want %d", len(ids), err, n)
	}
	for _, id := range ids {
		if _, err := k.Latest(ctx, id); err != nil {
			t.Fatalf("Latest(%s) after the restart: %v", id, err)
		}
	}
}
