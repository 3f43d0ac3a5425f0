// Package clock holds a settable clock, the one that the demonstration
// loader (analytics/demo) and the test scaffolding (internal/testenv) both
// hand to Options.Now, so that time is what the caller says it is.
package clock

import (
	"sync"
	"time"
)

// Settable is a clock that reads the time last set. Its zero value reads
// the zero time. It is safe for concurrent use.
type Settable struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a Settable that reads t.
func New(t time.Time) *Settable { return &Settable{t: t} }

// Now returns the time last set.
func (c *Settable) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set makes Now return t.
func (c *Settable) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock d forward (backward if d is negative).
func (c *Settable) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
