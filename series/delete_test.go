package series

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/table"
)

// deleteFrom removes the readings of [from, to) (bounds as Delete's) from
// want (oldest first).
func deleteFrom(want []Reading, from, to time.Time) []Reading {
	lo, hi := span(from, to)
	var out []Reading
	for _, r := range want {
		if ms := timeMs(r.Time); ms < lo || ms >= hi {
			out = append(out, r)
		}
	}
	return out
}

// deleteCase is two ranges to delete, one after the other.
type deleteCase struct {
	name           string
	from1, to1     time.Time
	from2, to2     time.Time
	wantEmptyAfter bool
}

var deleteCases = []deleteCase{
	// Bounds inside hours and days; from1 half a millisecond after a
	// reading, which stays (bounds round up).
	{name: "middle", from1: t0.Add(5*time.Hour + 33*time.Minute + 500*time.Microsecond), to1: t0.Add(20 * time.Hour),
		from2: t0.Add(22*time.Hour + 7*time.Minute), to2: t0.Add(25 * time.Hour)},
	{name: "start", to1: t0.Add(3*time.Hour + 30*time.Minute), to2: t0.Add(26 * time.Hour)},
	{name: "end", from1: t0.Add(30 * time.Hour), from2: t0.Add(24 * time.Hour)},
	{name: "all", wantEmptyAfter: true},
	{name: "nothing", from1: t0.Add(-20 * time.Hour), to1: t0.Add(-10 * time.Hour), from2: t0.Add(60 * time.Hour), to2: t0.Add(70 * time.Hour)},
}

// deleteReadings are the readings of the Delete tests: every 37 minutes
// over 41 hours, three at some instants (in separate calls, so in
// separate chunks and batches), some with a field missing.
func deleteReadings(part int) []Reading {
	var rs []Reading
	for i := 0; i*37 < 41*60; i++ {
		d := time.Duration(i*37) * time.Minute
		if i%2 == part {
			rs = append(rs, rd(d, float64(i), fmt.Sprint("g", i%3)))
		}
		if i%5 == 0 && part == 1 {
			rs = append(rs, Reading{Time: t0.Add(d), Values: []float64{float64(100 + i), 1}, Tags: []string{"dup"}})
		}
	}
	return rs
}

// TestDelete deletes ranges of a series on every layout, with and without
// shards: readings written and rolled up (and compacted, for chunks),
// then readings still buffered. Every read path must return the model's
// readings after each Delete, after a rollup pass, after a restart that
// replays the write-ahead log (no deleted reading comes back) and after a
// compaction; the rollups must be right at once after a Delete of rolled
// up readings.
func TestDelete(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			for _, shards := range deleteShards(b) {
				for _, c := range deleteCases {
					t.Run(fmt.Sprintf("%s/shards=%d/%s", l, shards, c.name), func(t *testing.T) {
						if onDynamo(b) || testing.Short() {
							t.Parallel()
						}
						testDelete(t, b, l, shards, c)
					})
				}
			}
		}
	})
}

// deleteShards are the shard counts the delete tests run with: 1 and 3 on
// the engine; 3 alone on DynamoDB Local, where each case costs seconds (the
// code paths are the same, the sharded one covering the unsharded).
func deleteShards(b backend) []int {
	if onDynamo(b) {
		return []int{3}
	}
	return []int{1, 3}
}

