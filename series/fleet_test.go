package series

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
)

// Tests of several Stores on one table (fleet.go): writes, rollups and
// compaction passes under leases, schemas reaching every Store.

// fleetSize is the number of Stores of the fleet tests.
const fleetSize = 3

// kill stops st as a killed process would: its background work ends,
// nothing is flushed, no lease is released and its log is closed as it
// is (a later Open on its WALDir replays it).
func kill(st *Store) {
	st.closeOnce.Do(func() {
		st.closed.Store(true)
		st.cancelBG()
		close(st.stop)
		st.bg.Wait()
		if st.wal != nil {
			st.wal.Close()
		}
		st.closeErr = errors.New("killed")
	})
}

// openFleet opens n Stores of schemas on api, each with a log of its own
// in walDirs[i] (none if walDirs is nil), and drops the table at the end.
func openFleet(t *testing.T, api timetable.API, clk *clock, walDirs []string, n int, schemas ...Schema) ([]*Store, func(i int) *Options) {
	t.Helper()
	ctx := context.Background()
	table := tableName(t)
	optsOf := func(i int) *Options {
		o := testOptions(t, clk)
		o.Table = table
		if walDirs != nil {
			o.WALDir = walDirs[i]
		}
		return o
	}
	sts := make([]*Store, n)
	for i := range sts {
		st := mustOpen(t, ctx, api, optsOf(i), schemas...)
		if err := st.EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
		sts[i] = st
	}
	t.Cleanup(func() {
		for _, st := range sts {
			st.Close()
		}
		if err := sts[0].Table().Drop(context.Background()); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return sts, optsOf
}

// fleetAck is an acknowledged reading: written in round through the
// Store of slot writer, the n-th of that writer in the round.
type fleetAck struct {
	t             int64 // ms
	round, writer int
	n             int
}

// value encodes an acknowledged reading as its value.
func (a fleetAck) value() float64 { return float64(a.round*1_000_000 + a.writer*100_000 + a.n) }

// decodeAck is value's inverse (t aside).
func decodeAck(v float64) fleetAck {
	n := int(v)
	return fleetAck{round: n / 1_000_000, writer: n / 100_000 % 10, n: n % 100_000}
}

// checkFleetRead checks the readings of one series read through a Store
// (in time order) against the acknowledged writes, under rule: the rounds
// were written at clocks far apart, so their order is known; within a
// round the writers' readings may interleave, each writer's in its order.
// KeepAll keeps every acknowledged reading once; LastWins, of each
// instant, the last of a writer in the last round that wrote it;
// RejectDifferent the first of a writer in the first round.
func checkFleetRead(got []Reading, acks []fleetAck, rule DuplicateRule) error {
	byT := map[int64][]fleetAck{}
	for _, a := range acks {
		byT[a.t] = append(byT[a.t], a)
	}
	gotByT := map[int64][]fleetAck{}
	var order []int64
	for _, r := range got {
		ms := timeMs(r.Time)
		if len(order) > 0 && ms < order[len(order)-1] {
			return fmt.Errorf("reading at %v after one at %d", r.Time, order[len(order)-1])
		}
		if len(order) == 0 || order[len(order)-1] != ms {
			order = append(order, ms)
		}
		a := decodeAck(r.Values[0])
		a.t = ms
		gotByT[ms] = append(gotByT[ms], a)
	}
	if len(gotByT) != len(byT) {
		return fmt.Errorf("%d instants read, %d written", len(gotByT), len(byT))
	}
	for ms, want := range byT {
		have := gotByT[ms]
		if rule == KeepAll {
			if len(have) != len(want) {
				return fmt.Errorf("instant %d: %d readings read, %d acknowledged", ms, len(have), len(want))
			}
			if !slices.IsSortedFunc(have, func(a, b fleetAck) int { return a.round - b.round }) {
				return fmt.Errorf("instant %d: rounds out of order: %v", ms, have)
			}
			for w := range fleetSize {
				mine := func(as []fleetAck) []fleetAck {
					var out []fleetAck
					for _, a := range as {
						if a.writer == w {
							out = append(out, a)
						}
					}
					return out
				}
				// want is in acknowledgement order per writer (and round).
				if h, x := mine(have), mine(want); !slices.Equal(h, x) {
					return fmt.Errorf("instant %d, writer %d: read %v, acknowledged %v", ms, w, h, x)
				}
			}
			continue
		}
		if len(have) != 1 {
			return fmt.Errorf("instant %d: %d readings read under %v", ms, len(have), rule)
		}
		round := want[0].round
		for _, a := range want {
			if rule == LastWins {
				round = max(round, a.round)
			} else {
				round = min(round, a.round)
			}
		}
		g := have[0]
		var ofWriter []fleetAck
		for _, a := range want {
			if a.round == round && a.writer == g.writer {
				ofWriter = append(ofWriter, a)
			}
		}
		if len(ofWriter) == 0 {
			return fmt.Errorf("instant %d: read %v, not of round %d", ms, g, round)
		}
		pick := ofWriter[0]
		if rule == LastWins {
			pick = ofWriter[len(ofWriter)-1]
		}
		if g != pick {
			return fmt.Errorf("instant %d: read %v, want %v under %v", ms, g, pick, rule)
		}
	}
	return nil
}

// fleetSchema is the kind of the fleet write tests.
func fleetSchema(l Layout, rule DuplicateRule) Schema {
	return Schema{Name: "DEV", Fields: []string{"v"}, Layout: l, Duplicates: rule}
}

// TestFleet_Writes writes through three Stores on one table at once, to
// the same series and instants, for every layout and duplicate rule, with
// rollup and compaction passes of all three racing under their leases
// after each round, and one Store killed part way through a round and
// opened again on its log: every acknowledged reading is read back once,
// through every Store alike, as the rule keeps it; Latest agrees; hourly
// rollups count the readings kept, once.
func TestFleet_Writes(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			for _, rule := range []DuplicateRule{LastWins, KeepAll, RejectDifferent} {
				t.Run(fmt.Sprintf("%s/%s", l, rule), func(t *testing.T) {
					if onDynamo(b) {
						t.Parallel()
					}
					fleetWrites(t, b, l, rule)
				})
			}
		}
	})
}

