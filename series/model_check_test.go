package series

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/keys"
)

// The checks of the model-based test: each compares one read's answer
// with the model's (one check), and with the answer of the first kind of
// the same rule whose model is equal (another check).

// check runs the checks of a phase.
func (w *modelWorld) check() {
	w.backgroundErrors()
	defer w.backgroundErrors()
	rng := w.crng("phase", w.phase)
	fresh, flushed := false, false
	switch x := rng.IntN(100); {
	case x < 55 || w.phase == w.cfg.phases-1:
		w.logf("check: Flush, Store.Rollup")
		if err := w.st.Flush(w.rc()); err != nil {
			w.diverge("flush", "", "", "Flush: %v", err)
		}
		if err := w.st.Rollup(w.rc()); err != nil {
			w.diverge("rollup", "", "", "Store.Rollup: %v", err)
		}
		fresh, flushed = true, true
	case x < 75:
		w.logf("check: Flush")
		if err := w.st.Flush(w.rc()); err != nil {
			w.diverge("flush", "", "", "Flush: %v", err)
		}
		flushed = true
	default:
		w.logf("check")
	}
	if fresh {
		for gi, g := range w.groups {
			w.timed("rollups", func() { w.checkRollups(g, w.crng("rollups", w.phase, gi)) })
			if w.timedOut(fmt.Sprintf("rule %s: Rollups", g.kinds[0].rule)) {
				return
			}
		}
	}
	if w.timedOut("the checks' Flush and Rollup") {
		return
	}
	for gi, g := range w.groups {
		w.timed("index", func() { w.checkIndexed(g) })
		w.timed("invalid", func() { w.checkInvalidReads(g) })
		w.timed("latest", func() { w.checkLatest(g) })
		w.timed("latestmany", func() { w.checkLatestMany(g, w.crng("latestmany", w.phase, gi)) })
		w.timed("columns", func() { w.checkColumns(g, w.crng("columns", w.phase, gi)) })
		if w.timedOut(fmt.Sprintf("rule %s: Latest and LatestMany", g.kinds[0].rule)) {
			return
		}
		for _, id := range modelIDs {
			for qi := 0; qi < w.cfg.queries; qi++ {
				w.timed("range", func() { w.checkRange(g, id, qi, w.crng("range", w.phase, gi, id, qi)) })
				if w.timedOut(fmt.Sprintf("rule %s series %q: Range", g.kinds[0].rule, mShort(id))) {
					return
				}
			}
			w.timed("iter", func() { w.checkIter(g, id, w.crng("iter", w.phase, gi, id)) })
			w.timed("all", func() { w.checkAll(g, id, w.crng("all", w.phase, gi, id)) })
			w.timed("column", func() { w.checkColumn(g, id, w.crng("column", w.phase, gi, id)) })
			if w.timedOut(fmt.Sprintf("rule %s series %q: Iter, All", g.kinds[0].rule, mShort(id))) {
				return
			}
			for ai := 0; ai < w.cfg.aggs; ai++ {
				w.timed("aggregate", func() { w.checkAggregate(g, id, ai, w.crng("agg", w.phase, gi, id, ai)) })
				if w.timedOut(fmt.Sprintf("rule %s series %q: Aggregate", g.kinds[0].rule, mShort(id))) {
					return
				}
			}
			if flushed {
				w.timed("buckets", func() { w.checkBuckets(g, id, w.crng("buckets", w.phase, gi, id)) })
				if w.timedOut(fmt.Sprintf("rule %s series %q: Buckets", g.kinds[0].rule, mShort(id))) {
					return
				}
			}
		}
	}
}

// timed runs check fn and adds its time and checks to the statistics of
// its kind of check.
func (w *modelWorld) timed(what string, fn func()) {
	start, n := time.Now(), w.checks
	fn()
	if w.stats == nil {
		w.stats = map[string]*modelStat{}
	}
	st := w.stats[what]
	if st == nil {
		st = &modelStat{}
		w.stats[what] = st
	}
	st.d += time.Since(start)
	st.checks += w.checks - n
}

// modelStat is the time and checks of one kind of check in a run.
type modelStat struct {
	d      time.Duration
	checks int
}

// ref returns the first kind of g before k whose model equals k's: the
// one whose answers k's must equal.
func (g *modelGroup) ref(k *mkind) *mkind {
	for _, r := range g.kinds {
		if r == k {
			return nil
		}
		if r.m.digest == k.m.digest && r.m.ord == k.m.ord {
			return r
		}
	}
	return nil
}

// crossCheck compares kind k's answer (a fingerprint) with that of the
// kind it must agree with, kept in answers.
func (w *modelWorld) crossCheck(g *modelGroup, k *mkind, id, what string, answers map[*mkind]string, fp string) {
	answers[k] = fp
	r := g.ref(k)
	if r == nil {
		return
	}
	if a, ok := answers[r]; ok {
		w.checks++
		if a != fp {
			w.diverge("layouts-differ/"+what, k.name, id, "%s answers %s, %s answers %s", k, mClip(fp), r, mClip(a))
		}
	}
}

