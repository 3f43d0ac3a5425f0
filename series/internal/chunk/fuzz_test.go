package chunk

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are chunks of version 2 (as the Appender writes them and as
// testdata/v2 and testdata/factor keep them) and of version 1
// (testdata/v1).
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	for _, dir := range []string{"v1", "v2", "factor"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.chunk"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				seeds = append(seeds, b)
			}
		}
	}
	for _, s := range []*series{
		newSeries("v"),
		walkSeries(1, 300, 1, 1000, 0.5),
		walkSeries(2, 40, 3, 60000, 0.5),
		gaugeSeries(3, 100),
		constSeries(600, 1.5),
		counterSeries(300),
		nodeExporterSeries(2, 300),
		factorSeries(1, 600, 4096, 0),
		func() *series {
			s := factorSeries(2, 600, 5, 1)
			s.vals[0][0], s.vals[0][400] = math.NaN(), math.Inf(-1)
			return s
		}(),
		patchedWalk(),
		{fields: []string{"v"}, ts: []int64{math.MinInt64, 0, math.MaxInt64}, vals: [][]float64{{math.NaN(), math.Inf(-1), math.Copysign(0, -1)}}},
	} {
		a, _ := NewAppender(s.fields)
		row := make([]float64, len(s.fields))
		for j, t := range s.ts {
			for i := range row {
				row[i] = s.vals[i][j]
			}
			_ = a.Append(t, row)
		}
		seeds = append(seeds, a.Bytes())
	}
	return seeds
}

// FuzzDecode feeds arbitrary bytes to Open and every decoder: they must
// return errors, never panic, allocate no more than the input bounds, and
// agree with one another; what decodes must encode again to the same
// readings.
func FuzzDecode(f *testing.F) {
	for _, b := range fuzzSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Open(b)
		if err != nil {
			return
		}
		// What a caller allocates by (and Open allocates for the fields)
		// is bounded by the input: each field's header takes 4 bytes or
		// more, and 256 readings take at least the 9 bits of a block.
		if c.Len() > 256*len(b) || c.NumFields() > len(b)/4 {
			t.Fatalf("%d readings of %d fields in %d bytes", c.Len(), c.NumFields(), len(b))
		}
		n := c.Len()
		ts := make([]int64, n)
		vals := make([][]float64, c.NumFields())
		for i := range vals {
			vals[i] = make([]float64, n)
		}
		errAll := c.DecodeAll(ts, vals)

		it := c.Iterator()
		j := 0
		for it.Next() {
			tm, row := it.At()
			if errAll == nil {
				if tm != ts[j] {
					t.Fatalf("reading %d: iterator time %d, DecodeAll %d", j, tm, ts[j])
				}
				for i, v := range row {
					if math.Float64bits(v) != math.Float64bits(vals[i][j]) {
						t.Fatalf("reading %d field %d: iterator %v, DecodeAll %v", j, i, v, vals[i][j])
					}
				}
			}
			j++
		}
		if (errAll == nil) != (it.Err() == nil) {
			t.Fatalf("DecodeAll: %v; Iterator: %v", errAll, it.Err())
		}
		if errAll != nil {
			return
		}
		if j != n {
			t.Fatalf("iterator gave %d readings, want %d", j, n)
		}
		s := &series{fields: c.Fields(), ts: ts, vals: vals}
		s.check(t, s.encode(t))
	})
}

// FuzzRoundTrip builds a series from the fuzzer's bytes and checks that it
// decodes bit for bit.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{2, 1, 200, 7, 7, 1, 100, 7, 8, 0, 3, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{3, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xf8, 0, 0, 0, 0, 0, 0, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := seriesFromBytes(data)
		s.check(t, s.encode(t))
	})
}

// fuzzInput hands out a fuzzer's bytes, and zeros past their end.
type fuzzInput []byte

// next returns the next k bytes.
func (in *fuzzInput) next(k int) []byte {
	if len(*in) < k {
		*in = append(*in, make([]byte, k-len(*in))...)
	}
	b := (*in)[:k]
	*in = (*in)[k:]
	return b
}

