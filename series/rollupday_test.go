package series

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// TestRollup_CallsPerSeriesDay counts the table calls of a rollup pass
// over series x days of one-minute readings, every hour due: the finest
// tier is computed a series-day at a time (one read of the day, its hours
// written in one batch, the latest reading repaired once per series), so
// a series-day costs its 24 marker deletes and a few calls more, not 5
// calls per hour.
func TestRollup_CallsPerSeriesDay(t *testing.T) {
	const series, days = 3, 2
	e := newRollupBenchEnv(t, series, days)
	e.api.calls.Store(0)
	if err := e.st.Rollup(context.Background()); err != nil {
		t.Fatal(err)
	}
	perDay := float64(e.api.calls.Load()) / (series * days)
	t.Logf("%.1f table calls per series-day", perDay)
	// 24 hour markers deleted; a read of the day, a batch of its hours
	// and its day marker; the day's rollup (a read, a put, a delete of
	// its marker); the month's marker; the latest reading's repair and
	// the markers' read, shared by the series and days.
	if perDay > 32 {
		t.Errorf("%.1f table calls per series-day, want at most 32", perDay)
	}
	// Every hour rolled up, every marker but the open month's gone.
	ms, err := e.k.markers(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.g != 2 {
			t.Errorf("marker left: %+v", m)
		}
	}
	hours, err := e.k.Rollups(context.Background(), "s0001", Hourly, t0, t0.Add(days*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != days*24 || hours[0].Count != 60 {
		t.Fatalf("%d hourly rollups (first of %d readings), want %d of 60", len(hours), hours[0].Count, days*24)
	}
}

// cancelAPI cancels a context after a number of table calls, once armed.
type cancelAPI struct {
	timetable.API
	left   atomic.Int64 // calls before cancel; armed when > 0
	cancel atomic.Pointer[context.CancelFunc]
}

func (a *cancelAPI) tick() {
	if a.left.Load() > 0 && a.left.Add(-1) == 0 {
		if c := a.cancel.Load(); c != nil {
			(*c)()
		}
	}
}

func (a *cancelAPI) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	a.tick()
	return a.API.Query(ctx, in, opts...)
}

func (a *cancelAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	a.tick()
	return a.API.GetItem(ctx, in, opts...)
}

func (a *cancelAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.tick()
	return a.API.BatchWriteItem(ctx, in, opts...)
}

func (a *cancelAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	a.tick()
	return a.API.PutItem(ctx, in, opts...)
}

func (a *cancelAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	a.tick()
	return a.API.DeleteItem(ctx, in, opts...)
}

// refReadings is a naive model of what a kind with LastWins holds: per
// series, the last reading written at each millisecond.
type refReadings map[string]map[int64]Reading

func (m refReadings) add(id string, rs []Reading) {
	if m[id] == nil {
		m[id] = map[int64]Reading{}
	}
	for _, r := range rs {
		m[id][r.Time.UnixMilli()] = r
	}
}

func (m refReadings) of(id string) []Reading {
	var out []Reading
	for _, r := range m[id] {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Reading) int { return a.Time.Compare(b.Time) })
	return out
}

// samePeriods returns an error describing the first difference between
// periods got and want.
func samePeriods(got, want []Period) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d periods, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Start.Equal(w.Start) || g.Count != w.Count || len(g.Fields) != len(w.Fields) {
			return fmt.Errorf("period %d: start %v count %d, want start %v count %d", i, g.Start, g.Count, w.Start, w.Count)
		}
		for j := range g.Fields {
			a, b := g.Fields[j], w.Fields[j]
			if a.Count != b.Count || a.Min != b.Min || a.Max != b.Max || a.First != b.First || a.Last != b.Last ||
				!a.FirstTime.Equal(b.FirstTime) || !a.LastTime.Equal(b.LastTime) || math.Abs(a.Sum-b.Sum) > 1e-9*math.Max(1, math.Abs(b.Sum)) {
				return fmt.Errorf("period %v field %d: got %+v, want %+v", g.Start, j, a, b)
			}
		}
	}
	return nil
}

