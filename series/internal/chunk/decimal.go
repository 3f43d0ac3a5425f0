package chunk

import "math"

// Encoding says how a chunk codes one field's values.
type Encoding uint8

const (
	// XOR codes values as Gorilla and Prometheus do: each value's XOR with
	// the previous one. It takes any float64.
	XOR Encoding = 0
	// Decimal codes values that are integers once scaled by 10^k (prices,
	// readings with a fixed number of decimals, counters) as the deltas of
	// those integers in integer blocks.
	Decimal Encoding = 1
)

func (e Encoding) String() string {
	switch e {
	case XOR:
		return "xor"
	case Decimal:
		return "decimal"
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

// decimalScale finds the least k for which every value is an integer m
// scaled by 10^k, and writes those integers to ms (len(ms) >= len(vals)).
// NaN, infinities, -0 and values that need more than 53 bits of integer or
// more than maxScale decimals make it fail.
func decimalScale(vals []float64, ms []int64) (int, bool) {
	k := 0
	for _, v := range vals {
		for {
			if _, ok := scaled(v, k); ok {
				break
			}
			if k++; k > maxScale {
				return 0, false
			}
		}
	}
	// A larger k can in rare cases undo an earlier value's fit near 2^53:
	// check all of them again at the final k.
	for i, v := range vals {
		m, ok := scaled(v, k)
		if !ok {
			return 0, false
		}
		ms[i] = m
	}
	return k, true
}

// writeDecimal codes the scaled integers: the first in full (a 7-bit
// length and the bits of its zigzag form), then the deltas as blocks.
func writeDecimal(w *bitWriter, ms []int64) {
	if len(ms) == 0 {
		return
	}
	writeVar(w, zigzag(ms[0]))
	for i := len(ms) - 1; i > 0; i-- {
		ms[i] -= ms[i-1]
	}
	writeBlocks(w, ms[1:])
}

func minValueBits(enc Encoding, n int) int {
	if n == 0 {
		return 0
	}
	if enc == XOR {
		return 64 + n - 1
	}
	return 7 + minBlockBits(n-1)
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

func newValueDecoder(f *field, n int) valueDecoder {
	return valueDecoder{
		blocks: newBlockReader(newBitReader(f.stream), max(n-1, 0)),
		enc:    f.enc,
		scale:  pow10[f.scale],
	}
}

func (d *valueDecoder) first() float64 {
	r := &d.blocks.r
	if d.enc == Decimal {
		d.m = unzigzag(readVar(r))
		return float64(d.m) / d.scale
	}
	d.xor.prev = r.readBits64(64)
	return math.Float64frombits(d.xor.prev)
}

// window decodes the next len(dst) values; len(dst) must be
// blocks.nextLen(). scratch holds the deltas of a decimal field.
func (d *valueDecoder) window(dst []float64, scratch *[blockLen]int64) {
	if d.enc == Decimal {
		deltas := scratch[:len(dst)]
		d.blocks.readBlock(deltas)
		m, scale := d.m, d.scale
		for i, delta := range deltas {
			m += delta
			dst[i] = float64(m) / scale
		}
		d.m = m
		return
	}
	d.blocks.total -= len(dst)
	r := &d.blocks.r
	for i := range dst {
		dst[i] = math.Float64frombits(d.xor.next(r))
	}
}
