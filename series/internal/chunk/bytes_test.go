package chunk

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// integers near 2^53, where a decimal's scaled integer is at its limit,
// and decimals whose steps share a factor.
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
	add("sensor/hour", sensorSeries(1, 3600, 1000))
	add("nodeExporter/hour", nodeExporterSeries(1, 240))
	for i, factor := range []int64{2, 5, 7, 1000, 4096} {
		add(fmt.Sprint("factor/", factor), factorSeries(uint64(i), 300+i*500, factor, i))
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

// referenceBytes encodes the readings of a the slow way, as the encoder
// did before it took shortcuts: it writes every candidate coding of each
// column in full and keeps the smallest (the first of equal size, XOR only
// if it takes fewer bytes than the decimal coding; a factor's bytes in the
// header count).
func referenceBytes(a *Appender) []byte {
	n := len(a.ts)
	var tw, bw bitWriter
	timeEnc := DeltaOfDelta
	writeDoD(&tw, a.ts)
	writeDeltaBlocks(&bw, a.ts, new(blockWriter), nil)
	if bw.bitLen() < tw.bitLen() {
		tw, timeEnc = bw, DeltaBlocks
	}
	times := tw.finish()
	streams := make([][]byte, len(a.names))
	encs := make([]byte, len(a.names))
	factors := make([]uint64, len(a.names))
	for i, vals := range a.vals {
		var dec []byte
		factors[i] = 1
		cost := func(enc Encoding, d []byte, g uint64) int {
			if enc.factored() {
				return len(d) + uvarintLen(g)
			}
			return len(d)
		}
		if best, all, ok := referenceScales(vals); ok && n > 0 {
			for j, k := range []int{best, all} {
				if k < 0 || (j == 1 && k == best) {
					continue
				}
				ms, patch := make([]int64, n), make([]bool, n)
				enc, p := Decimal, []bool(nil)
				if np := referenceScaleAll(vals, k, ms, patch); np > 0 {
					enc, p = DecimalPatched, patch
				}
				deltas := make([]int64, n)
				deltas[0] = ms[0]
				var g uint64
				for i := 1; i < n; i++ {
					deltas[i] = ms[i] - ms[i-1]
					g = gcd(g, absU(deltas[i]))
				}
				var dw bitWriter
				writeDecimal(&dw, new(blockWriter), vals, deltas, p)
				if d := dw.finish(); dec == nil || len(d) < cost(Encoding(encs[i]>>5), dec, factors[i]) {
					dec, encs[i], factors[i] = d, byte(enc)<<5|byte(k), 1
				}
				if g < 2 {
					continue
				}
				for i := 1; i < n; i++ {
					deltas[i] /= int64(g)
				}
				fenc := enc + DecimalFactor - Decimal
				var fw bitWriter
				writeDecimal(&fw, new(blockWriter), vals, deltas, p)
				if d := fw.finish(); cost(fenc, d, g) < cost(Encoding(encs[i]>>5), dec, factors[i]) {
					dec, encs[i], factors[i] = d, byte(fenc)<<5|byte(k), g
				}
			}
		}
		var xw bitWriter
		writeXOR(&xw, vals)
		if x := xw.finish(); dec == nil || len(x) < cost(Encoding(encs[i]>>5), dec, factors[i]) {
			streams[i], encs[i], factors[i] = x, byte(XOR), 1
		} else {
			streams[i] = dec
		}
	}
	b := []byte{Version}
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(a.names)))
	b = binary.AppendVarint(b, a.MinTime())
	b = binary.AppendUvarint(b, uint64(a.MaxTime()-a.MinTime()))
	b = append(b, byte(timeEnc))
	b = binary.AppendUvarint(b, uint64(len(times)))
	for i, name := range a.names {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		b = appendColumnHeader(b, encs[i], factors[i], len(streams[i]))
	}
	b = append(b, times...)
	for _, s := range streams {
		b = append(b, s...)
	}
	return b
}