func testDelete(t *testing.T, b backend, l Layout, shards int, c deleteCase) {
	ctx := context.Background()
	clk := newClock(t0.Add(50 * time.Hour))
	sc := rgSchema(l, shards, KeepAll)
	api, opts := openOn(t, b, clk)
	opts.WALDir = t.TempDir()
	st, k := openKind(t, api, opts, sc)
	m := newModel(KeepAll, sc)
	// Written, rolled up, compacted.
	m.apply(t, ctx, k.WriteSync, "s", deleteReadings(0)...)
	for _, r := range deleteReadings(1) {
		m.apply(t, ctx, k.WriteSync, "s", r)
	}
	if err := k.WriteSync(ctx, "other", rd(time.Hour, 1, "o")); err != nil {
		t.Fatal(err)
	}
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if l == Chunks {
		compactTwice(t, ctx, clk, k, "s")
	}
	want := m.want()
	checkReads(t, ctx, k, "s", want, "before", readsOpts{rollups: true})

	if err := k.Delete(ctx, "s", c.from1, c.to1); err != nil {
		t.Fatal(err)
	}
	want = deleteFrom(want, c.from1, c.to1)
	checkReads(t, ctx, k, "s", want, "deleted", readsOpts{rollups: true, pages: true})

	// Buffered readings (in the log), some of them in the next range.
	buffered := []Reading{rd(23*time.Hour+1*time.Minute, 7, "b"), rd(40*time.Hour+1*time.Minute, 8, "b"), rd(2*time.Hour, 9, "b")}
	m2 := newModel(KeepAll, sc)
	m2.rs = append(m2.rs, want...)
	m2.apply(t, ctx, k.Write, "s", buffered...)
	want = m2.want()
	checkReads(t, ctx, k, "s", want, "buffered", readsOpts{buffered: true})
	if err := k.Delete(ctx, "s", c.from2, c.to2); err != nil {
		t.Fatal(err)
	}
	want = deleteFrom(want, c.from2, c.to2)
	checkReads(t, ctx, k, "s", want, "buffered deleted", readsOpts{pages: true})
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	checkReads(t, ctx, k, "s", want, "rolled up", readsOpts{rollups: true})
	checkReads(t, ctx, k, "other", []Reading{m.norm(rd(time.Hour, 1, "o"))}, "other series", readsOpts{rollups: true})

	// A restart replays the log: nothing deleted comes back.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := reopen(t, api, opts, sc)
	k = mustKind(t, st2, "RG")
	checkReads(t, ctx, k, "s", want, "reopened", readsOpts{rollups: true})
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if l == Chunks {
		compactTwice(t, ctx, clk, k, "s")
		checkReads(t, ctx, k, "s", want, "compacted after delete", readsOpts{rollups: true, pages: true})
	}
	if c.wantEmptyAfter {
		if len(want) != 0 {
			t.Fatalf("case %s: the model keeps %d readings", c.name, len(want))
		}
		if _, err := k.Latest(ctx, "s"); err != ErrNotFound {
			t.Errorf("Latest after deleting everything: %v, want ErrNotFound", err)
		}
		for _, tier := range []Tier{Hourly, Daily, Monthly} {
			if ps, err := k.Rollups(ctx, "s", tier, time.Time{}, time.Time{}); err != nil || len(ps) != 0 {
				t.Errorf("%s rollups after deleting everything: %v, %v", tier, ps, err)
			}
		}
	}
}

// compactTwice compacts series id of k, waits out CompactGrace and
// compacts again, so that merged chunks replace their sources.
func compactTwice(t *testing.T, ctx context.Context, clk *clock, k *Kind, id string) {
	t.Helper()
	for i := 0; i < 2; i++ {
		if err := k.Compact(ctx, id, time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(k.st.opts.CompactGrace + time.Minute)
	}
}

// Deleting part of a chunk item keeps the remaining readings' positions:
// a cursor taken before the Delete resumes after the same reading, and
// readings of one instant keep their order (KeepAll), also when the
// merged chunk and its sources both still exist (within CompactGrace).
func TestDelete_ChunkPositions(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(50 * time.Hour))
		sc := rgSchema(Chunks, 1, KeepAll)
		_, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
		m := newModel(KeepAll, sc)
		for i := 0; i < 3; i++ {
			// Three flushes at the same instants: ties across chunks.
			var rs []Reading
			for j := 0; j < 10; j++ {
				rs = append(rs, rd(time.Duration(j)*time.Minute, float64(10*i+j), fmt.Sprint(i)))
			}
			m.apply(t, ctx, k.WriteSync, "s", rs...)
		}
		// Merged, sources kept (within CompactGrace).
		if err := k.Compact(ctx, "s", time.Time{}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		want := m.want()
		p, err := k.Range(ctx, "s", Query{PageSize: 7})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, want[:7])
		from, to := t0.Add(5*time.Minute), t0.Add(7*time.Minute)
		if err := k.Delete(ctx, "s", from, to); err != nil {
			t.Fatal(err)
		}
		want = deleteFrom(want, from, to)
		rest, err := rangeAll(ctx, k, "s", Query{Cursor: p.Cursor, PageSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, rest, want[7:])
		checkReads(t, ctx, k, "s", want, "deleted", readsOpts{pages: true})
		compactTwice(t, ctx, clk, k, "s")
		checkReads(t, ctx, k, "s", want, "compacted", readsOpts{pages: true})
	})
}

// DeleteSeries leaves nothing of the series in the table (readings of
// every layout and shard, rollups, latest, markers, day directory) and
// nothing of the other series is touched; writing the series again
// starts it anew.
func TestDeleteSeries(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			for _, shards := range deleteShards(b) {
				t.Run(fmt.Sprintf("%s/shards=%d", l, shards), func(t *testing.T) {
					if onDynamo(b) || testing.Short() {
						t.Parallel()
					}
					testDeleteSeries(t, b, l, shards)
				})
			}
		}
	})
}

