package series

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/timetable-db/timetable/table"
)

// TestPutUnit_AsAggAV checks that putUnit, which formats an item's numbers
// together, stores what intAV and aggAV store one by one, and that getUnit
// reads the same aggregates back, for ordinary and edge values.
func TestPutUnit_AsAggAV(t *testing.T) {
	edge := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e21, 1e-7, 123456789.125, -2.5e-300, 1e-130,
		9.9999999999999999e125, 1e126, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64,
		math.SmallestNonzeroFloat64, 7234.560000000001, 1 << 53}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() float64 {
		switch r.IntN(3) {
		case 0:
			return edge[r.IntN(len(edge))]
		case 1:
			return math.Round(r.NormFloat64()*1e6) / 100
		}
		return math.Float64frombits(r.Uint64())
	}
	s := &Schema{Fields: []string{"a", "b", "c", "d"}}
	for range 2000 {
		u := newUnit(len(s.Fields))
		u.n = r.Int64N(1 << 40)
		for i := range u.fields {
			if r.IntN(4) == 0 {
				continue
			}
			u.fields[i] = agg{n: 1 + r.Int64N(1000), sum: pick(), min: pick(), max: pick(), first: pick(), last: pick(),
				firstT: r.Int64N(1<<50) - 1<<49, lastT: r.Int64N(1 << 50)}
		}
		got := table.Item{}
		putUnit(got, s, u)
		want := table.Item{attrN: intAV(u.n)}
		for i, f := range s.Fields {
			if u.fields[i].n > 0 {
				want[f] = aggAV(u.fields[i])
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("putUnit(%+v) = %v, want %v", u, got, want)
		}
		back, err := getUnit(got, s)
		if err != nil {
			t.Fatal(err)
		}
		for i := range u.fields {
			a, b := u.fields[i], back.fields[i]
			same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
			if a.n != b.n || !same(a.sum, b.sum) || !same(a.min, b.min) || !same(a.max, b.max) ||
				!same(a.first, b.first) || !same(a.last, b.last) || (a.n > 0 && (a.firstT != b.firstT || a.lastT != b.lastT)) {
				t.Fatalf("field %d: stored %+v, read %+v", i, a, b)
			}
		}
	}
}

// TestAppendNumber checks appendNumber against strconv.FormatFloat on
// numbers with few decimals, around its shortcut's bounds, and random
// bits.
func TestAppendNumber(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		if got, want := string(appendNumber(nil, f)), strconv.FormatFloat(f, 'g', -1, 64); got != want {
			t.Fatalf("appendNumber(%v) = %q, want %q", f, got, want)
		}
	}
	for c := int64(-200_000); c <= 200_000; c++ {
		check(float64(c) / 100)
		check(float64(c) / 1000)
		check(float64(c)/100 + 999_000)
		check(float64(c)*100 + 1e7)
	}
	for _, f := range []float64{0.01, 0.00999, 0.0099999999, 999999.99, 999999.995, 1e6, 1e6 - 1e-9, 1e21, 1e-4, 1e-5,
		0.1 + 0.2, 1.005, 2.675, 0.015, 1 / 3.0, math.Nextafter(0.01, 0), math.Nextafter(0.01, 1), math.Nextafter(1e6, 0),
		math.Nextafter(12.34, 0), math.Nextafter(12.34, 100)} {
		check(f)
		check(-f)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200_000 {
		check(math.Float64frombits(r.Uint64()))
		check(r.Float64() * 1e6)
		check(math.Round(r.NormFloat64()*1e5) / 100)
	}
}
