package chunk

import (
	"encoding/binary"
	"math/bits"
)

// bitWriter appends bits, most significant first, to a byte slice.
type bitWriter struct {
	b   []byte
	acc uint64 // the last n bits written, not yet in b
	n   uint   // 0 <= n < 64
}

// writeBits writes the low k bits of v, k <= 64.
func (w *bitWriter) writeBits(v uint64, k uint) {
	v &= 1<<k - 1 // k == 64 keeps every bit: 1<<64 is 0
	if n := w.n + k; n < 64 {
		w.acc = w.acc<<k | v
		w.n = n
	} else {
		w.flush(v, k)
	}
}

// flush fills acc to 64 bits with the high bits of v, appends it to b,
// and keeps the other low bits of v (k bits in all; w.n+k >= 64).
func (w *bitWriter) flush(v uint64, k uint) {
	free := 64 - w.n
	rest := k - free             // below 64, as free >= 1
	acc := w.acc<<free | v>>rest // a shift by 64 gives 0
	w.b = binary.BigEndian.AppendUint64(w.b, acc)
	w.acc = v & (1<<rest - 1)
	w.n = rest
}

// bitLen is the number of bits written so far.
func (w *bitWriter) bitLen() int { return len(w.b)*8 + int(w.n) }

// finish pads the last byte with zero bits and returns the bytes.
func (w *bitWriter) finish() []byte {
	for w.n >= 8 {
		w.n -= 8
		w.b = append(w.b, byte(w.acc>>w.n))
	}
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc<<(8-w.n)))
		w.n = 0
	}
	w.acc = 0
	return w.b
}

// bitReader reads bits, most significant first. Reading past the end sets
// err and yields zero bits, so that decoding loops bounded by a count
// always end; callers check err once the loop is done.
type bitReader struct {
	b   []byte // bytes not yet loaded into buf
	buf uint64 // next bits at the top; bits below the n valid ones are either zero or the bits that follow
	n   uint   // valid bits in buf
	err bool
}

func newBitReader(b []byte) bitReader { return bitReader{b: b} }

// refill loads bytes until buf holds at least 56 valid bits or b is empty.
func (r *bitReader) refill() {
	if len(r.b) >= 8 {
		r.buf |= binary.BigEndian.Uint64(r.b) >> r.n
		k := (63 - r.n) >> 3
		r.b = r.b[k:]
		r.n += k << 3
		return
	}
	for r.n <= 56 && len(r.b) > 0 {
		r.buf |= uint64(r.b[0]) << (56 - r.n)
		r.b = r.b[1:]
		r.n += 8
	}
}

// readBits reads k bits, k <= 56.
func (r *bitReader) readBits(k uint) uint64 {
	if r.n < k {
		return r.readBitsSlow(k)
	}
	v := r.buf >> (64 - k) // k == 0 gives 0
	r.buf <<= k
	r.n -= k
	return v
}

func (r *bitReader) readBitsSlow(k uint) uint64 {
	r.refill()
	if r.n < k {
		r.err = true
		r.buf, r.n, r.b = 0, 0, nil
		return 0
	}
	v := r.buf >> (64 - k)
	r.buf <<= k
	r.n -= k
	return v
}

// readBits64 reads k bits, k <= 64.
func (r *bitReader) readBits64(k uint) uint64 {
	if k <= 56 {
		return r.readBits(k)
	}
	hi := r.readBits(k - 32)
	return hi<<32 | r.readBits(32)
}

// readUnary counts zero bits up to the next one bit, which it consumes. It
// gives up (setting err) after max zeros.
func (r *bitReader) readUnary(max uint64) uint64 {
	var q uint64
	for {
		if r.n < 56 {
			r.refill()
		}
		if r.n == 0 {
			r.err = true
			return 0
		}
		z := uint(bits.LeadingZeros64(r.buf))
		if z < r.n {
			q += uint64(z)
			r.buf <<= z + 1
			r.n -= z + 1
			if q > max {
				r.err = true
				r.buf, r.n, r.b = 0, 0, nil
				return 0
			}
			return q
		}
		q += uint64(r.n)
		r.buf, r.n = 0, 0
		if q > max {
			r.err = true
			r.b = nil
			return 0
		}
	}
}

// rest reports the number of unread bits.
func (r *bitReader) rest() int { return len(r.b)*8 + int(r.n) }
