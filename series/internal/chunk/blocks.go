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
// A block starts with the mode bit; then, for range blocks, in version 2
// a bit that says whether R and the grouped bit are those of the previous
// range block, else R-1 as a 7-bit length and that many bits (and, in
// version 2, if R is grouped, a bit that says whether the values are
// coded in groups), and for Rice blocks k in 6 bits; then the block base as the zigzagged difference from the
// previous block's base (0 before the first block), as a 7-bit length and
// that many bits. The decoder learns the number of values from the chunk
// header. See docs/format/chunk.md.
//
// Groups (version 2): g consecutive offsets x[0..g-1] of a range block are
// one symbol x[0] + x[1]*R + ... + x[g-1]*R^(g-1) of R^g, coded in
// truncated binary for R^g symbols (not rotated), g being the most for
// which R^g <= 2^32 (the last group of a block is shorter). Truncated
// binary wastes up to 0.09 bits a value against log2(R) (4.48 bits for
// 21 symbols, whose entropy is 4.39); over R^g symbols the loss is spread
// over g values (4.40 bits).

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
	if n <= 57 {
		w.writeBits(uint64(n)<<n|u, 7+n)
		return
	}
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

// groupLen returns the number of offsets of a range block of R = rm1+1
// symbols that version 2 may code as one symbol: the most g with R^g <=
// 2^32, and 1 (no groups) when R is a power of two or above 2^16, where
// groups would gain nothing.
func groupLen(rm1 uint64) int {
	if rm1 >= 1<<16 || rm1&(rm1+1) == 0 {
		return 1
	}
	r, g := rm1+1, 1
	for p := r * r; p <= 1<<32; p *= r {
		g++
	}
	return g
}

// rpow returns r^g (at most 2^32 for the g of groupLen).
func rpow(r uint64, g int) uint64 {
	p := uint64(1)
	for range g {
		p *= r
	}
	return p
}

// plainTruncated returns the truncated binary code of t symbols (t >= 1),
// not rotated.
func plainTruncated(t uint64) truncated {
	tr := newTruncated(t - 1)
	tr.shift = 0
	return tr
}

// groups codes the values of a range block of R symbols in groups of g.
type groups struct {
	r    uint64
	g    int
	full truncated // the code of a whole group
}

func newGroups(rm1 uint64) groups {
	g := groupLen(rm1)
	return groups{r: rm1 + 1, g: g, full: plainTruncated(rpow(rm1+1, g))}
}

