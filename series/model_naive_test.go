package series

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The naive model of the model-based test (model_test.go): what the
// store's contract says a kind holds and returns, written plainly and
// independently of the store's code. It keeps every reading accepted, in
// write order, and applies the duplicate rule, retention, bounds, filters
// and aggregation at read time.

// mReading is a reading as the model keeps it: its instant in
// milliseconds, its write order, and its values and tags padded to the
// schema (NaN and ""), with -0 stored as +0.
type mReading struct {
	t    int64
	ord  uint64
	vals []float64
	tags []string
}

func (r mReading) reading() Reading {
	return Reading{Time: time.UnixMilli(r.t).UTC(), Values: slices.Clone(r.vals), Tags: slices.Clone(r.tags)}
}

// model is the naive model of one kind (all the kinds of one duplicate
// rule and retention hold the same readings).
type naiveModel struct {
	rule   DuplicateRule
	nf, nt int
	raw    time.Duration // raw retention (never Forever here)
	ord    uint64
	series map[string][]mReading // each series' readings, in write order
	// digest sums up the readings written, in order: two models with
	// the same digest hold the same readings.
	digest uint64
	// views caches view's answers at viewsAt.
	views   map[string][]mReading
	viewsAt time.Time
}

func newNaiveModel(rule DuplicateRule, nf, nt int, raw time.Duration) *naiveModel {
	return &naiveModel{rule: rule, nf: nf, nt: nt, raw: raw, series: map[string][]mReading{}}
}

func (m *naiveModel) clone() *naiveModel {
	c := *m
	c.views = nil
	c.series = make(map[string][]mReading, len(m.series))
	for id, rs := range m.series {
		c.series[id] = slices.Clone(rs)
	}
	return &c
}

// mFloorMs is t in milliseconds, rounded down.
func mFloorMs(t time.Time) int64 {
	ms := t.Unix() * 1000
	return ms + int64(t.Nanosecond())/1e6
}

// mCeilMs is t in milliseconds, rounded up.
func mCeilMs(t time.Time) int64 {
	ms := mFloorMs(t)
	if t.Nanosecond()%1e6 != 0 {
		ms++
	}
	return ms
}

// mValidID is the contract's series id: 1 to 512 bytes of UTF-8, no '#'.
func mValidID(id string) bool {
	return id != "" && len(id) <= 512 && utf8.ValidString(id) && !strings.Contains(id, "#")
}

// valid reports whether the schema can store r.
func (m *naiveModel) valid(r Reading) bool {
	if len(r.Values) > m.nf || len(r.Tags) > m.nt {
		return false
	}
	for _, g := range r.Tags {
		if !utf8.ValidString(g) {
			return false
		}
	}
	y := time.UnixMilli(mFloorMs(r.Time)).UTC().Year()
	return y >= 0 && y <= 9999
}

// expiredAt reports whether a reading at ms t is expired at now: older
// than now - raw retention. (The test keeps its clock half a millisecond
// off the millisecond, so "older" has no tie.)
func (m *naiveModel) expiredAt(t int64, now time.Time) bool {
	return time.UnixMilli(t).Before(now.Add(-m.raw))
}

func (m *naiveModel) norm(r Reading) mReading {
	x := mReading{t: mFloorMs(r.Time), vals: make([]float64, m.nf), tags: make([]string, m.nt)}
	for i := range x.vals {
		v := math.NaN()
		if i < len(r.Values) {
			v = r.Values[i]
		}
		if v == 0 {
			v = 0 // -0 is +0
		}
		x.vals[i] = v
	}
	copy(x.tags, r.Tags)
	return x
}

// mSameContent reports whether two readings have the same values (NaN
// equal to NaN) and tags.
func mSameContent(a, b mReading) bool {
	for i := range a.vals {
		if !mSameFloat(a.vals[i], b.vals[i]) {
			return false
		}
	}
	return slices.Equal(a.tags, b.tags)
}

// mSameFloat is equality of stored values: NaN equals NaN, and -0 differs
// from +0 (the store keeps -0 as +0, so a -0 read back is wrong).
func mSameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// mWant is what a write call must return.
type mWant uint8

