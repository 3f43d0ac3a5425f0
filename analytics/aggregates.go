package analytics

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// AggregateReads lists what a caller will ask of an Aggregates: the
// ranges of its Summary and Breakdown calls, the periods of its Summaries
// calls, and the breakdowns. The zero value lists nothing.
type AggregateReads struct {
	segs []segment
	dims []Dimension
}

// Range lists [from, to) for Summary and Breakdown: the aggregates that
// Store.Summary over it would read.
func (r *AggregateReads) Range(from, to time.Time) {
	if from.Before(to) {
		r.segs = append(r.segs, cover(from, to)...)
	}
}

// Periods lists the periods p starting in [from, to) for Summaries. An
// invalid p is refused by ReadAggregates.
func (r *AggregateReads) Periods(p Period, from, to time.Time) {
	if first := firstStart(p, from); first.Before(to) {
		r.segs = append(r.segs, segment{p, first, to})
	}
}

// Dimension lists breakdown d for Breakdown.
func (r *AggregateReads) Dimension(d Dimension) {
	if !slices.Contains(r.dims, d) {
		r.dims = append(r.dims, d)
	}
}

// firstStart returns the start of the first period of p that starts at
// or after from.
func firstStart(p Period, from time.Time) time.Time {
	first := p.start(from)
	if first.Before(from) {
		first = p.next(first)
	}
	return first
}

// Aggregates are stored aggregates of a site read once, by
// Store.ReadAggregates, for the ranges its AggregateReads listed: their
// Summary, Summaries and Breakdown are computed in memory from the same
// aggregates, merged the same way (visitor sketches merged, never summed),
// as the Store's methods of those names read and merge them, so both give
// the same figures. Asked of a range that was not listed, they count only
// what was read. An Aggregates is not safe for concurrent use.
type Aggregates struct {
	// items holds the stats read, by period and by the Unix second of
	// their start.
	items map[Period]map[int64]*stats
}

// ReadAggregates reads the aggregates of site that r lists, with one query
// per run of consecutive periods of a tier (runs that touch, overlap or
// are one period apart are read as one), whatever the number of ranges:
// the time buckets of a time series that are whole periods or runs of
// them cost one query per tier. With breakdowns listed, each item is read
// with those breakdowns only.
func (s *Store) ReadAggregates(ctx context.Context, site string, r *AggregateReads) (*Aggregates, error) {
	for _, d := range r.dims {
		if !d.valid() {
			return nil, fmt.Errorf("%w dimension %q", ErrInvalid, d)
		}
	}
	a := &Aggregates{items: map[Period]map[int64]*stats{}}
	for _, sg := range runs(r.segs) {
		if !sg.p.valid() {
			return nil, fmt.Errorf("%w period %q", ErrInvalid, sg.p)
		}
		ps, err := s.readStats(ctx, site, sg.p, sg.from, sg.to, false, r.dims)
		if err != nil {
			return nil, err
		}
		m := a.items[sg.p]
		if m == nil {
			m = map[int64]*stats{}
			a.items[sg.p] = m
		}
		for _, x := range ps {
			m[x.start.Unix()] = x.st
		}
	}
	return a, nil
}

// runs returns the segments of segs joined, per period, where they touch,
// overlap or are at most one period apart, in order of period and start.
func runs(segs []segment) []segment {
	segs = slices.Clone(segs)
	slices.SortFunc(segs, func(x, y segment) int {
		if x.p != y.p {
			if x.p < y.p {
				return -1
			}
			return 1
		}
		return x.from.Compare(y.from)
	})
	var out []segment
	for _, sg := range segs {
		if n := len(out); n > 0 && out[n-1].p == sg.p && !sg.from.After(sg.p.next(out[n-1].to)) {
			if sg.to.After(out[n-1].to) {
				out[n-1].to = sg.to
			}
			continue
		}
		out = append(out, sg)
	}
	return out
}

// each calls f with the stats read of each period of p starting in
// [from, to), in time order.
func (a *Aggregates) each(p Period, from, to time.Time, f func(start time.Time, st *stats) error) error {
	m := a.items[p]
	for t := from; t.Before(to); t = p.next(t) {
		if err := f(t, m[t.Unix()]); err != nil {
			return err
		}
	}
	return nil
}

// merged returns the stats over [from, to) merged from the largest
// aggregates that cover it, as Store.merged does; with counts only, the
// breakdowns are left out.
func (a *Aggregates) merged(from, to time.Time, countsOnly bool) (*stats, error) {
	st := newStats()
	for _, sg := range cover(from, to) {
		err := a.each(sg.p, sg.from, sg.to, func(_ time.Time, x *stats) error {
			if x == nil {
				return nil
			}
			if countsOnly {
				c := *x
				c.top = nil
				x = &c
			}
			return st.merge(x)
		})
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

// Summary returns the figures over [from, to), to the hour, as
// Store.Summary does.
func (a *Aggregates) Summary(from, to time.Time) (Summary, error) {
	st, err := a.merged(from, to, true)
	if err != nil {
		return Summary{}, err
	}
	return summaryOf(st), nil
}

// Breakdown returns every value of dimension d (a listed breakdown) over
// [from, to) with its count, most frequent first (then by value), merged
// from the aggregates as Store.Breakdown merges them.
func (a *Aggregates) Breakdown(d Dimension, from, to time.Time) ([]Count, error) {
	st, err := a.merged(from, to, false)
	if err != nil {
		return nil, err
	}
	return counts(st.top[d]), nil
}

// Summaries returns the Summary of each period p starting in [from, to),
// in order, as Store.Summaries does; a period without aggregates has
// zeros.
func (a *Aggregates) Summaries(p Period, from, to time.Time) []PeriodSummary {
	var out []PeriodSummary
	a.each(p, firstStart(p, from), to, func(t time.Time, st *stats) error {
		x := PeriodSummary{Start: t}
		if st != nil {
			// Estimate reshapes a sketch: estimate a copy, so that the
			// item merges later as it was read.
			c := *st
			c.visitors = st.visitors.Clone()
			x.Summary = summaryOf(&c)
		}
		out = append(out, x)
		return nil
	})
	return out
}
