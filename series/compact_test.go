package series

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// compactSchema is a kind with two fields, a tag and the metric index,
// that keeps every reading of an instant (compaction must keep them all).
func compactSchema(shards int) Schema {
	return Schema{Name: "C", Fields: []string{"a", "b"}, Tags: []string{"loc"}, Shards: shards, MetricIndex: true, Duplicates: KeepAll}
}

// compactReadings returns the readings of three hours from t0, one every
// 10 s, with NaNs, changing tags and readings that share an instant, in
// flushes of 30 (one of them written late, out of order, so that chunks
// overlap in time).
func compactReadings() [][]Reading {
	var rs []Reading
	v := 20.0
	for i := 0; i < 3*360; i++ {
		v += float64(i%7-3) * 0.01
		r := Reading{Time: t0.Add(time.Duration(i) * 10 * time.Second), Values: []float64{math.Round(v*100) / 100, float64(i % 13)}, Tags: []string{fmt.Sprint("room", i/200)}}
		if i%17 == 0 {
			r.Values[1] = math.NaN()
		}
		rs = append(rs, r)
		if i%50 == 0 { // a second reading at the same instant
			rs = append(rs, Reading{Time: r.Time, Values: []float64{-1, float64(i)}})
		}
	}
	var out [][]Reading
	for i := 0; i < len(rs); i += 30 {
		out = append(out, rs[i:min(i+30, len(rs))])
	}
	// Readings of the first hour, written after the others: chunks that
	// overlap others in time, and a reading at an instant already taken.
	out = append(out, []Reading{
		{Time: t0.Add(5 * time.Minute), Values: []float64{99, 99}, Tags: []string{"late"}},
		{Time: t0.Add(7*time.Minute + 5*time.Second), Values: []float64{98, 98}},
		{Time: t0.Add(50 * time.Minute), Values: []float64{97, math.NaN()}},
	})
	return out
}

// writeFlushes writes each batch with Write and a Flush: one chunk item
// per batch, shard and hour.
func writeFlushes(t testing.TB, st *Store, k *Kind, id string, batches [][]Reading) {
	t.Helper()
	ctx := context.Background()
	for _, b := range batches {
		if err := k.Write(ctx, id, b...); err != nil {
			t.Fatal(err)
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func fmtReadings(rs []Reading) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s %v %q\n", r.Time.Format(time.RFC3339Nano), r.Values, r.Tags)
	}
	return b.String()
}

// snapshot is every read of series id of k over [t0, t0+3h) as text:
// ranges forward and reverse, whole and in pages, filtered, aggregates
// from the raw readings and the metric index.
func snapshot(t testing.TB, k *Kind, id string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	from, to := t0, t0.Add(3*time.Hour)
	for _, rev := range []bool{false, true} {
		p, err := k.Range(ctx, id, Query{From: from, To: to, Reverse: rev})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "range reverse=%v:\n%s", rev, fmtReadings(p.Readings))
		var paged []Reading
		cursor := ""
		for {
			p, err := k.Range(ctx, id, Query{From: from, To: to, Reverse: rev, PageSize: 97, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, p.Readings...)
			if cursor = p.Cursor; cursor == "" {
				break
			}
		}
		fmt.Fprintf(&b, "pages reverse=%v:\n%s", rev, fmtReadings(paged))
	}
	p, err := k.Range(ctx, id, Query{From: from.Add(30 * time.Minute), To: to, Limit: 50, Filter: []Filter{Field("b").Gt(6)}})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "filtered:\n%s", fmtReadings(p.Readings))
	for _, rev := range []bool{false, true} {
		p, err := k.Range(ctx, id, Query{From: from.Add(100 * time.Minute), To: from.Add(150 * time.Minute), Reverse: rev, Limit: 40})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "later hours reverse=%v:\n%s", rev, fmtReadings(p.Readings))
	}
	for _, step := range []time.Duration{10 * time.Minute, time.Hour, 3 * time.Hour} {
		a, err := k.Aggregate(ctx, id, AggregateQuery{From: from, To: to, Step: step})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "aggregate %v tier %v:\n", step, a.Tier)
		for _, p := range a.Periods {
			// Sums to 12 digits: summing in another order (per chunk,
			// per reading, per shard in parallel) changes the last bits.
			fmt.Fprintf(&b, "%s %s %d", p.Start.Format(time.RFC3339), p.End.Format(time.RFC3339), p.Count)
			for _, f := range p.Fields {
				fmt.Fprintf(&b, " {%d %.12g %v %v %v %v %s %s}", f.Count, f.Sum, f.Min, f.Max, f.First, f.Last,
					f.FirstTime.Format(time.RFC3339Nano), f.LastTime.Format(time.RFC3339Nano))
			}
			b.WriteByte('\n')
		}
	}
	if k.s.MetricIndex {
		for _, lo := range []time.Time{from, from.Add(100 * time.Minute)} {
			pts, err := k.MetricRange(ctx, "a", lo, to, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "metric from %s: %d points\n", lo.Format(time.RFC3339), len(pts))
			for _, p := range pts {
				fmt.Fprintf(&b, "%s %s %v\n", p.ID, p.Time.Format(time.RFC3339Nano), p.Value)
			}
		}
	}
	return b.String()
}

