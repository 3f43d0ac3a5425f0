package chunk

// TimeEncoding says how a chunk codes its timestamp column.
type TimeEncoding uint8

const (
	// DeltaOfDelta codes each timestamp's delta-of-delta in a Gorilla-style
	// variable bit field: 1 bit when readings are evenly spaced.
	DeltaOfDelta TimeEncoding = 0
	// DeltaBlocks codes the deltas between timestamps as integer blocks
	// (frame of reference or Rice, per block of 128): under a bit per
	// reading when evenly spaced, and a few bits when jittered.
	DeltaBlocks TimeEncoding = 1
)

func (e TimeEncoding) String() string {
	switch e {
	case DeltaOfDelta:
		return "delta-of-delta"
	case DeltaBlocks:
		return "delta-blocks"
	}
	return "unknown"
}

// dodCode is a delta-of-delta bucket: its prefix and value bits.
type dodCode struct{ prefix, prefixBits, bits uint }

// Delta-of-delta buckets: prefix, value bits. The values are two's
// complement, so a bucket of n bits holds -2^(n-1) to 2^(n-1)-1.
var dodBuckets = [...]dodCode{
	{0b10, 2, 7},
	{0b110, 3, 12},
	{0b1110, 4, 20},
	{0b1111, 4, 64},
}

func fitsSigned(x int64, n uint) bool {
	lim := int64(1) << (n - 1)
	return x >= -lim && x < lim
}

// writeDoD codes the timestamps after ts[0] as delta-of-deltas. All
// arithmetic wraps, so any non-decreasing int64 sequence round-trips.
func writeDoD(w *bitWriter, ts []int64) {
	for i := 1; i < len(ts); i++ {
		dod := dodAt(ts, i)
		if dod == 0 {
			w.writeBits(0, 1)
			continue
		}
		if b := dodBucket(dod); b.bits < 64 {
			w.writeBits(uint64(b.prefix)<<b.bits|uint64(dod)&(1<<b.bits-1), b.prefixBits+b.bits)
		} else {
			w.writeBits(uint64(b.prefix), b.prefixBits)
			w.writeBits(uint64(dod), b.bits)
		}
	}
}

// dodBucket returns the bucket of a delta-of-delta other than 0.
func dodBucket(dod int64) dodCode {
	for _, b := range dodBuckets[:len(dodBuckets)-1] {
		if fitsSigned(dod, b.bits) {
			return b
		}
	}
	return dodBuckets[len(dodBuckets)-1]
}

// dodBits returns the number of bits writeDoD writes for ts.
func dodBits(ts []int64) int {
	c := 0
	for i := 1; i < len(ts); i++ {
		if dod := dodAt(ts, i); dod == 0 {
			c++
		} else {
			b := dodBucket(dod)
			c += int(b.prefixBits + b.bits)
		}
	}
	return c
}

// dodAt returns the delta-of-delta of ts[i], i >= 1, the delta before
// ts[1] being 0.
func dodAt(ts []int64, i int) int64 {
	d := ts[i] - ts[i-1]
	if i == 1 {
		return d
	}
	return d - (ts[i-1] - ts[i-2])
}

// writeDeltaBlocks codes the deltas between the timestamps as integer
// blocks, with bw, and d for scratch (grown as needed and returned).
func writeDeltaBlocks(w *bitWriter, ts []int64, bw *blockWriter, d []int64) []int64 {
	if len(ts) < 2 {
		return d
	}
	if cap(d) < len(ts)-1 {
		d = make([]int64, len(ts)-1)
	}
	d = d[:len(ts)-1]
	for i := range d {
		d[i] = ts[i+1] - ts[i]
	}
	bw.writeAll(w, d)
	return d
}

// minTimeBits is the least number of bits that n timestamps take.
func minTimeBits(enc TimeEncoding, n int) int {
	if n < 2 {
		return 0
	}
	if enc == DeltaOfDelta {
		return n - 1
	}
	return minBlockBits(n - 1)
}

// timeDecoder decodes the timestamps of a chunk: first, then windows of
// the following ones, each as long as the next block (see readBlock).
type timeDecoder struct {
	blocks blockReader // blocks.r is the stream for both encodings
	enc    TimeEncoding
	t, d   int64 // the last timestamp and delta
	bad    bool  // a timestamp went backwards
}

func newTimeDecoder(enc TimeEncoding, stream []byte, n int, first int64, version byte) timeDecoder {
	return timeDecoder{
		blocks: newBlockReader(newBitReader(stream), max(n-1, 0), version),
		enc:    enc,
		t:      first,
	}
}

// window decodes the next len(dst) timestamps; len(dst) must be
// blocks.nextLen(). scratch holds the deltas.
func (d *timeDecoder) window(dst []int64, scratch *[blockLen]int64) {
	t := d.t
	if d.enc == DeltaBlocks {
		deltas := scratch[:len(dst)]
		d.blocks.readBlock(deltas)
		for i, delta := range deltas {
			next := t + delta
			if next < t {
				d.bad = true
			}
			t = next
			dst[i] = t
		}
		d.t = t
		return
	}
	d.blocks.total -= len(dst)
	r := &d.blocks.r
	delta := d.d
	for i := range dst {
		if r.n < 56 {
			r.refill()
		}
		if r.buf>>63 != 0 { // else dod == 0
			b := dodBuckets[0]
			r.buf <<= 1
			r.n--
			for j := 1; j < len(dodBuckets) && r.readBits(1) != 0; j++ {
				b = dodBuckets[j]
			}
			u := r.readBits64(b.bits)
			delta += int64(u<<(64-b.bits)) >> (64 - b.bits) // sign extend
		} else if r.n > 0 {
			r.buf <<= 1
			r.n--
		} else {
			r.err = true
		}
		next := t + delta
		if next < t {
			d.bad = true
		}
		t = next
		dst[i] = t
	}
	d.t, d.d = t, delta
}
