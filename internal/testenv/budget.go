package testenv

import (
	"context"
	"errors"
	"sync"
)

// Budget is a recording in-flight budget (it satisfies wire.Budget): it
// refuses an Acquire that would hold more than its size, and records what
// it holds and the most it has held. It is safe for concurrent use.
type Budget struct {
	mu               sync.Mutex
	size, held, peak int64
}

// NewBudget returns a Budget that holds up to size bytes.
func NewBudget(size int64) *Budget { return &Budget{size: size} }

// Acquire takes n from the budget, or fails, taking nothing, when that
// would hold more than its size.
func (b *Budget) Acquire(_ context.Context, n int64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+n > b.size {
		return errors.New("budget spent")
	}
	b.held += n
	b.peak = max(b.peak, b.held)
	return nil
}

// Release gives n back.
func (b *Budget) Release(n int64) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
}

// SetSize changes what the budget holds at the most; what it holds now
// stays held.
func (b *Budget) SetSize(size int64) {
	b.mu.Lock()
	b.size = size
	b.mu.Unlock()
}

// State returns what the budget holds now and the most it has held.
func (b *Budget) State() (held, peak int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held, b.peak
}
