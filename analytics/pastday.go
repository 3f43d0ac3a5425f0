package analytics

import (
	"context"
	"fmt"
	"time"
)

// RecordDay stores es, every hit of site's UTC day holding day, as that
// day's hit bucket and aggregates, in one pass and without raw hits: it
// leaves what Record of each hit, AggregatePending once the day is over
// and the expiry of the raw hits leave (the hit bucket, and the hourly,
// daily and monthly stats and Top items still kept at the Store's clock;
// the raw hits and sessions, expired, are not written). It is for
// loading history, a demonstration site or an import: a day whose raw
// hits would all have expired at the Store's clock (it ended
// Retention.Raw ago or more; when raw hits are kept forever no day
// qualifies), else it fails with ErrInvalid, and newer days go through
// Record or RecordMany. What it writes replaces the day's aggregates and
// bucket, as AggregateDay does, and then the month's stats are merged
// again from its days. Every event is checked as Record checks it (but
// not against the clock) and must be of site and of the day: on bad input
// nothing is written and the error, ErrInvalid (or
// timetable.ErrNotFound for an unknown site), names the index of the
// first bad event. Like AggregateDay it takes no lease. es is not
// modified.
func (s *Store) RecordDay(ctx context.Context, site string, day time.Time, es []Event) error {
	now := s.now()
	from := Day.start(day)
	to := Day.next(from)
	if s.o.Retention.Raw < 0 || to.Add(s.o.Retention.Raw).After(now) {
		return fmt.Errorf("%w day %s: its raw hits are kept at %s (raw retention %s): record it with Record or RecordMany",
			ErrInvalid, dayOf(from), timestamp(now), retentionText(s.o.Retention.Raw))
	}
	st, err := s.cachedSite(ctx, site)
	if err != nil {
		return err
	}
	hits := make([]hit, len(es))
	for i := range es {
		e := &es[i]
		if e.Site != site {
			return fmt.Errorf("event %d: %w site %q: want %q", i, ErrInvalid, e.Site, site)
		}
		// Checked at its own time: the clock is past its retention.
		if err := e.check(e.Time, &s.o); err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		if t := e.Time.UTC(); t.Before(from) || !t.Before(to) {
			return fmt.Errorf("event %d: %w event time %s: not on %s (UTC)", i, ErrInvalid, timestamp(e.Time), dayOf(from))
		}
		// The item Record would store, read back as the aggregation reads
		// it: the same normalisation, the same hit.
		it, _, err := s.newHitItem(e, st)
		if err != nil {
			return err
		}
		if hits[i], err = hitFrom(it); err != nil {
			return err
		}
	}
	hits = sortHits(hits)
	if err := s.writeAggregates(ctx, site, from, hits, now); err != nil {
		return err
	}
	if err := s.writeBucket(ctx, site, from, hits, now); err != nil {
		return err
	}
	return s.AggregateMonth(ctx, site, from)
}
