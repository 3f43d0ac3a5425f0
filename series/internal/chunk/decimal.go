package chunk

import (
	"math"
	"slices"
)

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
	// DecimalFactor is Decimal for integers m whose consecutive deltas
	// share a factor g >= 2 (ALP's factor, generalised from powers of
	// ten: readings in steps of 0.5, byte counts in 4 KiB pages, round
	// thousands): the blocks hold the deltas divided by g, and the header
	// holds g.
	DecimalFactor Encoding = 3
	// DecimalFactorPatched is DecimalFactor plus patches, as
	// DecimalPatched is Decimal plus patches.
	DecimalFactorPatched Encoding = 4
)

// patched reports whether e stores patches after its blocks.
func (e Encoding) patched() bool { return e == DecimalPatched || e == DecimalFactorPatched }

// factored reports whether e's header holds a factor.
func (e Encoding) factored() bool { return e == DecimalFactor || e == DecimalFactorPatched }

func (e Encoding) String() string {
	switch e {
	case XOR:
		return "xor"
	case Decimal:
		return "decimal"
	case DecimalPatched:
		return "decimal-patched"
	case DecimalFactor:
		return "decimal-factor"
	case DecimalFactorPatched:
		return "decimal-factor-patched"
	}
	return "unknown"
}

// maxScale is the largest k of a decimal field: 10^k and every integer up
// to 2^53 are exact float64s, so m/10^k is correctly rounded.
const maxScale = 18

// maxDecimal bounds the scaled integers (2^53).
const maxDecimal = 1 << 53

// maxFactor bounds the factor of a DecimalFactor field: the deltas of
// scaled integers are at most 2^54 in magnitude.
const maxFactor = 1 << 54

// deltaFactor replaces ms[1:] with the deltas of ms, ms[i] - ms[i-1],
// and returns their greatest common divisor (0 if all are 0). The values
// of ms are scaled integers, within ±2^53, so the deltas do not overflow.
func deltaFactor(ms []int64) uint64 {
	var g uint64
	for i := len(ms) - 1; i > 0; i-- {
		ms[i] -= ms[i-1]
		if g != 1 {
			g = gcd(g, absU(ms[i]))
		}
	}
	return g
}

func absU(x int64) uint64 {
	if x < 0 {
		return uint64(-x)
	}
	return uint64(x)
}

// gcd is Euclid's; gcd(0, b) = b.
func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

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
	return scaleFrom(v, hint+1)
}

// scaleFrom returns the least k >= from at which scaled(v, k) succeeds,
// or maxScale+1 once |v|*10^k passes 2^53.
func scaleFrom(v float64, from int) int {
	for k := from; k <= maxScale; k++ {
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

// chooseScales proposes scales for a decimal coding of n values of which
// hist[k] have least scale k (hist[maxScale+1] none): best, which the
// estimates favour (patching the values that need more digits), and all,
// the least scale without patches, or -1. ok is false when no scale
// leaves at most a quarter of the values to patch.
func chooseScales(hist *[maxScale + 2]int, n int) (best, all int, ok bool) {
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
		if above == 0 {
			break // larger scales only cost more
		}
	}
	return best, all, best >= 0
}

// smallDecimal bounds the scaled integers that decimalScan keeps: for
// |m| < 2^50 the rounding errors of v*10^k stay under 1/4, so scaled
// finds m, and two decimals of different scales never round to the same
// float64, whose spacing is then under a quarter of 10^-k.
const smallDecimal = 1 << 50

// smallLimit[d] is the largest |m| with |m|*10^d < smallDecimal.
var smallLimit = func() (l [maxScale + 1]int64) {
	p := int64(1)
	for d := range l {
		l[d] = (smallDecimal - 1) / p
		p *= 10
	}
	return l
}()

// scaledValue is a value's least scale k (maxScale+1 for none) and, if
// small, its scaled integer m at k, with |m| < smallDecimal. A small value
// is then m*10^d at scale k+d while that stays below smallDecimal, and
// fits no scale below k.
type scaledValue struct {
	m     int64
	k     int8
	small bool
}

// at returns what scaled(v, k) does, v being the value sv describes, by
// a multiplication where it can.
func (sv scaledValue) at(v float64, k int) (int64, bool) {
	// |m| <= limit as one unsigned comparison of m+limit with 2*limit.
	if d := uint(k - int(sv.k)); sv.small && d <= maxScale && uint64(sv.m+smallLimit[d]) <= 2*uint64(smallLimit[d]) {
		return sv.m * int64(pow10i[d]), true
	}
	if sv.small && k < int(sv.k) {
		return 0, false
	}
	return scaled(v, k)
}

var pow10i = func() (p [maxScale + 1]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 10
	}
	return p
}()