// crossPeriods compares kind k's periods with those of the kind it must
// agree with, kept in answers: exactly, but for sums, compared as with
// the model (want gives the magnitude of each period's sums).
func (w *modelWorld) crossPeriods(g *modelGroup, k *mkind, id, what string, answers map[*mkind][]Period, got []Period, want []mPeriod) {
	answers[k] = got
	r := g.ref(k)
	if r == nil {
		return
	}
	a, ok := answers[r]
	if !ok {
		return
	}
	w.checks++
	mags := map[int64]mPeriod{}
	for _, p := range want {
		mags[mFloorMs(p.Start)] = p
	}
	ref := make([]mPeriod, len(a))
	for i, p := range a {
		m, ok := mags[mFloorMs(p.Start)]
		if !ok || len(m.sumAbs) != len(p.Fields) {
			m = mPeriod{sumAbs: make([]float64, len(p.Fields)), inf: make([]bool, len(p.Fields))}
			for f, x := range p.Fields {
				m.sumAbs[f] = math.Abs(x.Sum) * 2
				m.inf[f] = math.IsInf(x.Sum, 0) || math.IsNaN(x.Sum)
			}
		}
		ref[i] = mPeriod{Period: p, sumAbs: m.sumAbs, inf: m.inf}
	}
	if d := mPeriodsDiff(got, ref); d != "" {
		w.diverge("layouts-differ/"+what, k.name, id, "%s and %s answer differently: %s", k, r, d)
	}
}

func mClip(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

// between makes, with probability cfg.between, an operation between two
// pages of a read that does not change what the read returns: a flush, a
// compaction (with the clock moved on, no reading expiring), a rollup,
// a restart. It returns its description.
//
// A read has at most modelBetweenPerRead of them (they cost more than
// reads): ops counts those made.
func (w *modelWorld) between(rng *rand.Rand, k *mkind, id string, ops *int) string {
	if w.cfg.control || *ops >= modelBetweenPerRead || rng.Float64() >= w.cfg.between {
		return ""
	}
	*ops++
	var what string
	switch x := rng.IntN(100); {
	case x < 25:
		what = "Flush"
		if err := w.st.Flush(w.rc()); err != nil {
			w.diverge("flush", "", "", "Flush between pages: %v", err)
		}
	case x < 55:
		d := w.safeAdvance(time.Duration(rng.IntN(16*60_000)) * time.Millisecond)
		w.clk.Advance(d)
		what = fmt.Sprintf("advance %v, Store.Compact", d)
		if err := w.st.Compact(w.rc()); err != nil {
			w.diverge("compact", "", "", "Store.Compact between pages: %v", err)
		}
	case x < 70:
		what = "Store.Rollup"
		if err := w.st.Rollup(w.rc()); err != nil {
			w.diverge("rollup", "", "", "Store.Rollup between pages: %v", err)
		}
	case x < 82:
		from, to := w.genSpan(rng)
		what = fmt.Sprintf("%s.Compact(%s, %s)", k.name, mFmtTime(from), mFmtTime(to))
		if err := w.kind(k).Compact(w.rc(), id, from, to); err != nil {
			w.diverge("compact", k.name, id, "Kind.Compact between pages: %v", err)
		}
	default:
		d := w.safeAdvance(time.Second + time.Duration(rng.IntN(5000))*time.Millisecond)
		what = fmt.Sprintf("Close, advance %v, Open", d)
		if err := w.st.Close(); err != nil {
			w.diverge("close", "", "", "Close between pages: %v", err)
		}
		w.clk.Advance(d)
		w.open()
	}
	w.logf("between pages: %s", what)
	return what
}

// modelBetweenPerRead is the most operations between the pages of a read.
const modelBetweenPerRead = 2

// safeAdvance returns d, or less so that no reading expires.
func (w *modelWorld) safeAdvance(d time.Duration) time.Duration {
	now := w.clk.Now()
	for _, k := range w.kinds {
		for _, rs := range k.m.series {
			for _, r := range rs {
				if k.m.expiredAt(r.t, now) {
					continue
				}
				if lim := time.UnixMilli(r.t).Add(k.m.raw).Sub(now) - time.Millisecond; lim < d {
					d = lim
				}
			}
		}
	}
	return max(0, d.Truncate(time.Millisecond))
}

// genQuery returns a query on series id: bounds on instants written, on
// boundaries, finer than a millisecond, or none; both directions; limits,
// page sizes and filters.
func (w *modelWorld) genQuery(rng *rand.Rand, paged bool) mQuery {
	var q mQuery
	if rng.IntN(100) < 70 {
		q.from = w.genBound(rng)
	}
	if rng.IntN(100) < 65 {
		q.to = w.genBound(rng)
		if !q.from.IsZero() && rng.IntN(100) < 85 && q.to.Before(q.from) {
			q.from, q.to = q.to, q.from
		}
	}
	q.reverse = rng.IntN(2) == 0
	if rng.IntN(100) < 40 {
		q.limit = 1 + rng.IntN(30)
	}
	if paged && rng.IntN(100) < 80 {
		q.pageSize = []int{1, 2, 3, 5, 8, 13, 40}[rng.IntN(7)]
	}
	if rng.IntN(100) < 30 {
		q.filters = append(q.filters, w.genFilter(rng))
		if rng.IntN(100) < 30 {
			q.filters = append(q.filters, w.genFilter(rng))
		}
	}
	return q
}

// genBound returns a time bound: an instant written (exactly, or half a
// millisecond or a millisecond around it), a boundary, or any time.
func (w *modelWorld) genBound(rng *rand.Rand) time.Time {
	now := w.clk.Now()
	switch x := rng.IntN(100); {
	case x < 45 && len(w.used) > 0:
		t := w.used[rng.IntN(len(w.used))]
		return t.Add([]time.Duration{0, 0, 500 * time.Microsecond, -500 * time.Microsecond, time.Millisecond, -time.Millisecond, 1}[rng.IntN(7)])
	case x < 65:
		return now.Truncate(time.Hour).Add(time.Duration(rng.IntN(100)-90) * time.Hour)
	case x < 72:
		b := []time.Time{modelBase, modelBase.AddDate(0, -1, 0), modelBase.AddDate(0, 1, 0), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC)}[rng.IntN(4)]
		if w.cfg.tame && b.Year() == 9999 {
			b = modelBase
		}
		return b
	}
	return now.Add(-time.Duration(rng.Int64N(int64(50*24*time.Hour))) + 6*time.Hour).Truncate(time.Millisecond)
}

