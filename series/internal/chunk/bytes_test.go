package chunk

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/bytes.golden from the encoder")

// corpusCase is a named series of the encoder corpus.
type corpusCase struct {
	name string
	s    *series
}

// encoderCorpus is the series whose chunks testdata/bytes.golden pins:
// random series of every shape, the series store's flush chunks at every
// length up to 70 readings, the benchmark series, decimals of mixed scales,
// and integers near 2^53, where a decimal's scaled integer is at its
// limit.
func encoderCorpus() []corpusCase {
	var cs []corpusCase
	add := func(name string, s *series) { cs = append(cs, corpusCase{name, s}) }
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 400 {
		add(fmt.Sprint("random/", i), randomSeries(r))
	}
	for n := range 71 {
		add(fmt.Sprint("ingest/", n), centsSeries(uint64(n), n, 3, 60000, 10))
	}
	add("walk1Hz/hour", walkSeries(1, 3600, 1, 1000, 0.5))
	add("minute3/day", walkSeries(2, 1440, 3, 60000, 0.5))
	add("gauge15s/day", gaugeSeries(3, 5760))
	add("cents3/day", centsSeries(6, 1440, 3, 60000, 10))
	for _, step := range []float64{0.01, 0.05, 0.1, 1, 10} {
		add(fmt.Sprint("walkStep/", step), walkSeries(1, 3600, 1, 1000, step))
	}
	add("const", constSeries(1000, 0.125))
	add("counter", counterSeries(1000))
	for i := range 60 {
		add(fmt.Sprint("mixed/", i), mixedSeries(r, i))
	}
	return cs
}

// mixedSeries has fields whose values take several scales, or whose
// scaled integers lie near 2^50 to 2^54, or that are decimal but for a
// share of odd values; which, i picks.
func mixedSeries(r *rand.Rand, i int) *series {
	n := 1 + r.IntN(300)
	s := newSeries("x", "y")
	s.ts = regular(r, n, 1000, int64(i%3))
	for f := range s.vals {
		vs := make([]float64, n)
		switch (i + f) % 4 {
		case 0: // scales 0 to 4 at random
			for j := range vs {
				vs[j] = float64(r.Int64N(2_000_000)-1_000_000) / pow10[r.IntN(5)]
			}
		case 1: // scaled integers near the limit
			k := r.IntN(maxScale + 1)
			m := int64(1)<<(49+r.IntN(6)) - r.Int64N(1000)
			for j := range vs {
				m += r.Int64N(21) - 10
				vs[j] = float64(m) / pow10[k]
			}
		case 2: // a walk of tenths and cents with odd values
			m := r.Int64N(10000)
			for j := range vs {
				m += r.Int64N(21) - 10
				vs[j] = float64(m) / 100
				if r.IntN(10) == 0 {
					vs[j] = []float64{math.NaN(), 0.1 + 0.2, math.Pi, math.Copysign(0, -1)}[r.IntN(4)]
				}
			}
		case 3: // large values with few decimals
			m := r.Int64N(1 << 40)
			for j := range vs {
				m += r.Int64N(2001) - 1000
				vs[j] = float64(m) * pow10[r.IntN(3)] / pow10[r.IntN(8)]
			}
		}
		s.vals[f] = vs
	}
	return s
}

// TestBytes_Golden checks that the encoder writes the same bytes as when
// testdata/bytes.golden was written (-update rewrites it): a faster
// encoder must not change its choices.
func TestBytes_Golden(t *testing.T) {
	path := filepath.Join("testdata", "bytes.golden")
	var got strings.Builder
	for _, c := range encoderCorpus() {
		b := c.s.encode(t)
		fmt.Fprintf(&got, "%s %d %x\n", c.name, len(b), sha256.Sum256(b))
	}
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wl := bufio.NewScanner(strings.NewReader(string(want)))
	gl := bufio.NewScanner(strings.NewReader(got.String()))
	for wl.Scan() {
		if !gl.Scan() {
			t.Fatalf("missing %s", wl.Text())
		}
		if wl.Text() != gl.Text() {
			t.Errorf("got  %s\nwant %s", gl.Text(), wl.Text())
		}
	}
	if gl.Scan() {
		t.Errorf("extra %s", gl.Text())
	}
}
