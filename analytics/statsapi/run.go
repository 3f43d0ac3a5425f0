package statsapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// Response is the answer to a query; it marshals to Plausible's shape.
type Response struct {
	Results []Row `json:"results"`
	Meta    Meta  `json:"meta"`
	Query   Echo  `json:"query"`
}

// Row is one result: the metrics in the query's order, then the values
// of its dimensions in theirs, and with include.comparisons the figures
// of the comparison period.
type Row struct {
	Metrics    []any       `json:"metrics"`
	Dimensions []string    `json:"dimensions"`
	Comparison *Comparison `json:"comparison,omitempty"`
}

// Comparison is a row's figures in the comparison period and the change:
// a difference for bounce_rate and conversion_rate, a rounded percent
// change otherwise (100 from 0 to more, 0 from 0 to 0).
type Comparison struct {
	Dimensions []string `json:"dimensions"`
	Metrics    []any    `json:"metrics"`
	Change     []any    `json:"change"`
}

// Meta is the answer's meta object. ComputedFrom ("aggregates" or
// "raw_hits") says how the answer was computed; Plausible has no such
// member. ImportsIncluded is set when the query asked include.imports and
// imported days of its range were added; when they could not be
// (a query the raw hits answer), Warnings holds ImportsExcluded.
type Meta struct {
	ImportsIncluded     bool      `json:"imports_included"`
	TimeLabels          []string  `json:"time_labels,omitempty"`
	TotalRows           *int      `json:"total_rows,omitempty"`
	ComparisonDateRange []string  `json:"comparison_date_range,omitempty"`
	ComputedFrom        string    `json:"computed_from"`
	Warnings            *[]string `json:"warnings,omitempty"`
}

// Echo is the query as it ran, with its date range resolved.
type Echo struct {
	SiteID     string         `json:"site_id"`
	Metrics    []string       `json:"metrics"`
	DateRange  [2]string      `json:"date_range"`
	Filters    []Filter       `json:"filters"`
	Dimensions []string       `json:"dimensions"`
	OrderBy    [][2]string    `json:"order_by"`
	Include    map[string]any `json:"include"`
	Pagination map[string]int `json:"pagination"`
}

// How a query is computed.
const (
	fromAggregates = "aggregates"
	fromRawHits    = "raw_hits"
)

// figures are the counts of one row.
type figures struct {
	dims []string
	// visitorSet from the hits (lastVisitor the id added last);
	// visitors from the aggregates' sketch.
	visitorSet                                *visitorSet
	lastVisitor                               string
	visitors                                  uint64
	visits, bounces, durMs, pageviews, events int64
	// count is an aggregate breakdown's count of the row's value (for
	// percentage); converted and denom the visits of a conversion rate.
	count, converted, denom int64
}

func (f *figures) nVisitors() float64 {
	if f.visitorSet != nil {
		return float64(f.visitorSet.len())
	}
	return float64(f.visitors)
}

// table is the rows of one period, by key, and the totals.
type table struct {
	rows   map[string]*figures
	labels []string // time labels, with a time dimension
	total  figures
	// imported is set when imported days were added.
	imported bool
}

// ImportsExcluded is the warning of an answer that leaves out the
// imported days of its range.
const ImportsExcluded = "Imported stats are not included: this query needs the raw hits (filters, two dimensions, or a metric kept per value only there), and imported stats are daily figures."

// DefaultMaxBuckets is the default of Options.MaxBuckets: a year of hours
// (8,784) fits.
const DefaultMaxBuckets = 10_000

// Options bound the work of Run. The zero value takes the defaults.
type Options struct {
	// MaxBuckets bounds the time buckets of a range; default
	// DefaultMaxBuckets.
	MaxBuckets int
}

