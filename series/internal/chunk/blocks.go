package chunk

import (
	"math/bits"
)

// Integer blocks: a sequence of int64 values (wrapping arithmetic) coded in
// blocks of blockLen values. Each block is coded in one of two modes,
// whichever takes fewer bits:
//
//   - range: the values lie in [base, base+R); each is coded in truncated
//     binary for R symbols, in ceil(log2 R) or one bit fewer, the shorter
//     codes going to the middle of the range;
//   - Rice: each value's zigzagged difference from base, with Rice
//     parameter k: the quotient in unary, then k bits.
//
// A block starts with the mode bit; then, for range blocks, R-1 as a 7-bit
// length and that many bits, and for Rice blocks k in 6 bits; then the
// block base as the zigzagged difference from the previous block's base (0
// before the first block), as a 7-bit length and that many bits. The
// decoder learns the number of values from the chunk header. See
// docs/format/chunk.md.

const (
	blockLen = 256

	modeRange = 0
	modeRice  = 1

	// maxUnary bounds the unary part of a Rice code, so that a decoder of
	// garbage never spins on zero bits.
	maxUnary = 1024
	// maxRiceWidth is the widest range of a block (in bits) that is still
	// considered for Rice coding.
	maxRiceWidth = 48
)

func zigzag(x int64) uint64   { return uint64(x<<1) ^ uint64(x>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// writeVar writes u as a 7-bit bit length and that many bits.
func writeVar(w *bitWriter, u uint64) {
	n := uint(bits.Len64(u))
	w.writeBits(uint64(n), 7)
	w.writeBits(u, n)
}

func varBits(u uint64) int { return 7 + bits.Len64(u) }

func readVar(r *bitReader) uint64 {
	n := uint(r.readBits(7))
	if n > 64 {
		r.err = true
		return 0
	}
	return r.readBits64(n)
}

// truncated describes truncated binary codes for the symbols 0..rm1:
// symbols below short take w-1 bits, the others w bits. The symbols are
// rotated by shift so that the short codes go to the middle of the range.
type truncated struct {
	rm1, short, shift uint64
	w                 uint
}

func newTruncated(rm1 uint64) truncated {
	w := uint(bits.Len64(rm1))
	short := (^uint64(0) >> (64 - w)) - rm1 // 2^w - (rm1+1); w == 0 gives 0
	if w == 0 {
		short = 0
	}
	return truncated{rm1: rm1, short: short, shift: rm1/2 - short/2, w: w}
}

// bits returns the code length of offset x (0 <= x <= rm1).
func (t *truncated) bits(x uint64) int {
	if t.symbol(x) < t.short {
		return int(t.w) - 1
	}
	return int(t.w)
}

func (t *truncated) symbol(x uint64) uint64 {
	if x >= t.shift {
		return x - t.shift
	}
	return x + (t.rm1 - t.shift) + 1
}

func (t *truncated) write(w *bitWriter, x uint64) {
	y := t.symbol(x)
	if y < t.short {
		w.writeBits(y, t.w-1)
	} else {
		w.writeBits(y+t.short, t.w)
	}
}

func (t *truncated) read(r *bitReader) uint64 {
	if t.w == 0 {
		return 0
	}
	y := r.readBits64(t.w - 1)
	if y >= t.short {
		y = y<<1 | r.readBits(1) - t.short
	}
	if y <= t.rm1-t.shift {
		return y + t.shift
	}
	return y - (t.rm1 - t.shift) - 1
}

// writeBlocks codes vals into w.
func writeBlocks(w *bitWriter, vals []int64) {
	var bw blockWriter
	for len(vals) > 0 {
		blk := vals[:min(blockLen, len(vals))]
		vals = vals[len(blk):]
		bw.write(w, blk)
	}
}

// blockWriter codes blocks one at a time.
type blockWriter struct {
	prevBase int64
	z        [blockLen]uint64
}

// write codes one block of at most blockLen values.
func (bw *blockWriter) write(w *bitWriter, blk []int64) {
	z := &bw.z
	prevBase := bw.prevBase

	lo, hi := blk[0], blk[0]
	for _, v := range blk[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	tr := newTruncated(uint64(hi - lo))
	rangeCost := 1 + varBits(tr.rm1) + varBits(zigzag(lo-prevBase))
	for _, v := range blk {
		rangeCost += tr.bits(uint64(v - lo))
	}

	riceK, riceCost, center := -1, rangeCost, int64(0)
	if tr.w > 0 && tr.w <= maxRiceWidth {
		// Center on the mean; the values lie within 2^48 of lo, so the sum fits.
		var sum uint64
		for _, v := range blk {
			sum += uint64(v - lo)
		}
		center = lo + int64((sum+uint64(len(blk))/2)/uint64(len(blk)))
		var maxZ, sumZ uint64
		for i, v := range blk {
			z[i] = zigzag(v - center)
			maxZ = max(maxZ, z[i])
			sumZ += z[i]
		}
		// The best Rice parameter is near log2 of the mean: try around it.
		kEst := uint(bits.Len64(sumZ / uint64(len(blk))))
		head := 1 + 6 + varBits(zigzag(center-prevBase))
		for k := max(kEst, 2) - 2; k <= min(tr.w, kEst+1); k++ {
			if maxZ>>k > maxUnary {
				continue
			}
			c := head + len(blk)*int(k+1)
			for _, zz := range z[:len(blk)] {
				c += int(zz >> k)
			}
			if c < riceCost {
				riceK, riceCost = int(k), c
			}
		}
	}
	if riceK < 0 {
		w.writeBits(modeRange, 1)
		writeVar(w, tr.rm1)
		writeVar(w, zigzag(lo-prevBase))
		bw.prevBase = lo
		for _, v := range blk {
			tr.write(w, uint64(v-lo))
		}
		return
	}
	k := uint(riceK)
	w.writeBits(modeRice, 1)
	w.writeBits(uint64(k), 6)
	writeVar(w, zigzag(center-prevBase))
	bw.prevBase = center
	for _, zz := range z[:len(blk)] {
		q := zz >> k
		// q zeros, a one, then the k low bits.
		for q >= 32 {
			w.writeBits(0, 32)
			q -= 32
		}
		w.writeBits(1, uint(q)+1)
		w.writeBits(zz, k)
	}
}

// minBlockBits is the least number of bits that n values can be coded in.
func minBlockBits(n int) int {
	return (n + blockLen - 1) / blockLen * 14
}

// blockReader decodes values coded by writeBlocks, a block at a time.
type blockReader struct {
	r     bitReader
	total int // values in the blocks not yet read
	base  int64
}

func newBlockReader(r bitReader, n int) blockReader {
	return blockReader{r: r, total: n}
}

// nextLen returns the number of values in the next block.
func (b *blockReader) nextLen() int { return min(blockLen, b.total) }

// readBlock decodes the next block into dst, which must be nextLen() long.
// Errors set b.r.err.
func (b *blockReader) readBlock(dst []int64) {
	if len(dst) != b.nextLen() || len(dst) == 0 {
		b.r.err = true
		return
	}
	b.total -= len(dst)
	r := &b.r
	rice := r.readBits(1) == modeRice
	var k uint
	var tr truncated
	if rice {
		k = uint(r.readBits(6))
	} else {
		tr = newTruncated(readVar(r))
	}
	b.base += unzigzag(readVar(r))
	base := b.base
	switch {
	case rice:
		for i := range dst {
			if r.n < 56 {
				r.refill()
			}
			// Fast path: the unary code and the k bits are in buf.
			if z := uint(bits.LeadingZeros64(r.buf)); z+1+k <= r.n {
				buf := r.buf << (z + 1)
				rem := buf >> (64 - k) // k == 0 gives 0
				r.buf = buf << k
				r.n -= z + 1 + k
				dst[i] = base + unzigzag(uint64(z)<<k|rem)
				continue
			}
			q := r.readUnary(maxUnary)
			dst[i] = base + unzigzag(q<<k|r.readBits64(k))
		}
	case tr.w == 0:
		for i := range dst {
			dst[i] = base
		}
	case tr.w <= 56:
		w := tr.w
		for i := range dst {
			if r.n < w {
				r.refill()
				if r.n < w { // near the end, where a short code may be last
					dst[i] = base + int64(tr.read(r))
					continue
				}
			}
			// Branch-free: the codes are short or long at random.
			x := r.buf >> (64 - w)
			hi := x >> 1
			long := 1 ^ (hi-tr.short)>>63 // 1 when hi >= short
			y := hi ^ ((hi ^ (x - tr.short)) & -long)
			used := w - 1 + uint(long)
			r.buf <<= used
			r.n -= used
			// Undo the rotation; no overflow for w <= 56.
			y += tr.shift
			y -= (tr.rm1 + 1) & uint64(int64(tr.rm1-y)>>63)
			dst[i] = base + int64(y)
		}
	default:
		for i := range dst {
			dst[i] = base + int64(tr.read(r))
		}
	}
}
