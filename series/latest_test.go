package series

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// stingyAPI leaves every other key of each BatchGetItem call unprocessed,
// as DynamoDB does under load.
type stingyAPI struct {
	timetable.API
	calls    atomic.Int64
	deferred atomic.Int64
	never    bool // leave them unprocessed forever
}

func (s *stingyAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	s.calls.Add(1)
	keep := &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}, ReturnConsumedCapacity: in.ReturnConsumedCapacity}
	unproc := map[string]types.KeysAndAttributes{}
	for name, ka := range in.RequestItems {
		k, u := ka, ka
		k.Keys, u.Keys = nil, nil
		for i, key := range ka.Keys {
			if i%2 == 1 || s.never {
				u.Keys = append(u.Keys, key)
			} else {
				k.Keys = append(k.Keys, key)
			}
		}
		if len(k.Keys) > 0 {
			keep.RequestItems[name] = k
		}
		if len(u.Keys) > 0 {
			unproc[name] = u
			s.deferred.Add(int64(len(u.Keys)))
		}
	}
	out := &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{}}
	if len(keep.RequestItems) > 0 {
		o, err := s.API.BatchGetItem(ctx, keep, opts...)
		if err != nil {
			return nil, err
		}
		out = o
	}
	out.UnprocessedKeys = unproc
	return out, nil
}

