package series

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestModel_PositiveControl proves that TestModel's checker catches a
// planted error: after random operations, it checks the Store against
// its models, then against models each holding one planted error (a
// reading dropped, one added, two readings of one instant swapped, a
// value off by one unit in the last place), and requires that each
// planted error makes checks fail that passed without it, on the kind
// and series it was planted in. Reads only: nothing happens between
// pages, so every check reads the same Store state each time.
func TestModel_PositiveControl(t *testing.T) {
	if os.Getenv(modelChildEnv) != "" {
		t.Skip("in a child")
	}
	const seed = 8 // a workload with readings of one instant to swap (its Deletes included)
	// The workload leaves out what the Store may not handle (values of
	// 1e126 and more, readings far ahead): the control tests the checker.
	cfg := modelConfig{phases: 1, opsPerPhase: 60, queries: 2, aggs: 2, rules: []int{0, 1}, control: true, tame: true}
	w := newWorld(t, backends()[0], seed, cfg)
	for i := 0; i < cfg.opsPerPhase && !w.stuck; i++ {
		w.op()
		w.timedOut("an operation")
	}
	if w.stuck {
		t.Skipf("the Store got stuck (TestModel reports it): %s", w.divs.example["stuck"].what)
	}
	if err := w.st.Flush(w.rc()); err != nil {
		t.Fatal(err)
	}
	if err := w.st.Rollup(w.rc()); err != nil {
		t.Fatal(err)
	}
	w.divs = modelDivergences{}
	w.check()
	if w.timedOut("the checks") {
		t.Skipf("the Store got stuck (TestModel reports it): %s", w.divs.example["stuck"].what)
	}
	base := w.divs
	t.Logf("without a planted error: %d checks, %d divergences (TestModel reports them)", w.checks, base.n)

	saved := make([]*naiveModel, len(w.kinds))
	for i, k := range w.kinds {
		saved[i] = k.m.clone()
	}
	now := w.clk.Now()
	for _, plant := range modelPlants {
		t.Run(plant.name, func(t *testing.T) {
			k, id, what := plant.plant(w, now)
			if k == nil {
				t.Fatalf("no reading to plant an error on")
			}
			w.divs = modelDivergences{}
			w.check()
			for i, k := range w.kinds {
				k.m = saved[i].clone()
			}
			var caught []string
			for key := range w.divs.keys {
				if !base.keys[key] && keyOn(key, k.name, id) {
					caught = append(caught, key)
				}
			}
			slices.Sort(caught)
			if len(caught) == 0 {
				t.Fatalf("the checker did not catch %s in %s series %q: no check failed that passed without it", what, k.name, mShort(id))
			}
			t.Logf("%s in %s series %q: caught by %d checks, such as %s", what, k.name, mShort(id), len(caught), caught[0])
		})
	}
}

// keyOn reports whether a divergence key is about kind and series id.
func keyOn(key, kind, id string) bool {
	f := strings.Split(key, "|")
	return len(f) >= 3 && f[1] == kind && (f[2] == id || f[2] == "")
}

// modelPlants are the errors planted in a model: each returns the kind
// and series it planted in (nil if it found no place) and what it did.
var modelPlants = []struct {
	name  string
	plant func(w *modelWorld, now time.Time) (*mkind, string, string)
}{
	{"drop", func(w *modelWorld, now time.Time) (*mkind, string, string) {
		k, id, r := plantTarget(w, now, KeepAll, func(v []mReading, i int) bool { return true })
		if k == nil {
			return nil, "", ""
		}
		rs := k.m.series[id]
		k.m.series[id] = slices.DeleteFunc(slices.Clone(rs), func(x mReading) bool { return x.ord == r.ord })
		k.m.views = nil
		return k, id, "a reading dropped, " + mFmtM(r)
	}},
	{"add", func(w *modelWorld, now time.Time) (*mkind, string, string) {
		k, id, r := plantTarget(w, now, LastWins, func(v []mReading, i int) bool { return true })
		if k == nil {
			return nil, "", ""
		}
		x := r
		x.t++
		for k.m.has(id, x.t) {
			x.t++
		}
		x.vals = slices.Clone(r.vals)
		k.m.add(id, x)
		return k, id, "a reading added, " + mFmtM(x)
	}},
	{"swap", func(w *modelWorld, now time.Time) (*mkind, string, string) {
		k, id, r := plantTarget(w, now, KeepAll, func(v []mReading, i int) bool {
			return i+1 < len(v) && v[i+1].t == v[i].t && !mSameContent(v[i], v[i+1])
		})
		if k == nil {
			return nil, "", ""
		}
		v := k.m.view(id, now)
		i := slices.IndexFunc(v, func(x mReading) bool { return x.ord == r.ord })
		a, b := v[i].ord, v[i+1].ord
		rs := slices.Clone(k.m.series[id])
		for j := range rs {
			switch rs[j].ord {
			case a:
				rs[j].ord = b
			case b:
				rs[j].ord = a
			}
		}
		k.m.series[id] = rs
		k.m.views = nil
		return k, id, fmt.Sprintf("two readings of one instant swapped, %s and %s", mFmtM(v[i]), mFmtM(v[i+1]))
	}},
	{"ulp", func(w *modelWorld, now time.Time) (*mkind, string, string) {
		k, id, r := plantTarget(w, now, LastWins, func(v []mReading, i int) bool {
			return !math.IsNaN(v[i].vals[0]) && !math.IsInf(v[i].vals[0], 0) && v[i].vals[0] != math.MaxFloat64
		})
		if k == nil {
			return nil, "", ""
		}
		rs := slices.Clone(k.m.series[id])
		for j := range rs {
			if rs[j].ord == r.ord {
				rs[j].vals = slices.Clone(rs[j].vals)
				rs[j].vals[0] = math.Nextafter(rs[j].vals[0], math.Inf(1))
			}
		}
		k.m.series[id] = rs
		k.m.views = nil
		return k, id, "a value one unit in the last place higher, in " + mFmtM(r)
	}},
}

// plantTarget picks, in the models of a kind of rule, a reading the
// checks see (unexpired, in the view) that ok accepts, at random.
func plantTarget(w *modelWorld, now time.Time, rule DuplicateRule, ok func(v []mReading, i int) bool) (*mkind, string, mReading) {
	rng := w.crng("plant", rule)
	var ks []*mkind
	for _, k := range w.kinds {
		if k.rule == rule {
			ks = append(ks, k)
		}
	}
	for try := 0; try < 200; try++ {
		k := ks[rng.IntN(len(ks))]
		id := modelIDs[rng.IntN(len(modelIDs))]
		v := k.m.view(id, now)
		if len(v) == 0 {
			continue
		}
		i := rng.IntN(len(v))
		if ok(v, i) {
			return k, id, v[i]
		}
	}
	return nil, "", mReading{}
}