func (w *modelWorld) genFilter(rng *rand.Rand) mFilter {
	if rng.IntN(3) == 0 {
		i := rng.IntN(len(modelTags))
		f := mFilter{tag: true, name: modelTags[i], idx: i}
		pick := func() string { return mTagPool[rng.IntN(len(mTagPool))] }
		switch rng.IntN(5) {
		case 0:
			f.op, f.strs = "eq", []string{pick()}
		case 1:
			f.op, f.strs = "ne", []string{pick()}
		case 2:
			f.op, f.strs = "in", []string{pick(), pick()}
		case 3:
			f.op, f.strs = "prefix", []string{[]string{"", "x", "é", "lon", "#"}[rng.IntN(5)]}
		default:
			f.op = "exists"
		}
		return f
	}
	i := rng.IntN(len(modelFields))
	f := mFilter{name: modelFields[i], idx: i}
	val := func() float64 {
		if len(w.values) > 0 && rng.IntN(3) > 0 {
			return w.values[rng.IntN(len(w.values))]
		}
		return float64(rng.IntN(201)-100) / 2
	}
	f.op = []string{"eq", "ne", "lt", "lte", "gt", "gte", "between", "exists", "absent"}[rng.IntN(9)]
	f.lo = val()
	if f.op == "between" {
		f.hi = val()
		if f.hi < f.lo {
			f.lo, f.hi = f.hi, f.lo
		}
	}
	return f
}

// mReadingDiff describes how got differs from want, "" if it does not.
func mReadingDiff(got Reading, want mReading) string {
	bad := !got.Time.Equal(time.UnixMilli(want.t)) || got.Time.Location() != time.UTC ||
		len(got.Values) != len(want.vals) || len(got.Tags) != len(want.tags)
	for i := 0; !bad && i < len(want.vals); i++ {
		bad = !mSameFloat(got.Values[i], want.vals[i])
	}
	for i := 0; !bad && i < len(want.tags); i++ {
		bad = got.Tags[i] != want.tags[i]
	}
	if !bad {
		return ""
	}
	s := fmt.Sprintf("got %s, want %s", mFmtReading(got), mFmtM(want))
	if got.Time.Location() != time.UTC {
		s += " (time not in UTC)"
	}
	return s
}

// mReadingsDiff describes how got differs from want, "" if it does not.
func mReadingsDiff(got []Reading, want []mReading) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if d := mReadingDiff(got[i], want[i]); d != "" {
			prev := ""
			if i > 0 {
				prev = "; the one before: " + mFmtReading(got[i-1])
			}
			return fmt.Sprintf("%d readings, want %d; at %d: %s%s", len(got), len(want), i, d, prev)
		}
	}
	switch {
	case len(got) > n:
		return fmt.Sprintf("%d readings, want %d; extra from %d: %s", len(got), len(want), n, mFmtReadings(got[n:]))
	case len(want) > n:
		ms := make([]string, 0, 4)
		for _, r := range want[n:min(len(want), n+4)] {
			ms = append(ms, mFmtM(r))
		}
		return fmt.Sprintf("%d readings, want %d; missing from %d: %s", len(got), len(want), n, strings.Join(ms, ", "))
	}
	return ""
}

func mFmtReadings(rs []Reading) string {
	var ss []string
	for i, r := range rs {
		if i == 4 {
			ss = append(ss, fmt.Sprintf("…(%d)", len(rs)))
			break
		}
		ss = append(ss, mFmtReading(r))
	}
	return strings.Join(ss, ", ")
}

func mFingerprint(rs []Reading) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(mFmtReading(r))
		b.WriteString("; ")
	}
	return b.String()
}

func (w *modelWorld) checkInvalidReads(g *modelGroup) {
	w.label = "invalid reads"
	k := g.kinds[w.phase%len(g.kinds)]
	kk := w.kind(k)
	w.checks += 3
	if _, err := kk.Latest(w.rc(), "a#b"); err == nil {
		w.diverge("invalid-read", k.name, "a#b", "Latest of an invalid id: no error")
	}
	if _, err := kk.Range(w.rc(), "", Query{}); err == nil {
		w.diverge("invalid-read", k.name, "", "Range of an invalid id: no error")
	}
	if _, err := kk.Range(w.rc(), "s0", Query{Cursor: "not a cursor"}); err == nil {
		w.diverge("invalid-read", k.name, "s0", "Range with a cursor it did not make: no error")
	}
}

func (w *modelWorld) checkLatest(g *modelGroup) {
	w.label = "latest"
	now := w.clk.Now()
	for _, id := range append(slices.Clone(modelIDs), modelNobody) {
		answers := map[*mkind]string{}
		for _, k := range g.kinds {
			r, err := w.kind(k).Latest(w.rc(), id)
			w.checks++
			want, ok := k.m.latest(id, now)
			var fp string
			switch {
			case !ok:
				if !errors.Is(err, ErrNotFound) {
					w.diverge("latest", k.name, id, "Latest at %s: got %s (error %v), want ErrNotFound", mFmtTime(now), mFmtReading(r), err)
				}
				fp = fmt.Sprint("not found: ", errors.Is(err, ErrNotFound))
			case err != nil:
				w.diverge("latest", k.name, id, "Latest at %s: error %v, want %s", mFmtTime(now), err, mFmtM(want))
				fp = "error"
			default:
				if d := mReadingDiff(r, want); d != "" {
					w.diverge("latest", k.name, id, "Latest at %s: %s", mFmtTime(now), d)
				}
				fp = mFmtReading(r)
			}
			w.crossCheck(g, k, id, "latest", answers, fp)
		}
	}
}