// referenceScales is decimalScan.scan the slow way: minScale for every
// value.
func referenceScales(vals []float64) (best, all int, ok bool) {
	var hist [maxScale + 2]int
	hint, none := 0, 0
	for _, v := range vals {
		k := minScale(v, hint)
		hist[k]++
		hint = k
		if k > maxScale {
			none++
		}
	}
	if none > len(vals)/4 {
		return 0, 0, false
	}
	return chooseScales(&hist, len(vals))
}

// referenceScaleAll is decimalScan.scaleAt the slow way: scaled for every
// value.
func referenceScaleAll(vals []float64, k int, ms []int64, patch []bool) int {
	var prev int64
	for _, v := range vals {
		if m, ok := scaled(v, k); ok {
			prev = m
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

// TestBytes_Reference checks the encoder against referenceBytes on random
// series, with Appenders reused after Reset as a pool would: the same
// bytes (so never more), which decode to the readings bit for bit.
func TestBytes_Reference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 8))
	iters := 1000
	if testing.Short() {
		iters = 100
	}
	pool := map[string]*Appender{}
	for it := range iters {
		var s *series
		switch it % 5 {
		case 0, 1:
			s = randomSeries(r)
		case 2:
			s = mixedSeries(r, r.IntN(64))
		case 3:
			s = centsSeries(r.Uint64(), r.IntN(80), 3, 60000, 10)
		case 4: // full precision, some values decimal at scales 13 to 17
			s = gaugeSeries(r.Uint64(), r.IntN(2000))
		}
		key := strings.Join(s.fields, ",")
		a := pool[key]
		if a == nil {
			a = s.appender(t)
			pool[key] = a
		} else {
			a.Reset()
			s.appendTo(t, a, nil)
		}
		got, want := a.Bytes(), referenceBytes(a)
		if !bytes.Equal(got, want) {
			c, _ := Open(got)
			w, _ := Open(want)
			t.Fatalf("seed %d iteration %d: %d bytes, %v; the reference takes %d, %v", seed, it, len(got), c, len(want), w)
		}
		s.check(t, got)
	}
}

// FuzzBytes checks the encoder against referenceBytes on decimals of any
// scale and size, raw floats and repeats (see decimalsFromBytes).
func FuzzBytes(f *testing.F) {
	f.Add([]byte{1, 2, 0x10, 0, 0, 0, 0, 0, 0, 1, 3})
	f.Add([]byte{2, 40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 59, 76, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{0, 18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0, 10, 37, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f, 0, 10})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := decimalsFromBytes(data)
		a := s.appender(t)
		got, want := a.Bytes(), referenceBytes(a)
		if !bytes.Equal(got, want) {
			c, _ := Open(got)
			w, _ := Open(want)
			t.Fatalf("%d bytes, %v; the reference takes %d, %v", len(got), c, len(want), w)
		}
		s.check(t, got)
	})
}

// decimalsFromBytes reads a series of 1 or 2 fields (the first byte's low
// bit), a reading a second; each value is a control byte c and, but for a
// repeat (c/19%4 == 3), 8 bytes u: with k = c%19, u/2^(u%64)/10^k (u as a
// signed integer) or, times 10^(u%3), raw bits u, or the last value.
func decimalsFromBytes(data []byte) *series {
	next := (*fuzzInput)(&data).next
	if len(data) == 0 {
		return newSeries("a")
	}
	s := newSeries([]string{"a", "b"}[:1+next(1)[0]%2]...)
	last := make([]float64, len(s.fields))
	for t := int64(start); len(data) > 0 && len(s.ts) < 2000; t += 1000 {
		for i := range last {
			c := next(1)[0]
			k, mode := int(c%19), c/19%4
			if mode == 3 {
				continue
			}
			u := binary.LittleEndian.Uint64(next(8))
			m := float64(int64(u) >> (u % 64))
			switch mode {
			case 0:
				last[i] = m / pow10[k]
			case 1:
				last[i] = m * pow10[u%3] / pow10[k]
			case 2:
				last[i] = math.Float64frombits(u)
			}
		}
		s.add(t, last...)
	}
	return s
}
