package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/timetable-db/timetable/table"
)

// Summary is the headline figures of a time range.
type Summary struct {
	// Visitors is the estimated number of distinct visitors (HyperLogLog,
	// about 1% standard error; exact for small counts is not promised).
	Visitors uint64
	// Visits, PageViews, Bounces and Events are counts; visits, bounces
	// and durations belong to the period their visit started in.
	Visits, PageViews, Bounces, Events int64
	// Conversions are the visits that converted at least one goal (the
	// goals of the site when the period was aggregated).
	Conversions int64
	// ViewsPerVisit is PageViews / Visits, BounceRate Bounces / Visits,
	// ConversionRate Conversions / Visits and VisitDuration the mean
	// duration of a visit; 0 without visits.
	ViewsPerVisit, BounceRate, ConversionRate float64
	VisitDuration                             time.Duration
}

func summaryOf(st *stats) Summary {
	sm := Summary{Visitors: st.visitors.Estimate(), Visits: st.visits, PageViews: st.pageViews, Bounces: st.bounces, Events: st.events,
		Conversions: st.conversions}
	if st.visits > 0 {
		sm.ViewsPerVisit = float64(st.pageViews) / float64(st.visits)
		sm.BounceRate = float64(st.bounces) / float64(st.visits)
		sm.ConversionRate = float64(st.conversions) / float64(st.visits)
		sm.VisitDuration = time.Duration(st.durationMs/st.visits) * time.Millisecond
	}
	return sm
}

// segment is a run of periods of one kind.
type segment struct {
	p        Period
	from, to time.Time
}

// cover splits [from, to) (to the hour: from rounded down, to up) into
// the fewest runs of whole months, days and hours.
func cover(from, to time.Time) []segment {
	from = from.UTC().Truncate(time.Hour)
	if t := to.UTC().Truncate(time.Hour); t.Before(to) {
		to = t.Add(time.Hour)
	} else {
		to = t
	}
	var out []segment
	for t := from; t.Before(to); {
		p := Hour
		for _, q := range []Period{Month, Day} {
			if q.start(t).Equal(t) && !q.next(t).After(to) {
				p = q
				break
			}
		}
		next := p.next(t)
		if n := len(out); n > 0 && out[n-1].p == p && out[n-1].to.Equal(t) {
			out[n-1].to = next
		} else {
			out = append(out, segment{p, t, next})
		}
		t = next
	}
	return out
}

// allDimensions asks readStats and merged for every breakdown.
var allDimensions = []Dimension{"*"}

func isAll(dims []Dimension) bool { return len(dims) == 1 && dims[0] == "*" }

// merged returns the stats of site over [from, to), merged from the
// largest aggregates that cover it (months, days, hours), read from GSI1,
// with the breakdowns dims only (each item's other breakdowns are not
// read, let alone decoded).
func (s *Store) merged(ctx context.Context, site string, from, to time.Time, dims []Dimension) (*stats, error) {
	r := AggregateReads{dims: dims}
	r.Range(from, to)
	a, err := s.ReadAggregates(ctx, site, &r)
	if err != nil {
		return nil, err
	}
	return a.merged(from, to, false)
}

// Summary returns the figures of site over [from, to), to the hour, from
// the aggregates: their visitor sketches are merged (never summed). Hours
// older than Retention.Hourly are gone, so a range should start and end on
// a day there. A range without aggregates gives zeros.
func (s *Store) Summary(ctx context.Context, site string, from, to time.Time) (Summary, error) {
	st, err := s.merged(ctx, site, from, to, nil)
	if err != nil {
		return Summary{}, err
	}
	return summaryOf(st), nil
}

// Breakdown returns the n most frequent values of dimension d (one of
// Dimensions or a PropDimension) over [from, to), with their counts, most
// frequent first (then by value). A
// range that is one whole day or month, with n at most Options.TopN, is
// read from its Top items in sort-key order (unless one of the n holds
// a name stored before names were normalised: then from its aggregate; an
// old spelling ranked below the n is not merged into its name); any other
// is merged from the aggregates.
func (s *Store) Breakdown(ctx context.Context, site string, d Dimension, from, to time.Time, n int) ([]Count, error) {
	if !d.valid() {
		return nil, fmt.Errorf("%w dimension %q", ErrInvalid, d)
	}
	if n <= 0 {
		return nil, nil
	}
	if sg := cover(from, to); len(sg) == 1 && sg[0].p != Hour && sg[0].p.next(sg[0].from).Equal(sg[0].to) && n <= s.o.TopN &&
		!strings.Contains(string(d), "#") {
		cs, err := s.top(ctx, site, sg[0].p, sg[0].from, d, n)
		if err != nil || normalValues(d, cs) {
			return cs, err
		}
		// Top items of values stored before they were normalised: the
		// aggregate, whose values are normalised as read, merges them.
	}
	st, err := s.merged(ctx, site, from, to, []Dimension{d})
	if err != nil {
		return nil, err
	}
	cs := counts(st.top[d])
	return cs[:min(n, len(cs))], nil
}

