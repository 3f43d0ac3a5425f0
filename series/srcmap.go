package series

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
)

// A merged chunk (written by compaction) keeps the position of every
// reading it holds: the sequence number of the chunk the reading was first
// written in (that of its batch's first reading in its shard) and its
// index among that batch's readings of the shard (see chunkItems). Readers order readings by (time,
// sequence number, index) and tell copies of one reading apart from
// distinct readings by that position, so a merged chunk and its sources
// read together give each reading once, and cursors taken before a
// compaction resume at the same place after it.
//
// The positions are the merged item's source map, attribute _s:
//
//	version byte (1)
//	varint  created: when the merged item was written (ms since the epoch)
//	uvarint entries
//	per entry: varint seq - previous entry's seq (wrapping), uvarint count<<1 | has start,
//	           [uvarint start]
//	uvarint runs (0: the entries in order, each whole)
//	per run:   uvarint entry, uvarint length
//
// An entry is a source chunk's readings start .. start+count-1 (start is
// 0 unless the source was split); the runs say which entry each reading
// of the merged chunk, in order, comes from. Sources that do not overlap
// in time, the usual case, need no runs: a few bytes per source.

var errSourceMap = errors.New("series: corrupt source map")

// srcEntry is the readings start .. start+count-1 of source chunk seq.
type srcEntry struct {
	seq          uint64
	start, count uint32
}

// srcRun is n consecutive readings of a merged chunk from one entry.
type srcRun struct {
	entry, n uint32
}

// srcMap is the decoded source map of a merged chunk.
type srcMap struct {
	created int64
	entries []srcEntry
	runs    []srcRun // nil: each entry whole, in order
}

// buildSrcMap returns the source map of readings at positions (seq[i],
// idx[i]), in the merged chunk's order.
func buildSrcMap(created int64, seq []uint64, idx []uint32) srcMap {
	m := srcMap{created: created}
	open := map[uint64]int{} // seq -> entry whose next index may follow
	cur := -1
	for i := range seq {
		e, ok := open[seq[i]]
		if !ok || m.entries[e].start+m.entries[e].count != idx[i] {
			e = len(m.entries)
			m.entries = append(m.entries, srcEntry{seq: seq[i], start: idx[i]})
			open[seq[i]] = e
		}
		m.entries[e].count++
		if e == cur {
			m.runs[len(m.runs)-1].n++
		} else {
			m.runs = append(m.runs, srcRun{entry: uint32(e), n: 1})
			cur = e
		}
	}
	if len(m.runs) == len(m.entries) {
		trivial := true
		for i, r := range m.runs {
			if r.entry != uint32(i) {
				trivial = false
				break
			}
		}
		if trivial {
			m.runs = nil
		}
	}
	return m
}

// body encodes the entries and runs, without version and creation time.
func (m srcMap) body() []byte {
	b := binary.AppendUvarint(nil, uint64(len(m.entries)))
	var prev uint64
	for _, e := range m.entries {
		b = binary.AppendVarint(b, int64(e.seq-prev))
		prev = e.seq
		if e.start == 0 {
			b = binary.AppendUvarint(b, uint64(e.count)<<1)
		} else {
			b = binary.AppendUvarint(b, uint64(e.count)<<1|1)
			b = binary.AppendUvarint(b, uint64(e.start))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(m.runs)))
	for _, r := range m.runs {
		b = binary.AppendUvarint(b, uint64(r.entry))
		b = binary.AppendUvarint(b, uint64(r.n))
	}
	return b
}

// encode returns the _s attribute value.
func (m srcMap) encode() []byte {
	b := []byte{1}
	b = binary.AppendVarint(b, m.created)
	return append(b, m.body()...)
}

// id is a digest of the readings a merged chunk holds (not of when it was
// written): the unique suffix of its sort key, so that compacting the
// same chunks again writes the same item.
func (m srcMap) id() uint64 {
	h := fnv.New64a()
	h.Write(m.body())
	return h.Sum64()
}