const (
	mWantOK       mWant = iota
	mWantError          // any error (an invalid call)
	mWantExpired        // ErrExpired
	mWantConflict       // ErrConflict
	mWantExpiredOrConflict
)

func (w mWant) String() string {
	return [...]string{"ok", "an error", "ErrExpired", "ErrConflict", "ErrExpired or ErrConflict"}[w]
}

// mEntry is the readings of one series in a write call.
type mEntry struct {
	id string
	rs []Reading
}

// write applies a write call (Write, WriteSync: one entry; WriteMany:
// the batch) at now and returns what the store must answer. keep, if not
// nil, says which readings of the call were written (a call a kill
// interrupted): the others are left out.
func (m *naiveModel) write(now time.Time, es []mEntry, keep func(e, i int) bool) mWant {
	expired, conflict := false, false
	for _, e := range es {
		if len(e.rs) > 0 && !mValidID(e.id) {
			return mWantError
		}
		for _, r := range e.rs {
			if !m.valid(r) {
				return mWantError
			}
			if m.expiredAt(mFloorMs(r.Time), now) {
				expired = true
			}
		}
	}
	if m.rule == RejectDifferent {
		// The first reading of each instant: stored, or earlier in the call.
		first := map[string]map[int64]mReading{}
		for _, e := range es {
			for _, r := range e.rs {
				x := m.norm(r)
				f := first[e.id]
				if f == nil {
					f = map[int64]mReading{}
					for _, y := range m.series[e.id] {
						if _, ok := f[y.t]; !ok {
							f[y.t] = y
						}
					}
					first[e.id] = f
				}
				if y, ok := f[x.t]; ok {
					if !mSameContent(x, y) {
						conflict = true
					}
					continue
				}
				f[x.t] = x
			}
		}
	}
	switch {
	case expired && conflict:
		return mWantExpiredOrConflict
	case expired:
		return mWantExpired
	case conflict:
		return mWantConflict
	}
	for ei, e := range es {
		for i, r := range e.rs {
			if keep != nil && !keep(ei, i) {
				continue
			}
			x := m.norm(r)
			if m.rule == RejectDifferent && m.has(e.id, x.t) {
				continue // equal to the first: changes nothing
			}
			m.add(e.id, x)
		}
	}
	return mWantOK
}

// add appends reading x to series id, last in write order.
func (m *naiveModel) add(id string, x mReading) {
	m.ord++
	x.ord = m.ord
	m.series[id] = append(m.series[id], x)
	m.views = nil
	h := fnv.New64a()
	fmt.Fprint(h, m.digest, id, x.t, x.tags)
	for _, v := range x.vals {
		if math.IsNaN(v) {
			fmt.Fprint(h, " NaN") // NaNs alike
		} else {
			fmt.Fprint(h, " ", math.Float64bits(v))
		}
	}
	m.digest = h.Sum64()
}

func (m *naiveModel) has(id string, t int64) bool {
	for _, y := range m.series[id] {
		if y.t == t {
			return true
		}
	}
	return false
}

// view returns the readings of series id that reads return at now, in
// ascending time and, at one instant, write order, with the rule applied.
func (m *naiveModel) view(id string, now time.Time) []mReading {
	if m.views != nil && m.viewsAt.Equal(now) {
		if v, ok := m.views[id]; ok {
			return v
		}
	} else {
		m.views, m.viewsAt = map[string][]mReading{}, now
	}
	v := m.computeView(id, now)
	m.views[id] = v
	return v
}

func (m *naiveModel) computeView(id string, now time.Time) []mReading {
	rs := slices.Clone(m.series[id])
	slices.SortStableFunc(rs, func(a, b mReading) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		if a.ord < b.ord {
			return -1
		}
		if a.ord > b.ord {
			return 1
		}
		return 0
	})
	var out []mReading
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j].t == rs[i].t {
			j++
		}
		if !m.expiredAt(rs[i].t, now) {
			switch m.rule {
			case LastWins:
				out = append(out, rs[j-1])
			case KeepAll:
				out = append(out, rs[i:j]...)
			case RejectDifferent:
				out = append(out, rs[i])
			}
		}
		i = j
	}
	return out
}