func (w *modelWorld) checkLatestMany(g *modelGroup, rng *rand.Rand) {
	w.label = "latestmany"
	now := w.clk.Now()
	ids := append(slices.Clone(modelIDs), modelNobody)
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	answers := map[*mkind]string{}
	for _, k := range g.kinds {
		got, err := w.kind(k).LatestMany(w.rc(), ids)
		w.checks++
		if err != nil {
			w.diverge("latestmany", k.name, "", "LatestMany: %v", err)
			continue
		}
		var fp strings.Builder
		for _, id := range ids {
			r, found := got[id]
			want, ok := k.m.latest(id, now)
			switch {
			case ok && !found:
				w.diverge("latestmany", k.name, id, "LatestMany at %s: absent, want %s", mFmtTime(now), mFmtM(want))
			case !ok && found:
				w.diverge("latestmany", k.name, id, "LatestMany at %s: got %s, want it absent", mFmtTime(now), mFmtReading(r))
			case ok:
				if d := mReadingDiff(r, want); d != "" {
					w.diverge("latestmany", k.name, id, "LatestMany at %s: %s", mFmtTime(now), d)
				}
			}
			fmt.Fprintf(&fp, "%s=%v:%s ", mShort(id), found, mFmtReading(r))
		}
		if len(got) > len(ids) {
			w.diverge("latestmany", k.name, "", "LatestMany: %d entries for %d ids", len(got), len(ids))
		}
		w.crossCheck(g, k, "", "latestmany", answers, fp.String())
	}
}

// checkRange reads a random query page by page, in both directions, with
// operations between the pages, and compares the pages' concatenation
// with the model's read.
func (w *modelWorld) checkRange(g *modelGroup, id string, qi int, rng *rand.Rand) {
	w.label = fmt.Sprint("range ", qi)
	q := w.genQuery(rng, true)
	answers := map[*mkind]string{}
	for _, k := range g.kinds {
		now := w.clk.Now()
		want := k.m.rangeOf(id, q, now, true)
		qq := q.query()
		var all []Reading
		var trace []string
		nops, failed := 0, false
		lastEmpty := false
		for page := 0; ; page++ {
			p, err := w.kind(k).Range(w.rc(), id, qq)
			w.checks++
			if err != nil {
				w.diverge("range-error", k.name, id, "Range%s page %d at %s: %v (pages: %s)", q, page, mFmtTime(now), err, strings.Join(trace, ", "))
				failed = true
				break
			}
			trace = append(trace, fmt.Sprintf("%d", len(p.Readings)))
			if q.pageSize > 0 && len(p.Readings) > q.pageSize {
				w.diverge("range-pagesize", k.name, id, "Range%s page %d: %d readings, PageSize %d", q, page, len(p.Readings), q.pageSize)
			}
			all = append(all, p.Readings...)
			lastEmpty = page > 0 && len(p.Readings) == 0
			if p.Cursor == "" {
				break
			}
			if len(p.Readings) == 0 {
				w.diverge("range-cursor", k.name, id, "Range%s page %d: no reading, and a cursor", q, page)
				break
			}
			if page > len(want)+2 {
				w.diverge("range-cursor", k.name, id, "Range%s: %d pages for %d readings", q, page+1, len(want))
				break
			}
			if op := w.between(rng, k, id, &nops); op != "" {
				trace = append(trace, "["+op+"]")
			}
			qq.Cursor = p.Cursor
		}
		if failed {
			continue
		}
		cat := "range"
		switch {
		case nops > 0:
			cat = "range/paged+ops"
		case len(trace) > 1:
			cat = "range/paged"
		}
		if d := mReadingsDiff(all, want); d != "" {
			w.diverge(cat, k.name, id, "Range%s at %s: %s (page sizes and operations between: %s)", q, mFmtTime(now), d, strings.Join(trace, ", "))
		} else if lastEmpty {
			w.diverge("range-cursor-end", k.name, id, "Range%s: the page before the last had a cursor, though no reading followed (page sizes: %s)", q, strings.Join(trace, ", "))
		}
		w.crossCheck(g, k, id, "range", answers, mFingerprint(all))
	}
}

// checkIter reads a random query with Iter, a few readings at a time,
// each time from the last one's cursor, with operations in between.
func (w *modelWorld) checkIter(g *modelGroup, id string, rng *rand.Rand) {
	w.label = "iter"
	q := w.genQuery(rng, false)
	q.limit = 0
	answers := map[*mkind]string{}
	for _, k := range g.kinds {
		now := w.clk.Now()
		want := k.m.rangeOf(id, q, now, false)
		var all []Reading
		var trace []string
		cursor := ""
		failed := false
		nops := 0
		for {
			qq := q.query()
			qq.Cursor = cursor
			it := w.kind(k).Iter(w.rc(), id, qq)
			stop := 1 + rng.IntN(25)
			n := 0
			for n < stop && it.Next() {
				all = append(all, it.Reading())
				cursor = it.Cursor()
				n++
			}
			err := it.Err()
			it.Close()
			trace = append(trace, fmt.Sprint(n))
			w.checks++ // each Iter is a read, compared below with its part of the model's
			if err != nil {
				w.diverge("iter-error", k.name, id, "Iter%s after %d readings: %v", q, len(all), err)
				failed = true
				break
			}
			if n < stop || len(all) > len(want)+2 {
				break
			}
			if op := w.between(rng, k, id, &nops); op != "" {
				trace = append(trace, "["+op+"]")
			}
		}
		if failed {
			continue
		}
		if d := mReadingsDiff(all, want); d != "" {
			w.diverge("iter", k.name, id, "Iter%s resumed from its cursors at %s: %s (readings per Iter and operations between: %s)", q, mFmtTime(now), d, strings.Join(trace, ", "))
		}
		w.crossCheck(g, k, id, "iter", answers, mFingerprint(all))
	}
}

