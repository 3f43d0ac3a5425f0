package analytics

import (
	"context"
	"sync"
	"time"
)

// background is the Store's aggregation loop: Open starts it, Close stops
// it.
type background struct {
	cancel context.CancelFunc // ends the loop's context: a pass stops
	done   chan struct{}      // closed when the loop has returned
	once   sync.Once
	err    error // Close's result
}

// startBackground starts the loop that runs AggregatePending every
// Options.AggregateEvery (none if negative).
func (s *Store) startBackground() {
	ctx, cancel := context.WithCancel(context.Background())
	s.bg.cancel, s.bg.done = cancel, make(chan struct{})
	go func() {
		defer close(s.bg.done)
		s.aggregateEvery(ctx, s.o.AggregateEvery)
	}()
}

// aggregateEvery brings the aggregates up to date with the days marked
// pending, every interval, until ctx is done. A failed pass is logged and
// the next tick tries again.
func (s *Store) aggregateEvery(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		start := time.Now()
		n, err := s.AggregatePending(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.o.Logger.Error("cannot aggregate the web analytics", "err", err, "days", n)
		case n > 0:
			s.o.Logger.Debug("aggregated the web analytics", "days", n, "took", time.Since(start))
		}
	}
}

// Close stops the background aggregation, waiting for it (a pass in
// progress stops between two calls to the table; the days it leaves stay
// pending for the next, and it releases the site's lease, so that another
// Store may take the site over at once), then writes the realtime
// counters gathered in memory (Flush) and returns the error of that. Only the first call does
// so; later ones return its error. The Store's methods still work after
// Close, but nothing aggregates in the background any more: call
// AggregatePending.
func (s *Store) Close() error {
	s.bg.once.Do(func() {
		s.bg.cancel()
		<-s.bg.done
		s.bg.err = s.Flush(context.Background())
	})
	return s.bg.err
}