// code returns the code of a group of n values: g, or fewer for the last
// group of a block.
func (gs *groups) code(n int) truncated {
	if n == gs.g {
		return gs.full
	}
	return plainTruncated(rpow(gs.r, n))
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

// readGroups decodes the offsets of a grouped range block of R = rm1+1
// symbols into dst, adding base.
func readGroups(r *bitReader, dst []int64, base int64, rm1 uint64) {
	gs := newGroups(rm1)
	rr := gs.r
	// Lemire's fastmod: for y < 2^32, y/rr is the high word of m*y and
	// y%rr that of (m*y mod 2^64)*rr.
	m := ^uint64(0)/rr + 1
	w, short := gs.full.w, gs.full.short
	for i := 0; i < len(dst); i += gs.g {
		grp := dst[i:min(i+gs.g, len(dst))]
		var y uint64
		if r.n < w {
			r.refill()
		}
		if len(grp) == gs.g && r.n >= w {
			// Branch-free, as in readBlock: the codes are short or long at
			// random.
			x := r.buf >> (64 - w)
			hi := x >> 1
			long := 1 ^ (hi-short)>>63 // 1 when hi >= short
			y = hi ^ ((hi ^ (x - short)) & -long)
			used := w - 1 + uint(long)
			r.buf <<= used
			r.n -= used
		} else {
			code := gs.code(len(grp))
			y = code.read(r)
		}
		for j := range grp {
			d, _ := bits.Mul64(m*y, rr)
			y, _ = bits.Mul64(m, y)
			grp[j] = base + int64(d)
		}
	}
}

// writeBlocks codes vals into w.
func writeBlocks(w *bitWriter, vals []int64) {
	var bw blockWriter
	bw.writeAll(w, vals)
}

// writeAll codes vals into w as a new sequence of blocks.
func (bw *blockWriter) writeAll(w *bitWriter, vals []int64) {
	bw.reset()
	for len(vals) > 0 {
		blk := vals[:min(blockLen, len(vals))]
		vals = vals[len(blk):]
		bw.write(w, blk)
	}
}

// reset starts a new sequence of blocks, keeping the scratch memory.
func (bw *blockWriter) reset() {
	bw.prevBase = 0
	bw.prevRange, bw.prevRm1, bw.prevGrouped = false, 0, false
}

// blockWriter codes blocks one at a time.
type blockWriter struct {
	prevBase int64
	// the previous range block's R-1 and grouped bit, if any
	prevRange   bool
	prevRm1     uint64
	prevGrouped bool
	z           [blockLen]uint64 // the zigzagged values of a Rice block
	sym         [blockLen]uint64 // the symbols of a grouped range block
	// the groups of the last R-1 asked for, in groupsOf, and R^j for
	// each j < g
	groups     groups
	groupsRm1  uint64
	haveGroups bool
	pow        [32]uint64 // g <= 20 (R = 3)
}

// groupsOf returns newGroups(rm1), from the last call if rm1 is the same,
// and sets bw.pow.
func (bw *blockWriter) groupsOf(rm1 uint64) *groups {
	if !bw.haveGroups || bw.groupsRm1 != rm1 {
		bw.groups, bw.groupsRm1, bw.haveGroups = newGroups(rm1), rm1, true
		p := uint64(1)
		for j := range bw.groups.g {
			bw.pow[j] = p
			p *= rm1 + 1
		}
	}
	return &bw.groups
}

// scan goes through blk for write: it counts the offsets from lo in
// [shift, shift+short), writes the zigzagged differences from center to
// bw.z, whose largest and sum it returns, and writes the symbols of groups
// of g offsets to bw.sym (with bw.pow set for g). Each loop keeps its
// variables in registers.
func (bw *blockWriter) scan(blk []int64, lo, center int64, shift, short uint64, g int) (shorts int, maxZ, sumZ uint64) {
	z := bw.z[:len(blk)]
	for i, v := range blk {
		shorts += int(b2u(uint64(v-lo)-shift < short))
		zz := zigzag(v - center)
		z[i] = zz
		maxZ = max(maxZ, zz)
		sumZ += zz
	}
	if g > 1 {
		pow := bw.pow[:g]
		for i, grp := 0, 0; i < len(blk); i, grp = i+g, grp+1 {
			var y uint64
			for j, v := range blk[i:min(i+g, len(blk))] {
				y += uint64(v-lo) * pow[j]
			}
			bw.sym[grp] = y
		}
	}
	return shorts, maxZ, sumZ
}

// write codes one block of at most blockLen values.
func (bw *blockWriter) write(w *bitWriter, blk []int64) {
	n := len(blk)
	prevBase := bw.prevBase

	lo, hi := blk[0], blk[0]
	var sum uint64
	for _, v := range blk {
		lo = min(lo, v)
		hi = max(hi, v)
		sum += uint64(v)
	}
	tr := newTruncated(uint64(hi - lo))
	gs := bw.groupsOf(tr.rm1)
	g := gs.g
	// Rice codes center on the mean; the values lie within 2^48 of lo,
	// so the sum of their offsets fits (and is sum - n*lo, wrapping).
	rice := tr.w > 0 && tr.w <= maxRiceWidth
	center := lo + int64((sum-uint64(n)*uint64(lo)+uint64(n)/2)/uint64(n))

	// In one pass: the offsets that take w-1 bits one by one (from shift
	// to shift+short-1, see symbol), the groups' symbols, and the
	// zigzagged differences from the center.
	perValue := 0
	var maxZ, sumZ uint64
	if tr.w > 0 {
		var shorts int
		shorts, maxZ, sumZ = bw.scan(blk, lo, center, tr.shift, tr.short, g)
		perValue = n*int(tr.w) - shorts
	}
	grouped := false
	if g > 1 {
		full := n / g
		gb := full * int(gs.full.w)
		for _, y := range bw.sym[:full] {
			gb -= int(b2u(y < gs.full.short))
		}
		if rest := n - full*g; rest > 0 {
			code := gs.code(rest)
			gb += code.bits(bw.sym[full])
		}
		if gb < perValue {
			grouped, perValue = true, gb
		}
	}
	same := bw.prevRange && bw.prevRm1 == tr.rm1 && bw.prevGrouped == grouped
	rangeCost := 2 + varBits(zigzag(lo-prevBase)) + perValue
	if !same {
		rangeCost += varBits(tr.rm1)
		if g > 1 {
			rangeCost++ // the grouped bit
		}
	}

	riceK, riceCost := -1, rangeCost
	if rice {
		z := bw.z[:n]
		// The best Rice parameter is near log2 of the mean: try around it.
		kEst := uint(bits.Len64(sumZ / uint64(n)))
		head := 1 + 6 + varBits(zigzag(center-prevBase))
		for k := max(kEst, 2) - 2; k <= min(tr.w, kEst+1); k++ {
			if maxZ>>k > maxUnary {
				continue
			}
			c := head + n*int(k+1)
			// Skip k if even the least the quotients can add, as
			// z>>k >= (z-2^k+1)/2^k, does not beat riceCost.
			least := 0
			if low := uint64(n) << k; sumZ > low {
				least = int((sumZ - low) >> k)
			}
			if c+least >= riceCost {
				continue
			}
			for _, zz := range z {
				c += int(zz >> k)
			}
			if c < riceCost {
				riceK, riceCost = int(k), c
			}
		}
	}
	if riceK < 0 {
		w.writeBits(modeRange, 1)
		w.writeBits(b2u(same), 1)
		if !same {
			writeVar(w, tr.rm1)
			if g > 1 {
				w.writeBits(b2u(grouped), 1)
			}
		}
		writeVar(w, zigzag(lo-prevBase))
		bw.prevBase = lo
		bw.prevRange, bw.prevRm1, bw.prevGrouped = true, tr.rm1, grouped
		if !grouped {
			if tr.w > 0 { // else every value is lo
				for _, v := range blk {
					tr.write(w, uint64(v-lo))
				}
			}
			return
		}
		full := n / g
		for _, y := range bw.sym[:full] {
			gs.full.write(w, y)
		}
		if rest := n - full*g; rest > 0 {
			code := gs.code(rest)
			code.write(w, bw.sym[full])
		}
		return
	}
	k := uint(riceK)
	w.writeBits(modeRice, 1)
	w.writeBits(uint64(k), 6)
	writeVar(w, zigzag(center-prevBase))
	bw.prevBase = center
	for _, zz := range bw.z[:n] {
		q := zz >> k
		// q zeros, a one, then the k low bits.
		if q+1+uint64(k) <= 64 {
			w.writeBits(1<<k|zz&(1<<k-1), uint(q)+1+k)
			continue
		}
		for q >= 32 {
			w.writeBits(0, 32)
			q -= 32
		}
		w.writeBits(1, uint(q)+1)
		w.writeBits(zz, k)
	}
}

// minBlockBits is the least number of bits that n values can be coded in:
// 9 a block (version 2: a range block as the previous one, with the same
// base; version 1 blocks take at least 15).
func minBlockBits(n int) int {
	return (n + blockLen - 1) / blockLen * 9
}

// blockReader decodes values coded by writeBlocks, a block at a time.
type blockReader struct {
	r       bitReader
	total   int // values in the blocks not yet read
	base    int64
	version byte // of the chunk: 1 has no groups
	// the previous range block's R-1 and grouped bit (version 2)
	prevRange   bool
	prevRm1     uint64
	prevGrouped bool
}

func newBlockReader(r bitReader, n int, version byte) blockReader {
	return blockReader{r: r, total: n, version: version}
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
	grouped := false
	if rice {
		k = uint(r.readBits(6))
	} else if b.version < 2 {
		tr = newTruncated(readVar(r))
	} else {
		if r.readBits(1) != 0 { // as the previous range block
			if !b.prevRange {
				r.err = true
				return
			}
			tr, grouped = newTruncated(b.prevRm1), b.prevGrouped
		} else {
			tr = newTruncated(readVar(r))
			grouped = groupLen(tr.rm1) > 1 && r.readBits(1) != 0
		}
		b.prevRange, b.prevRm1, b.prevGrouped = true, tr.rm1, grouped
	}
	b.base += unzigzag(readVar(r))
	base := b.base
	switch {
	case grouped:
		readGroups(r, dst, base, tr.rm1)
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