func TestLatestMany_Fleet(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api := &stingyAPI{API: b.OpenOn(t, clk)}
		st, k := openKind(t, api, testOptions(t, clk), Schema{Name: "DEVICE", Fields: []string{"battery"}, NoRollups: true})
		const n = 500
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("dev-%03d", i)
			// Two readings each, the newer first: Latest keeps the newer.
			if err := k.Write(ctx, ids[i],
				Reading{Time: t0.Add(time.Duration(i+10) * time.Second), Values: []float64{float64(i)}},
				Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{-1}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		// A late reading does not replace a newer latest one.
		if err := k.WriteSync(ctx, ids[0], Reading{Time: t0, Values: []float64{-2}}); err != nil {
			t.Fatal(err)
		}
		got, err := k.LatestMany(ctx, append(ids, "dev-none"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d latest readings, want %d", len(got), n)
		}
		for i, id := range ids {
			r := got[id]
			if r.Values[0] != float64(i) || !r.Time.Equal(t0.Add(time.Duration(i+10)*time.Second)) {
				t.Fatalf("%s: latest %v", id, r)
			}
		}
		if api.deferred.Load() == 0 {
			t.Error("no key was left unprocessed: the test does not test retries")
		}
		t.Logf("%d BatchGetItem calls, %d keys deferred and retried", api.calls.Load(), api.deferred.Load())

		// Keys that stay unprocessed come back in an error, never dropped.
		api.never = true
		st2, err := Open(ctx, api, &Options{Table: st.Table().Name(), Now: clk.Now, FlushInterval: -1, RollupInterval: -1,
			TableOptions: &table.Options{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, RetryTimeout: 50 * time.Millisecond}},
			Schema{Name: "DEVICE", Fields: []string{"battery"}, NoRollups: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		_, err = mustKind(t, st2, "DEVICE").LatestMany(ctx, ids[:10])
		var be *table.BatchError
		if !errors.As(err, &be) || len(be.Keys) != 10 {
			t.Fatalf("LatestMany with keys never processed: %v", err)
		}
	})
}

// latestRounds are the rounds of TestLatest_TwoStoresOneInstant, each a
// script of steps: "W@M" writes a reading through Store W at M minutes
// after the round's start, one clock millisecond after the step before
// (so the Stores number the readings in script order); "fW" flushes
// Store W. Every Store flushes at the end of a round.
var latestRounds = []string{
	// Store 0's flush ranks its reading at 1 by the number of its
	// reading at 0, below Store 1's: Range keeps Store 1's last, though
	// Store 0's has the larger number of its own.
	"0@0 1@1 0@1 f0 f1",
	// The mirror, for RejectDifferent: Store 1's reading at 1 ranks
	// first, though Store 0's has the smaller number; flushed the other
	// way round.
	"1@0 0@1 1@1 f1 f0",
	// Across flushes: Store 0 flushes between its readings of one
	// instant, Store 1's interleave.
	"0@1 1@0 f0 1@1 0@0 0@1 f1 f0",
	// Three readings of one instant from one flush of Store 1 around one
	// of Store 0.
	"1@0 1@2 0@2 1@2 1@2 f0 f1",
}

// latestMismatches writes latestRounds to series id of the kind named
// name through sts (two Stores on one table), and returns where Latest,
// read through either Store, differed from the last reading its Range
// returns, after each round; acked counts the readings acknowledged.
func latestMismatches(t *testing.T, ctx context.Context, clk *clock, sts []*Store, name, id string) (bad []string, acked int) {
	t.Helper()
	rule := mustKind(t, sts[0], name).s.Duplicates
	for round, script := range latestRounds {
		start := t0.Add(-3*time.Hour + time.Duration(round)*10*time.Minute)
		for i, step := range strings.Fields(script) {
			if w, ok := strings.CutPrefix(step, "f"); ok {
				if err := sts[int(w[0]-'0')].Flush(ctx); err != nil {
					t.Fatal(err)
				}
				continue
			}
			w, m := int(step[0]-'0'), int(step[2]-'0')
			r := Reading{Time: start.Add(time.Duration(m) * time.Minute), Values: []float64{float64(round*1000 + i*10 + w)}}
			err := mustKind(t, sts[w], name).Write(ctx, id, r)
			switch {
			case err == nil:
				acked++
			case rule == RejectDifferent && errors.Is(err, ErrConflict):
			default:
				t.Fatal(err)
			}
			clk.Advance(time.Millisecond)
		}
		for _, st := range sts {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		bad = append(bad, latestDiffers(t, ctx, sts, name, id, fmt.Sprintf("round %d", round))...)
		clk.Advance(time.Second)
	}
	return bad, acked
}

// latestDiffers returns, for each Store of sts whose Latest of series id
// is not the last reading its Range returns, a line saying so.
func latestDiffers(t *testing.T, ctx context.Context, sts []*Store, name, id, when string) []string {
	t.Helper()
	var bad []string
	for w, st := range sts {
		k := mustKind(t, st, name)
		got := fleetRange(t, ctx, k, id)
		latest, err := k.Latest(ctx, id)
		if err != nil {
			t.Fatalf("%s, Store %d: %v", when, w, err)
		}
		if len(got) == 0 || !sameReading(latest, got[len(got)-1]) {
			bad = append(bad, fmt.Sprintf("%s, Store %d: latest %v, last read %v", when, w, brief([]Reading{latest}), brief(got[max(len(got)-1, 0):])))
		}
	}
	return bad
}

// TestLatest_TwoStoresOneInstant writes readings of one instant of one
// series through two Stores, their numbers interleaved across flushes
// (latestRounds), on every layout and duplicate rule: Latest, through
// either Store, is the last reading Range returns after every round, and
// after compaction, a restart, the latest-reading item repaired by a
// Recompute, and a Delete of the newest instant.
func TestLatest_TwoStoresOneInstant(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			for _, rule := range []DuplicateRule{LastWins, KeepAll, RejectDifferent} {
				t.Run(fmt.Sprintf("%s/%s", l, rule), func(t *testing.T) {
					ctx := context.Background()
					clk := newClock(t0)
					sc := fleetSchema(l, rule)
					sts, optsOf := openFleet(t, b.OpenOn(t, clk), clk, nil, 2, sc)
					const id = "dev-1"
					bad, acked := latestMismatches(t, ctx, clk, sts, sc.Name, id)
					if acked < 12 {
						t.Fatalf("%d readings acknowledged: the rounds did not run", acked)
					}
					check := func(when string) {
						t.Helper()
						for _, line := range latestDiffers(t, ctx, sts, sc.Name, id, when) {
							t.Error(line)
						}
					}
					for _, line := range bad {
						t.Error(line)
					}
					if l == Chunks {
						// Merged chunks keep the readings' ranks.
						clk.Advance(time.Hour)
						k := mustKind(t, sts[0], sc.Name)
						for range 2 {
							if err := k.Compact(ctx, id, time.Time{}, time.Time{}); err != nil {
								t.Fatal(err)
							}
							clk.Advance(2 * sts[0].opts.CompactGrace)
						}
						p, err := sts[0].Table().Query(ctx, &table.Query{Hash: k.rawPK(id, 0)})
						if err != nil {
							t.Fatal(err)
						}
						if len(p.Items) != 1 {
							t.Fatalf("%d chunk items after compaction, want 1", len(p.Items))
						}
						check("after compaction")
					}
					if err := sts[0].Close(); err != nil {
						t.Fatal(err)
					}
					sts[0] = mustOpen(t, ctx, sts[1].Table().API(), optsOf(0), sc)
					check("after a restart")
					// The latest-reading item lost, as a crash between a
					// flush's items and its latest reading leaves it:
					// the rollup's repair puts it back.
					k := mustKind(t, sts[0], sc.Name)
					if _, err := sts[0].Table().Delete(ctx, table.K(k.latestPK(id), latestSK), nil); err != nil {
						t.Fatal(err)
					}
					if err := k.Recompute(ctx, id, time.Time{}, time.Time{}); err != nil {
						t.Fatal(err)
					}
					check("after a repair")
					// The newest instant deleted: the one before it.
					newest := fleetRange(t, ctx, k, id)
					last := newest[len(newest)-1].Time
					if err := k.Delete(ctx, id, last, last.Add(time.Millisecond)); err != nil {
						t.Fatal(err)
					}
					check("after a Delete")
				})
			}
		}
	})
}