func fleetWrites(t *testing.T, b backend, l Layout, rule DuplicateRule) {
	ctx := context.Background()
	base := t0.Add(-3 * time.Hour) // readings in two hours, rolled up and compacted
	clk := newClock(t0)
	api := b.OpenOn(t, clk)
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	sc := fleetSchema(l, rule)
	sts, optsOf := openFleet(t, api, clk, dirs, fleetSize, sc)
	const (
		rounds   = 6
		calls    = 12 // per writer and round
		instants = 40
		killAt   = 3 // round, and call of writer 2, of the kill
		series   = "dev-1"
	)
	var (
		mu   sync.Mutex
		acks []fleetAck
	)
	for round := range rounds {
		var wg sync.WaitGroup
		for w := range fleetSize {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				k := mustKind(t, sts[w], sc.Name)
				n := 0
				for c := range calls {
					if w == 2 && round == killAt && c == calls/2 {
						kill(sts[w])
						return
					}
					var rs []Reading
					var as []fleetAck
					for range 1 + rng.IntN(3) {
						a := fleetAck{t: timeMs(base.Add(time.Duration(rng.IntN(instants)) * 3 * time.Minute)), round: round, writer: w, n: n}
						n++
						rs = append(rs, Reading{Time: msTime(a.t), Values: []float64{a.value()}})
						as = append(as, a)
					}
					err := k.Write(ctx, series, rs...)
					if errors.Is(err, ErrConflict) && rule == RejectDifferent {
						continue
					}
					if err != nil {
						t.Error(err)
						return
					}
					// One call's readings of one instant: the rule applies
					// among them too, in slice order.
					mu.Lock()
					acks = append(acks, as...)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		if round == killAt {
			st := mustOpen(t, ctx, api, optsOf(2), sc)
			sts[2] = st
			t.Cleanup(func() { st.Close() })
		}
		// Each round is flushed: across Stores, readings of one instant
		// are ordered by their flushes' numbers in the Chunks layout (a
		// flush's readings take their position from its first number),
		// so the rounds are in order only if no flush spans two.
		for _, st := range sts {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if round == killAt {
			// The killed Store's leases end.
			clk.Advance(passLease(-1))
		}
		racePasses(t, ctx, sts)
		// Far enough apart that every number of a round is above those
		// of the round before (a reopened Store numbers up to a second
		// ahead of its clock).
		clk.Advance(3 * time.Second)
	}
	for _, st := range sts {
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(passLease(-1))
	racePasses(t, ctx, sts)
	racePasses(t, ctx, sts)

	var first []Reading
	for w, st := range sts {
		got := fleetRange(t, ctx, mustKind(t, st, sc.Name), series)
		if err := checkFleetRead(got, acks, rule); err != nil {
			t.Fatalf("through Store %d: %v", w, err)
		}
		if w == 0 {
			first = got
		} else {
			wantReadings(t, got, first)
		}
		latest, err := mustKind(t, st, sc.Name).Latest(ctx, series)
		if err != nil {
			t.Fatal(err)
		}
		if !sameReading(latest, got[len(got)-1]) {
			t.Errorf("Store %d: latest %v, last read %v", w, brief([]Reading{latest}), brief(got[len(got)-1:]))
		}
	}
	// The hourly rollups: the readings kept, each counted once.
	type hour struct {
		n   int64
		sum float64
	}
	want := map[time.Time]hour{}
	for _, r := range first {
		h := r.Time.Truncate(time.Hour)
		x := want[h]
		x.n++
		x.sum += r.Values[0]
		want[h] = x
	}
	for w, st := range sts {
		ps, err := mustKind(t, st, sc.Name).Rollups(ctx, series, Hourly, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[time.Time]hour{}
		for _, p := range ps {
			got[p.Start] = hour{p.Count, p.Field(0).Sum}
		}
		for h, x := range want {
			if g := got[h]; g.n != x.n || math.Abs(g.sum-x.sum) > 1e-6*math.Abs(x.sum) {
				t.Errorf("Store %d: hour %v rolled up %+v, want %+v", w, h, g, x)
			}
		}
		if len(got) != len(want) {
			t.Errorf("Store %d: %d hours rolled up, want %d", w, len(got), len(want))
		}
	}
}

// fleetRange reads every reading of series id of k, in time order.
func fleetRange(t *testing.T, ctx context.Context, k *Kind, id string) []Reading {
	t.Helper()
	var out []Reading
	for r, err := range k.All(ctx, id, Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// racePasses runs the background rollup and compaction passes of every
// Store at once, as their timers would.
func racePasses(t *testing.T, ctx context.Context, sts []*Store) {
	t.Helper()
	var wg sync.WaitGroup
	for _, st := range sts {
		for _, pass := range []func(context.Context) error{st.leasedRollup, st.leasedCompact} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := pass(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
}

// TestFleet_SameSeqIDsCollide is the positive control of TestFleet_Writes'
// check: two Stores given the same sequence id (as two Stores with the
// random salts of before could draw close ones) write one reading each at
// one instant in the same millisecond, and a KeepAll read loses one, on
// every layout.
func TestFleet_SameSeqIDsCollide(t *testing.T) {
	for _, l := range allLayouts {
		t.Run(l.String(), func(t *testing.T) {
			ctx := context.Background()
			clk := newClock(t0)
			sc := fleetSchema(l, KeepAll)
			sts, _ := openFleet(t, openEngine(t, clk), clk, nil, 2, sc)
			at := timeMs(t0.Add(-time.Hour))
			write := func(sts []*Store) []fleetAck {
				var acks []fleetAck
				for w, st := range sts {
					a := fleetAck{t: at, writer: w}
					if err := mustKind(t, st, sc.Name).Write(ctx, "s", Reading{Time: msTime(a.t), Values: []float64{a.value()}}); err != nil {
						t.Fatal(err)
					}
					acks = append(acks, a)
				}
				for _, st := range sts {
					if err := st.Flush(ctx); err != nil {
						t.Fatal(err)
					}
				}
				return acks
			}
			// Distinct ids: both kept.
			acks := write(sts)
			if err := checkFleetRead(fleetRange(t, ctx, mustKind(t, sts[0], sc.Name), "s"), acks, KeepAll); err != nil {
				t.Fatal(err)
			}
			// The same id, numbering from one place: one is lost.
			at += 1000
			sts[1].seqID.Store(sts[0].seqID.Load())
			top := max(sts[0].seq.Load(), sts[1].seq.Load())
			sts[0].seq.Store(top)
			sts[1].seq.Store(top)
			acks = append(acks, write(sts)...)
			if err := checkFleetRead(fleetRange(t, ctx, mustKind(t, sts[0], sc.Name), "s"), acks, KeepAll); err == nil {
				t.Fatal("two Stores of one sequence id kept both readings: the check cannot see a collision")
			} else {
				t.Logf("planted collision seen: %v", err)
			}
		})
	}
}

// fleetRuns records the units each Store runs, per round.
type fleetRuns struct {
	mu   sync.Mutex
	runs map[string][]string // unit -> owners that ran it
}

func (r *fleetRuns) hook(st *Store) {
	owner := st.opts.LeaseOwner
	f := func(unit string) {
		r.mu.Lock()
		r.runs[unit] = append(r.runs[unit], owner)
		r.mu.Unlock()
	}
	st.fleet.onPass.Store(&f)
}

// round runs the passes of sts at once and returns who ran each unit.
func (r *fleetRuns) round(t *testing.T, sts []*Store) map[string][]string {
	r.mu.Lock()
	r.runs = map[string][]string{}
	r.mu.Unlock()
	racePasses(t, context.Background(), sts)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs
}

// checkOnce fails unless each of units was run by exactly one Store.
func checkOnce(runs map[string][]string, units []string) error {
	for _, u := range units {
		if len(runs[u]) != 1 {
			return fmt.Errorf("unit %s run by %d Stores %v", u, len(runs[u]), runs[u])
		}
	}
	return nil
}

// TestFleet_Leases checks that each kind's rollup and compaction pass
// runs on one Store of three at a time, that the Store holding it keeps
// it, that the units of a killed Store are taken over once its leases
// end (not before), that a closed Store's are free at once, and, as a
// positive control, that with the lease check off every Store runs every
// unit.
func TestFleet_Leases(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0)
		var schemas []Schema
		var units []string
		for _, n := range []string{"A", "B", "C", "D"} {
			schemas = append(schemas, Schema{Name: n, Fields: []string{"v"}})
			units = append(units, "rollup#"+n, "compact#"+n)
		}
		sts, _ := openFleet(t, b.OpenOn(t, clk), clk, nil, fleetSize, schemas...)
		var rec fleetRuns
		for _, st := range sts {
			rec.hook(st)
		}
		holder := func(u string) string {
			owner, _, err := sts[0].Table().LeaseHolder(ctx, leaseKey(u))
			if err != nil {
				t.Fatal(err)
			}
			return owner
		}
		first := rec.round(t, sts)
		if err := checkOnce(first, units); err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if h := holder(u); h != first[u][0] {
				t.Errorf("%s ran on %s, held by %s", u, first[u][0], h)
			}
		}
		again := rec.round(t, sts)
		if err := checkOnce(again, units); err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if again[u][0] != first[u][0] {
				t.Errorf("%s moved from %s to %s while its holder lived", u, first[u][0], again[u][0])
			}
		}
		// Kill the holder of the first unit.
		dead := slices.IndexFunc(sts, func(st *Store) bool { return st.opts.LeaseOwner == first[units[0]][0] })
		kill(sts[dead])
		alive := slices.Delete(slices.Clone(sts), dead, dead+1)
		var orphans []string
		for _, u := range units {
			if first[u][0] == sts[dead].opts.LeaseOwner {
				orphans = append(orphans, u)
			}
		}
		clk.Advance(passLease(-1) - time.Second)
		waiting := rec.round(t, alive)
		for _, u := range orphans {
			if len(waiting[u]) != 0 {
				t.Errorf("%s taken over by %v before the dead holder's lease ended", u, waiting[u])
			}
		}
		clk.Advance(2 * time.Second)
		over := rec.round(t, alive)
		if err := checkOnce(over, units); err != nil {
			t.Fatal(err)
		}
		// A Store that closes frees its units at once.
		closing := alive[0]
		if err := closing.Close(); err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if h := holder(u); h == closing.opts.LeaseOwner {
				t.Errorf("%s still held by a closed Store", u)
			}
		}
		if err := checkOnce(rec.round(t, alive[1:]), units); err != nil {
			t.Fatal(err)
		}
		// The positive control: without the lease check every Store runs
		// every unit, and the check sees it.
		fresh, _ := openFleet(t, b.OpenOn(t, clk), clk, nil, fleetSize, schemas...)
		for _, st := range fresh {
			rec.hook(st)
			st.fleet.noLeases.Store(true)
		}
		if err := checkOnce(rec.round(t, fresh), units); err == nil {
			t.Fatal("with the lease check off, each unit ran once: the check cannot see a race")
		}
	})
}

// TestFleet_Schemas checks that a kind defined on one Store is writable
// at once on the others (a write naming it, Store.Kind), and that a kind
// defined or changed on one appears in the others' Kinds once they
// refresh (what the RefreshInterval timer runs), also with the timer on.
func TestFleet_Schemas(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0)
		sts, _ := openFleet(t, b.OpenOn(t, clk), clk, nil, fleetSize, Schema{Name: "OLD", Fields: []string{"v"}})
		if _, err := sts[0].Define(ctx, Schema{Name: "NEW", Fields: []string{"a"}}); err != nil {
			t.Fatal(err)
		}
		// Writable at once, through Kind and WriteKinds.
		k, err := sts[1].Kind("NEW")
		if err != nil {
			t.Fatal(err)
		}
		r := Reading{Time: t0.Add(-time.Minute), Values: []float64{1}}
		if err := k.WriteSync(ctx, "x", r); err != nil {
			t.Fatal(err)
		}
		if err := sts[2].WriteKinds(ctx, []KindReadings{{Kind: "NEW", Series: []SeriesReadings{{ID: "y", Readings: []Reading{r}}}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := sts[2].Kind("NOPE"); !errors.Is(err, ErrUnknownKind) {
			t.Fatalf("unknown kind: %v", err)
		}
		// A change reaches the others at their refresh.
		if _, err := sts[0].Change(ctx, Schema{Name: "OLD", Fields: []string{"v", "w"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := sts[0].Define(ctx, Schema{Name: "THIRD", Fields: []string{"a"}}); err != nil {
			t.Fatal(err)
		}
		for _, st := range sts[1:] {
			if err := st.refreshKinds(ctx); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, k := range st.Kinds() {
				names = append(names, k.Schema().Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"NEW", "OLD", "THIRD"}) {
				t.Errorf("kinds %v", names)
			}
			old := mustKind(t, st, "OLD")
			if got := old.Schema().Fields; !slices.Equal(got, []string{"v", "w"}) {
				t.Errorf("fields of OLD after the change: %v", got)
			}
			if err := old.WriteSync(ctx, "z", Reading{Time: t0.Add(-time.Minute), Values: []float64{1, 2}}); err != nil {
				t.Fatal(err)
			}
		}
		// The timer: a Store refreshing every few milliseconds sees a
		// kind defined elsewhere (waited for, not timed).
		o := testOptions(t, clk)
		o.Table = sts[0].Table().Name()
		o.RefreshInterval = 5 * time.Millisecond
		timed := mustOpen(t, ctx, sts[0].Table().API(), o)
		defer timed.Close()
		if _, err := sts[0].Define(ctx, Schema{Name: "FOURTH", Fields: []string{"a"}}); err != nil {
			t.Fatal(err)
		}
		for timed.lookup("FOURTH") == nil {
			time.Sleep(time.Millisecond)
		}
	})
}