// checkAll reads the whole series with All, in either direction, so
// that every reading is checked in every phase; and, sometimes, again
// with a Limit.
func (w *modelWorld) checkAll(g *modelGroup, id string, rng *rand.Rand) {
	w.label = "all"
	qs := []mQuery{{reverse: rng.IntN(2) == 0}}
	if rng.IntN(100) < 25 {
		qs = append(qs, mQuery{reverse: rng.IntN(2) == 0, limit: 1 + rng.IntN(20)})
	}
	for qi, q := range qs {
		answers := map[*mkind]string{}
		for _, k := range g.kinds {
			now := w.clk.Now()
			want := k.m.rangeOf(id, q, now, true)
			var all []Reading
			var err error
			for r, e := range w.kind(k).All(w.rc(), id, q.query()) {
				if e != nil {
					err = e
					break
				}
				all = append(all, r)
				if len(all) > len(want)+2 {
					break
				}
			}
			w.checks++
			if err != nil {
				w.diverge("all-error", k.name, id, "All%s: %v", q, err)
				continue
			}
			if d := mReadingsDiff(all, want); d != "" {
				w.diverge("all", k.name, id, "All%s at %s: %s", q, mFmtTime(now), d)
			}
			w.crossCheck(g, k, id, fmt.Sprint("all ", qi), answers, mFingerprint(all))
		}
	}
}

// checkColumn reads one field of a random range with ReadColumn, which
// must give that field of the readings Range gives.
func (w *modelWorld) checkColumn(g *modelGroup, id string, rng *rand.Rand) {
	w.label = "column"
	q := w.genQuery(rng, false)
	q.reverse, q.limit, q.filters = false, 0, nil
	field := rng.IntN(len(modelFields))
	for _, k := range g.kinds {
		now := w.clk.Now()
		want := k.m.rangeOf(id, q, now, true)
		var c Column
		err := w.kind(k).ReadColumn(w.rc(), id, field, q.from, q.to, &c)
		w.checks++
		if err != nil {
			w.diverge("column-error", k.name, id, "ReadColumn%s field %d: %v", q, field, err)
			continue
		}
		if d := mColumnDiff(c, want, field); d != "" {
			w.diverge("column", k.name, id, "ReadColumn%s field %d at %s: %s", q, field, mFmtTime(now), d)
		}
	}
}

// checkColumns reads one field of a random range of all the series with
// ReadColumns, which must give each that field of the readings Range
// gives, in order.
func (w *modelWorld) checkColumns(g *modelGroup, rng *rand.Rand) {
	w.label = "columns"
	q := w.genQuery(rng, false)
	q.reverse, q.limit, q.filters = false, 0, nil
	field := rng.IntN(len(modelFields))
	ids := slices.Clone(modelIDs)
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	for _, k := range g.kinds {
		now := w.clk.Now()
		next := 0
		w.kind(k).ReadColumns(w.rc(), ids, field, q.from, q.to, func(i int, c Column, err error) {
			w.checks++
			id := ids[i]
			if i != next {
				w.diverge("columns-order", k.name, id, "ReadColumns%s field %d: series %d given after %d", q, field, i, next-1)
			}
			next = i + 1
			if err != nil {
				w.diverge("columns-error", k.name, id, "ReadColumns%s field %d: %v", q, field, err)
				return
			}
			if d := mColumnDiff(c, k.m.rangeOf(id, q, now, true), field); d != "" {
				w.diverge("columns", k.name, id, "ReadColumns%s field %d at %s: %s", q, field, mFmtTime(now), d)
			}
		})
		if next != len(ids) {
			w.diverge("columns-count", k.name, "", "ReadColumns%s: %d of %d series given", q, next, len(ids))
		}
	}
}

// mColumnDiff describes how c differs from field of want, "" if it
// does not.
func mColumnDiff(c Column, want []mReading, field int) string {
	if len(c.Times) != len(c.Values) {
		return fmt.Sprintf("%d times, %d values", len(c.Times), len(c.Values))
	}
	for i := range min(len(c.Times), len(want)) {
		if c.Times[i] != want[i].t || !mSameFloat(c.Values[i], want[i].vals[field]) {
			return fmt.Sprintf("%d readings, want %d; at %d: %s %v, want %s", len(c.Times), len(want), i, mFmtTime(time.UnixMilli(c.Times[i])), c.Values[i], mFmtM(want[i]))
		}
	}
	if len(c.Times) != len(want) {
		return fmt.Sprintf("%d readings, want %d", len(c.Times), len(want))
	}
	return ""
}

// Aggregates.