// checkHours compares the hourly rollups of the series of ref with the
// hours ref computes, over the hours due at now (ended LateWindow ago);
// an hour still marked may be stale (a pass has yet to compute it) when
// allowMarked. It returns the first difference.
func checkHours(ctx context.Context, k *Kind, ref refReadings, now time.Time, allowMarked bool) error {
	ms, err := k.markers(ctx, "")
	if err != nil {
		return err
	}
	marked := map[string]bool{}
	for _, m := range ms {
		marked[m.id+"#"+m.period] = true
	}
	due := now.Add(-k.st.opts.LateWindow).Truncate(time.Hour) // hours before are due
	for id := range ref {
		got, err := k.Rollups(ctx, id, Hourly, t0.AddDate(0, 0, -1), due)
		if err != nil {
			return err
		}
		want := expect(within(ref.of(id), t0.AddDate(0, 0, -1), due), 2, hourOf)
		if !allowMarked {
			if err := samePeriods(got, want); err != nil {
				return fmt.Errorf("series %s: %w", id, err)
			}
			continue
		}
		// Each hour either as computed or still marked.
		byStart := func(ps []Period) map[int64]Period {
			out := map[int64]Period{}
			for _, p := range ps {
				out[p.Start.UnixMilli()] = p
			}
			return out
		}
		g, w := byStart(got), byStart(want)
		for h := t0.AddDate(0, 0, -1); h.Before(due); h = h.Add(time.Hour) {
			gp, gok := g[h.UnixMilli()]
			wp, wok := w[h.UnixMilli()]
			var diff error
			switch {
			case gok != wok:
				diff = fmt.Errorf("hour %v: rollup present %v, want %v", h, gok, wok)
			case gok:
				diff = samePeriods([]Period{gp}, []Period{wp})
			}
			if diff != nil && !marked[id+"#"+periodKey(h.UnixMilli(), k.finest())] {
				return fmt.Errorf("series %s, not marked: %w", id, diff)
			}
		}
	}
	return nil
}

// TestRollup_PerDayModel writes random readings (duplicates at one
// instant among them) of a few series over two and a half days, some
// days compacted, and checks the rollup pass's hourly and daily rollups
// against a naive model: after a pass cancelled midway (each hour either
// computed or still marked), after a full pass, and after late readings
// into hours already computed and the next pass. A positive control
// checks that the checker catches a reading the rollups miss.
func TestRollup_PerDayModel(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	eachBackendLayout(t, func(t *testing.T, b backend, l Layout) {
		for _, seed := range seeds {
			t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
				rollupDayModel(t, b, l, seed)
			})
		}
	})
}

