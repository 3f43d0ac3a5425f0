package series

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/timetable-db/timetable/table"
)

// putFlushes writes the chunk items of readings rs of series id in flushes
// of n readings, directly (as the flushes would, less slowly).
func putFlushes(t testing.TB, k *Kind, id string, rs []Reading, n int) {
	t.Helper()
	recs, err := k.prepareNumbered(id, rs)
	if err != nil {
		t.Fatal(err)
	}
	var puts []table.WriteRequest
	for i := 0; i < len(recs); i += n {
		items, _, err := k.chunkItems(id, recs[i:min(i+n, len(recs))])
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			puts = append(puts, table.PutRequest(it))
		}
	}
	if err := k.st.tbl.BatchWrite(context.Background(), puts); err != nil {
		t.Fatal(err)
	}
}

// TestReadUnits_ShortReads counts the read units of short reads of a 1 Hz
// series late in a day whose hours are compacted (dense: no day piece), and
// of a sparse series whose day is compacted into one piece: a read of the
// last hour, and of the newest 10 readings, cost what one hour of chunks
// costs, not the day's chunks from midnight. Units are deterministic.
func TestReadUnits_ShortReads(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a day of readings")
	}
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := t0.Add(23*time.Hour + 30*time.Minute)
		clk := newClock(now)
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "S", Fields: []string{"v"}, NoRollups: true})
		all := walkDay(10)
		rs := all[:int(now.Sub(t0)/time.Second)]
		putFlushes(t, k, "s", rs, 300)
		compact := func(id string, from, to time.Time) {
			t.Helper()
			for range 2 {
				if err := k.Compact(ctx, id, from, to); err != nil {
					t.Fatal(err)
				}
				clk.Advance(st.opts.CompactGrace + time.Second)
			}
		}
		compact("s", t0, now)
		clk.Set(now)
		// A sparse series, one reading a minute, of the day before: one
		// piece once compacted.
		var sparse []Reading
		for i := 0; i < len(all); i += 60 {
			r := all[i]
			r.Time = r.Time.Add(-24 * time.Hour)
			sparse = append(sparse, r)
		}
		putFlushes(t, k, "m", sparse, 5)
		compact("m", t0.Add(-24*time.Hour), t0)
		clk.Set(now)
		if n, m := chunkItemCount(t, k, "m"); n != 1 || m != 1 {
			t.Fatalf("sparse day: %d items, %d merged; want 1 merged", n, m)
		}
		dayEnd := t0
		units := func(id string, q Query, want []Reading) float64 {
			t.Helper()
			st.tbl.ResetStats()
			p, err := k.Range(ctx, id, q)
			if err != nil {
				t.Fatal(err)
			}
			wantReadings(t, p.Readings, want)
			return st.tbl.Stats().ReadUnits
		}
		rev := func(rs []Reading) []Reading {
			out := make([]Reading, len(rs))
			for i, r := range rs {
				out[len(rs)-1-i] = r
			}
			return out
		}
		cases := []struct {
			name string
			id   string
			q    Query
			want []Reading
			max  float64
		}{
			{"dense, last hour", "s", Query{From: now.Add(-time.Hour), To: now}, rs[len(rs)-3600:], 1.5},
			{"dense, newest 10", "s", Query{Reverse: true, Limit: 10}, rev(rs[len(rs)-10:]), 1.5},
			{"sparse, last hour of the day", "m", Query{From: dayEnd.Add(-time.Hour), To: dayEnd}, sparse[len(sparse)-60:], 1},
			{"sparse, newest 10", "m", Query{Reverse: true, Limit: 10}, rev(sparse[len(sparse)-10:]), 1},
		}
		for _, c := range cases {
			u := units(c.id, c.q, c.want)
			t.Logf("%s: %.1f read units", c.name, u)
			if u > c.max {
				t.Errorf("%s: %.1f read units, want at most %.1f", c.name, u, c.max)
			}
		}
	})
}

// TestCompact_PausedIterDayPiece pauses iterators that read a sparse
// day's chunks hour by hour while the day is compacted into one piece and
// its sources deleted: they resume with the piece, without skipping or
// repeating a reading, forward and reverse.
func TestCompact_PausedIterDayPiece(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, rev := range []bool{false, true} {
			t.Run(fmt.Sprint("reverse=", rev), func(t *testing.T) {
				ctx := context.Background()
				clk := newClock(t0.Add(25 * time.Hour))
				st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "S", Fields: []string{"v"}, NoRollups: true})
				var rs []Reading
				for i, r := range walkDay(10) {
					if i%60 == 0 {
						rs = append(rs, r)
					}
				}
				putFlushes(t, k, "s", rs, 5)
				q := Query{From: t0.Add(90 * time.Minute), To: t0.Add(22 * time.Hour), Reverse: rev, Limit: 2000}
				p, err := k.Range(ctx, "s", q)
				if err != nil {
					t.Fatal(err)
				}
				want := fmtReadings(p.Readings)
				it := k.Iter(ctx, "s", q)
				defer it.Close()
				var got []Reading
				for len(got) < 100 && it.Next() {
					got = append(got, it.Reading())
				}
				for range 2 {
					if err := k.Compact(ctx, "s", t0, t0.Add(24*time.Hour)); err != nil {
						t.Fatal(err)
					}
					clk.Advance(st.opts.CompactGrace + time.Second)
				}
				if n, m := chunkItemCount(t, k, "s"); n != 1 || m != 1 {
					t.Fatalf("%d items, %d merged; want one day piece", n, m)
				}
				for it.Next() {
					got = append(got, it.Reading())
				}
				if err := it.Err(); err != nil {
					t.Fatal(err)
				}
				wantSnapshot(t, "paused iterator", fmtReadings(got), want)
				// And a read of the compacted day.
				p, err = k.Range(ctx, "s", q)
				if err != nil {
					t.Fatal(err)
				}
				wantSnapshot(t, "after", fmtReadings(p.Readings), want)
			})
		}
	})
}