// mPeriodsDiff describes how got differs from want, "" if it does not.
// Sums may differ by rounding: by at most 1e-9 of the sum of the values'
// magnitudes (and any amount when those overflow).
func mPeriodsDiff(got []Period, want []mPeriod) string {
	n := min(len(got), len(want))
	for i := 0; i < n; i++ {
		if d := mPeriodDiff(got[i], want[i]); d != "" {
			return fmt.Sprintf("%d periods, want %d; period %d: %s", len(got), len(want), i, d)
		}
	}
	switch {
	case len(got) > n:
		return fmt.Sprintf("%d periods, want %d; extra from %d: %s", len(got), len(want), n, mFmtPeriod(got[n]))
	case len(want) > n:
		return fmt.Sprintf("%d periods, want %d; missing from %d: %s", len(got), len(want), n, mFmtPeriod(want[n].Period))
	}
	return ""
}

func mPeriodDiff(g Period, w mPeriod) string {
	if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.Count != w.Count || len(g.Fields) != len(w.Fields) {
		return fmt.Sprintf("got %s, want %s", mFmtPeriod(g), mFmtPeriod(w.Period))
	}
	for f := range w.Fields {
		a, b := g.Fields[f], w.Fields[f]
		if a.Count != b.Count || !mSameFloat(a.Min, b.Min) || !mSameFloat(a.Max, b.Max) || !mSameFloat(a.First, b.First) || !mSameFloat(a.Last, b.Last) ||
			!a.FirstTime.Equal(b.FirstTime) || !a.LastTime.Equal(b.LastTime) || !mSumClose(a.Sum, b.Sum, w.sumAbs[f], w.inf[f]) {
			return fmt.Sprintf("period %s field %s: got %s, want %s", mFmtTime(g.Start), modelFields[f], mFmtAgg(a), mFmtAgg(b))
		}
	}
	return ""
}

