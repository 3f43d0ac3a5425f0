package chunk

import (
	"math"
	randv1 "math/rand"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"testing/quick"
)

// factorSeries is a walk of n readings whose steps are multiples of
// factor/10^k, starting at an offset that is not, so that only the deltas
// of the scaled integers share the factor.
func factorSeries(seed uint64, n int, factor int64, k int) *series {
	r := rand.New(rand.NewPCG(seed, 6))
	s := newSeries("v")
	s.ts = regular(r, n, 1000, 0)
	s.vals[0] = make([]float64, n)
	m := int64(1_000_003)
	for j := range s.vals[0] {
		m += factor * (r.Int64N(21) - 10)
		s.vals[0][j] = float64(m) / pow10[k]
	}
	return s
}

// patchedPages is factorSeries of 4 KiB pages with a NaN, a -0 and an
// infinity.
func patchedPages() *series {
	s := factorSeries(2, 1000, 4096, 0)
	s.vals[0][0], s.vals[0][500], s.vals[0][999] = math.NaN(), math.Copysign(0, -1), math.Inf(1)
	return s
}

func TestFactor_Chosen(t *testing.T) {
	halves := factorSeries(3, 600, 5, 1)
	node := nodeExporterSeries(1, 240)
	node.fields, node.vals = node.fields[8:9], node.vals[8:9] // memory_available_bytes
	cases := []struct {
		name   string
		s      *series
		enc    Encoding
		scale  int
		factor int64
	}{
		{"pages", factorSeries(1, 1000, 4096, 0), DecimalFactor, 0, 4096},
		{"pages with NaN, -0 and Inf", patchedPages(), DecimalFactorPatched, 0, 4096},
		{"halves", halves, DecimalFactor, 1, 5},
		{"thousands", factorSeries(4, 300, 1000, 2), DecimalFactor, 2, 1000},
		{"node-exporter memory", node, DecimalFactor, 0, 4096},
		{"cents", factorSeries(5, 300, 1, 2), Decimal, 2, 1},
		{"constant", constSeries(300, 4096), Decimal, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.s.encode(t)
			c.s.check(t, b)
			ch, err := Open(b)
			if err != nil {
				t.Fatal(err)
			}
			enc, scale := ch.Encoding(0)
			if enc != c.enc || scale != c.scale || ch.Factor(0) != c.factor {
				t.Fatalf("%v; want %v/1e%d steps of %d", ch, c.enc, c.scale, c.factor)
			}
		})
	}
}

// TestFactor_Smaller checks that a factored field takes fewer bytes than
// the same field without its factor (the encoder with factors off).
func TestFactor_Smaller(t *testing.T) {
	s := factorSeries(1, 3600, 4096, 0)
	with, without := s.appender(t), s.appender(t)
	without.enc.noFactors = true
	a, b := with.Bytes(), without.Bytes()
	s.check(t, a)
	s.check(t, b)
	// 12 bits a value fewer: log2(4096).
	if len(a)+12*3599/8 > len(b) {
		t.Fatalf("%d bytes with the factor, %d without", len(a), len(b))
	}
}