// decimalScan finds the least scale of each value of a field and proposes
// scales, as minScale and chooseScales do, with one division a value for
// most: it tries each value at top, the largest least scale so far, and
// strips the trailing decimal zeros of its scaled integer (see smallAt).
// A value that does not fit top is tried at the largest scale where it is
// below smallDecimal, which settles all the scales up to that one; only
// the larger scales take minScale's search.
type decimalScan struct {
	vs []scaledValue
}

// smallAt tries v at scale k. If |v|*10^k rounds below smallDecimal
// (small), then fits says whether v fits scale k and, if so, sv is v at
// its least scale. As a decimal of scale j <= k would fit scale k too
// (see smallDecimal), a small v that does not fit k fits no scale up to k.
func smallAt(v float64, k int) (sv scaledValue, fits, small bool) {
	r := math.Round(v * pow10[k])
	if !(math.Abs(r) < smallDecimal) { // also for NaN
		return scaledValue{}, false, false
	}
	m := int64(r)
	if math.Float64bits(float64(m)/pow10[k]) != math.Float64bits(v) {
		return scaledValue{}, false, true
	}
	return stripZeros(m, k), true, true
}

// stripZeros returns m/10^k at its least scale: m and k less the trailing
// decimal zeros of m.
func stripZeros(m int64, k int) scaledValue {
	if m == 0 {
		k = 0
	}
	for k > 0 && m%10 == 0 {
		m /= 10
		k--
	}
	return scaledValue{m: m, k: int8(k), small: true}
}

// smallScale returns the largest k <= maxScale with |v|*10^k below 2^49,
// so that smallAt(v, k) is small; -1 if there is none (NaN, infinities,
// |v| >= 2^49).
func smallScale(v float64) int {
	a := math.Abs(v)
	k := maxScale
	for k >= 0 && !(a*pow10[k] < smallDecimal/2) {
		k--
	}
	return k
}

// leastScale returns v at its least scale, as minScale(v, hint) finds
// it, for a v that fits no scale up to k (k = -1: none known). smallAt
// settles it where minScale could not find otherwise: when minScale
// starts below a scale that smallAt rules out, it finds none up to that
// one; and when it starts at or below a scale that v fits with a small m,
// it finds the least scale. (When minScale starts above the scales that
// smallAt can settle, it needs no help to skip them.)
func leastScale(v float64, hint, k int) scaledValue {
	from := hint <= maxScale // minScale starts at hint, else at 0
	if s := smallScale(v); s > k && (!from || hint <= s) {
		sv, fits, small := smallAt(v, s)
		if fits {
			return sv
		}
		if small {
			k = s
		}
	}
	if k >= 0 && (!from || hint <= k) {
		return scaledValue{k: int8(scaleFrom(v, k+1))}
	}
	return scaledValue{k: int8(minScale(v, hint))}
}

