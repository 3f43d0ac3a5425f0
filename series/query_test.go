package series

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
)

// sensorReadings returns n readings every step from start: temperature
// a random-walk-like sequence with two decimals, humidity absent on every
// fifth, and a location tag.
func sensorReadings(start time.Time, step time.Duration, n int) []Reading {
	rs := make([]Reading, n)
	for i := range rs {
		hum := 40 + float64(i%7)
		if i%5 == 4 {
			hum = math.NaN()
		}
		rs[i] = Reading{
			Time:   start.Add(time.Duration(i) * step),
			Values: []float64{20 + float64(i%13)*0.25, hum},
			Tags:   []string{fmt.Sprintf("room-%d", i%3)},
		}
	}
	return rs
}

func sensorSchema(l Layout) Schema {
	return Schema{Name: "SENSOR", Fields: []string{"temperature", "humidity"}, Tags: []string{"location"}, Layout: l}
}

func TestRange_Layouts(t *testing.T) {
	eachLayout(t, t0.Add(72*time.Hour), func(l Layout) Schema { return sensorSchema(l) }, func(t *testing.T, e layoutEnv) {
		ctx, k := e.ctx, e.k
		rs := sensorReadings(t0.Add(-30*time.Minute), 7*time.Minute, 300) // ~35 hours, over 3 days
		// Two writes, the second one out of order, as a client may.
		if err := k.WriteSync(ctx, "s1", rs[150:]...); err != nil {
			t.Fatal(err)
		}
		if err := k.WriteSync(ctx, "s1", rs[:150]...); err != nil {
			t.Fatal(err)
		}
		all, err := k.Range(ctx, "s1", Query{})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, all.Readings, rs)
		if all.Cursor != "" {
			t.Errorf("cursor %q after everything", all.Cursor)
		}

		// Between, half-open.
		from, to := rs[40].Time, rs[90].Time
		p, err := k.Range(ctx, "s1", Query{From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, rs[40:90])

		// Since.
		p, err = k.Range(ctx, "s1", Query{From: rs[290].Time.Add(-time.Millisecond)})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, rs[290:])

		// Newest 5.
		p, err = k.Range(ctx, "s1", Query{Reverse: true, PageSize: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(rs[295:])
		slices.Reverse(want)
		wantReadings(t, p.Readings, want)
		if p.Cursor == "" {
			t.Error("no cursor after a full page")
		}
		// Limit is a total: the page that reaches it has no cursor.
		p, err = k.Range(ctx, "s1", Query{Reverse: true, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, want)
		if p.Cursor != "" {
			t.Error("a cursor after the limit")
		}

		// Filters.
		p, err = k.Range(ctx, "s1", Query{Filter: []Filter{Tag("location").Eq("room-1"), Field("temperature").Gt(22)}})
		if err != nil {
			t.Fatal(err)
		}
		want = nil
		for _, r := range rs {
			if r.Tags[0] == "room-1" && r.Values[0] > 22 {
				want = append(want, r)
			}
		}
		wantReadings(t, p.Readings, want)
		p, err = k.Range(ctx, "s1", Query{Filter: []Filter{Field("humidity").Absent()}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Readings) != 60 {
			t.Errorf("%d readings without humidity, want 60", len(p.Readings))
		}

		// Pages with a cursor, forward and reverse, with a filter.
		for _, rev := range []bool{false, true} {
			q := Query{PageSize: 7, Reverse: rev, Filter: []Filter{Tag("location").In("room-0", "room-2")}}
			got, _ := rangePages(t, ctx, k, "s1", q, 101)
			want = nil
			for _, r := range rs {
				if r.Tags[0] != "room-1" {
					want = append(want, r)
				}
			}
			if rev {
				slices.Reverse(want)
			}
			wantReadings(t, got, want)
		}

		// Iterator and iter.Seq2.
		it := k.Iter(ctx, "s1", Query{From: rs[10].Time, Limit: 3})
		var got []Reading
		for it.Next() {
			got = append(got, it.Reading())
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		wantReadings(t, got, rs[10:13])
		got = nil
		for r, err := range k.All(ctx, "s1", Query{To: rs[3].Time}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		wantReadings(t, got, rs[:3])

		// Latest.
		r, err := k.Latest(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, []Reading{r}, rs[len(rs)-1:])
		if _, err := k.Latest(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Latest of an unknown series: %v, want ErrNotFound", err)
		}
		// A bad cursor.
		if _, err := k.Range(ctx, "s1", Query{Cursor: "nonsense"}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("bad cursor: %v", err)
		}
	})
}

// TestMergeRuns merges runs that overlap, touch, repeat positions (a
// merged chunk and its source) or are empty.
func TestMergeRuns(t *testing.T) {
	run := func(ps ...pos) *rbatch {
		b := &rbatch{nf: 1}
		for _, p := range ps {
			b.t, b.seq, b.idx = append(b.t, p.t), append(b.seq, p.seq), append(b.idx, p.idx)
			b.vals = append(b.vals, float64(p.t))
		}
		return b
	}
	p := func(t int64, seq uint64, idx uint32) pos { return pos{t, seq, idx} }
	got := concatRuns(mergeRuns([]*rbatch{
		run(p(5, 1, 0), p(6, 1, 1), p(9, 1, 2)),
		run(),
		run(p(1, 2, 0), p(2, 2, 1)),
		run(p(5, 1, 0), p(7, 3, 0), p(9, 1, 2)), // a copy of two readings of the first
		run(p(20, 4, 0)),
	}, true))
	want := []pos{p(1, 2, 0), p(2, 2, 1), p(5, 1, 0), p(6, 1, 1), p(7, 3, 0), p(9, 1, 2), p(20, 4, 0)}
	if got.len() != len(want) {
		t.Fatalf("%d readings, want %d", got.len(), len(want))
	}
	for i, w := range want {
		if got.pos(i) != w || got.vals[i] != float64(w.t) {
			t.Fatalf("reading %d: %v %v, want %v", i, got.pos(i), got.vals[i], w)
		}
	}
}

// TestRange_DayPageOneAllocation reads a day of 1 Hz chunks (read an hour
// at a time: the day has no piece) with Range, before and after the
// hours are compacted, and checks that the page was sized once for the
// day (from the counts of the items read but not yet decoded), not grown
// hour by hour.
func TestRange_DayPageOneAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a day of readings")
	}
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		now := t0.Add(25 * time.Hour)
		clk := newClock(now)
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), Schema{Name: "S", Fields: []string{"v"}, NoRollups: true})
		rs := walkDay(10)
		putFlushes(t, k, "s", rs, 300)
		q := Query{From: t0, To: t0.Add(24 * time.Hour)}
		check := func(when string) {
			t.Helper()
			p, err := k.Range(ctx, "s", q)
			if err != nil {
				t.Fatal(err)
			}
			// The allocator rounds a capacity up a little; a page grown
			// by appends ends with a quarter or more to spare.
			if len(p.Readings) != len(rs) || cap(p.Readings) > len(rs)+len(rs)/64 {
				t.Errorf("%s: %d readings in a page of capacity %d, want %d in one of about as many", when, len(p.Readings), cap(p.Readings), len(rs))
			}
		}
		check("flushed")
		for range 2 {
			if err := k.Compact(ctx, "s", t0, t0.Add(24*time.Hour)); err != nil {
				t.Fatal(err)
			}
			clk.Advance(st.opts.CompactGrace + time.Second)
		}
		if n, m := chunkItemCount(t, k, "s"); n != 24 || m != 24 {
			t.Fatalf("%d items, %d merged; want the 24 hours merged", n, m)
		}
		check("compacted")
	})
}

