package statsapi

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// fromHits fills t from visits (analytics.Store.Visits, whose Keep is
// q.keep: the visits that pass q's filters on visit: dimensions): each
// hit the filters select counts, by its time, for the hit figures of its
// rows; each visit with a selected hit counts, by its start, for the
// visit figures of the rows of its selected hits.
//
// With whole (q.wholeVisits), each visit counts at once, from its
// figures: its Hits are not read, and may be left out.
//
// It checks ctx every ctxCheckEvery visits, and returns its error when it
// ends.
func (q *Query) fromHits(ctx context.Context, t *table, visits iter.Seq2[*analytics.Visit, error], bs []bucket, from, to time.Time, whole bool) error {
	c := &hitCounter{q: q, t: t, bs: bs, dims: make([]string, len(q.Dimensions)), goalDim: slices.Index(q.Dimensions, "event:goal"),
		withDenom: slices.Contains(q.Metrics, "conversion_rate"), withVisitors: q.countsVisitors(), denoms: map[string]int64{}}
	for i := range q.Filters {
		if !q.Filters[i].onVisit() {
			c.hitFilters = append(c.hitFilters, &q.Filters[i])
		}
	}
	in := func(x time.Time) bool { return !x.Before(from) && x.Before(to) }
	if c.withVisitors {
		t.total.visitorSet = newVisitorSet()
	}
	i := 0
	for v, err := range visits {
		if err != nil {
			return err
		}
		if i++; i%ctxCheckEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("statsapi: query stopped: %w", context.Cause(ctx))
		}
		if whole {
			c.wholeVisit(v, in(v.Start))
		} else {
			c.visit(v, in(v.Start), in)
		}
	}
	if c.withDenom {
		for _, f := range t.rows {
			dims := slices.Clone(f.dims)
			if c.goalDim >= 0 {
				dims[c.goalDim] = ""
			}
			f.denom = c.denoms[key(dims)]
		}
	}
	return nil
}

// countsVisitors reports whether q's figures need the distinct visitors:
// the visitors metric, or a percentage of them.
func (q *Query) countsVisitors() bool {
	if slices.Contains(q.Metrics, "visitors") {
		return true
	}
	if !slices.Contains(q.Metrics, "percentage") {
		return false
	}
	for _, m := range q.Metrics {
		if m == "visits" || m == "pageviews" || m == "events" {
			return false
		}
	}
	return true
}

// ctxCheckEvery is how many visits fromHits counts between checks of its
// context.
const ctxCheckEvery = 1024

// hitCounter counts the visits of a query's range into its table.
type hitCounter struct {
	q       *Query
	t       *table
	bs      []bucket
	goalDim int // the index of an event:goal dimension, or -1
	// hitFilters are q's filters but those on visit: dimensions alone,
	// which every visit given passes.
	hitFilters []*Filter
	withDenom  bool // count the visits of conversion rates' denominators
	// withVisitors: count distinct visitors (a metric needs them).
	withVisitors bool
	denoms       map[string]int64

	// Reused from visit to visit.
	dims      []string
	kb        []byte
	seen      []*figures // rows the visit counted in
	denomKeys []string   // rows, without the goal, of its conversion denominator
}

// visit counts the visit v, started in the range or not.
func (c *hitCounter) visit(v *analytics.Visit, started bool, in func(time.Time) bool) {
	t := c.t
	c.seen, c.denomKeys = c.seen[:0], c.denomKeys[:0]
	counted := false
	for j := range v.Hits {
		h := &v.Hits[j]
		if started && c.withDenom && c.match(v, h, true) {
			c.eachRow(v, h, v.Start, true, func(dims []string) {
				c.kb = appendKey(c.kb[:0], dims)
				if !slices.Contains(c.denomKeys, string(c.kb)) {
					c.denomKeys = append(c.denomKeys, string(c.kb))
				}
			})
		}
		if !c.match(v, h, false) {
			continue
		}
		if in(h.Time) {
			t.total.addVisitor(v.VisitorID)
			t.total.events++
			if h.Name == analytics.PageView {
				t.total.pageviews++
			}
			c.eachRow(v, h, h.Time, false, func(dims []string) {
				f := c.row(dims)
				f.addVisitor(v.VisitorID)
				f.events++
				if h.Name == analytics.PageView {
					f.pageviews++
				}
			})
		}
		if !started {
			continue
		}
		if !counted {
			counted = true
			t.total.visits++
		}
		c.eachRow(v, h, v.Start, false, func(dims []string) {
			f := c.row(dims)
			if slices.Contains(c.seen, f) {
				return
			}
			c.seen = append(c.seen, f)
			f.addVisit(v)
		})
	}
	for _, k := range c.denomKeys {
		c.denoms[k]++
	}
}

