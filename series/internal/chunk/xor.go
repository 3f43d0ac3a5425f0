package chunk

import (
	"math"
	"math/bits"
)

// writeXOR codes values as in Gorilla and Prometheus' XOR chunks: the first
// value in 64 bits, then each value's XOR with the previous one: '0' when
// equal; '10' and the meaningful bits when they fit the previous window of
// leading and trailing zeros; else '11', 5 bits of leading zeros (at most
// 31), 6 bits of meaningful-bit count (64 written as 0) and those bits.
func writeXOR(w *bitWriter, vals []float64) {
	if len(vals) == 0 {
		return
	}
	prev := math.Float64bits(vals[0])
	w.writeBits(prev, 64)
	leading, trailing := uint(0xff), uint(0)
	for _, v := range vals[1:] {
		cur := math.Float64bits(v)
		x := cur ^ prev
		prev = cur
		if x == 0 {
			w.writeBits(0, 1)
			continue
		}
		l := min(uint(bits.LeadingZeros64(x)), 31)
		t := uint(bits.TrailingZeros64(x))
		if leading != 0xff && l >= leading && t >= trailing {
			if sig := 64 - leading - trailing; sig <= 62 {
				w.writeBits(0b10<<sig|x>>trailing, 2+sig)
			} else {
				w.writeBits(0b10, 2)
				w.writeBits(x>>trailing, sig)
			}
			continue
		}
		leading, trailing = l, t
		sig := 64 - l - t
		w.writeBits(0b11<<11|uint64(l)<<6|uint64(sig&63), 13) // 64 becomes 0
		w.writeBits(x>>t, sig)
	}
}

// xorBits returns the number of bits writeXOR writes for vals or, once
// that passes limit, some number above limit. It writes nothing: it is
// the cheap test of whether XOR beats another coding.
func xorBits(vals []float64, limit int) int {
	if len(vals) == 0 {
		return 0
	}
	c := 64
	prev := math.Float64bits(vals[0])
	leading, trailing := uint(0xff), uint(0)
	for _, v := range vals[1:] {
		if c > limit {
			return c
		}
		cur := math.Float64bits(v)
		x := cur ^ prev
		prev = cur
		if x == 0 {
			c++
			continue
		}
		l := min(uint(bits.LeadingZeros64(x)), 31)
		t := uint(bits.TrailingZeros64(x))
		if leading == 0xff || l < leading || t < trailing {
			leading, trailing = l, t
			c += 11 // the leading zeros and meaningful-bit count
		}
		c += 2 + int(64-leading-trailing)
	}
	return c
}

// xorState is the decoder state of an XOR stream.
type xorState struct {
	prev              uint64
	leading, trailing uint
	window            bool
}

func (s *xorState) next(r *bitReader) uint64 {
	if r.n < 13 {
		r.refill()
		if r.n == 0 {
			r.err = true
			return s.prev
		}
	}
	// The control bits, up to 13 of them, are all in buf now, or the
	// stream is short: then r.n says so.
	buf := r.buf
	switch {
	case buf>>63 == 0: // same value
		r.buf <<= 1
		r.n--
		return s.prev
	case buf>>62 == 0b10: // the previous window
		if r.n < 2 || !s.window {
			r.err = true
			return s.prev
		}
		r.buf <<= 2
		r.n -= 2
	default:
		l := uint(buf>>57) & 31
		sig := uint(buf>>51) & 63
		if sig == 0 {
			sig = 64
		}
		if r.n < 13 || l+sig > 64 {
			r.err = true
			return s.prev
		}
		r.buf <<= 13
		r.n -= 13
		s.leading, s.trailing, s.window = l, 64-l-sig, true
	}
	sig := 64 - s.leading - s.trailing
	if r.n < sig {
		r.refill()
	}
	if r.n >= sig && sig <= 56 {
		s.prev ^= r.buf >> (64 - sig) << s.trailing
		r.buf <<= sig
		r.n -= sig
	} else {
		s.prev ^= r.readBits64(sig) << s.trailing
	}
	return s.prev
}