func wantSnapshot(t testing.TB, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("%s: reads differ at line %d (%d lines, want %d):\n got %s\nwant %s", what, i, len(gl), len(wl), gl[i], wl[i])
		}
	}
	t.Fatalf("%s: %d lines, want %d", what, len(gl), len(wl))
}

// chunkItems returns the number of chunk items and of merged chunk items
// of series id (every shard), read strongly consistent.
func chunkItemCount(t testing.TB, k *Kind, id string) (items, merged int) {
	t.Helper()
	for sh := 0; sh < k.s.Shards; sh++ {
		for item, err := range k.st.tbl.QueryAll(context.Background(), &table.Query{Hash: k.rawPK(id, sh), Consistent: true}) {
			if err != nil {
				t.Fatal(err)
			}
			items++
			if _, ok := item[attrSrc]; ok {
				merged++
			}
		}
	}
	return items, merged
}

// hourMarkers returns the compaction markers of hours of k: those of days
// wait for the day to end.
func hourMarkers(t testing.TB, k *Kind) []marker {
	t.Helper()
	ms, err := k.markersIn(context.Background(), k.compactPK(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []marker
	for _, m := range ms {
		if m.g != keys.Day {
			out = append(out, m)
		}
	}
	return out
}

// compactStore opens a store of compactSchema(shards) on b whose clock
// starts after the readings of compactReadings and their late window.
func compactStore(t *testing.T, b backend, shards int) (*Store, *Kind, *clock) {
	clk := newClock(t0.Add(4 * time.Hour))
	st := openStore(t, b.OpenOn(t, clk), testOptions(t, clk), compactSchema(shards))
	return st, mustKind(t, st, "C"), clk
}

// eachCompactStore runs fn on each backend with 1 and 3 shards, on a
// compactStore holding the flushes of compactReadings as series s1; on
// DynamoDB Local the two run in parallel, as eachLayout's layouts.
func eachCompactStore(t *testing.T, fn func(t *testing.T, st *Store, k *Kind, clk *clock, batches [][]Reading)) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, shards := range []int{1, 3} {
			t.Run(fmt.Sprint("shards=", shards), func(t *testing.T) {
				if onDynamo(b) {
					t.Parallel()
				}
				st, k, clk := compactStore(t, b, shards)
				batches := compactReadings()
				writeFlushes(t, st, k, "s1", batches)
				fn(t, st, k, clk, batches)
			})
		}
	})
}

