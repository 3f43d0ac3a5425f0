package series

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/local"
)

// sourceMargin is the tests' Options.SourceExpiry.
const sourceMargin = 30 * 24 * time.Hour

// openSweptEngine opens an in-memory embedded engine on clk whose TTL
// sweeper runs only when sweep calls it.
func openSweptEngine(t testing.TB, clk *clock) timetable.API {
	return testenv.Backends()[0].Open(t, &local.Options{Now: clk.Now, CacheSize: 4 << 20, TTLInterval: -1})
}

// sweep deletes the expired items of the embedded engine api (its TTL
// sweeper, run now rather than on its timer), and returns how many.
func sweep(t testing.TB, api timetable.API) int {
	t.Helper()
	n, err := api.(*local.DB).SweepExpired()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// hzUnits writes a day of 1 Hz readings of one field from t0 to a new
// Store with SourceExpiry exp, flushed every minute with the clock
// following the readings (as the 1 Hz benchmark does), compacts the day
// once it ended, and returns the write units per reading that the table
// client reported (writes and compaction), the Store and its engine.
func hzUnits(t *testing.T, exp time.Duration) (float64, *Store, *Kind, *clock, timetable.API) {
	t.Helper()
	ctx := context.Background()
	clk := newClock(t0)
	api := openSweptEngine(t, clk)
	opts := testOptions(t, clk)
	opts.SourceExpiry = exp
	opts.FlushSize, opts.MaxBuffered = 1<<20, 4<<20
	// A raw retention that outlasts the sources' expiry (with the default
	// 30 days, the sources expire with their readings' retention).
	st := openStore(t, api, opts, Schema{Name: "SENSOR", Fields: []string{"v"}, Retention: Retention{Raw: 365 * 24 * time.Hour}, NoRollups: true})
	k := mustKind(t, st, "SENSOR")
	const points, flush = 86400, 60
	rs := make([]Reading, 0, flush)
	v := 20.0
	st.Table().ResetStats()
	for i := 0; i < points; i += flush {
		rs = rs[:0]
		for j := i; j < i+flush; j++ {
			v += float64(j%21-10) / 100
			rs = append(rs, Reading{Time: t0.Add(time.Duration(j) * time.Second), Values: []float64{v}})
		}
		clk.Set(rs[len(rs)-1].Time.Add(time.Second))
		if err := k.Write(ctx, "1", rs...); err != nil {
			t.Fatal(err)
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	clk.Set(t0.Add(25 * time.Hour))
	before := st.Table().Stats()
	compactRounds(t, ctx, st, clk, 2)
	stats := st.Table().Stats()
	t.Logf("SourceExpiry %s: compaction, read / write units per reading: %.4f / %.4f", exp, (stats.ReadUnits-before.ReadUnits)/points, (stats.WriteUnits-before.WriteUnits)/points)
	wu := stats.WriteUnits / points
	for name, op := range stats.Ops {
		if op.WriteUnits > 0 {
			t.Logf("SourceExpiry %s: %s: %d calls, %.0f write units", exp, name, op.Calls, op.WriteUnits)
		}
	}
	st.Table().ResetStats()
	if n := countDay(t, k, "1"); n != points {
		t.Fatalf("%d readings read, want %d", n, points)
	}
	t.Logf("SourceExpiry %s: read units of the day after compaction: %.1f", exp, st.Table().Stats().ReadUnits)
	return wu, st, k, clk, api
}

// countDay returns the readings of series id in the day from t0, and
// fails t if one is given twice.
func countDay(t testing.TB, k *Kind, id string) int {
	t.Helper()
	p, err := k.Range(context.Background(), id, Query{From: t0, To: t0.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(p.Readings); i++ {
		if !p.Readings[i].Time.After(p.Readings[i-1].Time) {
			t.Fatalf("reading at %s given twice or out of order", p.Readings[i].Time)
		}
	}
	return len(p.Readings)
}

// TestSourceExpiry_Units measures the DynamoDB write units per reading of
// a 1 Hz day flushed every minute, compaction included, with merged
// sources deleted by key and left to expire: the second saves the 1,440
// deletes of the day's flush chunks. After the sources expired (the engine's TTL sweep) the day holds
// its merged chunks only and reads the same.
func TestSourceExpiry_Units(t *testing.T) {
	if testing.Short() {
		t.Skip("a day of 1 Hz readings")
	}
	del, _, _, _, _ := hzUnits(t, 0)
	wu, _, k, clk, api := hzUnits(t, sourceMargin)
	t.Logf("write units per reading at 1 Hz, 1-minute flushes, compacted: sources deleted %.4f, sources expiring %.4f", del, wu)
	// The 1,440 deletes of the merged flush chunks are gone; what is left
	// a flush is its chunk, the series' latest item and the table's
	// sequence mark (1 write unit each, 0.0167 a reading), and the merged
	// chunks and markers.
	if saved := (del - wu) * 86400; saved < 1440 {
		t.Errorf("SourceExpiry saved %.0f write units of the day, want the 1440 deletes of its flush chunks", saved)
	}
	if wu >= 0.052 {
		t.Errorf("%.4f write units per reading with SourceExpiry, want under 0.052", wu)
	}
	if n, m := chunkItemCount(t, k, "1"); n <= m {
		t.Fatalf("%d items, %d merged: the merge deleted its sources", n, m)
	}
	clk.Advance(sourceMargin + 24*time.Hour)
	if n := sweep(t, api); n < 1440 {
		t.Fatalf("sweep deleted %d items, want the day's 1440 flush chunks", n)
	}
	if n, m := chunkItemCount(t, k, "1"); n != m || m != 24 {
		t.Fatalf("after expiry: %d items, %d merged; want 24 merged", n, m)
	}
	st := k.st
	st.Table().ResetStats()
	if n := countDay(t, k, "1"); n != 86400 {
		t.Fatalf("after expiry: %d readings, want 86400", n)
	}
	t.Logf("read units of the day once its sources expired: %.1f", st.Table().Stats().ReadUnits)
}

// TestSourceExpiry_Model runs random writes (late ones into merged days
// included), compaction passes, clock moves of minutes to weeks and TTL
// sweeps, with merged sources left to expire, and checks after each step
// that a read of the whole span gives every reading written once: merged
// chunks beside sources of any age (past CompactGrace and the margin's
// half), and sources gone by expiry, change no read.
func TestSourceExpiry_Model(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { sourceExpiryModel(t, seed) })
	}
}

func sourceExpiryModel(t *testing.T, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 25))
	clk := newClock(t0)
	api := openSweptEngine(t, clk)
	opts := testOptions(t, clk)
	opts.SourceExpiry = sourceMargin
	st := openStore(t, api, opts, Schema{Name: "M", Fields: []string{"v"}, Shards: 1 + int(seed%2), Retention: Retention{Raw: Forever}, NoRollups: true})
	k := mustKind(t, st, "M")
	model := map[int64]float64{} // ms -> value, each instant once
	var lo int64 = timeMs(t0)
	next := 0.0
	check := func(what string) {
		t.Helper()
		p, err := k.Range(ctx, "s", Query{From: t0, To: clk.Now().Add(48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int64, 0, len(model))
		for ms := range model {
			want = append(want, ms)
		}
		slices.Sort(want)
		if len(p.Readings) != len(want) {
			t.Fatalf("%s: %d readings read, want %d", what, len(p.Readings), len(want))
		}
		for i, r := range p.Readings {
			if timeMs(r.Time) != want[i] || r.Values[0] != model[want[i]] {
				t.Fatalf("%s: reading %d is %s %v, want %s %v", what, i, r.Time, r.Values, msTime(want[i]), model[want[i]])
			}
		}
	}
	var sawLeft, sawSwept bool
	for step := range 60 {
		now := timeMs(clk.Now())
		op := rng.IntN(11)
		if testing.Verbose() {
			t.Logf("step %d op %d now %s", step, op, clk.Now())
		}
		switch {
		case op < 5: // a flush of readings: recent ones, or late ones of any day before
			var from int64
			if rng.IntN(3) == 0 && now > lo {
				from = lo + rng.Int64N(now-lo)
			} else {
				from = max(lo, now-2*time.Hour.Milliseconds())
			}
			var rs []Reading
			for range 1 + rng.IntN(40) {
				ms := from + rng.Int64N(max(1, min(now-from, 3*time.Hour.Milliseconds())))
				if _, ok := model[ms]; ok {
					continue
				}
				next++
				model[ms] = next
				rs = append(rs, Reading{Time: msTime(ms), Values: []float64{next}})
			}
			writeFlushes(t, st, k, "s", [][]Reading{rs})
		case op < 7: // a compaction pass, then perhaps another after the grace
			compactRounds(t, ctx, st, clk, 1+rng.IntN(2))
		case op < 9: // time passes: minutes to days, with passes running
			clk.Advance(time.Duration(rng.Int64N(int64(36 * time.Hour))))
			compactRounds(t, ctx, st, clk, 2)
		case op < 10: // the TTL sweeper, at any time (DynamoDB's runs when it will)
			if sweep(t, api) > 0 {
				sawSwept = true
			}
		default: // weeks pass, with passes running, then the sweeper
			clk.Advance(sourceMargin/2 + time.Duration(rng.Int64N(int64(sourceMargin))))
			compactRounds(t, ctx, st, clk, 2)
			check(fmt.Sprintf("step %d, weeks later, before the sweep", step))
			if n, m := chunkItemCount(t, k, "s"); n > m {
				sawLeft = true
			}
			if sweep(t, api) > 0 {
				sawSwept = true
			}
		}
		check(fmt.Sprintf("step %d", step))
	}
	// The end: everything merged, then every source expired.
	clk.Advance(48 * time.Hour)
	compactRounds(t, ctx, st, clk, 2)
	if n, m := chunkItemCount(t, k, "s"); n > m {
		sawLeft = true
	}
	clk.Advance(sourceMargin + 48*time.Hour)
	if sweep(t, api) > 0 {
		sawSwept = true
	}
	check("all sources expired")
	if n, m := chunkItemCount(t, k, "s"); n != m {
		t.Errorf("%d chunk items, %d merged: flush chunks outlived their expiry", n, m)
	}
	if !sawLeft || !sawSwept {
		t.Errorf("sources left after a merge: %v, sources swept: %v; want both", sawLeft, sawSwept)
	}
}

// TestSourceExpiry_NearExpiry leaves a day unmerged for more than half of
// SourceExpiry (no pass ran): the next pass warns of it, counts it in
// Stats and merges it, so that the sweep past its flush chunks' expiry
// loses nothing. Without the pass, the sweep loses the day (the risk
// the option documents).
func TestSourceExpiry_NearExpiry(t *testing.T) {
	for _, pass := range []bool{true, false} {
		t.Run(fmt.Sprint("pass=", pass), func(t *testing.T) {
			ctx := context.Background()
			clk := newClock(t0.Add(time.Hour))
			api := openSweptEngine(t, clk)
			var logs bytes.Buffer
			opts := testOptions(t, clk)
			opts.SourceExpiry = sourceMargin
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			st := openStore(t, api, opts, Schema{Name: "M", Fields: []string{"v"}, Retention: Retention{Raw: Forever}, NoRollups: true})
			k := mustKind(t, st, "M")
			var batches [][]Reading
			for i := range 6 {
				batches = append(batches, []Reading{{Time: t0.Add(time.Duration(i) * 10 * time.Minute), Values: []float64{float64(i)}}})
			}
			writeFlushes(t, st, k, "s", batches)
			// A recent day too, merged as well but not warned of.
			clk.Set(t0.Add(24*time.Hour + sourceMargin*6/10))
			writeFlushes(t, st, k, "r", [][]Reading{{{Time: clk.Now().Add(-3 * time.Hour), Values: []float64{1}}}, {{Time: clk.Now().Add(-2 * time.Hour), Values: []float64{2}}}})
			if pass {
				compactRounds(t, ctx, st, clk, 2)
				if !strings.Contains(logs.String(), "SourceExpiry") || !strings.Contains(logs.String(), periodKey(timeMs(t0), keys.Day)) {
					t.Fatalf("no warning of the old day:\n%s", logs.String())
				}
				if got := st.Stats().SourcesNearExpiry; got != 1 {
					t.Fatalf("SourcesNearExpiry %d, want 1 (the old day)", got)
				}
			}
			clk.Advance(sourceMargin)
			sweep(t, api)
			n := countDay(t, k, "s")
			if pass && n != 6 {
				t.Fatalf("%d readings after the sweep, want 6", n)
			}
			if !pass && n != 0 {
				t.Fatalf("%d readings of an unmerged day after its expiry; the test expects them lost", n)
			}
		})
	}
}

// TestUrgentFirst orders the periods due: those that ended more than
// SourceExpiry/2 ago first, oldest first, the others as they were.
func TestUrgentFirst(t *testing.T) {
	clk := newClock(t0.Add(40 * 24 * time.Hour))
	opts := testOptions(t, clk)
	opts.SourceExpiry = sourceMargin
	st := openStore(t, openEngine(t, clk), opts, Schema{Name: "M", Fields: []string{"v"}})
	k := mustKind(t, st, "M")
	type p struct {
		start int64
		g     keys.Granularity
	}
	day := func(d int) int64 { return timeMs(t0.Add(time.Duration(d) * 24 * time.Hour)) }
	due := []p{{day(39), keys.Day}, {day(2), keys.Day}, {day(38), keys.Hour}, {day(0), keys.Day}, {day(30), keys.Day}}
	urgentFirst(k, due, func(u p) (int64, keys.Granularity) { return u.start, u.g }, timeMs(clk.Now()))
	want := []p{{day(0), keys.Day}, {day(2), keys.Day}, {day(39), keys.Day}, {day(38), keys.Hour}, {day(30), keys.Day}}
	if !slices.Equal(due, want) {
		t.Fatalf("order %v, want %v", due, want)
	}
}

// TestSourceExpiry_CompactedWithoutIt: flush chunks written by a Store
// with SourceExpiry are merged by a Store without it that shares the
// table (a fleet part way through a change of its options), lone ones
// included, so none of their readings is lost when they expire.
func TestSourceExpiry_CompactedWithoutIt(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	api := openSweptEngine(t, clk)
	opts := testOptions(t, clk)
	sc := Schema{Name: "M", Fields: []string{"v"}, Retention: Retention{Raw: Forever}, NoRollups: true}
	plain := openStore(t, api, opts, sc)
	wo := *opts
	wo.SourceExpiry = sourceMargin
	w := mustOpen(t, ctx, api, &wo, sc)
	defer w.Close()
	wk := mustKind(t, w, "M")
	// A lone reading in the first day; three flushes in the second.
	writeFlushes(t, w, wk, "s", [][]Reading{{{Time: t0.Add(time.Minute), Values: []float64{1}}}})
	clk.Set(t0.Add(25 * time.Hour))
	writeFlushes(t, w, wk, "s", [][]Reading{{{Time: t0.Add(24*time.Hour + time.Minute), Values: []float64{2}}}, {{Time: t0.Add(24*time.Hour + 2*time.Minute), Values: []float64{3}}}, {{Time: t0.Add(24*time.Hour + 3*time.Minute), Values: []float64{4}}}})
	clk.Set(t0.Add(50 * time.Hour))
	compactRounds(t, ctx, plain, clk, 2)
	clk.Advance(sourceMargin + 48*time.Hour)
	if sweep(t, api) == 0 {
		t.Fatal("nothing expired: the flush chunks were written without an expiry")
	}
	k := mustKind(t, plain, "M")
	p, err := k.Range(ctx, "s", Query{From: t0, To: t0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Readings) != 4 {
		t.Fatalf("%d readings after the sources expired, want 4:\n%s", len(p.Readings), fmtReadings(p.Readings))
	}
}
