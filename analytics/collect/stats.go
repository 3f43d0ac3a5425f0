package collect

import (
	"errors"
	"sync/atomic"

	"github.com/timetable-db/timetable/analytics"
)

// Reasons a hit is refused, the labels of Stats.Refused.
const (
	RefuseInvalid       = "invalid"
	RefuseTooLarge      = "too_large"
	RefuseUnknownSite   = "unknown_site"
	RefuseForeignDomain = "foreign_domain"
	RefuseRateLimited   = "rate_limited"
	RefuseStore         = "store" // the store failed
)

// Stats are a Collector's counts since New.
type Stats struct {
	// Accepted counts the events recorded (a hit for two sites is two).
	Accepted int64
	// Dropped counts the hits dropped (answered as accepted, not
	// recorded), by reason: DropBot, DropHeadless, DropNoAgent, DropBotIP,
	// DropSpam, DropExcludedIP, DropExcludedPath. A hit for several sites
	// that some of them exclude is recorded for the others and not
	// counted here.
	Dropped map[string]int64
	// Refused counts the hits refused with an error, by reason:
	// RefuseInvalid, RefuseTooLarge, RefuseUnknownSite,
	// RefuseForeignDomain, RefuseRateLimited, RefuseStore.
	Refused map[string]int64
}

type counters struct {
	accepted atomic.Int64
	dropped  map[string]*atomic.Int64
	refused  map[string]*atomic.Int64
}

func newCounters() *counters {
	c := &counters{dropped: map[string]*atomic.Int64{}, refused: map[string]*atomic.Int64{}}
	for _, r := range []string{DropBot, DropHeadless, DropNoAgent, DropBotIP, DropSpam, DropExcludedIP, DropExcludedPath} {
		c.dropped[r] = new(atomic.Int64)
	}
	for _, r := range []string{RefuseInvalid, RefuseTooLarge, RefuseUnknownSite, RefuseForeignDomain, RefuseRateLimited, RefuseStore} {
		c.refused[r] = new(atomic.Int64)
	}
	return c
}

func (c *counters) drop(reason string) { c.dropped[reason].Add(1) }

// refuse counts err (nil counts nothing) under its reason.
func (c *counters) refuse(err error) {
	if err == nil {
		return
	}
	c.refused[RefuseReason(err)].Add(1)
}

// RefuseReason returns the Stats.Refused reason of an error of Collect or
// Batch.
func RefuseReason(err error) string {
	var rl *RateLimitError
	switch {
	case errors.Is(err, ErrTooLarge):
		return RefuseTooLarge
	case errors.Is(err, ErrInvalid), errors.Is(err, analytics.ErrInvalid):
		return RefuseInvalid
	case errors.Is(err, ErrUnknownSite):
		return RefuseUnknownSite
	case errors.Is(err, ErrForeignDomain):
		return RefuseForeignDomain
	case errors.As(err, &rl):
		return RefuseRateLimited
	}
	return RefuseStore
}

// Stats returns the counts so far; the maps are the caller's.
func (c *Collector) Stats() Stats {
	s := Stats{Accepted: c.stats.accepted.Load(), Dropped: map[string]int64{}, Refused: map[string]int64{}}
	for r, n := range c.stats.dropped {
		s.Dropped[r] = n.Load()
	}
	for r, n := range c.stats.refused {
		s.Refused[r] = n.Load()
	}
	return s
}