// Run computes q for its site at now: from the aggregates when they can
// answer it, else from the hits (see the package documentation). It
// fails with an *Error for a query the data cannot answer (a range that
// needs hits no longer kept), with an error matching
// timetable.ErrNotFound for an unknown site, and with the store's errors.
//
// The time buckets of each range it computes (the query's and its
// comparison's) are bounded by o.MaxBuckets: more is an *Error naming the
// bound. A nil o takes the defaults.
func (q *Query) Run(ctx context.Context, s *analytics.Store, now time.Time, o *Options) (*Response, error) {
	site, err := s.Site(ctx, q.SiteID)
	if err != nil {
		return nil, err
	}
	st := siteTime{loc: site.Location(), created: site.CreatedAt}
	from, to, err := q.DateRange.resolve(st, now)
	if err != nil {
		return nil, err
	}
	source := fromRawHits
	if q.aggregatable() {
		source = fromAggregates
	}
	maxB := DefaultMaxBuckets
	if o != nil && o.MaxBuckets > 0 {
		maxB = o.MaxBuckets
	}
	main, err := q.compute(ctx, s, st.loc, from, to, source, maxB)
	if err != nil {
		return nil, err
	}
	resp := &Response{Meta: Meta{ComputedFrom: source, ImportsIncluded: main.imported}, Query: q.echo(from, to, st.loc)}
	if q.Include.Imports && source != fromAggregates {
		first, end := importedDates(st.loc, from, to)
		days, err := s.ImportedDays(ctx, q.SiteID, first, end, nil)
		if err != nil {
			return nil, err
		}
		if len(days) > 0 {
			resp.Meta.Warnings = &[]string{ImportsExcluded}
		}
	}
	var cmpTable *table
	if q.Include.Comparison != "" {
		// A range that runs past now is compared, up to the end of now's
		// hour, with as much of the other period: today until 15:00 with
		// yesterday until 15:00, not with all of yesterday.
		end := to
		if h := now.Truncate(time.Hour).Add(time.Hour); h.After(from) && h.Before(to) {
			end = h
		}
		cf := from.Add(-to.Sub(from))
		ct := cf.Add(end.Sub(from))
		if q.Include.Comparison == "year_over_year" {
			cf, ct = from.AddDate(-1, 0, 0), end.AddDate(-1, 0, 0)
		}
		if cmpTable, err = q.compute(ctx, s, st.loc, cf, ct, source, maxB); err != nil {
			return nil, err
		}
		resp.Meta.ComparisonDateRange = []string{cf.In(st.loc).Format(time.RFC3339), ct.Add(-time.Second).In(st.loc).Format(time.RFC3339)}
	}
	rows := make([]*figures, 0, len(main.rows))
	for _, f := range main.rows {
		rows = append(rows, f)
	}
	q.sort(rows, &main.total)
	if q.Include.TotalRows {
		n := len(rows)
		resp.Meta.TotalRows = &n
	}
	if q.Include.TimeLabels {
		resp.Meta.TimeLabels = main.labels
	}
	rows = rows[min(q.Offset, len(rows)):]
	rows = rows[:min(q.Limit, len(rows))]
	ti := q.timeIndex()
	resp.Results = make([]Row, 0, len(rows))
	for _, f := range rows {
		r := Row{Metrics: q.metricValues(f, &main.total), Dimensions: f.dims}
		if cmpTable != nil {
			cd := slices.Clone(f.dims)
			if ti >= 0 {
				i := slices.Index(main.labels, f.dims[ti])
				if i < 0 || i >= len(cmpTable.labels) {
					resp.Results = append(resp.Results, r)
					continue
				}
				cd[ti] = cmpTable.labels[i]
			}
			cf := cmpTable.rows[key(cd)]
			if cf == nil {
				cf = &figures{dims: cd}
			}
			old := q.metricValues(cf, &cmpTable.total)
			r.Comparison = &Comparison{Dimensions: cd, Metrics: old, Change: q.changes(old, r.Metrics)}
		}
		resp.Results = append(resp.Results, r)
	}
	return resp, nil
}

func key(dims []string) string { return strings.Join(dims, "\x00") }