// seriesFromBytes reads a series: the first byte gives the field count (0
// to 3); then each reading is a control byte, a timestamp step, and per
// field a value, each read as the control byte says.
func seriesFromBytes(data []byte) *series {
	next := (*fuzzInput)(&data).next
	if len(data) == 0 {
		return newSeries()
	}
	k := int(next(1)[0] % 4)
	s := newSeries([]string{"a", "b", "c"}[:k]...)
	t := int64(start)
	for len(data) > 0 && len(s.ts) < 5000 {
		ctl := next(1)[0]
		switch ctl & 3 {
		case 0: // same instant
		case 1:
			t += int64(next(1)[0])
		case 2:
			t += 1000
		case 3:
			step := binary.LittleEndian.Uint64(next(8))
			if nt := t + int64(step>>1); nt >= t {
				t = nt
			}
		}
		row := make([]float64, k)
		for i := range row {
			switch ctl >> 2 & 3 {
			case 0: // a decimal
				b := next(3)
				row[i] = float64(int16(binary.LittleEndian.Uint16(b))) / pow10[b[2]%(maxScale+1)]
			case 1: // raw bits
				row[i] = math.Float64frombits(binary.LittleEndian.Uint64(next(8)))
			case 2: // repeat the last value
				if n := len(s.vals[i]); n > 0 {
					row[i] = s.vals[i][n-1]
				}
			case 3: // a byte times ctl's top bits plus one: a common factor
				row[i] = float64(next(1)[0]) * float64(1+ctl>>4)
			}
		}
		s.add(t, row...)
	}
	return s
}

// FuzzDecodeStreams wraps arbitrary stream bytes in a valid header, so
// that the stream decoders, which Open does not check, meet garbage. The
// top bit of timeEnc picks format version 1; its bits 1 to 6 give the
// factor of the factored encodings (f, or 2^(f-8) above 40).
func FuzzDecodeStreams(f *testing.F) {
	f.Add(uint16(300), uint8(1), uint8(1<<5|2), uint16(0), []byte{0, 0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 0, 1, 2, 3})
	f.Add(uint16(3), uint8(0), uint8(0), uint16(2000), []byte{0x80, 0, 0x40}, []byte{0x40, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x12, 0x34})
	f.Add(uint16(600), uint8(1), uint8(2<<5|1), uint16(59900), []byte{0, 0x80, 0x12, 0x34, 0x56}, []byte{0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff})
	f.Add(uint16(600), uint8(0x81), uint8(1<<5|2), uint16(59900), []byte{0, 0x80, 0x12, 0x34, 0x56}, []byte{0x0a, 0x40, 0xff, 0, 0xff, 0, 0xff, 0, 0xff})
	f.Add(uint16(300), uint8(7<<1|1), uint8(3<<5|1), uint16(0), []byte{0, 0, 0, 0, 0}, []byte{0x0a, 0, 0, 0, 0, 0, 1, 2, 3})
	f.Add(uint16(600), uint8(62<<1|1), uint8(4<<5), uint16(59900), []byte{0, 0x80, 0x12, 0x34, 0x56}, []byte{0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0, 0xff})
	f.Fuzz(func(t *testing.T, n uint16, timeEnc, enc uint8, span uint16, times, values []byte) {
		code := any(enc)
		if Encoding(enc >> 5).factored() {
			factor := uint64(timeEnc >> 1 & 0x3f)
			if factor > 40 {
				factor = 1 << (factor - 8)
			}
			code = binary.AppendUvarint([]byte{enc}, factor)
		}
		b := append(header(uint64(n), 1, start, uint64(span), timeEnc&1, uint64(len(times)), "v", code, len(values)), append(times, values...)...)
		if timeEnc&0x80 != 0 {
			b[0] = 1
		}
		c, err := Open(b)
		if err != nil {
			return
		}
		ts := make([]int64, c.Len())
		vals := []([]float64){make([]float64, c.Len())}
		errAll := c.DecodeAll(ts, vals)
		it := c.Iterator()
		j := 0
		for it.Next() {
			tm, row := it.At()
			if errAll == nil && (tm != ts[j] || math.Float64bits(row[0]) != math.Float64bits(vals[0][j])) {
				t.Fatalf("reading %d: iterator (%d, %v), DecodeAll (%d, %v)", j, tm, row[0], ts[j], vals[0][j])
			}
			j++
		}
		if (errAll == nil) != (it.Err() == nil) {
			t.Fatalf("DecodeAll: %v; Iterator: %v", errAll, it.Err())
		}
		if errAll == nil {
			s := &series{fields: c.Fields(), ts: ts, vals: vals}
			s.check(t, s.encode(t))
		}
	})
}
