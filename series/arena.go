package series

import "sync"

// colArena hands out the columns (times, positions, values) that a
// stream decodes the chunks of one group into, carved from slabs that
// are reused: by the stream's group after next, and by later reads once
// the iteration is closed (arenas). Reading a day of readings thus
// allocates no column after the first reads.
//
// A batch carved from an arena is valid until the arena is reset: what
// keeps a reading past that copies it (Iter.Reading, Range).
type colArena struct {
	t    []int64
	seq  []uint64
	idx  []uint32
	vals []float64
	// used counts the readings and values handed out since the last
	// reset; want is the most of one generation, to size the slabs by.
	used, usedVals int
	want, wantVals int
	// tmp is scratch space for one decode.
	tmp []float64
}

// maxArenaReadings bounds the readings of the slabs an arena keeps
// across reads (about 28 MB at one field): a larger read allocates.
const maxArenaReadings = 1 << 20

// arenas holds the arenas of closed iterations. A sync.Pool: the
// collector empties it, so idle arenas cost no memory for long.
var arenas = sync.Pool{New: func() any { return new(colArena) }}

// batch returns a batch of n readings of nf fields, its columns
// carved from the arena (their contents undefined: the caller writes
// every element).
func (a *colArena) batch(n, nf int) *rbatch {
	a.used += n
	a.usedVals += n * nf
	if cap(a.t)-len(a.t) < n {
		c := max(n, a.want-a.used+n, 2*cap(a.t))
		a.t, a.seq, a.idx = make([]int64, 0, c), make([]uint64, 0, c), make([]uint32, 0, c)
	}
	if cap(a.vals)-len(a.vals) < n*nf {
		a.vals = make([]float64, 0, max(n*nf, a.wantVals-a.usedVals+n*nf, 2*cap(a.vals)))
	}
	b := &rbatch{nf: nf}
	b.t, a.t = carve(a.t, n)
	b.seq, a.seq = carve(a.seq, n)
	b.idx, a.idx = carve(a.idx, n)
	b.vals, a.vals = carve(a.vals, n*nf)
	return b
}

// scratch returns n values of scratch space, valid until the next call.
func (a *colArena) scratch(n int) []float64 {
	if cap(a.tmp) < n {
		a.tmp = make([]float64, n)
	}
	return a.tmp[:n]
}

// carve returns the next n elements of slab (capped, so that appends to
// them never reach the next ones) and the slab past them.
func carve[T any](slab []T, n int) ([]T, []T) {
	l := len(slab)
	return slab[l : l+n : l+n], slab[: l+n : cap(slab)]
}

// reset makes the whole arena free again: every batch carved from it
// before is invalid. The slabs grow to what the last generation used.
func (a *colArena) reset() {
	a.want, a.wantVals = max(a.want, a.used), max(a.wantVals, a.usedVals)
	if a.want > cap(a.t) {
		a.t, a.seq, a.idx = nil, nil, nil
	}
	if a.wantVals > cap(a.vals) {
		a.vals = nil
	}
	a.t, a.seq, a.idx, a.vals = a.t[:0], a.seq[:0], a.idx[:0], a.vals[:0]
	a.used, a.usedVals = 0, 0
}

// release resets a and gives it back for later reads, unless it grew
// past maxArenaReadings.
func (a *colArena) release() {
	if a == nil {
		return
	}
	a.reset()
	if a.want > maxArenaReadings || a.wantVals > maxArenaReadings || cap(a.tmp) > maxArenaReadings {
		return
	}
	arenas.Put(a)
}

// newArena returns an arena of a closed iteration, or a new one.
func newArena() *colArena {
	a := arenas.Get().(*colArena)
	return a
}
