package chunk

import "math"

// Encoding says how a chunk codes one field's values.
type Encoding uint8

const (
	// XOR codes values as Gorilla and Prometheus do: each value's XOR with
	// the previous one. It takes any float64.
	XOR Encoding = 0
	// Decimal codes values that are integers m once scaled by 10^k
	// (readings with a fixed number of decimals, prices, counters) as the
	// deltas of those integers in integer blocks.
	Decimal Encoding = 1
	// DecimalPatched is Decimal plus patches: the few values that are not
	// m/10^k (NaN, infinities, -0, a stray value with more decimals) are
	// stored whole, 64 bits each, after the block they fall in.
	DecimalPatched Encoding = 2
)

func (e Encoding) String() string {
	switch e {
	case XOR:
		return "xor"
	case Decimal:
		return "decimal"
	case DecimalPatched:
		return "decimal-patched"
	}
	return "unknown"
}

// maxScale is the largest k of a decimal field: 10^k and every integer up
// to 2^53 are exact float64s, so m/10^k is correctly rounded.
const maxScale = 18

// maxDecimal bounds the scaled integers (2^53).
const maxDecimal = 1 << 53

var pow10 = [maxScale + 1]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// scaled returns m with float64(m)/10^k == v bit for bit, if there is one
// with |m| <= 2^53.
func scaled(v float64, k int) (int64, bool) {
	r := math.Round(v * pow10[k])
	if !(math.Abs(r) <= maxDecimal) { // also false for NaN
		return 0, false
	}
	m := int64(r)
	return m, math.Float64bits(float64(m)/pow10[k]) == math.Float64bits(v)
}

// minScale returns the least k at which v is some m/10^k, or maxScale+1 if
// there is none (NaN, infinities, -0, too many digits). It starts looking
// at hint, the previous value's scale, which is usually right.
func minScale(v float64, hint int) int {
	if hint <= maxScale {
		if _, ok := scaled(v, hint); ok {
			for hint > 0 {
				if _, ok := scaled(v, hint-1); !ok {
					break
				}
				hint--
			}
			return hint
		}
	} else {
		hint = -1
	}
	for k := hint + 1; k <= maxScale; k++ {
		if _, ok := scaled(v, k); ok {
			return k
		}
		if !(math.Abs(v)*pow10[k] <= maxDecimal) {
			break // m only grows with k
		}
	}
	return maxScale + 1
}

// Estimates for choosing a scale: one more decimal digit costs about
// log2(10) bits per value, a patch about 72 bits.
const (
	digitBits = 3.32
	patchBits = 72
)

// decimalScales proposes scales for a decimal coding of vals: best, which
// the estimates favour (patching the values that need more digits), and
// all, the least scale without patches, or -1. ok is false when a decimal
// coding is hopeless: too many values fit no scale.
func decimalScales(vals []float64) (best, all int, ok bool) {
	n := len(vals)
	var hist [maxScale + 2]int
	hint, none := 0, 0
	for _, v := range vals {
		k := minScale(v, hint)
		hist[k]++
		hint = k
		if k > maxScale {
			if none++; none > n/4 {
				return 0, 0, false
			}
		}
	}
	best, all = -1, -1
	bestCost := math.Inf(1)
	above := n // values that need more than k digits
	for k := range maxScale + 1 {
		above -= hist[k]
		if above == 0 && all < 0 {
			all = k
		}
		if above > n/4 {
			continue
		}
		if c := digitBits*float64(k)*float64(n) + patchBits*float64(above); c < bestCost {
			best, bestCost = k, c
		}
	}
	return best, all, best >= 0
}

// scaleAll writes to ms the scaled integers of vals at scale k and to
// patch which values need patching (whose ms repeat the previous one). It
// returns the number of patches.
func scaleAll(vals []float64, k int, ms []int64, patch []bool) int {
	var prev int64
	for _, v := range vals {
		if m, ok := scaled(v, k); ok {
			prev = m // the first value that fits stands in for leading patches
			break
		}
	}
	np := 0
	for i, v := range vals {
		m, ok := scaled(v, k)
		if !ok {
			m = prev
			np++
		}
		ms[i], patch[i], prev = m, !ok, m
	}
	return np
}