// timeIndex returns the index of the query's time dimension, or -1.
func (q *Query) timeIndex() int { return slices.IndexFunc(q.Dimensions, isTime) }

// aggCount returns the metric that the aggregates count for dimension d.
func aggCount(d string) string {
	switch {
	case d == "event:page":
		return "pageviews"
	case d == "event:name", strings.HasPrefix(d, propsPrefix):
		return "events"
	}
	return "visits"
}

// aggDimension maps a dimension to the aggregates' breakdown.
func aggDimension(d string) analytics.Dimension {
	if name, ok := strings.CutPrefix(d, propsPrefix); ok {
		return analytics.PropDimension(name)
	}
	switch d {
	case "event:page":
		return analytics.DimPage
	case "event:name":
		return analytics.DimEvent
	case "event:goal":
		return analytics.DimGoal
	}
	return analytics.Dimension(strings.TrimPrefix(d, "visit:"))
}

// aggregatable reports whether the aggregates hold what q asks.
func (q *Query) aggregatable() bool {
	if len(q.Filters) > 0 {
		return false
	}
	nt := q.nonTime()
	switch len(nt) {
	case 0:
		return true
	case 1:
		for _, m := range q.Metrics {
			ok := m == aggCount(nt[0]) || m == "percentage" || m == "conversion_rate" && nt[0] == "event:goal"
			if !ok {
				return false
			}
		}
		return true
	}
	return false
}

// compute returns the rows of q over [from, to), in at most maxBuckets
// time buckets.
func (q *Query) compute(ctx context.Context, s *analytics.Store, loc *time.Location, from, to time.Time, source string, maxBuckets int) (*table, error) {
	var bs []bucket
	ti := q.timeIndex()
	if ti >= 0 {
		var ok bool
		g := granularityOf(q.Dimensions[ti], from, to)
		if bs, ok = buckets(g, from, to, loc, maxBuckets); !ok {
			return nil, errorf("#/dimensions/%d: %s over the date range makes more than %d time buckets (%ss), the most one query may make: narrow the date range or take a coarser time dimension",
				ti, q.Dimensions[ti], maxBuckets, g)
		}
	}
	t := &table{rows: map[string]*figures{}}
	for _, b := range bs {
		t.labels = append(t.labels, b.label)
	}
	if source == fromAggregates {
		if err := q.fromAggregates(ctx, s, t, bs, from, to); err != nil {
			return nil, err
		}
		if q.Include.Imports {
			return t, q.addImported(ctx, s, t, bs, loc, from, to)
		}
		return t, nil
	}
	skip, whole := q.skip(), q.wholeVisits(bs, from, to)
	if whole {
		skip |= analytics.FieldHits
	}
	err := q.fromHits(ctx, t, s.Visits(ctx, q.SiteID, from, to, &analytics.VisitOptions{Keep: q.keep(), Skip: skip}), bs, from, to, whole)
	if errors.Is(err, analytics.ErrExpired) {
		return nil, errorf("This query is computed from the hits themselves (it has filters, two dimensions, or a metric the aggregates do not keep per value), "+
			"and %s", strings.TrimPrefix(err.Error(), analytics.ErrExpired.Error()+": "))
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// fromAggregates fills t from the stored aggregates, read once for the
// range and all its time buckets (analytics.Store.ReadAggregates): the
// Summary or Breakdown of each time bucket (or of the range) is computed
// from them in memory.
func (q *Query) fromAggregates(ctx context.Context, s *analytics.Store, t *table, bs []bucket, from, to time.Time) error {
	ti := q.timeIndex()
	if ti < 0 {
		bs = []bucket{{start: from, end: to}}
	}
	nt := q.nonTime()
	var reads analytics.AggregateReads
	reads.Range(from, to)
	// Buckets that are UTC periods are read as such.
	p, byPeriod := utcPeriod(bs)
	byPeriod = byPeriod && len(nt) == 0
	if byPeriod {
		reads.Periods(p, bs[0].start, bs[len(bs)-1].end)
	} else {
		for _, b := range bs {
			reads.Range(b.start, b.end)
		}
	}
	if len(nt) > 0 {
		reads.Dimension(aggDimension(nt[0]))
	}
	ag, err := s.ReadAggregates(ctx, q.SiteID, &reads)
	if err != nil {
		return err
	}
	total, err := ag.Summary(from, to)
	if err != nil {
		return err
	}
	setSummary(&t.total, total)
	byStart := map[time.Time]analytics.Summary{}
	if byPeriod {
		for _, x := range ag.Summaries(p, bs[0].start, bs[len(bs)-1].end) {
			byStart[x.Start] = x.Summary
		}
	}
	for _, b := range bs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("statsapi: query stopped: %w", context.Cause(ctx))
		}
		dims := make([]string, len(q.Dimensions))
		if ti >= 0 {
			dims[ti] = b.label
		}
		if len(nt) == 0 {
			sm, ok := byStart[b.start.UTC()]
			if !ok {
				if sm, err = ag.Summary(b.start, b.end); err != nil {
					return err
				}
			}
			if sm.Visits == 0 && sm.PageViews == 0 && sm.Events == 0 && sm.Visitors == 0 {
				continue
			}
			f := &figures{dims: dims}
			setSummary(f, sm)
			t.rows[key(dims)] = f
			continue
		}
		d := nt[0]
		di := slices.Index(q.Dimensions, d)
		cs, err := ag.Breakdown(aggDimension(d), b.start, b.end)
		if err != nil {
			return err
		}
		denom := total.Visits
		if ti >= 0 && slices.Contains(q.Metrics, "conversion_rate") {
			sm, err := ag.Summary(b.start, b.end)
			if err != nil {
				return err
			}
			denom = sm.Visits
		}
		for _, c := range cs {
			row := slices.Clone(dims)
			row[di] = c.Value
			if c.Value == analytics.None {
				row[di] = noValue(d)
			}
			f := &figures{dims: row, count: c.Count, converted: c.Count, denom: denom}
			switch aggCount(d) {
			case "pageviews":
				f.pageviews = c.Count
			case "events":
				f.events = c.Count
			default:
				f.visits = c.Count
			}
			t.rows[key(row)] = f
			t.total.count += c.Count
		}
	}
	return nil
}

