package ingest

import "sync"

// SeriesCache remembers, across the remote-write requests of a server,
// the series that each label set names: its kind, its series id and its
// readings' tags. A label set seen again (a series sends a sample each
// scrape, in request after request) then skips what decoding it costs:
// parsing, sorting, checking and escaping the labels into an id, finding
// the tags. Its keys are the label set as the request encodes it (1.0:
// its Label fields; 2.0: a byte 0xff, which starts no 1.0 key, then each
// label's name and value, length-prefixed, in the request's order), so a
// hit gives what decoding that label set gave, which stays right as
// kinds only grow (series keeps a kind's fields and tags, in order, and
// never deletes a kind).
//
// It holds at most about maxBytes: past half of it, the entries move to
// an older generation, dropped at the next turn, and an entry used from
// there moves back (a working set that fits stays, the rest is
// forgotten). It is safe for concurrent use; a nil *SeriesCache caches
// nothing.
type SeriesCache struct {
	mu       sync.RWMutex
	cur, old map[string]*cachedSeries
	curBytes int64
	half     int64 // bytes of the current generation at which it turns
}

// cachedSeries is the series of a label set. It is never changed once
// cached: its strings and tags are shared by the batches that use it.
type cachedSeries struct {
	kind string
	id   string
	// tags are the readings' tags by the kind's tag index, as many as the
	// kind had tags when it was cached.
	tags []string
}

// DefaultSeriesCacheBytes is a good size of a server's SeriesCache:
// some 50,000 series.
const DefaultSeriesCacheBytes = 16 << 20

// bytes estimates the memory of an entry of key k: the map's
// slot, the key, the entry, its strings and its tags.
func (c *cachedSeries) bytes(k string) int64 {
	n := 64 + len(k) + 64 + len(c.kind) + len(c.id) + 16*len(c.tags)
	for _, t := range c.tags {
		n += len(t)
	}
	return int64(n)
}

// NewSeriesCache returns a cache of at most about maxBytes (at least
// 64 KiB).
func NewSeriesCache(maxBytes int64) *SeriesCache {
	return &SeriesCache{cur: map[string]*cachedSeries{}, half: max(maxBytes, 64<<10) / 2}
}

// get returns the series of the label set encoded as key, or nil.
func (sc *SeriesCache) get(key []byte) *cachedSeries {
	if sc == nil {
		return nil
	}
	sc.mu.RLock()
	e := sc.cur[string(key)]
	if e == nil {
		e = sc.old[string(key)]
		sc.mu.RUnlock()
		if e != nil {
			sc.put(key, e)
		}
		return e
	}
	sc.mu.RUnlock()
	return e
}

// put caches e as the series of the label set encoded as key, in place
// of what was cached for it.
func (sc *SeriesCache) put(key []byte, e *cachedSeries) {
	if sc == nil {
		return
	}
	k := string(key)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if was, ok := sc.cur[k]; ok {
		sc.curBytes -= was.bytes(k)
	}
	sc.cur[k] = e
	sc.curBytes += e.bytes(k)
	if sc.curBytes >= sc.half {
		sc.old, sc.cur, sc.curBytes = sc.cur, make(map[string]*cachedSeries, len(sc.cur)), 0
	}
}

// Len returns the number of label sets cached.
func (sc *SeriesCache) Len() int {
	if sc == nil {
		return 0
	}
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	n := len(sc.cur)
	for k := range sc.old {
		if _, ok := sc.cur[k]; !ok {
			n++
		}
	}
	return n
}