// wantHourlyRollups runs a rollup pass and checks the hourly rollups of
// s1 over [t0, t0+3h) against the readings of batches, which it returns.
func wantHourlyRollups(t *testing.T, st *Store, k *Kind, batches [][]Reading) []Reading {
	t.Helper()
	ctx := context.Background()
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	var all []Reading
	for _, b := range batches {
		all = append(all, b...)
	}
	ps, err := k.Rollups(ctx, "s1", Hourly, t0, t0.Add(3*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantPeriods(t, "hourly rollups", ps, expect(all, 2, hourOf))
	return all
}

func TestCompact_SameReads(t *testing.T) {
	eachCompactStore(t, func(t *testing.T, st *Store, k *Kind, clk *clock, batches [][]Reading) {
		shards := k.s.Shards
		ctx := context.Background()
		before := snapshot(t, k, "s1")
		items0, _ := chunkItemCount(t, k, "s1")

		// First pass: merged chunks written, sources kept.
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		items1, merged1 := chunkItemCount(t, k, "s1")
		if merged1 < 3*shards || items1 != items0+merged1 {
			t.Fatalf("after the first pass: %d items, %d merged; before %d", items1, merged1, items0)
		}
		wantSnapshot(t, "merged chunks beside their sources", snapshot(t, k, "s1"), before)

		// Within the grace period nothing is deleted.
		clk.Advance(st.opts.CompactGrace / 2)
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		if n, _ := chunkItemCount(t, k, "s1"); n != items1 {
			t.Fatalf("within the grace period: %d items, want %d", n, items1)
		}

		// After it the sources go, and the markers.
		clk.Advance(st.opts.CompactGrace)
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		items2, merged2 := chunkItemCount(t, k, "s1")
		if items2 != merged2 || merged2 != merged1 {
			t.Fatalf("after the grace period: %d items, %d merged; want %d merged only", items2, merged2, merged1)
		}
		wantSnapshot(t, "merged chunks", snapshot(t, k, "s1"), before)
		if ms := hourMarkers(t, k); len(ms) != 0 {
			t.Fatalf("compaction markers of hours left: %v", ms)
		}

		// Again: nothing changes.
		clk.Advance(time.Hour)
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		if err := k.Compact(ctx, "s1", t0, t0.Add(3*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n, m := chunkItemCount(t, k, "s1"); n != items2 || m != merged2 {
			t.Fatalf("a second compaction changed the items: %d, %d merged", n, m)
		}
		wantSnapshot(t, "compacted twice", snapshot(t, k, "s1"), before)

		// Rollups computed from merged chunks count each reading
		// once.
		wantHourlyRollups(t, st, k, batches)
	})
}

// TestCompact_Day compacts the hours of a day as they end, then the day,
// once it ended, into one merged chunk per shard (its readings are few):
// reads, rollups and the metric index see the same readings throughout,
// and a reading that arrives after the day's compaction is merged in by
// the next one.
func TestCompact_Day(t *testing.T) {
	eachCompactStore(t, func(t *testing.T, st *Store, k *Kind, clk *clock, batches [][]Reading) {
		shards := k.s.Shards
		ctx := context.Background()
		var all []Reading
		for _, b := range batches {
			all = append(all, b...)
		}
		want := snapshot(t, k, "s1")
		compact := func(what string) {
			t.Helper()
			for range 2 {
				if err := st.Compact(ctx); err != nil {
					t.Fatal(err)
				}
				wantSnapshot(t, what, snapshot(t, k, "s1"), want)
				clk.Advance(st.opts.CompactGrace + time.Second)
			}
			if err := st.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			wantSnapshot(t, what, snapshot(t, k, "s1"), want)
		}

		// The hours: one merged chunk each, and a marker for the day.
		compact("hours compacted")
		if n, m := chunkItemCount(t, k, "s1"); n != m || m != 3*shards {
			t.Fatalf("hours compacted: %d items, %d merged; want %d merged", n, m, 3*shards)
		}
		ms, err := k.markersIn(ctx, k.compactPK(), "")
		if err != nil || len(ms) != 1 || ms[0].g != keys.Day {
			t.Fatalf("markers %v %v, want the day's", ms, err)
		}

		// The day, once it ended: one merged chunk per shard.
		clk.Set(t0.Add(24*time.Hour + st.opts.LateWindow))
		compact("day compacted")
		if n, m := chunkItemCount(t, k, "s1"); n != m || m != shards {
			t.Fatalf("day compacted: %d items, %d merged; want %d merged", n, m, shards)
		}
		if ms, err := k.markersIn(ctx, k.compactPK(), ""); err != nil || len(ms) != 0 {
			t.Fatalf("markers left: %v %v", ms, err)
		}

		// A late reading, merged into the day.
		late := Reading{Time: t0.Add(150*time.Minute + time.Second), Values: []float64{5, 5}, Tags: []string{"late"}}
		writeFlushes(t, st, k, "s1", [][]Reading{{late}})
		all = append(all, late)
		want = snapshot(t, k, "s1")
		compact("late reading compacted")
		if n, m := chunkItemCount(t, k, "s1"); n != m || m != shards {
			t.Fatalf("late reading compacted: %d items, %d merged; want %d merged", n, m, shards)
		}
		wantHourlyRollups(t, st, k, [][]Reading{all})
	})
}

// TestCompact_RollupDuringGrace computes rollups while merged chunks and
// their sources both exist.
func TestCompact_RollupDuringGrace(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st, k, _ := compactStore(t, b, 1)
		batches := compactReadings()
		writeFlushes(t, st, k, "s1", batches)
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		if _, m := chunkItemCount(t, k, "s1"); m == 0 {
			t.Fatal("no merged chunk")
		}
		all := wantHourlyRollups(t, st, k, batches)
		a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0, To: t0.Add(3 * time.Hour), Step: 30 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		wantPeriods(t, "raw aggregates", a.Periods, expect(all, 2, func(t time.Time) (time.Time, time.Time) {
			s := t.Truncate(30 * time.Minute)
			return s, s.Add(30 * time.Minute)
		}))
	})
}

// TestCompact_LateReadings writes readings into hours already compacted:
// they are read at once, and the next passes merge them in.
func TestCompact_LateReadings(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st, k, clk := compactStore(t, b, 1)
		writeFlushes(t, st, k, "s1", compactReadings())
		compactRounds(t, ctx, st, clk, 2)
		if n, m := chunkItemCount(t, k, "s1"); n != 3 || m != 3 {
			t.Fatalf("%d items, %d merged; want 3 merged", n, m)
		}
		late := [][]Reading{
			{{Time: t0.Add(time.Minute + time.Millisecond), Values: []float64{1, 2}, Tags: []string{"later"}}},
			{{Time: t0.Add(time.Minute), Values: []float64{3, 4}}, {Time: t0.Add(2 * time.Hour), Values: []float64{5, 6}}},
		}
		writeFlushes(t, st, k, "s1", late)
		// The reference: the same readings, never compacted.
		ref, rk, _ := compactStore(t, b, 1)
		writeFlushes(t, ref, rk, "s1", append(compactReadings(), late...))
		want := snapshot(t, rk, "s1")
		wantSnapshot(t, "late readings beside merged chunks", snapshot(t, k, "s1"), want)
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		wantSnapshot(t, "late readings merged", snapshot(t, k, "s1"), want)
		clk.Advance(st.opts.CompactGrace + time.Second)
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		if n, m := chunkItemCount(t, k, "s1"); n != 3 || m != 3 {
			t.Fatalf("%d items, %d merged; want 3 merged", n, m)
		}
		wantSnapshot(t, "late readings merged, sources deleted", snapshot(t, k, "s1"), want)
	})
}