// writeDecimal codes the scaled integers ms of vals: the first as a 7-bit
// length and the bits of its zigzag form, then the deltas in blocks. With
// patches (patch not nil), a bit after the first says whether its 64 raw
// bits follow, and each block is followed by its patches: their count (a
// 7-bit length and bits), then for each its position in the block (8 bits)
// and its 64 raw bits. ms is overwritten.
func writeDecimal(w *bitWriter, vals []float64, ms []int64, patch []bool) {
	n := len(ms)
	if n == 0 {
		return
	}
	writeVar(w, zigzag(ms[0]))
	if patch != nil {
		w.writeBits(b2u(patch[0]), 1)
		if patch[0] {
			w.writeBits(math.Float64bits(vals[0]), 64)
		}
	}
	for i := n - 1; i > 0; i-- {
		ms[i] -= ms[i-1]
	}
	var bw blockWriter
	for start := 1; start < n; start += blockLen {
		end := min(start+blockLen, n)
		bw.write(w, ms[start:end])
		if patch == nil {
			continue
		}
		np := 0
		for _, p := range patch[start:end] {
			np += int(b2u(p))
		}
		writeVar(w, uint64(np))
		for j := start; j < end; j++ {
			if patch[j] {
				w.writeBits(uint64(j-start), 8)
				w.writeBits(math.Float64bits(vals[j]), 64)
			}
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func minValueBits(enc Encoding, n int) int {
	switch {
	case n == 0:
		return 0
	case enc == XOR:
		return 64 + n - 1
	case enc == Decimal:
		return 7 + minBlockBits(n-1)
	}
	return 8 + minBlockBits(n-1) + (n+blockLen-2)/blockLen*7
}

// valueDecoder decodes the values of one field: first, then windows of
// the following ones, each as long as the next block (see readBlock).
type valueDecoder struct {
	blocks blockReader // blocks.r is the stream for both encodings
	enc    Encoding
	xor    xorState
	m      int64
	scale  float64
}

func newValueDecoder(f *field, n int, version byte) valueDecoder {
	return valueDecoder{
		blocks: newBlockReader(newBitReader(f.stream), max(n-1, 0), version),
		enc:    f.enc,
		scale:  pow10[f.scale],
	}
}

func (d *valueDecoder) first() float64 {
	r := &d.blocks.r
	if d.enc != XOR {
		d.m = unzigzag(readVar(r))
		if d.enc == DecimalPatched && r.readBits(1) != 0 {
			return math.Float64frombits(r.readBits64(64))
		}
		return float64(d.m) / d.scale
	}
	d.xor.prev = r.readBits64(64)
	return math.Float64frombits(d.xor.prev)
}

// window decodes the next len(dst) values; len(dst) must be
// blocks.nextLen(). scratch holds the deltas of a decimal field.
func (d *valueDecoder) window(dst []float64, scratch *[blockLen]int64) {
	if d.enc != XOR {
		deltas := scratch[:len(dst)]
		d.blocks.readBlock(deltas)
		m, scale := d.m, d.scale
		for i, delta := range deltas {
			m += delta
			dst[i] = float64(m) / scale
		}
		d.m = m
		if d.enc == DecimalPatched {
			r := &d.blocks.r
			np := readVar(r)
			if np > uint64(len(dst)) {
				r.err = true
				return
			}
			for range np {
				pos := r.readBits(8)
				v := math.Float64frombits(r.readBits64(64))
				if pos >= uint64(len(dst)) {
					r.err = true
					return
				}
				dst[pos] = v
			}
		}
		return
	}
	d.blocks.total -= len(dst)
	r := &d.blocks.r
	for i := range dst {
		dst[i] = math.Float64frombits(d.xor.next(r))
	}
}