func mSumClose(got, want, sumAbs float64, inf bool) bool {
	switch {
	case math.IsInf(sumAbs, 0):
		return true // the finite values overflow in some orders
	case inf:
		return mSameFloat(got, want) || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= 1e-9*sumAbs
}

func mFmtPeriod(p Period) string {
	s := fmt.Sprintf("[%s, %s) count %d", mFmtTime(p.Start), mFmtTime(p.End), p.Count)
	for i, a := range p.Fields {
		if a.Count > 0 && i < len(modelFields) {
			s += " " + modelFields[i] + ":" + mFmtAgg(a)
		}
	}
	return s
}

func mFmtAgg(a Aggregate) string {
	return fmt.Sprintf("{n %d sum %s min %s max %s first %s@%s last %s@%s}", a.Count, mFmtFloat(a.Sum), mFmtFloat(a.Min), mFmtFloat(a.Max),
		mFmtFloat(a.First), mFmtTime(a.FirstTime), mFmtFloat(a.Last), mFmtTime(a.LastTime))
}

// mAggCase is an Aggregate query and how the model computes it.
type mAggCase struct {
	q       AggregateQuery
	span    func(int64) (int64, int64)
	step    time.Duration // the step the answer must report (0 with months)
	months  int
	invalid bool // the tier does not divide the step: an error
}

func (a mAggCase) String() string {
	s := fmt.Sprintf("{From:%s To:%s", mFmtTime(a.q.From), mFmtTime(a.q.To))
	if a.q.Months > 0 {
		s += fmt.Sprintf(" Months:%d", a.q.Months)
	} else {
		s += fmt.Sprintf(" Step:%v", a.q.Step)
	}
	return s + " Tier:" + a.q.Tier.String() + "}"
}

// genAgg returns an Aggregate query of a tier and a step it divides,
// from no earlier than the raw cutoff (where every tier holds what the
// raw readings hold).
func (w *modelWorld) genAgg(rng *rand.Rand, m *naiveModel) mAggCase {
	now := w.clk.Now()
	cutoff := now.Add(-m.raw).Truncate(time.Millisecond).Add(time.Millisecond)
	var from time.Time
	switch x := rng.IntN(100); {
	case x < 35:
		from = now.Truncate(time.Hour).Add(-time.Duration(rng.IntN(80)) * time.Hour)
	case x < 55:
		from = now.Truncate(24*time.Hour).AddDate(0, 0, -rng.IntN(5))
	case x < 65:
		from = modelBase.AddDate(0, -1, 0)
	default:
		from = now.Add(-time.Duration(rng.Int64N(int64(5 * 24 * time.Hour)))).Truncate(time.Millisecond)
	}
	if from.Before(cutoff) {
		from = cutoff
		if rng.IntN(2) == 0 {
			from = cutoff.Truncate(time.Hour).Add(time.Hour)
		}
	}
	a := mAggCase{q: AggregateQuery{From: from, MaxPeriods: -1}}
	if rng.IntN(100) < 70 {
		a.q.To = from.Add(time.Duration(1+rng.Int64N(int64(12*24*time.Hour)/1e6)) * time.Millisecond)
		if rng.IntN(2) == 0 {
			a.q.To = a.q.To.Truncate(time.Hour)
		}
	}
	h, d := time.Hour, 24*time.Hour
	type opt struct {
		step   time.Duration
		months int
	}
	var opts []opt
	switch a.q.Tier = Tier(rng.IntN(4)); a.q.Tier {
	case Raw:
		opts = []opt{{time.Millisecond, 0}, {time.Second, 0}, {time.Minute, 0}, {7 * time.Minute, 0}, {h, 0}, {3 * h, 0}, {d, 0}, {2 * d, 0}, {7 * d, 0}, {0, 1}, {0, 2}, {0, 3}}
	case Hourly:
		opts = []opt{{h, 0}, {2 * h, 0}, {6 * h, 0}, {d, 0}, {3 * d, 0}, {0, 1}, {0, 2}}
	case Daily:
		opts = []opt{{d, 0}, {2 * d, 0}, {7 * d, 0}, {0, 1}, {0, 3}}
	case Monthly:
		opts = []opt{{0, 1}, {0, 2}, {0, 3}, {0, 12}}
	}
	o := opts[rng.IntN(len(opts))]
	a.q.Step, a.q.Months = o.step, o.months
	if rng.IntN(100) < 6 {
		// A tier that does not divide the step.
		bad := []struct {
			t    Tier
			step time.Duration
		}{{Hourly, 30 * time.Minute}, {Daily, h}, {Daily, 36 * h}, {Monthly, d}, {Monthly, 30 * d}}[rng.IntN(5)]
		a.q.Tier, a.q.Step, a.q.Months, a.invalid = bad.t, bad.step, 0, true
		return a
	}
	if a.q.Tier == Raw && !a.q.To.IsZero() && rng.IntN(100) < 10 {
		a.q.Step, a.q.Months = 0, 0 // the step picked from the range's length
		switch span := a.q.To.Sub(a.q.From); {
		case span <= 6*h:
			o = opt{time.Minute, 0}
		case span <= 8*d:
			o = opt{h, 0}
		case span <= 400*d:
			o = opt{d, 0}
		default:
			o = opt{0, 1}
		}
	}
	a.step, a.months = o.step, o.months
	if o.months > 0 {
		a.span = mMonthSpan(o.months)
	} else {
		a.span = mStepSpan(o.step.Milliseconds())
	}
	return a
}

func (w *modelWorld) checkAggregate(g *modelGroup, id string, ai int, rng *rand.Rand) {
	w.label = fmt.Sprint("aggregate ", ai)
	a := w.genAgg(rng, g.kinds[0].m)
	answers := map[*mkind][]Period{}
	for _, k := range g.kinds {
		now := w.clk.Now()
		got, err := w.kind(k).Aggregate(w.rc(), id, a.q)
		w.checks++
		if a.invalid {
			if err == nil {
				w.diverge("aggregate-invalid", k.name, id, "Aggregate%s: no error, though the tier does not divide the step", a)
			}
			continue
		}
		if err != nil {
			w.diverge("aggregate-error", k.name, id, "Aggregate%s at %s: %v", a, mFmtTime(now), err)
			continue
		}
		want := k.m.aggregate(k.m.rangeOf(id, mQuery{from: a.q.From, to: a.q.To}, now, false), a.span)
		if d := mPeriodsDiff(got.Periods, want); d != "" {
			w.diverge("aggregate/"+a.q.Tier.String(), k.name, id, "Aggregate%s at %s: %s", a, mFmtTime(now), d)
		}
		// The tier and width read (of an answer that has periods).
		if len(want) > 0 && a.q.Tier != Raw && got.Tier != a.q.Tier {
			w.diverge("aggregate-tier", k.name, id, "Aggregate%s: read the %s tier, want exactly the %s tier", a, got.Tier, a.q.Tier)
		}
		if len(want) > 0 && (got.Months != a.months || (a.months == 0 && got.Step != a.step)) {
			w.diverge("aggregate-step", k.name, id, "Aggregate%s: step %v months %d, want step %v months %d", a, got.Step, got.Months, a.step, a.months)
		}
		w.crossPeriods(g, k, id, "aggregate", answers, got.Periods, want)
	}
}

func mTierOfGran(g keys.Granularity) Tier {
	switch g {
	case keys.Hour:
		return Hourly
	case keys.Day:
		return Daily
	}
	return Monthly
}

// genPeriodBounds returns from and to for Buckets and Rollups: zero, a
// boundary or any millisecond.
func (w *modelWorld) genPeriodBounds(rng *rand.Rand) (time.Time, time.Time) {
	now := w.clk.Now()
	var from, to time.Time
	switch x := rng.IntN(100); {
	case x < 35:
	case x < 60:
		from = now.Truncate(time.Hour).Add(-time.Duration(rng.IntN(100)) * time.Hour)
	case x < 70:
		from = modelBase.AddDate(0, -1, 0)
	default:
		from = now.Add(-time.Duration(rng.Int64N(int64(6 * 24 * time.Hour)))).Truncate(time.Millisecond)
	}
	if rng.IntN(100) < 55 {
		base := from
		if base.IsZero() {
			base = now.Add(-5 * 24 * time.Hour)
		}
		to = base.Add(time.Duration(1+rng.Int64N(int64(8*24*time.Hour)/1e6)) * time.Millisecond)
		if rng.IntN(2) == 0 {
			to = to.Truncate(time.Hour)
		}
	}
	return from, to
}

// mInPeriodBounds reports whether a period starting at ms st starts in
// [from, to); zero from and to are unbounded.
func mInPeriodBounds(st int64, from, to time.Time) bool {
	return (from.IsZero() || st >= mCeilMs(from)) && (to.IsZero() || st < mCeilMs(to))
}

func (w *modelWorld) checkBuckets(g *modelGroup, id string, rng *rand.Rand) {
	w.label = "buckets"
	from, to := w.genPeriodBounds(rng)
	answers := map[*mkind][]Period{}
	for _, k := range g.kinds {
		if k.layout != Buckets {
			continue
		}
		now := w.clk.Now()
		got, err := w.kind(k).Buckets(w.rc(), id, from, to)
		w.checks++
		if err != nil {
			w.diverge("buckets-error", k.name, id, "Buckets(%s, %s): %v", mFmtTime(from), mFmtTime(to), err)
			continue
		}
		var want []mPeriod
		for _, p := range k.m.aggregate(k.m.view(id, now), mTierSpan(mTierOfGran(k.bucket))) {
			if mInPeriodBounds(mFloorMs(p.Start), from, to) {
				want = append(want, p)
			}
		}
		if d := mPeriodsDiff(got, want); d != "" {
			w.diverge("buckets", k.name, id, "Buckets(%s, %s) at %s (%v buckets): %s", mFmtTime(from), mFmtTime(to), mFmtTime(now), k.bucket, d)
		}
		w.crossPeriods(g, k, id, "buckets", answers, got, want)
	}
}

// checkRollups runs after Flush and Store.Rollup: each rollup period that
// ended LateWindow ago and holds no expired reading must be the aggregate
// of its readings. Then a Recompute, twice, must change nothing.
func (w *modelWorld) checkRollups(g *modelGroup, rng *rand.Rand) {
	for _, id := range modelIDs {
		for _, t := range []Tier{Hourly, Daily, Monthly} {
			from, to := w.genPeriodBounds(rng)
			answers := map[*mkind][]Period{}
			for _, k := range g.kinds {
				got, want := w.checkRollupsOf(k, id, t, from, to, "")
				w.crossPeriods(g, k, id, "rollups", answers, got, want)
			}
		}
	}
	k := g.kinds[rng.IntN(len(g.kinds))]
	id := modelIDs[rng.IntN(len(modelIDs))]
	from, to := w.genSpan(rng)
	for i := 0; i < 2; i++ {
		w.logf("check: %s.Recompute(%q, %s, %s)", k.name, mShort(id), mFmtTime(from), mFmtTime(to))
		if err := w.kind(k).Recompute(w.rc(), id, from, to); err != nil {
			w.diverge("recompute", k.name, id, "Recompute(%s, %s): %v", mFmtTime(from), mFmtTime(to), err)
		}
		for _, t := range []Tier{Hourly, Daily, Monthly} {
			w.checkRollupsOf(k, id, t, time.Time{}, time.Time{}, fmt.Sprintf(" after Recompute(%s, %s) #%d", mFmtTime(from), mFmtTime(to), i+1))
		}
	}
}

func (w *modelWorld) checkRollupsOf(k *mkind, id string, t Tier, from, to time.Time, after string) ([]Period, []mPeriod) {
	w.label = "rollups " + t.String() + after
	now := w.clk.Now()
	late := modelLateWindow
	// The periods checked: ended LateWindow ago, none of their readings
	// expired.
	checked := func(st, end int64) bool {
		return !time.UnixMilli(end).Add(late).After(now) && !k.m.expiredAt(st, now)
	}
	got, err := w.kind(k).Rollups(w.rc(), id, t, from, to)
	w.checks++
	if err != nil {
		w.diverge("rollups-error", k.name, id, "Rollups(%s, %s, %s)%s: %v", t, mFmtTime(from), mFmtTime(to), after, err)
		return nil, nil
	}
	var gotC []Period
	for _, p := range got {
		if !mInPeriodBounds(mFloorMs(p.Start), from, to) {
			w.diverge("rollups-bounds", k.name, id, "Rollups(%s, %s, %s)%s: period %s outside the bounds", t, mFmtTime(from), mFmtTime(to), after, mFmtPeriod(p))
		}
		if checked(mFloorMs(p.Start), mFloorMs(p.End)) {
			gotC = append(gotC, p)
		}
	}
	var want []mPeriod
	for _, p := range k.m.aggregate(k.m.view(id, now), mTierSpan(t)) {
		if mInPeriodBounds(mFloorMs(p.Start), from, to) && checked(mFloorMs(p.Start), mFloorMs(p.End)) {
			want = append(want, p)
		}
	}
	if d := mPeriodsDiff(gotC, want); d != "" {
		w.diverge("rollups/"+t.String(), k.name, id, "Rollups(%s, %s, %s)%s at %s, of the periods due and unexpired: %s", t, mFmtTime(from), mFmtTime(to), after, mFmtTime(now), d)
	}
	return gotC, want
}

// checkIndexed checks that every series the model holds readings of is
// in its kind's directory and label index, which is complete: a series
// written (acknowledged, or found in the table after a kill) is found
// through each of its labels.
func (w *modelWorld) checkIndexed(g *modelGroup) {
	for _, mk := range g.kinds {
		k := w.kind(mk)
		if ready, err := k.LabelIndexReady(w.rc()); err != nil || !ready {
			w.diverge("index", mk.name, "", "LabelIndexReady: %v, %v", ready, err)
			continue
		}
		for _, id := range modelIDs {
			if len(mk.m.series[id]) == 0 {
				continue
			}
			ids, _, err := k.Series(w.rc(), id, 1, "")
			if err != nil || len(ids) == 0 || ids[0] != id {
				w.diverge("index", mk.name, id, "Series: %q, %v", ids, err)
			}
			for _, l := range indexLabels(id) {
				ids, _, err := k.LabelSeries(w.rc(), l, IndexRange{From: id, Limit: 1})
				if err != nil || len(ids) == 0 || ids[0] != id {
					w.diverge("index", mk.name, id, "LabelSeries(%s=%s): %q, %v", l.Name, mClip(l.Value), ids, err)
				}
			}
			if _, isSet := IDLabels(id); !isSet {
				ids, _, err := k.PlainSeries(w.rc(), IndexRange{From: id, Limit: 1})
				if err != nil || len(ids) == 0 || ids[0] != id {
					w.diverge("index", mk.name, id, "PlainSeries: %q, %v", ids, err)
				}
			}
		}
	}
}
