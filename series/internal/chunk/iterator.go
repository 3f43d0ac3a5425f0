package chunk

// Iterator yields a chunk's readings in order. It decodes a window of up to
// 256 readings at a time. It is not safe for concurrent use.
//
//	it := c.Iterator()
//	for it.Next() {
//		t, vals := it.At()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
type Iterator struct {
	c       *Chunk
	i       int // readings returned so far
	j       int // position in the window
	t       int64
	row     []float64
	times   timeDecoder
	dec     []valueDecoder
	winT    []int64     // the window's timestamps
	winV    [][]float64 // the window's values, per field
	scratch *[blockLen]int64
	err     error
}

// Iterator returns an iterator positioned before the first reading. It
// allocates buffers of at most 2 KB per field, fewer for short chunks.
func (c *Chunk) Iterator() *Iterator {
	it := &Iterator{
		c:     c,
		row:   make([]float64, len(c.fields)),
		times: newTimeDecoder(c.timeEnc, c.times, c.n, c.minT, c.version),
		dec:   make([]valueDecoder, len(c.fields)),
		winV:  make([][]float64, len(c.fields)),
	}
	for i := range c.fields {
		it.dec[i] = newValueDecoder(&c.fields[i], c.n, c.version)
	}
	return it
}

// Next advances to the next reading and reports whether there is one. It
// returns false at the end or on a corrupt stream; Err tells which. It
// checks each window of readings as it decodes it, and returns none of a
// window in which a stream went bad.
func (it *Iterator) Next() bool {
	if it.err != nil || it.i >= it.c.n {
		return false
	}
	if it.i == 0 {
		it.t = it.c.minT
		for f := range it.dec {
			it.row[f] = it.dec[f].first()
		}
		if it.err = it.check(it.c.n == 1); it.err != nil {
			return false
		}
	} else {
		if it.j == len(it.winT) {
			it.window()
			if it.err = it.check(it.i+len(it.winT) == it.c.n); it.err != nil {
				return false
			}
		}
		it.t = it.winT[it.j]
		for f := range it.row {
			it.row[f] = it.winV[f][it.j]
		}
		it.j++
	}
	it.i++
	return true
}

// window decodes the next window of every column.
func (it *Iterator) window() {
	n := it.times.blocks.nextLen()
	if it.scratch == nil {
		size := min(blockLen, it.c.n-1)
		it.scratch = new([blockLen]int64)
		it.winT = make([]int64, size)
		for f := range it.winV {
			it.winV[f] = make([]float64, size)
		}
	}
	it.winT = it.winT[:n]
	it.j = 0
	it.times.window(it.winT, it.scratch)
	for f := range it.dec {
		it.winV[f] = it.winV[f][:n]
		it.dec[f].window(it.winV[f], it.scratch)
	}
}

// check reports the first error of any stream; at the end (all readings
// decoded), it also checks that every stream is used up and that the last
// timestamp is the header's.
func (it *Iterator) check(end bool) error {
	if end {
		if err := it.c.checkTimes(&it.times); err != nil {
			return err
		}
	} else if it.times.bad || it.times.blocks.r.err {
		return corrupt("bad timestamp stream")
	}
	for f := range it.dec {
		r := &it.dec[f].blocks.r
		if r.err || end {
			if err := checkStream(r, "field "+it.c.fields[f].name); err != nil {
				return err
			}
		}
	}
	return nil
}

// At returns the current reading: its timestamp in milliseconds and its
// values in field order. The slice belongs to the iterator and is
// overwritten by the next call to Next.
func (it *Iterator) At() (int64, []float64) { return it.t, it.row }

// Err returns the error that stopped the iteration, if any; it wraps
// ErrCorrupt.
func (it *Iterator) Err() error { return it.err }
