package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter limits the rate of requests per token (or any other id) with a
// token bucket per id (golang.org/x/time/rate): perSecond requests a second
// on average, bursts of up to burst. It is safe for concurrent use.
//
// Its memory is bounded by the ids active recently: the bucket of an id
// idle long enough to have refilled is dropped, which changes nothing,
// since a new bucket starts full.
type Limiter struct {
	limit rate.Limit
	burst int
	idle  time.Duration // how long a bucket takes to refill from empty
	now   func() time.Time

	mu    sync.Mutex
	ids   map[string]*bucket
	swept time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

// NewLimiter returns a Limiter of perSecond requests a second per id, in
// bursts of up to burst (at least 1). perSecond <= 0 means no limit.
func NewLimiter(perSecond float64, burst int) *Limiter {
	burst = max(burst, 1)
	l := &Limiter{limit: rate.Limit(perSecond), burst: burst, now: time.Now, ids: map[string]*bucket{}}
	if perSecond > 0 {
		l.idle = time.Duration(float64(burst) / perSecond * float64(time.Second))
	}
	return l
}

// Allow takes one request from id's bucket. It reports whether the request
// may go on; if not, retryAfter is how long until it would be allowed (for
// a Retry-After header). A nil Limiter, or one without a limit, allows
// everything.
func (l *Limiter) Allow(id string) (ok bool, retryAfter time.Duration) {
	if l == nil || l.limit <= 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.ids[id]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.ids[id] = b
	}
	b.last = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep drops the buckets idle for longer than the refill time: they are
// full again. It runs at most once per refill time (and per second, so
// that fast limits do not scan the map on every call). Called with mu held.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < max(l.idle, time.Second) {
		return
	}
	l.swept = now
	for id, b := range l.ids {
		if now.Sub(b.last) >= l.idle {
			delete(l.ids, id)
		}
	}
}

// Len returns the number of ids whose buckets are held.
func (l *Limiter) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ids)
}
