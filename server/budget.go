package server

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/timetable-db/timetable/wire"
)

// Defaults of a Budget.
const (
	DefaultMaxInFlightBytes = 256 << 20   // bytes all requests hold at once
	DefaultBudgetWait       = time.Second // how long a request waits for bytes
)

// retryBusy is the Retry-After of a request refused for want of bytes.
const retryBusy = time.Second

// bodyBase is what a request with a body holds from its start, before
// it reads any: the buffers of its reader and decoder, and the whole of
// a small body (a hit of /api/event, at most 16 KiB).
const bodyBase = 64 << 10

// Budget bounds the bytes that requests hold in memory at once, across
// every face of a server: the bodies and decoded readings of series
// writes (JSON, JSON lines, CSV, line protocol, InfluxDB's write
// routes), the bodies of the DynamoDB endpoint (a wire.Budget, through
// wire.Options.Budget), of the analytics collect routes, the Stats API
// and the admin routes. A request holds its bytes until it is answered.
// One that needs bytes the others hold waits for them a while, then is
// refused 503 with Retry-After; one that needs more than the whole
// budget is refused 413. A Budget is safe for concurrent use.
type Budget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
	held atomic.Int64
	peak atomic.Int64
}

var _ wire.Budget = (*Budget)(nil)

// NewBudget returns a Budget of size bytes (DefaultMaxInFlightBytes if
// size <= 0) whose Acquire waits at most wait for bytes to be released
// (DefaultBudgetWait if wait is 0; not at all if negative).
func NewBudget(size int64, wait time.Duration) *Budget {
	if size <= 0 {
		size = DefaultMaxInFlightBytes
	}
	switch {
	case wait == 0:
		wait = DefaultBudgetWait
	case wait < 0:
		wait = 0
	}
	return &Budget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// Acquire holds n bytes more. It fails, holding none, with a 413 error
// when n is more than the whole budget, with a 503 error (Retry-After)
// when the bytes are not released within the budget's wait, or with
// ctx's error when ctx is done first.
func (b *Budget) Acquire(ctx context.Context, n int64) error {
	return b.acquire(ctx, n, time.Now().Add(b.wait))
}

// acquire is Acquire waiting until the time until at the latest.
func (b *Budget) acquire(ctx context.Context, n int64, until time.Time) error {
	if n <= 0 {
		return nil
	}
	if n > b.size {
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge,
			"the request needs %d bytes of memory, more than the server's in-flight budget of %d (--max-inflight-bytes)", n, b.size)
	}
	if !b.sem.TryAcquire(n) {
		wctx, cancel := context.WithDeadline(ctx, until)
		err := b.sem.Acquire(wctx, n)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &apiError{status: http.StatusServiceUnavailable, code: codeUnavailable, retryAfter: retryBusy,
				message: fmt.Sprintf("busy: the requests in progress hold the server's in-flight budget of %d bytes (--max-inflight-bytes); retry", b.size)}
		}
	}
	h := b.held.Add(n)
	for p := b.peak.Load(); h > p && !b.peak.CompareAndSwap(p, h); p = b.peak.Load() {
	}
	return nil
}

// Release gives back n bytes held.
func (b *Budget) Release(n int64) {
	if n <= 0 {
		return
	}
	b.held.Add(-n)
	b.sem.Release(n)
}

// BudgetStats are a Budget's figures.
type BudgetStats struct {
	Size int64 // bytes in all
	Held int64 // bytes held now
	Peak int64 // the most bytes held at once since NewBudget
}

// Stats returns the budget's figures.
func (b *Budget) Stats() BudgetStats {
	return BudgetStats{Size: b.size, Held: b.held.Load(), Peak: b.peak.Load()}
}

// hold is the share of the budget one request holds, released when it
// is answered (instrument does). A request waits for bytes the budget's
// wait at most in all, from its first hold. It is not safe for
// concurrent use.
type hold struct {
	b     *Budget
	n     int64
	until time.Time // the end of the request's wait; zero before it holds
}

type holdKey struct{}

// holdOf returns the hold of the request of ctx; nil outside a route.
func holdOf(ctx context.Context) *hold {
	h, _ := ctx.Value(holdKey{}).(*hold)
	return h
}

// grow holds n bytes more for the request (nil h holds nothing).
func (h *hold) grow(ctx context.Context, n int64) error {
	if h == nil || n <= 0 {
		return nil
	}
	if h.n+n > h.b.size {
		return errorf(http.StatusRequestEntityTooLarge, codeTooLarge,
			"the request needs more than %d bytes of memory, the server's in-flight budget (--max-inflight-bytes)", h.b.size)
	}
	if h.until.IsZero() {
		h.until = time.Now().Add(h.b.wait)
	}
	if err := h.b.acquire(ctx, n, h.until); err != nil {
		return err
	}
	h.n += n
	return nil
}

func (h *hold) release() {
	h.b.Release(h.n)
	h.n = 0
}