// TestCompact_CursorAcrossCompaction resumes, after a compaction, cursors
// taken before it, at every reading of an instant several readings share.
func TestCompact_CursorAcrossCompaction(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st, k, clk := compactStore(t, b, 2)
		writeFlushes(t, st, k, "s1", compactReadings())
		q := Query{From: t0, To: t0.Add(time.Hour)}
		var cursors [2][]string
		var rests [2][]string
		for ri, rev := range []bool{false, true} {
			q.Reverse = rev
			it := k.Iter(ctx, "s1", q)
			for it.Next() {
				if r := it.Reading(); r.Time.Equal(t0) || r.Time.Equal(t0.Add(5*time.Minute)) {
					cursors[ri] = append(cursors[ri], it.Cursor())
					rests[ri] = append(rests[ri], "")
				}
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			for i, c := range cursors[ri] {
				q.Cursor = c
				p, err := k.Range(ctx, "s1", q)
				if err != nil {
					t.Fatal(err)
				}
				rests[ri][i] = fmtReadings(p.Readings)
			}
			q.Cursor = ""
		}
		compactRounds(t, ctx, st, clk, 2)
		if n, m := chunkItemCount(t, k, "s1"); n != m {
			t.Fatalf("%d items, %d merged", n, m)
		}
		for ri, rev := range []bool{false, true} {
			if len(cursors[ri]) < 4 {
				t.Fatalf("only %d cursors at shared instants", len(cursors[ri]))
			}
			for i, c := range cursors[ri] {
				p, err := k.Range(ctx, "s1", Query{From: t0, To: t0.Add(time.Hour), Reverse: rev, Cursor: c})
				if err != nil {
					t.Fatal(err)
				}
				wantSnapshot(t, fmt.Sprintf("reverse=%v cursor %d", rev, i), fmtReadings(p.Readings), rests[ri][i])
			}
		}
	})
}

// TestCompact_ConcurrentReaders reads while compactions merge and delete:
// every read returns every reading exactly once.
func TestCompact_ConcurrentReaders(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		st, k, clk := compactStore(t, b, 2)
		writeFlushes(t, st, k, "s1", compactReadings())
		q := Query{From: t0, To: t0.Add(3 * time.Hour)}
		p, err := k.Range(ctx, "s1", q)
		if err != nil {
			t.Fatal(err)
		}
		want := fmtReadings(p.Readings)
		var stop atomic.Bool
		var reads atomic.Int64
		var wg sync.WaitGroup
		errc := make(chan error, 4)
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					qq := q
					if w == 1 {
						qq.Reverse, qq.Limit = true, 0
					}
					p, err := k.Range(ctx, "s1", qq)
					if err != nil {
						errc <- err
						return
					}
					got := p.Readings
					if qq.Reverse {
						for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
							got[i], got[j] = got[j], got[i]
						}
					}
					if g := fmtReadings(got); g != want {
						errc <- fmt.Errorf("a read during compaction returned %d readings, want %d", len(got), len(p.Readings))
						return
					}
					reads.Add(1)
				}
			}()
		}
		compactRounds(t, ctx, st, clk, 3)
		// Let the readers see the final state too.
		for n := reads.Load(); reads.Load() < n+4 && len(errc) == 0; {
			time.Sleep(time.Millisecond)
		}
		stop.Store(true)
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		if n, m := chunkItemCount(t, k, "s1"); n != m {
			t.Fatalf("%d items, %d merged", n, m)
		}
	})
}

