package keys

import (
	"math/rand/v2"
	"testing"
	"time"
)

var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// randTime returns a random instant in the years 0000-9999. Half of the
// draws are near 2024 so that neighbours share long prefixes.
func randTime(r *rand.Rand) time.Time {
	if r.IntN(2) == 0 {
		base := time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)
		return base.Add(time.Duration(r.Int64N(int64(90 * 24 * time.Hour))))
	}
	sec := r.Int64N(maxTime.Unix() - minTime.Unix())
	return time.Unix(minTime.Unix()+sec, r.Int64N(1e9)).UTC()
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// randPair returns two random instants; one time in n, the second is within
// d of the first (in [a-d, a+d)), so that the pair shares a long prefix.
func randPair(r *rand.Rand, n int, d time.Duration) (a, b time.Time) {
	a, b = randTime(r), randTime(r)
	if r.IntN(n) == 0 {
		b = a.Add(time.Duration(r.Int64N(int64(2*d))) - d)
	}
	return a, b
}

// fuzzRoundTrip fuzzes parse from seeds: whatever parse accepts, format
// must give back unchanged. name names the pair in failures.
func fuzzRoundTrip[T any](f *testing.F, name string, seeds []string, parse func(string) (T, error), format func(T) (string, error)) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parse(s)
		if err != nil {
			return
		}
		if back, err := format(v); err != nil || back != s {
			t.Fatalf("%s round trip of %q = %q, %v", name, s, back, err)
		}
	})
}

// noErr adapts a format function that cannot fail to fuzzRoundTrip.
func noErr[T any](format func(T) string) func(T) (string, error) {
	return func(v T) (string, error) { return format(v), nil }
}

// two holds the two results of a parser that returns two values.
type two[A, B any] struct {
	a A
	b B
}

// parse2 and format2 adapt a parser and a formatter of two values to
// fuzzRoundTrip.
func parse2[A, B any](parse func(string) (A, B, error)) func(string) (two[A, B], error) {
	return func(s string) (two[A, B], error) {
		a, b, err := parse(s)
		return two[A, B]{a, b}, err
	}
}

func format2[A, B any](format func(A, B) (string, error)) func(two[A, B]) (string, error) {
	return func(v two[A, B]) (string, error) { return format(v.a, v.b) }
}