// TestLatest_TwoStoresOneInstant_Control is the positive control of
// TestLatest_TwoStoresOneInstant: with the latest-reading items ordered
// by their readings' own numbers (the order before ranks, planted by a
// test hook), Latest differs from Range on the Chunks layout, for every
// duplicate rule.
func TestLatest_TwoStoresOneInstant_Control(t *testing.T) {
	for _, rule := range []DuplicateRule{LastWins, KeepAll, RejectDifferent} {
		t.Run(rule.String(), func(t *testing.T) {
			ctx := context.Background()
			clk := newClock(t0)
			sc := fleetSchema(Chunks, rule)
			sts, _ := openFleet(t, openEngine(t, clk), clk, nil, 2, sc)
			for _, st := range sts {
				st.latestOwnSeq = true
			}
			bad, _ := latestMismatches(t, ctx, clk, sts, sc.Name, "dev-1")
			if len(bad) == 0 {
				t.Fatal("no round made Latest differ from Range with the latest readings ordered by their own numbers")
			}
			t.Logf("caught: %s", strings.Join(bad, "; "))
		})
	}
}

// TestLatest_ItemBeforeRanks: a latest-reading item written before ranks
// were stored (its reading's own number, as the test hook writes it) is
// replaced by a reading of its instant that a later flush writes, and
// read as the rank it holds.
func TestLatest_ItemBeforeRanks(t *testing.T) {
	for _, l := range allLayouts {
		t.Run(l.String(), func(t *testing.T) {
			ctx := context.Background()
			clk := newClock(t0)
			sc := fleetSchema(l, LastWins)
			st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sc)
			at := t0.Add(-time.Hour)
			st.latestOwnSeq = true
			// Two readings of the flush: the item holds the second's own number.
			if err := k.Write(ctx, "s", Reading{Time: at.Add(-time.Minute), Values: []float64{1}}, Reading{Time: at, Values: []float64{2}}); err != nil {
				t.Fatal(err)
			}
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			st.latestOwnSeq = false
			clk.Advance(time.Millisecond)
			if err := k.WriteSync(ctx, "s", Reading{Time: at, Values: []float64{3}}); err != nil {
				t.Fatal(err)
			}
			if got, err := k.Latest(ctx, "s"); err != nil || got.Values[0] != 3 {
				t.Fatalf("Latest %v, %v; want the reading written after the old item", got, err)
			}
			// A late reading does not replace it.
			if err := k.WriteSync(ctx, "s", Reading{Time: at.Add(-time.Second), Values: []float64{4}}); err != nil {
				t.Fatal(err)
			}
			if got, err := k.Latest(ctx, "s"); err != nil || got.Values[0] != 3 {
				t.Fatalf("Latest %v, %v after a late reading", got, err)
			}
		})
	}
}