// TestCompact_TwoCompactors runs passes of two Stores on one table at
// the same time, with late readings between them: reads stay exact and
// the hours end as merged chunks only.
func TestCompact_TwoCompactors(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(4 * time.Hour))
		api, opts := openOn(t, b, clk)
		st, k := openKind(t, api, opts, compactSchema(2))
		other := mustOpen(t, ctx, api, opts, compactSchema(2))
		defer other.Close()
		batches := compactReadings()
		writeFlushes(t, st, k, "s1", batches)
		var all []Reading
		for _, b := range batches {
			all = append(all, b...)
		}
		for round := 0; round < 4; round++ {
			if round == 1 {
				late := []Reading{{Time: t0.Add(90 * time.Minute), Values: []float64{7, 7}}, {Time: t0.Add(10 * time.Minute), Values: []float64{8, 8}}}
				writeFlushes(t, other, mustKind(t, other, "C"), "s1", [][]Reading{late})
				all = append(all, late...)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, s := range []*Store{st, other} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = s.Compact(ctx)
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			p, err := k.Range(ctx, "s1", Query{From: t0, To: t0.Add(3 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Readings) != len(all) {
				t.Fatalf("round %d: %d readings, want %d", round, len(p.Readings), len(all))
			}
			a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0, To: t0.Add(3 * time.Hour), Step: 3 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Periods) != 1 || a.Periods[0].Count != int64(len(all)) {
				t.Fatalf("round %d: aggregate %+v, want %d readings", round, a.Periods, len(all))
			}
			clk.Advance(st.opts.CompactGrace + time.Second)
		}
		if n, m := chunkItemCount(t, k, "s1"); n != m || m != 6 {
			t.Fatalf("%d items, %d merged; want 6 merged (3 hours, 2 shards)", n, m)
		}
		if ms := hourMarkers(t, k); len(ms) != 0 {
			t.Fatalf("%d markers of hours left", len(ms))
		}
	})
}

// TestCompact_PausedIter pauses an iterator in the middle of a range,
// longer than the grace period, while the hours ahead of it are compacted
// and their sources deleted: it still returns every reading once.
func TestCompact_PausedIter(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, rev := range []bool{false, true} {
			t.Run(fmt.Sprint("reverse=", rev), func(t *testing.T) {
				ctx := context.Background()
				st, k, clk := compactStore(t, b, 1)
				// Flushes of 5 readings: many items per hour, read in pages.
				var batches [][]Reading
				for _, bt := range compactReadings() {
					for i := 0; i < len(bt); i += 5 {
						batches = append(batches, bt[i:min(i+5, len(bt))])
					}
				}
				writeFlushes(t, st, k, "s1", batches)
				q := Query{From: t0, To: t0.Add(3 * time.Hour), Reverse: rev, Limit: 2000}
				p, err := k.Range(ctx, "s1", q)
				if err != nil {
					t.Fatal(err)
				}
				want := fmtReadings(p.Readings)
				it := k.Iter(ctx, "s1", q)
				defer it.Close()
				var got []Reading
				for len(got) < 10 && it.Next() {
					got = append(got, it.Reading())
				}
				compactRounds(t, ctx, st, clk, 2)
				if n, m := chunkItemCount(t, k, "s1"); n != m {
					t.Fatalf("%d items, %d merged", n, m)
				}
				for it.Next() {
					got = append(got, it.Reading())
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				wantSnapshot(t, "paused iterator", fmtReadings(got), want)
			})
		}
	})
}

// failingAPI fails BatchWriteItem calls that delete, after the first
// allowed ones.
type failingAPI struct {
	timetable.API
	allowed atomic.Int64
}

var errInjected = errors.New("injected failure")

func (f *failingAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	for _, ws := range in.RequestItems {
		for _, w := range ws {
			if w.DeleteRequest != nil && f.allowed.Add(-1) < 0 {
				return nil, errInjected
			}
		}
	}
	return f.API.BatchWriteItem(ctx, in, o...)
}

