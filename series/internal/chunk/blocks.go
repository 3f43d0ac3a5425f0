package chunk

import (
	"math/bits"
)

// Integer blocks: a sequence of int64 values (wrapping arithmetic) coded in
// blocks of blockLen values, each block either frame-of-reference bit
// packed or Rice coded, whichever is smaller. The decoder learns how many
// values there are from the chunk header. See docs/format/chunk.md.

const (
	blockLen = 128

	modeFOR  = 0
	modeRice = 1

	// maxUnary bounds the unary part of a Rice code, so that a decoder of
	// garbage never spins on zero bits.
	maxUnary = 1024
	// maxRiceWidth is the largest frame width of a block that is still
	// considered for Rice coding.
	maxRiceWidth = 48
)

func zigzag(x int64) uint64   { return uint64(x<<1) ^ uint64(x>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// writeBase writes a signed block base as a 7-bit length and that many bits.
func writeBase(w *bitWriter, base int64) {
	z := zigzag(base)
	n := uint(bits.Len64(z))
	w.writeBits(uint64(n), 7)
	w.writeBits(z, n)
}

func baseBits(base int64) int { return 7 + bits.Len64(zigzag(base)) }

// writeBlocks codes vals into w.
func writeBlocks(w *bitWriter, vals []int64) {
	var z [blockLen]uint64
	for len(vals) > 0 {
		blk := vals[:min(blockLen, len(vals))]
		vals = vals[len(blk):]
		lo, hi := blk[0], blk[0]
		for _, v := range blk[1:] {
			lo = min(lo, v)
			hi = max(hi, v)
		}
		width := uint(bits.Len64(uint64(hi - lo)))
		forCost := 8 + baseBits(lo) + len(blk)*int(width)

		riceK, riceCost, center := -1, forCost, int64(0)
		if width > 0 && width <= maxRiceWidth {
			// Center on the mean; the values lie within 2^48 of lo, so the sum fits.
			var sum uint64
			for _, v := range blk {
				sum += uint64(v - lo)
			}
			center = lo + int64((sum+uint64(len(blk))/2)/uint64(len(blk)))
			var maxZ uint64
			for i, v := range blk {
				z[i] = zigzag(v - center)
				maxZ = max(maxZ, z[i])
			}
			for k := uint(0); k <= width; k++ {
				if maxZ>>k > maxUnary {
					continue
				}
				c := 8 + baseBits(center) + len(blk)*int(k+1)
				for _, zz := range z[:len(blk)] {
					c += int(zz >> k)
				}
				if c < riceCost {
					riceK, riceCost = int(k), c
				} else if riceK >= 0 {
					break // the cost only grows from here
				}
			}
		}
		if riceK < 0 {
			w.writeBits(modeFOR, 1)
			w.writeBits(uint64(width), 7)
			writeBase(w, lo)
			for _, v := range blk {
				w.writeBits(uint64(v-lo), width)
			}
			continue
		}
		k := uint(riceK)
		w.writeBits(modeRice, 1)
		w.writeBits(uint64(k), 7)
		writeBase(w, center)
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
}

// minBlockBits is the least number of bits that n values can be coded in.
func minBlockBits(n int) int {
	return (n + blockLen - 1) / blockLen * 15
}

// blockReader decodes values coded by writeBlocks one at a time.
type blockReader struct {
	r     bitReader
	left  int // values left in the current block
	total int // values left in all blocks after the current one
	rice  bool
	width uint // FOR width or Rice parameter
	base  int64
}

func newBlockReader(r bitReader, n int) blockReader {
	return blockReader{r: r, total: n}
}

func (b *blockReader) header() {
	b.left = min(blockLen, b.total)
	b.total -= b.left
	b.rice = b.r.readBits(1) == modeRice
	b.width = uint(b.r.readBits(7))
	n := uint(b.r.readBits(7))
	if b.width > 64 || (b.rice && b.width > 63) || n > 64 {
		b.r.err = true
		b.width, n = 0, 0
	}
	b.base = unzigzag(b.r.readBits64(n))
}

// next decodes the next value. Past the end it sets the reader's error.
func (b *blockReader) next() int64 {
	if b.left == 0 {
		if b.total == 0 {
			b.r.err = true
			return 0
		}
		b.header()
	}
	b.left--
	if !b.rice {
		return b.base + int64(b.r.readBits64(b.width))
	}
	q := b.r.readUnary(maxUnary)
	z := q<<b.width | b.r.readBits64(b.width)
	return b.base + unzigzag(z)
}
