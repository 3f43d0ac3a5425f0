package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/timetable-db/timetable/table"
)

// RecordMany stores the hits es as Record stores each, with the same items
// and keys, but writes the page-view and event items with BatchWriteItem
// (25 to a call) and marks each day once. Every event is checked before
// anything is written: on bad input it writes nothing and fails with
// ErrInvalid (or timetable.ErrNotFound for an unknown site), naming the
// index of the first bad event. Once writing starts it is not atomic: on
// failure some hits may be stored (a *table.BatchError in the chain lists
// those that are not). es is not modified.
func (s *Store) RecordMany(ctx context.Context, es []Event) error {
	now := s.now()
	ws := make([]table.WriteRequest, len(es))
	ts := make([]time.Time, len(es))
	for i := range es {
		it, t, err := s.hitItem(ctx, &es[i], now)
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		ws[i], ts[i] = table.PutRequest(it), t
	}
	if err := s.t.BatchWrite(ctx, ws); err != nil {
		return fmt.Errorf("analytics: cannot store %d hits: %w", len(es), err)
	}
	days := map[pendingDay]bool{}
	for i := range es {
		if err := s.realtime(ctx, &es[i], ts[i], now); err != nil {
			return err
		}
		pd := pendingDay{es[i].Site, dayOf(ts[i])}
		if days[pd] {
			continue
		}
		days[pd] = true
		if err := s.mark(ctx, pd.site, pd.day); err != nil {
			return fmt.Errorf("analytics: the hits are stored but day %s of site %q is not marked for aggregation: %w", pd.day, pd.site, err)
		}
	}
	return nil
}