// scan fills d.vs for vals and returns chooseScales' proposal; ok is also
// false as soon as more than a quarter of the values fit no scale. Each
// value's least scale is minScale(v, hint), hint being the previous
// value's (see leastScale).
func (d *decimalScan) scan(vals []float64) (best, all int, ok bool) {
	n := len(vals)
	if cap(d.vs) < n {
		d.vs = make([]scaledValue, n)
	}
	vs := d.vs[:n]
	var hist [maxScale + 2]int
	hint, top, none := 0, 0, 0
	p := pow10[top]
	atTop := 0 // values of least scale top, not yet in hist
	for i := 0; i < n; i++ {
		// The run of values that fit top, in a loop without calls that
		// keeps its variables in registers: smallAt(v, top) written out,
		// for |v*10^top| < 2^49, where adding ±0.5 and truncating rounds
		// exactly.
		last := hint
		for ; i < n; i++ {
			v := vals[i]
			r := v * p
			if !(math.Abs(r) < smallDecimal/2) { // also for NaN
				break
			}
			m := int64(r + math.Copysign(0.5, r))
			if math.Float64bits(float64(m)/p) != math.Float64bits(v) {
				break
			}
			if m%10 != 0 || top == 0 {
				vs[i] = scaledValue{m: m, k: int8(top), small: true}
				atTop++
				last = top
				continue
			}
			sv := stripZeros(m, top)
			vs[i] = sv
			hist[sv.k]++
			last = int(sv.k)
		}
		hint = last
		if i == n {
			break
		}
		v := vals[i]
		sv, fits, small := smallAt(v, top) // not fast: above 2^49, or not fitting
		if !fits {
			k := -1 // v fits no scale up to k
			if small {
				k = top
			}
			sv = leastScale(v, hint, k)
		}
		vs[i] = sv
		hist[sv.k]++
		hint = int(sv.k)
		if hint > maxScale {
			if none++; none > n/4 {
				return 0, 0, false
			}
		} else if hint > top {
			hist[top] += atTop
			top, p, atTop = hint, pow10[hint], 0
		}
	}
	hist[top] += atTop
	return chooseScales(&hist, n)
}

// scaleAt writes to ms the scaled integers of vals at scale k and to
// patch which values need patching (whose ms repeat the previous one). It
// returns the number of patches. d.vs must be scan's of vals.
func (d *decimalScan) scaleAt(vals []float64, k int, ms []int64, patch []bool) int {
	vs := d.vs[:len(vals)]
	ms, patch = ms[:len(vals)], patch[:len(vals)]
	np := 0
	for i, sv := range vs {
		// at's fast path, written out for speed.
		var m int64
		ok := false
		if d := uint(k - int(sv.k)); sv.small && d <= maxScale && uint64(sv.m+smallLimit[d]) <= 2*uint64(smallLimit[d]) {
			m, ok = sv.m*int64(pow10i[d]), true
		} else {
			m, ok = sv.at(vals[i], k)
		}
		ms[i], patch[i] = m, !ok
		np += int(b2u(!ok))
	}
	if np > 0 {
		// The first value that fits stands in for leading patches.
		var prev int64
		if i := slices.Index(patch, false); i >= 0 {
			prev = ms[i]
		}
		for i, p := range patch {
			if p {
				ms[i] = prev
			}
			prev = ms[i]
		}
	}
	return np
}

// writeDecimal codes the scaled integers of vals from ms, which holds the
// first of them and then their deltas (divided by the factor, for the
// factored encodings): the first as a 7-bit length and the bits of its
// zigzag form, then the deltas in blocks. With patches (patch not nil), a bit after the first
// says whether its 64 raw bits follow, and each block is followed by its
// patches: their count (a 7-bit length and bits), then for each its
// position in the block (8 bits) and its 64 raw bits. bw is scratch.
func writeDecimal(w *bitWriter, bw *blockWriter, vals []float64, ms []int64, patch []bool) {
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
	bw.reset()
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
	case enc == Decimal || enc == DecimalFactor:
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
	factor int64 // 1 but for the factored encodings
	scale  float64
}

func newValueDecoder(f *field, n int, version byte) valueDecoder {
	return valueDecoder{
		blocks: newBlockReader(newBitReader(f.stream), max(n-1, 0), version),
		enc:    f.enc,
		factor: f.factor,
		scale:  pow10[f.scale],
	}
}

func (d *valueDecoder) first() float64 {
	r := &d.blocks.r
	if d.enc != XOR {
		d.m = unzigzag(readVar(r))
		if d.enc.patched() && r.readBits(1) != 0 {
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
		if g := d.factor; g != 1 {
			for i, delta := range deltas {
				m += delta * g
				dst[i] = float64(m) / scale
			}
		} else {
			for i, delta := range deltas {
				m += delta
				dst[i] = float64(m) / scale
			}
		}
		d.m = m
		if d.enc.patched() {
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
