package series

import (
	"slices"
)

// pos is the position of a reading in its kind's order: time, then
// sequence number (of the reading, or of its chunk), then index in the
// chunk.
type pos struct {
	t   int64
	seq uint64
	idx uint32
}

func cmpPos(a, b pos) int {
	switch {
	case a.t != b.t:
		if a.t < b.t {
			return -1
		}
		return 1
	case a.seq != b.seq:
		if a.seq < b.seq {
			return -1
		}
		return 1
	case a.idx != b.idx:
		if a.idx < b.idx {
			return -1
		}
		return 1
	}
	return 0
}

// rbatch holds decoded readings in columns, so that reading a day of
// readings does not make a pointer-holding struct per reading.
type rbatch struct {
	nf   int
	t    []int64
	seq  []uint64
	idx  []uint32
	vals []float64  // nf per reading
	tags [][]string // per reading; nil if the kind has no tags
}

func (b *rbatch) len() int { return len(b.t) }

func (b *rbatch) pos(i int) pos { return pos{b.t[i], b.seq[i], b.idx[i]} }

// rec returns reading i; its slices alias the batch.
func (b *rbatch) rec(i int) rec {
	r := rec{t: b.t[i], seq: b.seq[i], vals: b.vals[i*b.nf : (i+1)*b.nf : (i+1)*b.nf]}
	if b.tags != nil {
		r.tags = b.tags[i]
	}
	return r
}

func (k *Kind) newBatch(n int) *rbatch {
	b := &rbatch{nf: len(k.s.Fields), t: make([]int64, 0, n), seq: make([]uint64, 0, n), idx: make([]uint32, 0, n), vals: make([]float64, 0, n*len(k.s.Fields))}
	if len(k.s.Tags) > 0 {
		b.tags = make([][]string, 0, n)
	}
	return b
}

// add appends r, whose values and tags are padded to the kind's.
func (b *rbatch) add(r *rec, idx uint32) {
	b.t = append(b.t, r.t)
	b.seq = append(b.seq, r.seq)
	b.idx = append(b.idx, idx)
	b.vals = append(b.vals, r.vals...)
	if b.tags != nil {
		b.tags = append(b.tags, r.tags)
	}
}

func (b *rbatch) appendBatch(o *rbatch) {
	b.t = append(b.t, o.t...)
	b.seq = append(b.seq, o.seq...)
	b.idx = append(b.idx, o.idx...)
	b.vals = append(b.vals, o.vals...)
	if b.tags != nil {
		b.tags = append(b.tags, o.tags...)
	}
}

// sorted reports whether the batch is in order.
func (b *rbatch) sorted() bool {
	ts := b.t
	for i := 1; i < len(ts); i++ {
		// Times in order decide; equal ones, the positions.
		if ts[i-1] >= ts[i] && (ts[i-1] > ts[i] || cmpPos(b.pos(i-1), b.pos(i)) > 0) {
			return false
		}
	}
	return true
}

// sort puts the batch in order (or in reverse order).
func (b *rbatch) sort(reverse bool) *rbatch {
	order := make([]int, b.len())
	for i := range order {
		order[i] = i
	}
	if !b.sorted() {
		slices.SortFunc(order, func(x, y int) int { return cmpPos(b.pos(x), b.pos(y)) })
	} else if !reverse {
		return b
	}
	if reverse {
		slices.Reverse(order)
	}
	out := &rbatch{nf: b.nf, t: make([]int64, len(order)), seq: make([]uint64, len(order)), idx: make([]uint32, len(order)), vals: make([]float64, len(b.vals))}
	if b.tags != nil {
		out.tags = make([][]string, len(order))
	}
	for j, i := range order {
		out.t[j], out.seq[j], out.idx[j] = b.t[i], b.seq[i], b.idx[i]
		copy(out.vals[j*b.nf:(j+1)*b.nf], b.vals[i*b.nf:(i+1)*b.nf])
		if b.tags != nil {
			out.tags[j] = b.tags[i]
		}
	}
	return out
}

// dedupe removes, in a sorted batch, readings at the position of the one
// before: copies of one reading read from a merged chunk and its source.
func (b *rbatch) dedupe() {
	j := 0
	for i := 0; i < b.len(); i++ {
		if i > 0 && b.t[i] == b.t[j-1] && b.seq[i] == b.seq[j-1] && b.idx[i] == b.idx[j-1] {
			continue
		}
		if i != j {
			b.t[j], b.seq[j], b.idx[j] = b.t[i], b.seq[i], b.idx[i]
			copy(b.vals[j*b.nf:(j+1)*b.nf], b.vals[i*b.nf:(i+1)*b.nf])
			if b.tags != nil {
				b.tags[j] = b.tags[i]
			}
		}
		j++
	}
	b.t, b.seq, b.idx, b.vals = b.t[:j], b.seq[:j], b.idx[:j], b.vals[:j*b.nf]
	if b.tags != nil {
		b.tags = b.tags[:j]
	}
}

// resolve returns the readings of b (in order) that the kind's duplicate
// rule keeps: of the readings of one instant, the last (LastWins) or the
// first (RejectDifferent), or all (KeepAll). It returns b itself when it
// keeps them all.
func (k *Kind) resolve(b *rbatch) *rbatch {
	if k.s.Duplicates == KeepAll {
		return b
	}
	ties := false
	for i := 1; i < b.len() && !ties; i++ {
		ties = b.t[i] == b.t[i-1]
	}
	if !ties {
		return b
	}
	out := k.newBatch(b.len())
	for i := 0; i < b.len(); i++ {
		j := i
		for j+1 < b.len() && b.t[j+1] == b.t[i] {
			j++
		}
		keep := j
		if k.s.Duplicates == RejectDifferent {
			keep = i
		}
		r := b.rec(keep)
		out.add(&r, b.idx[keep])
		i = j
	}
	return out
}
