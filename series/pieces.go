package series

import (
	"sync"
	"time"
)

// pieceCache remembers the days of chunk partitions whose day pieces a
// read looked up and found none, and when: a read of such a day within
// spread of that lookup (CompactGrace/2, on this Store's clock, either
// way) takes it instead of looking up again, as a read's own groups take
// what it looked up (groupReader.dayInfo). That is as sound: a day piece
// written since the lookup was written less than spread before the read,
// and its sources stay CompactGrace after it. Queries over many series
// each refreshed within minutes (dashboards) thus make one table call per
// series and day range, not two. A day whose lookup found pieces is not
// remembered (its pieces would have to be), and a Store's own compaction
// of a day forgets it.
//
// Entries older than spread are dropped in sweeps made each time the
// cache has doubled since the last one, as the markCache's; past
// maxMarkCache entries it starts again.
type pieceCache struct {
	mu    sync.Mutex
	m     map[pieceKey]time.Time
	sweep int
}

// pieceKey is a day (its start, ms) of a chunk partition.
type pieceKey struct {
	pk  string
	day int64
}

// none returns when the day's pieces were looked up and found none, if
// that lookup is within spread of now.
func (c *pieceCache) none(pk string, day int64, now time.Time, spread time.Duration) (time.Time, bool) {
	c.mu.Lock()
	at, ok := c.m[pieceKey{pk, day}]
	c.mu.Unlock()
	if !ok || now.Sub(at) > spread || at.Sub(now) > spread {
		return time.Time{}, false
	}
	return at, true
}

// found records the lookup at at of the day's pieces, which found n.
func (c *pieceCache) found(pk string, day int64, n int, at time.Time, spread time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := pieceKey{pk, day}
	if n > 0 {
		delete(c.m, key)
		return
	}
	if len(c.m) >= c.sweep {
		for k, t := range c.m {
			if at.Sub(t) > spread || t.Sub(at) > spread {
				delete(c.m, k)
			}
		}
		if c.m == nil || len(c.m) >= maxMarkCache {
			c.m = map[pieceKey]time.Time{}
		}
		c.sweep = max(2*len(c.m), minMarkSweep)
	}
	c.m[key] = at
}

// forget drops what the cache holds of the day of partition pk.
func (c *pieceCache) forget(pk string, day int64) {
	c.mu.Lock()
	delete(c.m, pieceKey{pk, day})
	c.mu.Unlock()
}