// mFilter is a filter as the model evaluates it; filter() is the store's.
type mFilter struct {
	tag    bool
	name   string
	idx    int
	op     string // eq ne lt lte gt gte between exists absent in prefix
	lo, hi float64
	strs   []string
}

func (f mFilter) filter() Filter {
	if f.tag {
		t := Tag(f.name)
		switch f.op {
		case "eq":
			return t.Eq(f.strs[0])
		case "ne":
			return t.Ne(f.strs[0])
		case "in":
			return t.In(f.strs...)
		case "prefix":
			return t.Prefix(f.strs[0])
		case "exists":
			return t.Exists()
		}
		panic("bad tag filter " + f.op)
	}
	fr := Field(f.name)
	switch f.op {
	case "eq":
		return fr.Eq(f.lo)
	case "ne":
		return fr.Ne(f.lo)
	case "lt":
		return fr.Lt(f.lo)
	case "lte":
		return fr.Lte(f.lo)
	case "gt":
		return fr.Gt(f.lo)
	case "gte":
		return fr.Gte(f.lo)
	case "between":
		return fr.Between(f.lo, f.hi)
	case "exists":
		return fr.Exists()
	case "absent":
		return fr.Absent()
	}
	panic("bad field filter " + f.op)
}

func (f mFilter) String() string {
	what := "field"
	if f.tag {
		what = "tag"
		return what + " " + f.name + " " + f.op + " " + strings.Join(mQuoteAll(f.strs), ",")
	}
	switch f.op {
	case "exists", "absent":
		return what + " " + f.name + " " + f.op
	case "between":
		return what + " " + f.name + " between " + mFmtFloat(f.lo) + " " + mFmtFloat(f.hi)
	}
	return what + " " + f.name + " " + f.op + " " + mFmtFloat(f.lo)
}

func mQuoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "\"" + s + "\""
	}
	return out
}

// match is the filters' documented meaning: a field filter other than
// absent needs the field present (not NaN); Ne on a field keeps present
// values that differ; a tag's absence is "".
func (f mFilter) match(r mReading) bool {
	if f.tag {
		s := r.tags[f.idx]
		switch f.op {
		case "eq":
			return s == f.strs[0]
		case "ne":
			return s != f.strs[0]
		case "in":
			return slices.Contains(f.strs, s)
		case "prefix":
			return strings.HasPrefix(s, f.strs[0])
		case "exists":
			return s != ""
		}
		return false
	}
	v := r.vals[f.idx]
	if f.op == "absent" {
		return math.IsNaN(v)
	}
	if math.IsNaN(v) {
		return false
	}
	switch f.op {
	case "eq":
		return v == f.lo
	case "ne":
		return v != f.lo
	case "lt":
		return v < f.lo
	case "lte":
		return v <= f.lo
	case "gt":
		return v > f.lo
	case "gte":
		return v >= f.lo
	case "between":
		return v >= f.lo && v <= f.hi
	case "exists":
		return true
	}
	return false
}

// mQuery is a Query as the model reads it.
type mQuery struct {
	from, to time.Time
	reverse  bool
	limit    int
	pageSize int
	filters  []mFilter
}

func (q mQuery) query() Query {
	out := Query{From: q.from, To: q.to, Reverse: q.reverse, Limit: q.limit, PageSize: q.pageSize}
	for _, f := range q.filters {
		out.Filter = append(out.Filter, f.filter())
	}
	return out
}

func (q mQuery) String() string {
	var b strings.Builder
	b.WriteString("{")
	if !q.from.IsZero() {
		b.WriteString("From:" + mFmtTime(q.from) + " ")
	}
	if !q.to.IsZero() {
		b.WriteString("To:" + mFmtTime(q.to) + " ")
	}
	if q.reverse {
		b.WriteString("Reverse ")
	}
	if q.limit > 0 {
		b.WriteString("Limit:" + mItoa(q.limit) + " ")
	}
	if q.pageSize > 0 {
		b.WriteString("PageSize:" + mItoa(q.pageSize) + " ")
	}
	for _, f := range q.filters {
		b.WriteString("Filter:(" + f.String() + ") ")
	}
	return strings.TrimSpace(b.String()) + "}"
}