// TestRank_Order: the string forms of ranks compare as the ranks do, and
// parse back.
func TestRank_Order(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() apos {
		seqs := []uint64{0, 1, 1 << 40, 1<<40 + 1, math.MaxUint64}
		idxs := []uint32{0, 0, 1, 2, 1 << 20, math.MaxUint32}
		return apos{seqs[rng.IntN(len(seqs))], idxs[rng.IntN(len(idxs))]}
	}
	for range 2000 {
		a, b := pick(), pick()
		as, bs := string(appendRank(nil, a)), string(appendRank(nil, b))
		if got, want := strings.Compare(as, bs), cmpPos(pos{0, a.seq, a.idx}, pos{0, b.seq, b.idx}); got != want {
			t.Fatalf("%v (%s) vs %v (%s): strings compare %d, ranks %d", a, as, b, bs, got, want)
		}
		if p, ok := parseRank(as); !ok || p != a {
			t.Fatalf("parseRank(%q) = %v, %v; want %v", as, p, ok, a)
		}
	}
	for _, s := range []string{"", "0", "000000000000000g", "0000000000000001#", "0000000000000001#00000000", "0000000000000001#0000001", "0000000000000001#000000001"} {
		if p, ok := parseRank(s); ok {
			t.Errorf("parseRank(%q) = %v, want an error", s, p)
		}
	}
	// The form of a rank at index 0 is the number alone, as items written
	// before ranks hold it.
	if got := latestOrd(timeMs(t0), apos{seq: 42}); got != orderKey(timeMs(t0), 42) {
		t.Errorf("latestOrd at index 0 = %q, want %q", got, orderKey(timeMs(t0), 42))
	}
}

// TestChunkItems_LastRank: the rank chunkItems returns for the last
// reading is the position its items give that reading when decoded, with
// shards and with a chunk split for its size.
func TestChunkItems_LastRank(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprint(shards), func(t *testing.T) {
			clk := newClock(t0)
			sc := Schema{Name: "S", Fields: []string{"v"}, Tags: []string{"note"}, Layout: Chunks, Shards: shards, NoRollups: true}
			_, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sc)
			big := strings.Repeat("x", 120<<10) // three make a chunk split
			var rs []Reading
			for i := range 12 {
				rs = append(rs, Reading{Time: t0.Add(-time.Hour + time.Duration(i%5)*time.Second), Values: []float64{float64(i)}, Tags: []string{big[:len(big)-i]}})
			}
			recs, err := k.prepareNumbered("s", rs)
			if err != nil {
				t.Fatal(err)
			}
			recs = k.settle(recs)
			items, last, err := k.chunkItems("s", recs)
			if err != nil {
				t.Fatal(err)
			}
			if shards == 1 && len(items) < 2 {
				t.Fatalf("%d chunk items: no chunk was split", len(items))
			}
			want := recs[len(recs)-1]
			found := 0
			for _, it := range items {
				b, err := k.decodeChunkItem(it)
				if err != nil {
					t.Fatal(err)
				}
				for i := range b.t {
					if (apos{b.seq[i], b.idx[i]}) == last {
						found++
						if b.t[i] != want.t || b.vals[i] != want.vals[0] {
							t.Errorf("rank %v holds the reading at %d valued %v, want the last, at %d valued %v", last, b.t[i], b.vals[i], want.t, want.vals[0])
						}
					}
				}
			}
			if found != 1 {
				t.Errorf("rank %v found %d times in the items", last, found)
			}
		})
	}
}
