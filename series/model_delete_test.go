package series

import (
	"fmt"
	"hash/fnv"
	"math"
	"time"
)

// The model test's deletes: Kind.Delete of a random span (bounds inside
// hours, off the millisecond, or none) and, now and then,
// Kind.DeleteSeries, on every kind, and the same removal in each kind's
// model; the checks after each phase then compare every read with the
// model as for writes.

// remove removes the readings of series id in [from, to) (Delete's
// bounds: rounded up to the millisecond, a zero bound is none).
func (m *naiveModel) remove(id string, from, to time.Time) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !from.IsZero() {
		lo = mCeilMs(from)
	}
	if !to.IsZero() {
		hi = mCeilMs(to)
	}
	var kept []mReading
	for _, x := range m.series[id] {
		if x.t < lo || x.t >= hi {
			kept = append(kept, x)
		}
	}
	m.series[id] = kept
	m.views = nil
	h := fnv.New64a()
	fmt.Fprint(h, m.digest, " delete ", id, lo, hi)
	m.digest = h.Sum64()
}

// genDeleteSpan returns the bounds of a Delete: a span of genSpan, most
// often cut to a few hours, its ends now and then off the millisecond or
// left out.
func (w *modelWorld) genDeleteSpan() (time.Time, time.Time) {
	from, to := w.genSpan(w.rng)
	if w.rng.IntN(4) != 0 {
		to = from.Add(time.Duration(1+w.rng.IntN(6*60)) * time.Minute)
	}
	if w.rng.IntN(4) == 0 {
		from = from.Add(time.Duration(1 + w.rng.IntN(999_999))) // off the millisecond: rounds up
	}
	switch w.rng.IntN(20) {
	case 0:
		from = time.Time{}
	case 1:
		to = time.Time{}
	}
	return from, to
}

// deleteOp deletes a span of one series (or the series) on every kind.
func (w *modelWorld) deleteOp() {
	id := modelIDs[w.rng.IntN(len(modelIDs))]
	whole := w.rng.IntN(20) == 0
	from, to := w.genDeleteSpan()
	what := fmt.Sprintf("Delete(%q, %s, %s)", mShort(id), mFmtTime(from), mFmtTime(to))
	if whole {
		from, to = time.Time{}, time.Time{}
		what = fmt.Sprintf("DeleteSeries(%q)", mShort(id))
	}
	w.logf("%s", what)
	for _, k := range w.kinds {
		if w.stuck {
			return
		}
		var err error
		if whole {
			err = w.kind(k).DeleteSeries(w.rc(), id)
		} else {
			err = w.kind(k).Delete(w.rc(), id, from, to)
		}
		w.checks++
		if w.timedOut(k.name + ": " + what) {
			return
		}
		if err != nil {
			w.diverge("delete", k.name, id, "%s: %v", what, err)
			continue
		}
		k.m.remove(id, from, to)
	}
}
