package collect

import (
	"net/netip"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"
)

// limiter keeps a token bucket per key in a bounded LRU cache: a key
// evicted (the least recently seen, when more than size keys are live)
// starts again with a full bucket, so memory stays bounded and a client is
// at worst allowed a burst more.
type limiter struct {
	every rate.Limit
	burst int
	now   func() time.Time
	mu    sync.Mutex // makes get-or-add atomic
	cache *lru.Cache[limitKey, *rate.Limiter]
}

type limitKey struct {
	site string
	ip   [16]byte // clientKey's
}

// clientKey returns the part of a client's address its rate is kept by:
// an IPv4 address whole, an IPv6 address by its /64 prefix (the rest
// zeroed), since one host or network is usually given a whole /64 and may
// send from any address of it; the zero key for an invalid address.
func clientKey(ip netip.Addr) [16]byte {
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr().As16()
	}
	if ip.IsValid() {
		return ip.As16()
	}
	return [16]byte{}
}

func newLimiter(perSecond float64, burst, size int, now func() time.Time) *limiter {
	c, _ := lru.New[limitKey, *rate.Limiter](size) // size > 0
	return &limiter{every: rate.Limit(perSecond), burst: burst, now: now, cache: c}
}

// allow takes a token of k's bucket; when there is none it returns false
// and the time until there is one.
func (l *limiter) allow(k limitKey) (bool, time.Duration) {
	l.mu.Lock()
	lim, ok := l.cache.Get(k)
	if !ok {
		lim = rate.NewLimiter(l.every, l.burst)
		l.cache.Add(k, lim)
	}
	l.mu.Unlock()
	now := l.now()
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}
