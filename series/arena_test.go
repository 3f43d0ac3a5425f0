package series

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestArenaReuse_NoLeak reads chunks decoded into reused columns (see
// colArena) in every way that holds readings: iterations over two
// series at once, readings kept past Next, Range pages and RangeFunc
// over random ranges in both directions, iterations left before their
// end with or without Close; each read must give the readings written,
// as a fresh decode does. Series x has hours merged with their sources
// still there (overlapping items), y only flushed chunks.
func TestArenaReuse_NoLeak(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(48 * time.Hour))
	st := openStore(t, openEngine(t, clk), testOptions(t, clk), Schema{Name: "S", Fields: []string{"a", "b"}, NoRollups: true})
	k := mustKind(t, st, "S")
	const n = 1500 // over 4 hours at 10 s
	written := map[string][]Reading{}
	for si, id := range []string{"x", "y"} {
		rs := make([]Reading, n)
		for i := range rs {
			v := float64(i) + float64(si)*1e6
			rs[i] = Reading{Time: t0.Add(time.Duration(i) * 10 * time.Second), Values: []float64{v, -v / 4}}
		}
		for i := 0; i < n; i += 97 {
			if err := k.Write(ctx, id, rs[i:min(i+97, n)]...); err != nil {
				t.Fatal(err)
			}
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		written[id] = rs
	}
	// x's hours merged, their sources kept (CompactGrace not passed).
	if err := k.Compact(ctx, "x", t0, t0.Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	want := func(id string, q Query) []Reading {
		var out []Reading
		for _, r := range written[id] {
			if (q.From.IsZero() || !r.Time.Before(q.From)) && (q.To.IsZero() || r.Time.Before(q.To)) {
				out = append(out, r)
			}
		}
		if q.Reverse {
			slices.Reverse(out)
		}
		return out
	}

	t.Run("two iterations at once, readings kept", func(t *testing.T) {
		itx, ity := k.Iter(ctx, "x", Query{}), k.Iter(ctx, "y", Query{Reverse: true})
		defer itx.Close()
		defer ity.Close()
		var gx, gy []Reading
		for {
			okx, oky := itx.Next(), ity.Next()
			if okx {
				gx = append(gx, itx.Reading())
			}
			if oky {
				gy = append(gy, ity.Reading())
			}
			if !okx && !oky {
				break
			}
		}
		if itx.Err() != nil || ity.Err() != nil {
			t.Fatal(itx.Err(), ity.Err())
		}
		wantReadings(t, gx, want("x", Query{}))
		wantReadings(t, gy, want("y", Query{Reverse: true}))
	})

	t.Run("iterations left early", func(t *testing.T) {
		for i, id := range []string{"x", "y", "x", "y"} {
			it := k.Iter(ctx, id, Query{})
			for j := 0; j < 400*(i+1) && it.Next(); j++ {
			}
			if i%2 == 0 {
				it.Close()
			}
		}
		p, err := k.Range(ctx, "y", Query{})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, want("y", Query{}))
	})

	t.Run("random pages", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 25))
		for c := range 40 {
			id := []string{"x", "y"}[c%2]
			a, b := rng.IntN(n), rng.IntN(n)
			if a > b {
				a, b = b, a
			}
			q := Query{From: t0.Add(time.Duration(a) * 10 * time.Second), To: t0.Add(time.Duration(b)*10*time.Second + time.Millisecond), Reverse: rng.IntN(2) == 0, PageSize: 1 + rng.IntN(400)}
			if rng.IntN(4) == 0 {
				q.From = time.Time{}
			}
			name := fmt.Sprintf("%s %d..%d reverse=%v pages of %d", id, a, b, q.Reverse, q.PageSize)
			var got, gotFunc []Reading
			pq := q
			for {
				p, err := k.Range(ctx, id, pq)
				if err != nil {
					t.Fatal(name, err)
				}
				got = append(got, p.Readings...)
				cur, err := k.RangeFunc(ctx, id, pq, func(r Reading) error {
					gotFunc = append(gotFunc, Reading{Time: r.Time, Values: slices.Clone(r.Values)})
					return nil
				})
				if err != nil || cur != p.Cursor {
					t.Fatalf("%s: RangeFunc's cursor %q (%v), Range's %q", name, cur, err, p.Cursor)
				}
				if p.Cursor == "" {
					break
				}
				pq.Cursor = p.Cursor
			}
			w := want(id, q)
			t.Run(name, func(t *testing.T) {
				wantReadings(t, got, w)
				wantReadings(t, gotFunc, w)
			})
		}
	})
}
