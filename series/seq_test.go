package series

import (
	"context"
	"testing"
	"time"
)

// TestNextSeqs_FollowTheClock checks that sequence numbers increase within
// a Store, across Stores opened one after the other (a restart) and past
// the numbers of a replayed log, whatever the salts.
func TestNextSeqs_FollowTheClock(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0)
	api := openEngine(t, clk)
	var last uint64
	for round := range 20 {
		st := mustOpen(t, ctx, api, testOptions(t, clk), Schema{Name: "S", Fields: []string{"v"}})
		for range 3 {
			s := st.nextSeqs(1 + round)
			if s <= last {
				t.Fatalf("round %d: sequence number %x after %x", round, s, last)
			}
			last = s + uint64(round)
		}
		st.seenSeq(last + 1000)
		if s := st.nextSeqs(1); s <= last+1000 {
			t.Fatalf("round %d: %x after a replayed %x", round, s, last+1000)
		}
		last = max(last, st.seq.Load()-1)
		st.Close()
		clk.Advance(time.Millisecond)
	}
}

// TestSettle checks the duplicate rule a batch applies to the readings of
// one instant before they are written.
func TestSettle(t *testing.T) {
	at := func(ms int64, seq uint64, v float64) rec { return rec{t: ms, seq: seq, vals: []float64{v}} }
	in := func() []rec { return []rec{at(2, 5, 25), at(1, 3, 13), at(2, 4, 24), at(1, 9, 19), at(3, 1, 31)} }
	for _, c := range []struct {
		rule DuplicateRule
		want []float64
	}{
		{LastWins, []float64{19, 25, 31}},
		{RejectDifferent, []float64{13, 24, 31}},
		{KeepAll, []float64{13, 19, 24, 25, 31}},
	} {
		k := &Kind{s: Schema{Name: "S", Fields: []string{"v"}, Duplicates: c.rule}}
		got := k.settle(in())
		var vs []float64
		for _, r := range got {
			vs = append(vs, r.vals[0])
		}
		if len(vs) != len(c.want) {
			t.Fatalf("%v: got %v, want %v", c.rule, vs, c.want)
		}
		for i := range vs {
			if vs[i] != c.want[i] {
				t.Fatalf("%v: got %v, want %v", c.rule, vs, c.want)
			}
		}
	}
}

// TestSeq_RestartInOneMillisecond: readings of one instant of a KeepAll
// kind written by Stores opened one after the other on a clock that
// stays in one millisecond (restarts within it) come back in write
// order, whatever the Stores' random salts (a dozen Stores: by luck,
// one chance in 12!), written through the buffer and Close, or by
// WriteSync, with a write-ahead log or without.
func TestSeq_RestartInOneMillisecond(t *testing.T) {
	ctx := context.Background()
	sc := Schema{Name: "K", Fields: []string{"v"}, Duplicates: KeepAll}
	for _, c := range []struct {
		name string
		sync bool
		wal  bool
	}{{"Write", false, false}, {"Write+WAL", false, true}, {"WriteSync", true, false}, {"WriteSync+WAL", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock(t0.Add(time.Hour + 500*time.Microsecond))
			api := openEngine(t, clk)
			opts := testOptions(t, clk)
			if c.wal {
				opts.WALDir = t.TempDir()
			}
			const sessions = 12
			var want []Reading
			for i := range sessions {
				st := mustOpen(t, ctx, api, opts, sc)
				if i == 0 {
					if err := st.EnsureTable(ctx); err != nil {
						t.Fatal(err)
					}
				}
				k := mustKind(t, st, "K")
				r := Reading{Time: t0, Values: []float64{float64(i)}}
				want = append(want, r)
				var err error
				if c.sync {
					err = k.WriteSync(ctx, "s", r)
				} else {
					err = k.Write(ctx, "s", r)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
			}
			st := mustOpen(t, ctx, api, opts, sc)
			defer st.Close()
			page, err := mustKind(t, st, "K").Range(ctx, "s", Query{})
			if err != nil {
				t.Fatal(err)
			}
			wantReadings(t, page.Readings, want)
		})
	}
}