// utcPeriod returns the period of which every bucket of bs is one whole
// UTC period (the hours of any zone a whole number of hours off UTC, the
// days and months of a UTC site), if there is one.
func utcPeriod(bs []bucket) (analytics.Period, bool) {
	if len(bs) < 2 {
		return "", false
	}
	for _, p := range []analytics.Period{analytics.Hour, analytics.Day, analytics.Month} {
		ok := true
		for _, b := range bs {
			if !p.Start(b.start).Equal(b.start) || !p.Next(b.start).Equal(b.end) {
				ok = false
				break
			}
		}
		if ok {
			return p, true
		}
	}
	return "", false
}

func setSummary(f *figures, sm analytics.Summary) {
	f.visitors = sm.Visitors
	f.visits, f.bounces, f.pageviews = sm.Visits, sm.Bounces, sm.PageViews
	f.events = sm.PageViews + sm.Events
	f.durMs = sm.VisitDuration.Milliseconds() * sm.Visits
}

// metricValues returns the query's metrics of f, total being the figures
// of the whole range.
func (q *Query) metricValues(f, total *figures) []any {
	out := make([]any, len(q.Metrics))
	ratio := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	for i, m := range q.Metrics {
		switch m {
		case "visitors":
			out[i] = int64(f.nVisitors())
		case "visits":
			out[i] = f.visits
		case "pageviews":
			out[i] = f.pageviews
		case "events":
			out[i] = f.events
		case "views_per_visit":
			out[i] = round(ratio(float64(f.pageviews), float64(f.visits)), 2)
		case "bounce_rate":
			out[i] = int64(math.Round(100 * ratio(float64(f.bounces), float64(f.visits))))
		case "visit_duration":
			out[i] = int64(math.Round(ratio(float64(f.durMs), float64(f.visits)) / 1000))
		case "conversion_rate":
			out[i] = round(100*ratio(float64(f.converted), float64(f.denom)), 2)
		case "percentage":
			out[i] = round(100*ratio(q.base(f), q.base(total)), 1)
		}
	}
	return out
}