func rollupDayModel(t *testing.T, b backend, l Layout, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 25))
	end := t0.Add(60 * time.Hour) // hours 0-10 of the third day due
	clk := newClock(end)
	api := &cancelAPI{API: b.OpenOn(t, clk)}
	sc := sensorSchema(l)
	st, k := openKind(t, api, testOptions(t, clk), sc)
	ids := []string{"a", "b", "c"}
	ref := refReadings{}
	reading := func(at time.Time) Reading {
		hum := float64(rng.IntN(100))
		if rng.IntN(6) == 0 {
			hum = math.NaN()
		}
		return Reading{Time: at, Values: []float64{float64(rng.IntN(4000)) / 100, hum}, Tags: []string{fmt.Sprint("room-", rng.IntN(3))}}
	}
	randomTime := func(lo, hi time.Time) time.Time {
		return lo.Add(time.Duration(rng.Int64N(int64(hi.Sub(lo)/time.Millisecond))) * time.Millisecond)
	}
	write := func(id string, rs []Reading) {
		t.Helper()
		writeFlush(t, context.Background(), st, k, id, rs)
		ref.add(id, rs)
	}
	ctx := context.Background()
	for _, id := range ids {
		n := 200 + rng.IntN(400)
		rs := make([]Reading, 0, n)
		for range n {
			rs = append(rs, reading(randomTime(t0, end)))
		}
		// Duplicates of some instants, in the same write and later.
		for range 10 {
			r := reading(rs[rng.IntN(len(rs))].Time)
			rs = append(rs, r)
		}
		for len(rs) > 0 {
			m := min(len(rs), 1+rng.IntN(150))
			write(id, rs[:m])
			rs = rs[m:]
		}
		if rng.IntN(2) == 0 {
			if err := k.Compact(ctx, id, t0, t0.Add(48*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A pass cancelled after a random number of table calls.
	pctx, cancel := context.WithCancel(ctx)
	api.cancel.Store(&cancel)
	api.left.Store(int64(2 + rng.IntN(40)))
	err := st.Rollup(pctx)
	api.left.Store(0)
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled pass returned %v", err)
	}
	if err := checkHours(ctx, k, ref, clk.Now(), true); err != nil {
		t.Fatalf("after a cancelled pass: %v", err)
	}
	// A full pass computes every due hour.
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := checkHours(ctx, k, ref, clk.Now(), false); err != nil {
		t.Fatalf("after a pass: %v", err)
	}
	// Late readings, into computed hours (some at instants held), then
	// the next pass.
	for _, id := range ids {
		var late []Reading
		for range 1 + rng.IntN(20) {
			at := randomTime(t0, end.Add(-time.Hour))
			if held := ref.of(id); rng.IntN(3) == 0 && len(held) > 0 {
				at = held[rng.IntN(len(held))].Time
			}
			late = append(late, reading(at))
		}
		write(id, late)
	}
	clk.Advance(time.Minute)
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := checkHours(ctx, k, ref, clk.Now(), false); err != nil {
		t.Fatalf("after late readings and a pass: %v", err)
	}
	for _, id := range ids {
		days, err := k.Rollups(ctx, id, Daily, t0, end)
		if err != nil {
			t.Fatal(err)
		}
		if err := samePeriods(days, expect(within(ref.of(id), t0, t0.Add(48*time.Hour)), 2, dayOf)); err != nil {
			t.Fatalf("series %s, days: %v", id, err)
		}
	}
	// Positive control: a reading the rollups do not hold is caught.
	ctl := refReadings{}
	for id, m := range ref {
		ctl[id] = m
	}
	ctl.add("a", []Reading{reading(t0.Add(5*time.Hour + 17*time.Minute + 3*time.Millisecond))})
	if err := checkHours(ctx, k, ctl, clk.Now(), false); err == nil {
		t.Fatal("the checker missed a reading the rollups do not hold")
	}
	if err := checkHours(ctx, k, ctl, clk.Now(), true); err == nil {
		t.Fatal("the checker missed a reading the rollups do not hold, in an hour not marked")
	}
}

// unprocessedAPI applies only the first half of each BatchWriteItem call
// of more than one write and returns the rest as unprocessed, as
// DynamoDB may under load.
type unprocessedAPI struct {
	timetable.API
	calls, returned atomic.Int64
}

func (a *unprocessedAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.calls.Add(1)
	var left map[string][]types.WriteRequest
	do := map[string][]types.WriteRequest{}
	for name, ws := range in.RequestItems {
		n := len(ws)
		if n > 1 {
			n = len(ws) / 2
			if left == nil {
				left = map[string][]types.WriteRequest{}
			}
			left[name] = ws[n:]
			a.returned.Add(int64(len(ws) - n))
		}
		do[name] = ws[:n]
	}
	out, err := a.API.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: do, ReturnConsumedCapacity: in.ReturnConsumedCapacity}, opts...)
	if err != nil {
		return nil, err
	}
	for name, ws := range out.UnprocessedItems {
		left[name] = append(ws, left[name]...)
	}
	out.UnprocessedItems = left
	return out, nil
}

// TestRollup_UnprocessedItems runs the rollup pass on a table that leaves
// half of each batch unprocessed: the pass's batches are retried until
// every hour's rollup is written, and then the markers go.
func TestRollup_UnprocessedItems(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(49 * time.Hour))
	api := &unprocessedAPI{API: openEngine(t, clk)}
	st, k := openKind(t, api, testOptions(t, clk), sensorSchema(Chunks))
	rs := sensorReadings(t0, time.Minute, 48*60)
	if err := k.WriteSync(ctx, "s1", rs...); err != nil {
		t.Fatal(err)
	}
	api.returned.Store(0)
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if api.returned.Load() == 0 {
		t.Fatal("no write was left unprocessed")
	}
	hours, err := k.Rollups(ctx, "s1", Hourly, t0, t0.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantPeriods(t, "hourly", hours, expect(rs, 2, hourOf))
	days, err := k.Rollups(ctx, "s1", Daily, t0, t0.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantPeriods(t, "daily", days, expect(rs, 2, dayOf))
	ms, err := k.markers(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.g != 2 {
			t.Errorf("marker left: %+v", m)
		}
	}
}