func testDeleteSeries(t *testing.T, b backend, l Layout, shards int) {
	ctx := context.Background()
	clk := newClock(t0.Add(50 * time.Hour))
	sc := rgSchema(l, shards, LastWins)
	sc.MetricIndex = true
	api, opts := openOn(t, b, clk)
	opts.WALDir = t.TempDir()
	st, k := openKind(t, api, opts, sc)
	if err := k.WriteSync(ctx, "s", deleteReadings(0)...); err != nil {
		t.Fatal(err)
	}
	other := []Reading{rd(time.Hour, 1, "o"), rd(30*time.Hour, 2, "o")}
	if err := k.WriteSync(ctx, "s2", other...); err != nil {
		t.Fatal(err)
	}
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if l == Chunks {
		compactTwice(t, ctx, clk, k, "s")
	}
	// Markers of both kinds left, and buffered readings.
	if err := k.Write(ctx, "s", deleteReadings(1)...); err != nil {
		t.Fatal(err)
	}
	if err := k.DeleteSeries(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if n := seriesItems(t, ctx, st, "s"); len(n) > 0 {
		t.Errorf("after DeleteSeries, the table holds %d items of the series: %v", len(n), n)
	}
	m := newModel(LastWins, sc)
	checkReads(t, ctx, k, "s", nil, "deleted", readsOpts{rollups: true})
	if _, err := k.Latest(ctx, "s"); err != ErrNotFound {
		t.Errorf("Latest: %v, want ErrNotFound", err)
	}
	for _, r := range other {
		m.write(r)
	}
	checkReads(t, ctx, k, "s2", m.want(), "other series", readsOpts{rollups: true})
	// A restart brings back nothing.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := reopen(t, api, opts, sc)
	k = mustKind(t, st2, "RG")
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n := seriesItems(t, ctx, st2, "s"); len(n) > 0 {
		t.Errorf("after a restart, the table holds %d items of the series: %v", len(n), n)
	}
	// Written again: a new series, rollups computed by the next pass.
	again := []Reading{rd(2*time.Hour, 5, "a")}
	if err := k.Write(ctx, "s", again...); err != nil {
		t.Fatal(err)
	}
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st2.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	m = newModel(LastWins, sc)
	m.write(again...)
	checkReads(t, ctx, k, "s", m.want(), "written again", readsOpts{rollups: true})
}

// seriesItems returns the keys of the items of series id (of kind RG)
// the table holds, markers included.
func seriesItems(t *testing.T, ctx context.Context, st *Store, id string) []string {
	t.Helper()
	var out []string
	for item, err := range st.Table().ScanAll(ctx, &table.Scan{Consistent: true}) {
		if err != nil {
			t.Fatal(err)
		}
		pk, _ := getS(item, attrPK)
		sk, _ := getS(item, attrSK)
		mine := pk == "RG#"+id || strings.HasPrefix(pk, "RG#"+id+"#")
		if strings.HasPrefix(pk, "~") {
			mine = strings.HasPrefix(sk, id+"#")
		}
		if mine {
			out = append(out, pk+" "+sk)
		}
	}
	return out
}

// Delete and DeleteSeries check their arguments and the Store.
func TestDelete_Invalid(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0)
	st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), rgSchema(Chunks, 1, LastWins))
	for _, id := range []string{"", "a#b"} {
		if err := k.Delete(ctx, id, time.Time{}, time.Time{}); err == nil {
			t.Errorf("Delete(%q): no error", id)
		}
		if err := k.DeleteSeries(ctx, id); err == nil {
			t.Errorf("DeleteSeries(%q): no error", id)
		}
	}
	// An empty range deletes nothing.
	if err := k.WriteSync(ctx, "s", rd(time.Hour, 1, "x")); err != nil {
		t.Fatal(err)
	}
	if err := k.Delete(ctx, "s", t0.Add(2*time.Hour), t0); err != nil {
		t.Fatal(err)
	}
	checkReads(t, ctx, k, "s", newModelOf(k.Schema(), []Reading{rd(time.Hour, 1, "x")}), "empty range", readsOpts{})
	st.Close()
	if err := k.Delete(ctx, "s", time.Time{}, time.Time{}); err != ErrClosed {
		t.Errorf("Delete after Close: %v, want ErrClosed", err)
	}
	if err := k.DeleteSeries(ctx, "s"); err != ErrClosed {
		t.Errorf("DeleteSeries after Close: %v, want ErrClosed", err)
	}
}