func (s *Store) top(ctx context.Context, site string, p Period, start time.Time, d Dimension, n int) ([]Count, error) {
	prefix := partial(entTop.Keys[attrSK], map[string]string{"period": string(p), "periodStart": start.Format(p.layout()), "dimension": string(d)}, "rank")
	now := s.now()
	var out []Count
	q := &table.Query{Hash: sitePK(site), Range: table.BeginsWith(prefix), Limit: n}
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the top %s of site %q: %w", d, site, err)
		}
		if expired(it, now) {
			continue
		}
		vals, ok := entTop.Keys[attrSK].Match(getS(it, attrSK))
		if !ok {
			return nil, fmt.Errorf("analytics: top item %q does not fit its template", getS(it, attrSK))
		}
		out = append(out, Count{Value: valueAfter(getS(it, attrSK), prefix, vals["rank"]), Count: getN(it, "count")})
	}
	return out, nil
}

// valueAfter returns the value of a Top sort key: what follows the prefix
// and the 12-digit rank and its '#' (the value may hold '#' itself).
func valueAfter(sk, prefix, rank string) string { return sk[len(prefix)+len(rank)+1:] }

// Metric is a figure of a time series.
type Metric string

// The metrics of TimeSeries.
const (
	MetricVisitors      Metric = "visitors"
	MetricVisits        Metric = "visits"
	MetricPageViews     Metric = "pageviews"
	MetricViewsPerVisit Metric = "views_per_visit"
	MetricBounceRate    Metric = "bounce_rate"
	MetricVisitDuration Metric = "visit_duration" // seconds
	MetricEvents        Metric = "events"
)

func (m Metric) of(sm Summary) (float64, bool) {
	switch m {
	case MetricVisitors:
		return float64(sm.Visitors), true
	case MetricVisits:
		return float64(sm.Visits), true
	case MetricPageViews:
		return float64(sm.PageViews), true
	case MetricViewsPerVisit:
		return sm.ViewsPerVisit, true
	case MetricBounceRate:
		return sm.BounceRate, true
	case MetricVisitDuration:
		return sm.VisitDuration.Seconds(), true
	case MetricEvents:
		return float64(sm.Events), true
	}
	return 0, false
}

// Point is one bucket of a time series.
type Point struct {
	Start time.Time
	Value float64
}

// TimeSeries returns metric m of site for each period p (Hour, Day or
// Month) starting in [from, to), from the stored aggregates of p; a
// period without aggregates is 0.
func (s *Store) TimeSeries(ctx context.Context, site string, m Metric, p Period, from, to time.Time) ([]Point, error) {
	if _, ok := m.of(Summary{}); !ok {
		return nil, fmt.Errorf("%w metric %q", ErrInvalid, m)
	}
	ss, err := s.Summaries(ctx, site, p, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]Point, len(ss))
	for i, x := range ss {
		out[i].Start = x.Start
		out[i].Value, _ = m.of(x.Summary)
	}
	return out, nil
}

// PeriodSummary is the Summary of one period.
type PeriodSummary struct {
	Start time.Time
	Summary
}

// Summaries returns the Summary of each period p (Hour, Day or Month) of
// site starting in [from, to), in order, from the stored aggregates of p
// read with one query; a period without aggregates has zeros.
func (s *Store) Summaries(ctx context.Context, site string, p Period, from, to time.Time) ([]PeriodSummary, error) {
	if !p.valid() {
		return nil, fmt.Errorf("%w period %q", ErrInvalid, p)
	}
	var r AggregateReads
	r.Periods(p, from, to)
	a, err := s.ReadAggregates(ctx, site, &r)
	if err != nil {
		return nil, err
	}
	return a.Summaries(p, from, to), nil
}