// wholeVisit counts the visit v, started in the range or not, as visit
// counts it when q.wholeVisits holds: every hit of v is selected, and is
// in the range and in the time bucket of v's start if v started in the
// range (else in neither), so that v counts in one row per dimension
// values of its own, with all its hits.
func (c *hitCounter) wholeVisit(v *analytics.Visit, started bool) {
	if !started {
		return
	}
	t := c.t
	t.total.addVisitor(v.VisitorID)
	t.total.events += v.Events
	t.total.pageviews += v.PageViews
	t.total.visits++
	c.eachRow(v, &noHit, v.Start, false, func(dims []string) {
		f := c.row(dims)
		f.addVisitor(v.VisitorID)
		f.events += v.Events
		f.pageviews += v.PageViews
		f.addVisit(v)
	})
}

// wholeVisits reports whether the visits of q over [from, to), in the
// time buckets bs, count whole (hitCounter.wholeVisit): q's filters are
// all on visit: dimensions (the visits Keep accepts have every hit
// selected), its dimensions are visit: dimensions and time (so it asks
// no conversion rate, which needs a goal), and from, to and the bounds of
// bs are UTC midnights,
// which no visit spans (visits end at midnight UTC).
func (q *Query) wholeVisits(bs []bucket, from, to time.Time) bool {
	for i := range q.Filters {
		if !q.Filters[i].onVisit() {
			return false
		}
	}
	for _, d := range q.Dimensions {
		if !isTime(d) && !strings.HasPrefix(d, "visit:") {
			return false
		}
	}
	midnight := func(t time.Time) bool { return t.Equal(t.UTC().Truncate(24 * time.Hour)) }
	if !midnight(from) || !midnight(to) {
		return false
	}
	for _, b := range bs {
		if !midnight(b.start) || !midnight(b.end) {
			return false
		}
	}
	return true
}

// row returns the row of dims, made if new.
func (c *hitCounter) row(dims []string) *figures {
	c.kb = appendKey(c.kb[:0], dims)
	if f := c.t.rows[string(c.kb)]; f != nil {
		return f
	}
	f := &figures{dims: slices.Clone(dims)}
	if c.withVisitors {
		f.visitorSet = newVisitorSet()
	}
	c.t.rows[string(c.kb)] = f
	return f
}

// appendKey appends key(dims) to b.
func appendKey(b []byte, dims []string) []byte {
	for i, d := range dims {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, d...)
	}
	return b
}

// addVisit counts the visit v in f: its visit, conversion (the visits
// of a row with a goal are its conversions), bounce and duration.
func (f *figures) addVisit(v *analytics.Visit) {
	f.visits++
	f.converted++
	if v.Bounce {
		f.bounces++
	}
	f.durMs += v.Duration.Milliseconds()
}

// addVisitor counts the visitor id in f's distinct visitors, if it counts
// them (visitorSet not nil). A visitor's hits come one after the other,
// so the last one added is checked first ("" is no visitor id).
func (f *figures) addVisitor(id string) {
	if f.visitorSet == nil || f.lastVisitor == id && id != "" {
		return
	}
	f.lastVisitor = id
	f.visitorSet.add(id)
}

// visitorSet is a set of visitor ids. The ids of 16 lowercase hex digits,
// as analytics.Store.VisitorID makes them, are kept as the number they
// spell (one id, one number), appended to a slice that is sorted and rid
// of repeats when it has doubled and when counted: a year of visitors is
// millions, which a hash set holds at a cache miss an id. Other ids are
// kept in a map.
type visitorSet struct {
	hex     []uint64
	deduped bool // hex is sorted, without repeats
	compact int  // len(hex) at which hex is compacted next
	other   map[string]struct{}
}

// minCompact is the fewest ids a visitorSet gathers before it compacts
// them.
const minCompact = 1 << 16