// TestCompact_Crash stops compactions between writing merged chunks and
// deleting their sources, and part way through the deletes: reads stay
// correct, and a pass run again finishes the work.
func TestCompact_Crash(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(4 * time.Hour))
		api, opts := openOn(t, b, clk)
		st, k := openKind(t, api, opts, compactSchema(1))
		writeFlushes(t, st, k, "s1", compactReadings())
		want := snapshot(t, k, "s1")
		items0, _ := chunkItemCount(t, k, "s1")

		// A compactor (another Store on the same table) whose deletes fail:
		// the first one after 30 deletes.
		bad := &failingAPI{API: api}
		bad.allowed.Store(30)
		bo := *opts
		bo.TableOptions = &table.Options{RetryTimeout: time.Millisecond}
		cs := mustOpen(t, ctx, bad, &bo, compactSchema(1))
		defer cs.Close()
		if err := cs.Compact(ctx); err != nil {
			t.Fatal(err) // merged chunks written; nothing deleted yet
		}
		items1, merged1 := chunkItemCount(t, k, "s1")
		if merged1 != 3 || items1 != items0+3 {
			t.Fatalf("%d items, %d merged; want %d and 3", items1, merged1, items0+3)
		}
		wantSnapshot(t, "after the merged chunks were written", snapshot(t, k, "s1"), want)
		clk.Advance(st.opts.CompactGrace + time.Second)
		err := cs.Compact(ctx)
		if !errors.Is(err, errInjected) {
			t.Fatalf("compaction: %v, want the injected failure", err)
		}
		items2, _ := chunkItemCount(t, k, "s1")
		if items2 >= items1 || items2 <= 3 {
			t.Fatalf("%d items after the failed deletes, had %d", items2, items1)
		}
		wantSnapshot(t, "after a failure part way through the deletes", snapshot(t, k, "s1"), want)
		if ms := hourMarkers(t, k); len(ms) == 0 {
			t.Fatal("the markers of hours not done were deleted")
		}

		// Run again, by the healthy store.
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		if n, m := chunkItemCount(t, k, "s1"); n != 3 || m != 3 {
			t.Fatalf("%d items, %d merged; want 3 merged", n, m)
		}
		wantSnapshot(t, "after the compaction was run again", snapshot(t, k, "s1"), want)
		if ms := hourMarkers(t, k); len(ms) != 0 {
			t.Fatalf("%d markers of hours left", len(ms))
		}
	})
}

