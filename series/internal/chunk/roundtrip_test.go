package chunk

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRoundTrip_Cases(t *testing.T) {
	specials := []float64{
		math.NaN(), math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff0000000000abc),
		math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, 1e300, -1e-300, 1 << 53, 1<<53 + 2, -(1 << 62), 0.1 + 0.2, 12.34,
	}
	r := rand.New(rand.NewPCG(1, 1))
	cases := map[string]*series{
		"empty":           newSeries("v"),
		"empty no fields": newSeries(),
		"one reading":     {fields: []string{"v"}, ts: []int64{start}, vals: [][]float64{{21.5}}},
		"one NaN":         {fields: []string{"v"}, ts: []int64{start}, vals: [][]float64{{math.NaN()}}},
		"no fields":       {fields: nil, ts: regular(r, 500, 1000, 3)},
		"walk 1Hz":        walkSeries(1, 3600, 1, 1000, 0.5),
		"walk minute 3":   walkSeries(2, 1440, 3, 60000, 0.5),
		"walk big steps":  walkSeries(3, 1000, 2, 1000, 1e6),
		"gauge":           gaugeSeries(4, 2000),
		"specials": func() *series {
			s := newSeries("a", "b")
			s.ts = regular(r, len(specials), 1000, 0)
			s.vals[0] = specials
			s.vals[1] = reversed(specials)
			return s
		}(),
		"constant":         constSeries(5000, 42.17),
		"constant NaN":     constSeries(300, math.NaN()),
		"constant -0":      constSeries(300, math.Copysign(0, -1)),
		"equal timestamps": func() *series { s := walkSeries(5, 400, 1, 0, 0.5); return s }(),
		"extreme times": {fields: []string{"v"},
			ts:   []int64{math.MinInt64, math.MinInt64, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64, math.MaxInt64},
			vals: [][]float64{{1, 2, 3, 4, 5, 6, 7, 8}}},
		"counter":  counterSeries(3000),
		"integers": func() *series { s := walkSeries(6, 2000, 1, 10000, 50); s.vals[0] = roundAll(s.vals[0], 1); return s }(),
		"decimal with one -0": func() *series {
			s := walkSeries(7, 300, 1, 1000, 0.5)
			s.vals[0][150] = math.Copysign(0, -1)
			return s
		}(),
		"near 2^53": func() *series {
			s := newSeries("v")
			for i := range 300 {
				s.add(start+int64(i)*1000, float64(1<<53-int64(i%7)))
			}
			return s
		}(),
		"many fields": walkSeries(8, 100, 6, 1000, 0.05),
		"patched": func() *series {
			s := walkSeries(9, 1000, 2, 1000, 0.5)
			for j := 0; j < 1000; j += 37 {
				s.vals[0][j] = specials[j%len(specials)]
			}
			s.vals[1][0], s.vals[1][256], s.vals[1][257], s.vals[1][999] = math.NaN(), math.NaN(), -1e-300, math.Inf(-1)
			return s
		}(),
		"irregular": func() *series {
			s := newSeries("v")
			t := int64(start)
			for range 2000 {
				t += r.Int64N(100000)
				if r.IntN(10) == 0 {
					t += r.Int64N(1 << 40)
				}
				s.add(t, r.NormFloat64())
			}
			return s
		}(),
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			b := s.encode(t)
			s.check(t, b)
		})
	}
}

func reversed(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[len(vs)-1-i] = v
	}
	return out
}

func roundAll(vs []float64, unit float64) []float64 {
	for i := range vs {
		vs[i] = math.Round(vs[i]/unit) * unit
	}
	return vs
}

func constSeries(n int, v float64) *series {
	s := newSeries("v")
	for i := range n {
		s.add(start+int64(i)*1000, v)
	}
	return s
}

func counterSeries(n int) *series {
	s := newSeries("requests")
	c := 0.0
	for i := range n {
		c += 17
		if i%500 == 499 {
			c += 3
		}
		s.add(start+int64(i)*15000, c)
	}
	return s
}

// TestRoundTrip_Random round-trips random series of every shape: regular,
// jittered and irregular timestamps with repeats; walks, decimals of
// several scales, constants, raw float bits and NaN mixed in.
func TestRoundTrip_Random(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	iters := 300
	if testing.Short() {
		iters = 30
	}
	for it := range iters {
		s := randomSeries(r)
		b := s.encode(t)
		func() {
			defer func() {
				if t.Failed() {
					t.Logf("iteration %d: %d readings, %d fields", it, len(s.ts), len(s.fields))
				}
			}()
			s.check(t, b)
		}()
	}
}

func randomSeries(r *rand.Rand) *series {
	k := r.IntN(4)
	names := make([]string, k)
	for i := range names {
		names[i] = string(rune('a'+i)) + "field"
	}
	s := newSeries(names...)
	n := r.IntN(1000)
	if r.IntN(5) == 0 {
		n = r.IntN(5)
	}
	switch r.IntN(4) {
	case 0:
		s.ts = regular(r, n, 1000, 0)
	case 1:
		s.ts = regular(r, n, 60000, r.Int64N(100))
	case 2:
		s.ts = make([]int64, n)
		t := r.Int64N(1<<50) - 1<<49
		for i := range s.ts {
			if r.IntN(4) > 0 {
				t += r.Int64N(1 << uint(r.IntN(40)))
			}
			s.ts[i] = t
		}
	case 3:
		s.ts = regular(r, n, int64(r.IntN(3)), 0) // many equal timestamps
	}
	for i := range s.vals {
		s.vals[i] = randomValues(r, n)
	}
	return s
}

func randomValues(r *rand.Rand, n int) []float64 {
	vs := make([]float64, n)
	switch r.IntN(6) {
	case 0:
		vs = walk(r, n, []float64{0.01, 0.5, 10, 1e5}[r.IntN(4)])
	case 1:
		scale := pow10[r.IntN(maxScale+1)]
		for i := range vs {
			vs[i] = float64(r.Int64N(1<<20)-1<<19) / scale
		}
	case 2:
		c := r.NormFloat64()
		for i := range vs {
			vs[i] = c
		}
	case 3:
		for i := range vs {
			vs[i] = math.Float64frombits(r.Uint64())
		}
	case 4:
		for i := range vs {
			vs[i] = r.NormFloat64() * 1000
		}
	case 5:
		for i := range vs {
			vs[i] = float64(r.IntN(3))
		}
	}
	if r.IntN(3) == 0 {
		for range r.IntN(max(n/8, 5)) + 1 {
			if n > 0 {
				vs[r.IntN(n)] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.MaxFloat64}[r.IntN(5)]
			}
		}
	}
	return vs
}