func TestOpen_BadFactor(t *testing.T) {
	valid := factorSeries(1, 300, 4096, 0).encode(t)
	c, err := Open(valid)
	if err != nil {
		t.Fatal(err)
	}
	// The field header: name length 1, "v", the encoding byte, the factor.
	at := len(valid) - len(c.fields[0].stream) - len(c.times) - uvarintLen(uint64(len(c.fields[0].stream))) - uvarintLen(4096)
	if valid[at-1] != byte(DecimalFactor)<<5 {
		t.Fatalf("encoding byte %#x at %d", valid[at-1], at-1)
	}
	for name, factor := range map[string][]byte{
		"factor 0":           {0},
		"factor 1":           {1},
		"factor over 2^54":   {0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40}, // 2^54 + 1
		"factor cut off":     {0x80},
		"factor of 11 bytes": {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	} {
		b := append(append(append([]byte(nil), valid[:at]...), factor...), valid[at+uvarintLen(4096):]...)
		if _, err := Open(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	b := append(append(append([]byte(nil), valid[:at]...), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10), valid[at+uvarintLen(4096):]...) // 2^53
	if _, err := Open(b); err != nil {
		t.Errorf("factor 2^53: %v", err)
	}
}

// propertyValues is a field's values for the property test: runs of
// decimals at one scale, with or without a common factor in their steps,
// and of full-precision values, with the values that no decimal coding
// holds sprinkled in (NaN with any payload, -0, ±Inf, subnormals, values
// of 17 significant digits, the largest and smallest exponents).
type propertyValues []float64

// Generate implements quick.Generator.
func (propertyValues) Generate(quickRand *randv1.Rand, size int) reflect.Value {
	r := rand.New(rand.NewPCG(quickRand.Uint64(), quickRand.Uint64()))
	n := r.IntN(20 * size) // up to 1,000 values by default: several blocks
	vs := make(propertyValues, 0, n)
	for len(vs) < n {
		run := 1 + r.IntN(n)
		k := r.IntN(maxScale + 1)
		factor := []int64{1, 2, 5, 10, 4096, 1000, 7}[r.IntN(7)]
		m := r.Int64N(1<<40) - 1<<39
		special := r.IntN(3) // none, a few, many
		for range run {
			var v float64
			switch {
			case special == 1 && r.IntN(20) == 0, special == 2 && r.IntN(3) == 0:
				v = specialValue(r)
			case k == maxScale && factor == 7: // a run of any float64 bits
				v = math.Float64frombits(r.Uint64())
			default:
				m += factor * (r.Int64N(201) - 100)
				v = float64(m) / pow10[k]
			}
			vs = append(vs, v)
		}
	}
	return reflect.ValueOf(vs[:n])
}

// specialValue is one of the values a decimal coding does not hold.
func specialValue(r *rand.Rand) float64 {
	sign := uint64(r.IntN(2)) << 63
	switch r.IntN(7) {
	case 0: // NaN: any payload, quiet or signalling
		return math.Float64frombits(sign | 0x7ff<<52 | (1 + r.Uint64N(1<<52-1)))
	case 1: // ±0
		return math.Float64frombits(sign)
	case 2: // ±Inf
		return math.Float64frombits(sign | 0x7ff<<52)
	case 3: // subnormal
		return math.Float64frombits(sign | (1 + r.Uint64N(1<<52-1)))
	case 4: // 17 significant digits at any exponent
		digits := strconv.FormatUint(1e16+r.Uint64N(9e16), 10)
		v, _ := strconv.ParseFloat(digits[:1]+"."+digits[1:]+"e"+strconv.Itoa(r.IntN(617)-308), 64)
		return v
	case 5: // the largest and smallest exponents
		return math.Float64frombits(sign | uint64([]int{1, 2, 0x7fd, 0x7fe}[r.IntN(4)])<<52 | r.Uint64N(1<<52))
	}
	return math.Float64frombits(r.Uint64())
}

// TestRoundTrip_Property checks that every field of values round-trips
// bit for bit, whichever encoding the encoder picks for it.
func TestRoundTrip_Property(t *testing.T) {
	encs := map[Encoding]int{}
	roundTrips := func(a, b propertyValues) bool {
		n := min(len(a), len(b))
		s := newSeries("a", "b")
		s.ts = regular(rand.New(rand.NewPCG(uint64(n), 0)), n, 1000, 0)
		s.vals[0], s.vals[1] = a[:n], b[:n]
		enc := s.encode(t)
		s.check(t, enc)
		if c, err := Open(enc); err == nil {
			for i := range 2 {
				e, _ := c.Encoding(i)
				encs[e]++
			}
		}
		return !t.Failed()
	}
	iters := 2000
	if testing.Short() {
		iters = 200
	}
	if err := quick.Check(roundTrips, &quick.Config{MaxCount: iters, Rand: randv1.New(randv1.NewSource(25))}); err != nil {
		t.Fatal(err)
	}
	for e := XOR; e <= DecimalFactorPatched; e++ {
		if encs[e] == 0 {
			t.Errorf("no field coded %v among %v", e, encs)
		}
	}
}