// TestCompact_Split merges an hour whose readings take more than one
// item may hold into several merged chunks.
func TestCompact_Split(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		fields := make([]string, 40)
		for i := range fields {
			fields[i] = fmt.Sprint("f", i)
		}
		clk := newClock(t0.Add(4 * time.Hour))
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "W", Fields: fields, NoRollups: true})
		// 1 Hz for an hour, 40 fields of noise: some 1 MB of chunks.
		var batches [][]Reading
		x := uint64(1)
		for i := 0; i < 3600; i += 600 {
			var bt []Reading
			for j := i; j < i+600; j++ {
				vs := make([]float64, len(fields))
				for f := range vs {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
					vs[f] = math.Float64frombits(x>>12 | 0x3ff0000000000000)
				}
				bt = append(bt, Reading{Time: t0.Add(time.Duration(j) * time.Second), Values: vs})
			}
			batches = append(batches, bt)
		}
		writeFlushes(t, st, k, "w", batches)
		p, err := k.Range(ctx, "w", Query{From: t0, To: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		want := fmtReadings(p.Readings)
		compactRounds(t, ctx, st, clk, 2)
		n, m := chunkItemCount(t, k, "w")
		if n != m || m < 4 {
			t.Fatalf("%d items, %d merged; want several merged only", n, m)
		}
		p, err = k.Range(ctx, "w", Query{From: t0, To: t0.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		wantSnapshot(t, "split merged chunks", fmtReadings(p.Readings), want)
		// They are done: another pass changes nothing.
		if err := k.Compact(ctx, "w", t0, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n2, m2 := chunkItemCount(t, k, "w"); n2 != n || m2 != m {
			t.Fatalf("%d items, %d merged after another pass; had %d", n2, m2, n)
		}
	})
}

// walkDay returns a day of 1 Hz readings from t0 of one field: a random
// walk with two decimals moving by up to step cents a reading.
func walkDay(step int64) []Reading {
	rs := make([]Reading, 86400)
	x, cents := uint64(7), int64(2000)
	for i := range rs {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		cents += int64(z%uint64(2*step+1)) - step
		rs[i] = Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{float64(cents) / 100}}
	}
	return rs
}

// TestCompact_DayReadUnits reads a day of 1 Hz readings written by
// 1-minute flushes, before and after compaction, and checks the read
// units the backend reports: at most 10 once compacted.
func TestCompact_DayReadUnits(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a day of readings")
	}
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(25 * time.Hour))
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "S", Fields: []string{"v"}, NoRollups: true})
		rs := walkDay(10)
		var batches [][]Reading
		for i := 0; i < len(rs); i += 60 {
			batches = append(batches, rs[i:i+60])
		}
		// Write the flushes' items directly, in batches (as 1,440 flushes
		// would, less slowly).
		var puts []table.WriteRequest
		recs, err := k.prepareNumbered("s", rs)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(recs); i += 60 {
			items, _, err := k.chunkItems("s", recs[i:i+60])
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				puts = append(puts, table.PutRequest(it))
			}
		}
		if err := st.tbl.BatchWrite(ctx, puts); err != nil {
			t.Fatal(err)
		}
		readDay := func() float64 {
			st.tbl.ResetStats()
			p, err := k.Range(ctx, "s", Query{From: t0, To: t0.Add(24 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			wantReadings(t, p.Readings, rs)
			return st.tbl.Stats().ReadUnits
		}
		small := readDay()
		if err := k.Compact(ctx, "s", t0, t0.Add(24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		clk.Advance(st.opts.CompactGrace + time.Second)
		st.tbl.ResetStats()
		if err := k.Compact(ctx, "s", t0, t0.Add(24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n, m := chunkItemCount(t, k, "s"); n != 24 || m != 24 {
			t.Fatalf("%d items, %d merged; want 24 merged", n, m)
		}
		merged := readDay()
		t.Logf("a day of 1 Hz readings: %.1f read units in %d chunks of 1-minute flushes, %.1f compacted", small, len(batches), merged)
		if merged > 10 {
			t.Errorf("a compacted day costs %.1f read units, want at most 10", merged)
		}
	})
}

// TestSrcMap round-trips source maps and checks the decoder refuses
// what it did not write.
func TestSrcMap(t *testing.T) {
	cases := []struct {
		seq []uint64
		idx []uint32
	}{
		{[]uint64{5, 5, 5, 9, 9}, []uint32{0, 1, 2, 0, 1}},                // two whole sources
		{[]uint64{5, 9, 5, 9, 5}, []uint32{0, 0, 1, 1, 2}},                // interleaved
		{[]uint64{9, 9, 2, 2}, []uint32{3, 4, 0, 1}},                      // part of a split source, decreasing seqs
		{[]uint64{1 << 63, 7, 1 << 63}, []uint32{0, 0, 2}},                // a gap in one source
		{[]uint64{3}, []uint32{0}},                                        // one reading
		{[]uint64{math.MaxUint64, 0, math.MaxUint64}, []uint32{0, 0, 1}},  // wrapping deltas
		{[]uint64{4, 4, 4, 4}, []uint32{0, 1, 2, 3}},                      // one source
		{[]uint64{8, 8, 6, 6, 8}, []uint32{100000, 100001, 0, 1, 100002}}, // starts
	}
	for i, c := range cases {
		m := buildSrcMap(1234567, c.seq, c.idx)
		raw := m.encode()
		d, err := decodeSrcMap(raw, len(c.seq))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if d.created != 1234567 {
			t.Fatalf("case %d: created %d", i, d.created)
		}
		seq, idx := make([]uint64, len(c.seq)), make([]uint32, len(c.seq))
		d.positions(seq, idx)
		for j := range seq {
			if seq[j] != c.seq[j] || idx[j] != c.idx[j] {
				t.Fatalf("case %d: position %d is (%d, %d), want (%d, %d)", i, j, seq[j], idx[j], c.seq[j], c.idx[j])
			}
		}
		if _, err := decodeSrcMap(raw, len(c.seq)+1); err == nil {
			t.Fatalf("case %d: decoded with the wrong reading count", i)
		}
		for cut := 0; cut < len(raw); cut++ {
			if _, err := decodeSrcMap(raw[:cut], len(c.seq)); err == nil {
				t.Fatalf("case %d: decoded %d of %d bytes", i, cut, len(raw))
			}
		}
		if m2 := buildSrcMap(99, c.seq, c.idx); m2.id() != m.id() {
			t.Fatalf("case %d: the id depends on the creation time", i)
		}
	}
	if len(buildSrcMap(0, []uint64{5, 5, 9}, []uint32{0, 1, 0}).encode()) > 8 {
		t.Error("sources in order take more than a few bytes")
	}
}

func TestCoverage(t *testing.T) {
	c := coverage{}
	c.add(1, 0, 10)
	c.add(1, 10, 20)
	c.add(2, 5, 6)
	c.normalize()
	in := coverage{}
	in.add(1, 3, 15)
	in.normalize()
	out := coverage{}
	out.add(1, 15, 21)
	out.normalize()
	other := coverage{}
	other.add(3, 0, 1)
	other.normalize()
	if !c.contains(in) || c.contains(out) || c.contains(other) || !c.contains(coverage{}) {
		t.Fatal("contains")
	}
	if !c.overlaps(out) || c.overlaps(other) {
		t.Fatal("overlaps")
	}
}

func FuzzSrcMap(f *testing.F) {
	f.Add(buildSrcMap(5, []uint64{5, 9, 5}, []uint32{0, 0, 1}).encode(), 3)
	f.Add(buildSrcMap(5, []uint64{8, 8}, []uint32{7, 8}).encode(), 2)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		m, err := decodeSrcMap(b, n)
		if err != nil {
			return
		}
		seq, idx := make([]uint64, n), make([]uint32, n)
		m.positions(seq, idx)
		// What decodes encodes to the same positions.
		m2 := buildSrcMap(m.created, seq, idx)
		d, err := decodeSrcMap(m2.encode(), n)
		if err != nil {
			t.Fatal(err)
		}
		s2, i2 := make([]uint64, n), make([]uint32, n)
		d.positions(s2, i2)
		for j := range seq {
			if s2[j] != seq[j] || i2[j] != idx[j] {
				t.Fatal("positions differ after a round trip")
			}
		}
	})
}

// compactRounds runs st.Compact n times, each time then moving clk past
// the store's CompactGrace, so that each round may delete the items the
// round before superseded. It fails t on an error.
func compactRounds(t *testing.T, ctx context.Context, st *Store, clk *clock, n int) {
	t.Helper()
	for range n {
		if err := st.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		clk.Advance(st.opts.CompactGrace + time.Second)
	}
}

// TestCompact_AtClose closes a Store with CompactAtClose after its
// readings' day ended: the close leaves one merged chunk per shard, no
// source and no marker, and the same reads (by a Store opened after).
// Without the option the close leaves the flushes' chunks.
func TestCompact_AtClose(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, atClose := range []bool{false, true} {
			t.Run(fmt.Sprint("atClose=", atClose), func(t *testing.T) {
				ctx := context.Background()
				const shards = 3
				clk := newClock(t0.Add(24*time.Hour + 10*time.Minute))
				api, opts := openOn(t, b, clk)
				_, k := openKind(t, api, opts, compactSchema(shards))
				wo := *opts
				wo.CompactAtClose = atClose
				ws := mustOpen(t, ctx, api, &wo, compactSchema(shards))
				writeFlushes(t, ws, mustKind(t, ws, "C"), "s1", compactReadings())
				want := snapshot(t, k, "s1")
				n0, _ := chunkItemCount(t, k, "s1")
				if err := ws.Close(); err != nil {
					t.Fatal(err)
				}
				// Read by a Store opened after the close: the Store read
				// before caches which days have day pieces for as long as
				// CompactGrace lets it.
				rs := mustOpen(t, ctx, api, opts, compactSchema(shards))
				defer rs.Close()
				k = mustKind(t, rs, "C")
				n, m := chunkItemCount(t, k, "s1")
				switch {
				case !atClose && n != n0:
					t.Fatalf("a close without compaction left %d items of %d", n, n0)
				case atClose && (n != shards || m != shards):
					t.Fatalf("after the close: %d items, %d merged; want %d merged", n, m, shards)
				}
				wantSnapshot(t, "after the close", snapshot(t, k, "s1"), want)
				ms, err := k.markersIn(ctx, k.compactPK(), "")
				if err != nil || (atClose && len(ms) != 0) || (!atClose && len(ms) == 0) {
					t.Fatalf("markers after the close: %d, %v", len(ms), err)
				}
			})
		}
	})
}

// TestHalfTimeLeft: the compaction at close ends with Shutdown's context,
// or at half the time it had left; without a deadline, with it alone.
func TestHalfTimeLeft(t *testing.T) {
	parent, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	ctx, stop := halfTimeLeft(parent)
	d, ok := ctx.Deadline()
	pd, _ := parent.Deadline()
	if !ok || d.After(pd) || time.Until(d) > 30*time.Minute || time.Until(d) < 29*time.Minute {
		t.Errorf("deadline %v from now, want half of the parent's %v", time.Until(d), time.Until(pd))
	}
	stop()
	if ctx.Err() == nil {
		t.Error("not ended by its cancel")
	}
	ctx, stop = halfTimeLeft(context.Background())
	defer stop()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a deadline without the parent's")
	}
}