// RangeFunc hands over the readings and returns the cursor of the page
// Range returns, for every layout, in both directions, page by page with
// a limit and a filter; an error of its function ends the read.
func TestRangeFunc_SameAsRange(t *testing.T) {
	eachLayout(t, t0.Add(72*time.Hour), func(l Layout) Schema { return sensorSchema(l) }, func(t *testing.T, e layoutEnv) {
		ctx, k := e.ctx, e.k
		rs := sensorReadings(t0.Add(-30*time.Minute), 7*time.Minute, 300)
		if err := k.WriteSync(ctx, "s1", rs...); err != nil {
			t.Fatal(err)
		}
		for _, q := range []Query{
			{PageSize: 37},
			{Reverse: true, PageSize: 50, Limit: 120},
			{From: rs[10].Time, To: rs[200].Time, PageSize: 64, Filter: []Filter{Field("humidity").Exists()}},
		} {
			pages := 0
			for {
				want, err := k.Range(ctx, "s1", q)
				if err != nil {
					t.Fatal(err)
				}
				var got []Reading
				cur, err := k.RangeFunc(ctx, "s1", q, func(r Reading) error {
					got = append(got, Reading{Time: r.Time, Values: slices.Clone(r.Values), Tags: slices.Clone(r.Tags)})
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				wantReadings(t, got, want.Readings)
				if cur != want.Cursor {
					t.Fatalf("%+v page %d: cursor %q, Range's %q", q, pages, cur, want.Cursor)
				}
				pages++
				if cur == "" {
					break
				}
				q.Cursor = cur
			}
			if pages < 2 {
				t.Errorf("%+v: %d pages, want several", q, pages)
			}
		}
		stop := errors.New("stop")
		n := 0
		if _, err := k.RangeFunc(ctx, "s1", Query{}, func(Reading) error { n++; return stop }); err != stop || n != 1 {
			t.Errorf("RangeFunc with a failing function: %v after %d readings, want stop after 1", err, n)
		}
	})
}
