package analytics

import (
	"context"
	"time"
)

// RawStats computes the summary and the n most frequent values of each
// dimension of dims for site over [from, to) straight from the raw hits,
// without the aggregates: it reads every unexpired hit of the range and
// forms its sessions in memory, with the aggregation's own code. It is for
// comparisons and checks; dashboards read Summary and Breakdown, whose
// cost does not grow with the traffic. Sessions are formed over the whole
// range (the aggregates end them at midnight UTC). The maps and slices are
// the caller's.
func (s *Store) RawStats(ctx context.Context, site string, from, to time.Time, dims []Dimension, n int) (Summary, map[Dimension][]Count, error) {
	goals, err := s.Goals(ctx, site)
	if err != nil {
		return Summary{}, nil, err
	}
	hits, err := s.loadHits(ctx, site, from, to)
	if err != nil {
		return Summary{}, nil, err
	}
	ss, dropped := sessionize(hits, goals, s.o.SessionTimeout)
	st := aggregate(hits, dropped, ss, Day, Day.start(from), to)
	all := newStats()
	for _, x := range st {
		if err := all.merge(x); err != nil {
			return Summary{}, nil, err
		}
	}
	top := map[Dimension][]Count{}
	for _, d := range dims {
		cs := counts(all.top[d])
		top[d] = cs[:min(n, len(cs))]
	}
	return summaryOf(all), top, nil
}