// decodeSrcMap decodes a source map of a chunk of n readings. It returns
// an error, never panics, for bad input.
func decodeSrcMap(b []byte, n int) (srcMap, error) {
	var m srcMap
	if len(b) < 1 || b[0] != 1 {
		return m, fmt.Errorf("%w: bad version", errSourceMap)
	}
	b = b[1:]
	bad := func(what string) (srcMap, error) { return srcMap{}, fmt.Errorf("%w: %s", errSourceMap, what) }
	created, ok := readVarint(&b)
	if !ok {
		return bad("truncated")
	}
	m.created = created
	ne, ok := readUvarint(&b)
	if !ok || ne > uint64(n) || (ne == 0 && n > 0) {
		return bad("entry count")
	}
	m.entries = make([]srcEntry, ne)
	var prev uint64
	total := uint64(0)
	for i := range m.entries {
		d, ok := readVarint(&b)
		if !ok {
			return bad("truncated")
		}
		prev += uint64(d)
		c, ok := readUvarint(&b)
		if !ok {
			return bad("truncated")
		}
		e := srcEntry{seq: prev}
		if c>>1 == 0 || c>>1 > uint64(n) {
			return bad("entry length")
		}
		e.count = uint32(c >> 1)
		if c&1 != 0 {
			s, ok := readUvarint(&b)
			if !ok || s == 0 || s+uint64(e.count) > 1<<32-1 {
				return bad("entry start")
			}
			e.start = uint32(s)
		}
		total += uint64(e.count)
		m.entries[i] = e
	}
	if total != uint64(n) {
		return bad(fmt.Sprintf("entries hold %d readings, the chunk %d", total, n))
	}
	nr, ok := readUvarint(&b)
	if !ok || nr > uint64(n) {
		return bad("run count")
	}
	if nr > 0 {
		m.runs = make([]srcRun, nr)
		used := make([]uint64, ne)
		for i := range m.runs {
			e, ok1 := readUvarint(&b)
			l, ok2 := readUvarint(&b)
			if !ok1 || !ok2 || e >= ne || l == 0 || l > uint64(n) {
				return bad("run")
			}
			used[e] += l
			if used[e] > uint64(m.entries[e].count) {
				return bad("run past its entry")
			}
			m.runs[i] = srcRun{entry: uint32(e), n: uint32(l)}
		}
		for e := range used {
			if used[e] != uint64(m.entries[e].count) {
				return bad("entry not covered by runs")
			}
		}
	}
	if len(b) != 0 {
		return bad("trailing bytes")
	}
	return m, nil
}

// positions fills seq and idx (len n, the chunk's readings) with the
// position of each reading.
func (m *srcMap) positions(seq []uint64, idx []uint32) {
	i := 0
	emit := func(e *srcEntry, from, n uint32) {
		for j := uint32(0); j < n; j++ {
			seq[i], idx[i] = e.seq, from+j
			i++
		}
	}
	if m.runs == nil {
		for k := range m.entries {
			e := &m.entries[k]
			emit(e, e.start, e.count)
		}
		return
	}
	next := make([]uint32, len(m.entries))
	for _, r := range m.runs {
		e := &m.entries[r.entry]
		emit(e, e.start+next[r.entry], r.n)
		next[r.entry] += r.n
	}
}

// coverage is a set of reading positions: per source sequence number,
// sorted disjoint index intervals [lo, hi).
type coverage map[uint64][][2]uint32

func (c coverage) add(seq uint64, lo, hi uint32) {
	c[seq] = append(c[seq], [2]uint32{lo, hi})
}

// normalize sorts and merges the intervals.
func (c coverage) normalize() {
	for s, iv := range c {
		c[s] = mergeIntervals(iv)
	}
}

// contains reports whether every position of o is in c (normalized).
func (c coverage) contains(o coverage) bool {
	for s, ivs := range o {
		have := c[s]
		for _, x := range ivs {
			i, _ := slices.BinarySearchFunc(have, x[0], func(a [2]uint32, v uint32) int {
				switch {
				case a[1] <= v:
					return -1
				case a[0] > v:
					return 1
				}
				return 0
			})
			if i >= len(have) || have[i][0] > x[0] || have[i][1] < x[1] {
				return false
			}
		}
	}
	return true
}

// overlaps reports whether c and o share a position (both normalized).
func (c coverage) overlaps(o coverage) bool {
	for s, ivs := range o {
		for _, x := range ivs {
			for _, y := range c[s] {
				if x[0] < y[1] && y[0] < x[1] {
					return true
				}
			}
		}
	}
	return false
}

func (c coverage) merge(o coverage) {
	for s, ivs := range o {
		c[s] = append(c[s], ivs...)
	}
	c.normalize()
}
