package chunk

// Iterator yields a chunk's readings in order. It is not safe for
// concurrent use.
//
//	it := c.Iterator()
//	for it.Next() {
//		t, vals := it.At()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
type Iterator struct {
	c     *Chunk
	i     int
	t     int64
	vals  []float64
	times timeDecoder
	dec   []valueDecoder
	err   error
}

// Iterator returns an iterator positioned before the first reading.
func (c *Chunk) Iterator() *Iterator {
	it := &Iterator{
		c:     c,
		vals:  make([]float64, len(c.fields)),
		times: newTimeDecoder(c.timeEnc, c.times, c.n, c.minT),
		dec:   make([]valueDecoder, len(c.fields)),
	}
	for i := range c.fields {
		it.dec[i] = newValueDecoder(&c.fields[i], c.n)
	}
	return it
}

// Next advances to the next reading and reports whether there is one. It
// returns false at the end or on a corrupt stream; Err tells which.
func (it *Iterator) Next() bool {
	if it.err != nil || it.i >= it.c.n {
		return false
	}
	it.t = it.times.next()
	bad := it.times.bad || it.times.blocks.r.err
	for i := range it.dec {
		it.vals[i] = it.dec[i].next()
		bad = bad || it.dec[i].blocks.r.err
	}
	it.i++
	if bad || it.i == it.c.n {
		it.err = it.check()
		return it.err == nil
	}
	return true
}

// check reports the first error of any stream; at the end, it also checks
// that every stream is used up and the last timestamp is the header's.
func (it *Iterator) check() error {
	if it.i == it.c.n {
		if err := it.c.checkTimes(&it.times); err != nil {
			return err
		}
	} else if it.times.bad || it.times.blocks.r.err {
		return corrupt("bad timestamp stream")
	}
	for i := range it.dec {
		r := &it.dec[i].blocks.r
		if r.err || it.i == it.c.n {
			if err := checkStream(r, "field "+it.c.fields[i].name); err != nil {
				return err
			}
		}
	}
	return nil
}

// At returns the current reading: its timestamp in milliseconds and its
// values in field order. The slice belongs to the iterator and is
// overwritten by the next call to Next.
func (it *Iterator) At() (int64, []float64) { return it.t, it.vals }

// Err returns the error that stopped the iteration, if any; it wraps
// ErrCorrupt.
func (it *Iterator) Err() error { return it.err }