// base returns what percentage is a share of: the query's first metric of
// visitors, visits, pageviews and events (visitors when it has none), or,
// from an aggregate breakdown, its count.
func (q *Query) base(f *figures) float64 {
	if f.count > 0 {
		return float64(f.count)
	}
	for _, m := range q.Metrics {
		switch m {
		case "visits":
			return float64(f.visits)
		case "pageviews":
			return float64(f.pageviews)
		case "events":
			return float64(f.events)
		case "visitors":
			return f.nVisitors()
		}
	}
	return f.nVisitors()
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// changes returns the change of each metric from old to cur.
func (q *Query) changes(old, cur []any) []any {
	out := make([]any, len(q.Metrics))
	for i, m := range q.Metrics {
		o, c := toFloat(old[i]), toFloat(cur[i])
		switch {
		case m == "bounce_rate":
			out[i] = int64(c - o)
		case m == "conversion_rate":
			out[i] = round(c-o, 1)
		case o == 0 && c > 0:
			out[i] = int64(100)
		case o == 0:
			out[i] = int64(0)
		default:
			out[i] = int64(math.Round((c - o) / o * 100))
		}
	}
	return out
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// sort orders rows by q.OrderBy, then by default: the time dimension
// ascending, the first metric descending, the dimensions ascending.
func (q *Query) sort(rows []*figures, total *figures) {
	orders := slices.Clone(q.OrderBy)
	if ti := q.timeIndex(); ti >= 0 {
		orders = append(orders, Order{Key: q.Dimensions[ti]})
	}
	orders = append(orders, Order{Key: q.Metrics[0], Desc: true})
	for _, d := range q.Dimensions {
		orders = append(orders, Order{Key: d})
	}
	vals := make(map[*figures][]any, len(rows))
	for _, r := range rows {
		vals[r] = q.metricValues(r, total)
	}
	slices.SortStableFunc(rows, func(a, b *figures) int {
		for _, o := range orders {
			var c int
			if i := slices.Index(q.Metrics, o.Key); i >= 0 {
				c = cmp.Compare(toFloat(vals[a][i]), toFloat(vals[b][i]))
			} else if i := slices.Index(q.Dimensions, o.Key); i >= 0 {
				c = strings.Compare(a.dims[i], b.dims[i])
			}
			if o.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	})
}

// echo returns the query as it ran.
func (q *Query) echo(from, to time.Time, loc *time.Location) Echo {
	e := Echo{SiteID: q.SiteID, Metrics: q.Metrics, Filters: q.Filters, Dimensions: q.Dimensions,
		DateRange:  [2]string{from.In(loc).Format(time.RFC3339), to.Add(-time.Second).In(loc).Format(time.RFC3339)},
		OrderBy:    [][2]string{},
		Include:    map[string]any{"imports": q.Include.Imports, "time_labels": q.Include.TimeLabels, "total_rows": q.Include.TotalRows, "comparisons": nil},
		Pagination: map[string]int{"limit": q.Limit, "offset": q.Offset}}
	if e.Filters == nil {
		e.Filters = []Filter{}
	}
	if e.Dimensions == nil {
		e.Dimensions = []string{}
	}
	for _, o := range q.OrderBy {
		dir := "asc"
		if o.Desc {
			dir = "desc"
		}
		e.OrderBy = append(e.OrderBy, [2]string{o.Key, dir})
	}
	if q.Include.Comparison != "" {
		e.Include["comparisons"] = map[string]string{"mode": q.Include.Comparison}
	}
	return e
}
