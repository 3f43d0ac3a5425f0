package local

import (
	"slices"
	"sync"

	"github.com/cespare/xxhash/v2"
)

const nStripes = 1024

// stripes are the per-item locks: an item's read-modify-write holds the
// stripe its storage key hashes to. Holders of several stripes take them in
// increasing order, so they cannot deadlock.
type stripes struct {
	mu [nStripes]sync.Mutex
}

func stripeOf(key []byte) int { return int(xxhash.Sum64(key) % nStripes) }

func (s *stripes) lock(key []byte) func() {
	m := &s.mu[stripeOf(key)]
	m.Lock()
	return m.Unlock
}

// lockAll locks the stripes of all keys in increasing order and returns the
// function that unlocks them.
func (s *stripes) lockAll(keys [][]byte) func() {
	idx := make([]int, 0, len(keys))
	for _, k := range keys {
		idx = append(idx, stripeOf(k))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		s.mu[i].Lock()
	}
	return func() {
		for _, i := range idx {
			s.mu[i].Unlock()
		}
	}
}