// rangeOf returns what Range, Iter and All return for q (Cursor aside):
// Limit is applied when limit is set.
func (m *naiveModel) rangeOf(id string, q mQuery, now time.Time, limit bool) []mReading {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if !q.from.IsZero() {
		lo = mCeilMs(q.from)
	}
	if !q.to.IsZero() {
		hi = mCeilMs(q.to)
	}
	var out []mReading
	for _, r := range m.view(id, now) {
		if r.t < lo || r.t >= hi {
			continue
		}
		ok := true
		for _, f := range q.filters {
			if !f.match(r) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	if q.reverse {
		slices.Reverse(out)
	}
	if limit && q.limit > 0 && len(out) > q.limit {
		out = out[:q.limit]
	}
	return out
}

// latest returns the last reading of the forward unexpired range.
func (m *naiveModel) latest(id string, now time.Time) (mReading, bool) {
	v := m.view(id, now)
	if len(v) == 0 {
		return mReading{}, false
	}
	return v[len(v)-1], true
}

// mPeriod is an expected aggregate period, with the magnitude of each
// field's sum for the comparison of sums.
type mPeriod struct {
	Period
	sumAbs []float64 // per field: the sum of |v| of the finite values
	inf    []bool    // per field: an infinite value was summed
}

// aggregate folds readings (in Range order) into periods by span, which
// returns the period of an instant. Periods without readings are absent.
func (m *naiveModel) aggregate(rs []mReading, span func(int64) (int64, int64)) []mPeriod {
	by := map[int64]*mPeriod{}
	var starts []int64
	for _, r := range rs {
		st, end := span(r.t)
		p := by[st]
		if p == nil {
			p = &mPeriod{Period: Period{Start: time.UnixMilli(st).UTC(), End: time.UnixMilli(end).UTC(), Fields: make([]Aggregate, m.nf)},
				sumAbs: make([]float64, m.nf), inf: make([]bool, m.nf)}
			by[st] = p
			starts = append(starts, st)
		}
		p.Count++
		for i, v := range r.vals {
			if math.IsNaN(v) {
				continue
			}
			a := &p.Fields[i]
			rt := time.UnixMilli(r.t).UTC()
			if math.IsInf(v, 0) {
				p.inf[i] = true
			} else {
				p.sumAbs[i] += math.Abs(v)
			}
			if a.Count == 0 {
				*a = Aggregate{Count: 1, Sum: v, Min: v, Max: v, First: v, Last: v, FirstTime: rt, LastTime: rt}
				continue
			}
			a.Count++
			a.Sum += v
			a.Min = math.Min(a.Min, v)
			a.Max = math.Max(a.Max, v)
			a.Last, a.LastTime = v, rt // rs is in Range order
		}
	}
	slices.Sort(starts)
	out := make([]mPeriod, len(starts))
	for i, st := range starts {
		out[i] = *by[st]
	}
	return out
}

// mStepSpan returns the period of an instant for steps of step
// milliseconds aligned on the Unix epoch.
func mStepSpan(step int64) func(int64) (int64, int64) {
	return func(t int64) (int64, int64) {
		m := t % step
		if m < 0 {
			m += step
		}
		return t - m, t - m + step
	}
}

// mMonthSpan returns the period of an instant for periods of n calendar
// months (UTC) aligned on year 0.
func mMonthSpan(n int) func(int64) (int64, int64) {
	return func(t int64) (int64, int64) {
		tt := time.UnixMilli(t).UTC()
		idx := tt.Year()*12 + int(tt.Month()) - 1
		idx -= ((idx % n) + n) % n
		st := time.Date(idx/12, time.Month(idx%12+1), 1, 0, 0, 0, 0, time.UTC)
		return mFloorMs(st), mFloorMs(st.AddDate(0, n, 0))
	}
}

// mTierSpan is the period of an instant in a rollup tier or bucket period.
func mTierSpan(t Tier) func(int64) (int64, int64) {
	switch t {
	case Hourly:
		return mStepSpan(3600_000)
	case Daily:
		return mStepSpan(86400_000)
	}
	return mMonthSpan(1)
}