func newVisitorSet() *visitorSet {
	return &visitorSet{compact: minCompact, other: map[string]struct{}{}}
}

func (s *visitorSet) add(id string) {
	u, ok := hex64(id)
	if !ok {
		s.other[id] = struct{}{}
		return
	}
	s.deduped = false
	if s.hex = append(s.hex, u); len(s.hex) >= s.compact {
		s.dedupe()
	}
}

// dedupe sorts the numbers and drops their repeats.
func (s *visitorSet) dedupe() {
	if s.deduped {
		return
	}
	slices.Sort(s.hex)
	s.hex = slices.Compact(s.hex)
	s.compact, s.deduped = max(minCompact, 2*len(s.hex)), true
}

func (s *visitorSet) len() int {
	s.dedupe()
	return len(s.hex) + len(s.other)
}

// hex64 returns the number that id spells in 16 lowercase hex digits;
// false if it is not 16 of them.
func hex64(id string) (uint64, bool) {
	if len(id) != 16 {
		return 0, false
	}
	var u uint64
	for i := range len(id) {
		c := id[i]
		switch {
		case '0' <= c && c <= '9':
			u = u<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			u = u<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return u, true
}

// eachRow calls fn with the dimension values of hit h of visit v, with
// time dimensions at t: not at all when t is outside the buckets or h has
// no goal for an event:goal dimension, once for each goal when it has
// several. With noGoal, an event:goal dimension has the one value "". fn
// must not keep dims, which is reused.
func (c *hitCounter) eachRow(v *analytics.Visit, h *analytics.Hit, t time.Time, noGoal bool, fn func(dims []string)) {
	dims := c.dims
	for i, d := range c.q.Dimensions {
		switch {
		case isTime(d):
			bs := c.bs
			j := sort.Search(len(bs), func(k int) bool { return bs[k].end.After(t) })
			if j == len(bs) || t.Before(bs[j].start) {
				return
			}
			dims[i] = bs[j].label
		case i == c.goalDim:
			dims[i] = ""
		default:
			x, ok := value(d, v, h)
			if !ok {
				return
			}
			dims[i] = x
		}
	}
	if c.goalDim < 0 || noGoal {
		fn(dims)
		return
	}
	for _, g := range h.Goals {
		dims[c.goalDim] = g
		fn(dims)
	}
}

// directNone is the source of a visit without one, as Plausible names
// it.
const directNone = "Direct / None"

// noValue is the value of dimension d for a hit without one: directNone
// for visit:source, analytics.None for the others.
func noValue(d string) string {
	if d == "visit:source" {
		return directNone
	}
	return analytics.None
}

// value returns the value of dimension d (not event:goal) for hit h of
// visit v, noValue(d) for an empty one; false for event:props:NAME on
// a hit that is no custom event or lacks the property, and for an unknown
// dimension.
func value(d string, v *analytics.Visit, h *analytics.Hit) (string, bool) {
	var x string
	switch d {
	case "event:page":
		x = h.Path
	case "event:name":
		x = h.Name
	case "visit:entry_page":
		x = v.EntryPage
	case "visit:exit_page":
		x = v.ExitPage
	case "visit:source":
		x = v.Source
	case "visit:utm_source":
		x = v.UTM.Source
	case "visit:utm_medium":
		x = v.UTM.Medium
	case "visit:utm_campaign":
		x = v.UTM.Campaign
	case "visit:country":
		x = v.Country
	case "visit:browser":
		x = v.Browser
	case "visit:os":
		x = v.OS
	case "visit:device":
		x = v.Device
	default:
		name, ok := strings.CutPrefix(d, propsPrefix)
		if !ok || h.Name == analytics.PageView {
			return "", false
		}
		if x, ok = h.Props[name]; !ok {
			return "", false
		}
	}
	if x == "" {
		x = noValue(d)
	}
	return x, true
}

// match reports whether hit h of visit v passes q's filters (all of
// them); with noGoals, conditions on event:goal count as passed.
func (q *Query) match(v *analytics.Visit, h *analytics.Hit, noGoals bool) bool {
	for i := range q.Filters {
		if !q.Filters[i].match(v, h, noGoals) {
			return false
		}
	}
	return true
}

// match is q.match for the visits fromHits is given, which pass the
// filters on visit: dimensions.
func (c *hitCounter) match(v *analytics.Visit, h *analytics.Hit, noGoals bool) bool {
	for _, f := range c.hitFilters {
		if !f.match(v, h, noGoals) {
			return false
		}
	}
	return true
}

func (f *Filter) match(v *analytics.Visit, h *analytics.Hit, noGoals bool) bool {
	switch f.Op {
	case "and":
		for i := range f.Children {
			if !f.Children[i].match(v, h, noGoals) {
				return false
			}
		}
		return true
	case "or":
		for i := range f.Children {
			if f.Children[i].match(v, h, noGoals) {
				return true
			}
		}
		return false
	case "not":
		return !f.Children[0].match(v, h, noGoals)
	}
	if noGoals && f.Dimension == "event:goal" {
		return true
	}
	// A hit without a value (no goal, not the property) matches no value.
	hit := false
	if f.Dimension == "event:goal" {
		for _, g := range h.Goals {
			hit = hit || f.matchValue(g)
		}
	} else if x, ok := value(f.Dimension, v, h); ok {
		hit = f.matchValue(x)
	}
	if f.Op == "is_not" || f.Op == "contains_not" {
		return !hit
	}
	return hit
}

// matchValue reports whether x is (is, is_not) or contains (contains,
// contains_not) one of f's values.
func (f *Filter) matchValue(x string) bool {
	for _, want := range f.Values {
		if f.Op == "is" || f.Op == "is_not" {
			if x == want {
				return true
			}
		} else if strings.Contains(x, want) {
			return true
		}
	}
	return false
}

// onVisit reports whether f's conditions are all on visit: dimensions,
// which have one value for all the hits of a visit.
func (f *Filter) onVisit() bool {
	if len(f.Children) > 0 {
		for i := range f.Children {
			if !f.Children[i].onVisit() {
				return false
			}
		}
		return true
	}
	return strings.HasPrefix(f.Dimension, "visit:")
}

// skip returns the fields of the visits that q does not read: those of
// the dimensions that neither its dimensions nor its filters name, and
// the goals unless it has event:goal or a conversion rate.
func (q *Query) skip() analytics.Field {
	used := map[string]bool{}
	for _, d := range q.Dimensions {
		used[d] = true
	}
	var walk func(fs []Filter)
	walk = func(fs []Filter) {
		for i := range fs {
			used[fs[i].Dimension] = true
			walk(fs[i].Children)
		}
	}
	walk(q.Filters)
	skip := analytics.Field(0)
	for f, dims := range map[analytics.Field][]string{
		analytics.FieldPages:   {"visit:entry_page", "visit:exit_page"},
		analytics.FieldSource:  {"visit:source"},
		analytics.FieldUTM:     {"visit:utm_source", "visit:utm_medium", "visit:utm_campaign"},
		analytics.FieldCountry: {"visit:country"},
		analytics.FieldBrowser: {"visit:browser"},
		analytics.FieldOS:      {"visit:os"},
		analytics.FieldDevice:  {"visit:device"},
		analytics.FieldGoals:   {"event:goal"},
	} {
		if !slices.ContainsFunc(dims, func(d string) bool { return used[d] }) {
			skip |= f
		}
	}
	if slices.Contains(q.Metrics, "conversion_rate") {
		skip &^= analytics.FieldGoals
	}
	if !q.countsVisitors() {
		skip |= analytics.FieldVisitorID
	}
	for d := range used {
		if strings.HasPrefix(d, propsPrefix) {
			return skip
		}
	}
	return skip | analytics.FieldProps
}

// noHit is the hit the conditions on visits are checked with.
var noHit analytics.Hit

// keep returns the test of a visit by the filters of q on visit:
// dimensions alone (nil if it has none): a visit that fails it has no hit
// that q selects, nor one it counts in a conversion rate's denominator,
// so it can be left out before its hits are formed.
func (q *Query) keep() func(*analytics.Visit) bool {
	var fs []*Filter
	for i := range q.Filters {
		if q.Filters[i].onVisit() {
			fs = append(fs, &q.Filters[i])
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return func(v *analytics.Visit) bool {
		for _, f := range fs {
			if !f.match(v, &noHit, false) {
				return false
			}
		}
		return true
	}
}
