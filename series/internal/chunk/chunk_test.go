package chunk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// header builds the bytes of a chunk header by hand.
func header(n, k uint64, first int64, span uint64, timeEnc byte, timeLen uint64, fields ...any) []byte {
	b := []byte{Version}
	b = binary.AppendUvarint(b, n)
	b = binary.AppendUvarint(b, k)
	b = binary.AppendVarint(b, first)
	b = binary.AppendUvarint(b, span)
	b = append(b, timeEnc)
	b = binary.AppendUvarint(b, timeLen)
	for i := 0; i+2 < len(fields); i += 3 {
		name := fields[i].(string)
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		switch code := fields[i+1].(type) {
		case byte:
			b = append(b, code)
		case []byte: // an encoding byte and a factor
			b = append(b, code...)
		}
		b = binary.AppendUvarint(b, uint64(fields[i+2].(int)))
	}
	return b
}

func TestOpen_Errors(t *testing.T) {
	valid := walkSeries(1, 300, 2, 1000, 0.5).encode(t)
	cases := map[string][]byte{
		"empty":             nil,
		"version":           append([]byte{3}, valid[1:]...),
		"version 0":         append([]byte{0}, valid[1:]...),
		"count only":        {Version, 5},
		"too many readings": header(MaxReadings+1, 0, 0, 0, 0, 0),
		"too many fields":   header(1, 100000, 0, 0, 0, 0),
		"fields for bytes":  header(1, 3, 0, 0, 0, 0, "a", byte(0), 8),
		"span backwards":    header(2, 0, math.MaxInt64, 10, 0, 1, 0),
		"span of one":       header(1, 0, 5, 1, 0, 0),
		"empty with times":  header(0, 0, 5, 0, 0, 0),
		"time encoding":     header(2, 0, 0, 1, 7, 1),
		"short time stream": header(100000, 0, 0, 1, 0, 1),
		"empty name":        append(header(1, 1, 0, 0, 0, 0, "", byte(0), 8), make([]byte, 8)...),
		"encoding":          append(header(1, 1, 0, 0, 0, 0, "v", byte(3<<5), 8), make([]byte, 8)...),
		"xor with scale":    append(header(1, 1, 0, 0, 0, 0, "v", byte(3), 8), make([]byte, 8)...),
		"scale":             append(header(1, 1, 0, 0, 0, 0, "v", byte(1<<5|19), 8), make([]byte, 8)...),
		"short xor stream":  append(header(1, 1, 0, 0, 0, 0, "v", byte(0), 7), make([]byte, 7)...),
		"duplicate names":   append(header(1, 2, 0, 0, 0, 0, "v", byte(0), 8, "v", byte(0), 8), make([]byte, 16)...),
		"missing bytes":     valid[:len(valid)-1],
		"extra bytes":       append(bytes.Clone(valid), 0),
		"streams in empty":  append(header(0, 0, 0, 0, 0, 1), 0),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := Open(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Open = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestOpen_EveryPrefixFails(t *testing.T) {
	b := walkSeries(1, 500, 2, 1000, 0.5).encode(t)
	for i := range len(b) {
		if _, err := Open(b[:i]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open of %d of %d bytes = %v", i, len(b), err)
		}
	}
}

// TestDecode_CorruptStreams damages the streams of valid chunks, past what
// Open checks: every decoder must report ErrCorrupt.
func TestDecode_CorruptStreams(t *testing.T) {
	check := func(name string, b []byte) {
		t.Helper()
		c, err := Open(b)
		if err != nil {
			t.Fatalf("%s: Open: %v", name, err)
		}
		ts := make([]int64, c.Len())
		vals := make([][]float64, c.NumFields())
		for i := range vals {
			vals[i] = make([]float64, c.Len())
		}
		if err := c.DecodeAll(ts, vals); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: DecodeAll = %v, want ErrCorrupt", name, err)
		}
		it := c.Iterator()
		j := 0
		for it.Next() {
			j++
		}
		if !errors.Is(it.Err(), ErrCorrupt) {
			t.Errorf("%s: Iterator.Err = %v, want ErrCorrupt", name, it.Err())
		}
		if j >= c.Len() {
			t.Errorf("%s: Iterator returned all %d readings of a corrupt chunk", name, j)
		}
	}
	// Timestamps that run backwards, coded by hand: delta-of-delta
	// stream '10' + 7 bits of -1: 0b10_1111111 then padding.
	b := header(2, 0, 100, 0, byte(DeltaOfDelta), 2)
	check("backwards", append(b, 0b10111111, 0b10000000))
	// The last timestamp disagrees with the header: a delta of 1, span 2.
	b = header(2, 0, 100, 2, byte(DeltaOfDelta), 2)
	check("wrong span", append(b, 0b10000000, 0b10000000))
	// A time stream with a whole byte left over.
	b = header(2, 0, 100, 0, byte(DeltaOfDelta), 2)
	check("trailing byte", append(b, 0, 0))
	// Reusing an XOR window before one was set.
	b = header(2, 1, 100, 0, byte(DeltaOfDelta), 1, "v", byte(XOR), 9)
	b = append(b, 0)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0b10000000)
	check("xor window", b)
	// An XOR window wider than 64 bits: leading 31, 63 meaningful bits.
	b = header(2, 1, 100, 0, byte(DeltaOfDelta), 1, "v", byte(XOR), 11)
	b = append(b, 0)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, 0b11111111, 0b11111000, 0)
	check("xor width", b)
	// A Rice block whose unary code runs past maxUnary.
	b = header(3, 1, 100, 0, byte(DeltaOfDelta), 1, "v", byte(Decimal)<<5, 200)
	b = append(b, 0)
	stream := []byte{0, 0b11000000} // m0: length 0; Rice, k = 0 (6 bits), base length ...
	stream = append(stream, make([]byte, 198)...)
	check("rice unary", append(b, stream...))
	// A block base with a length over 64 bits.
	b = header(300, 1, 100, 0, byte(DeltaBlocks), 4, "v", byte(Decimal)<<5|2, 5)
	check("bad length", append(b, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff))
}

func TestAppender_Errors(t *testing.T) {
	a, err := NewAppender([]string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append(10, []float64{1}); err == nil {
		t.Error("Append of 1 value for 2 fields succeeded")
	}
	if err := a.Append(10, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(9, []float64{1, 2}); !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("Append back in time = %v, want ErrOutOfOrder", err)
	}
	if err := a.Append(10, []float64{3, 4}); err != nil {
		t.Errorf("Append at the same instant = %v", err)
	}
	if a.Len() != 2 {
		t.Errorf("Len = %d, want 2", a.Len())
	}

	full, _ := NewAppender(nil)
	for i := range MaxReadings {
		if err := full.Append(int64(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := full.Append(MaxReadings, nil); !errors.Is(err, ErrFull) {
		t.Errorf("Append to a full chunk = %v, want ErrFull", err)
	}
}

func TestNewAppender_Errors(t *testing.T) {
	many := make([]string, MaxFields+1)
	for i := range many {
		many[i] = fmt.Sprint("f", i)
	}
	for name, fields := range map[string][]string{
		"duplicate": {"a", "b", "a"},
		"empty":     {"a", ""},
		"long":      {strings.Repeat("n", MaxNameLen+1)},
		"too many":  many,
	} {
		if _, err := NewAppender(fields); err == nil {
			t.Errorf("%s: NewAppender succeeded", name)
		}
	}
	if _, err := NewAppender(many[:MaxFields]); err != nil {
		t.Errorf("NewAppender of %d fields: %v", MaxFields, err)
	}
}

func TestAppender_Encodings(t *testing.T) {
	f := func(s *series, timeEnc TimeEncoding, enc Encoding, scale int) {
		t.Helper()
		c, err := Open(s.encode(t))
		if err != nil {
			t.Fatal(err)
		}
		if c.TimeEncoding() != timeEnc {
			t.Errorf("%v: time encoding %v, want %v", c, c.TimeEncoding(), timeEnc)
		}
		if e, k := c.Encoding(0); e != enc || k != scale {
			t.Errorf("%v: field encoding %v/%d, want %v/%d", c, e, k, enc, scale)
		}
	}
	f(walkSeries(1, 3600, 1, 1000, 0.5), DeltaBlocks, Decimal, 2)
	f(gaugeSeries(1, 1000), DeltaBlocks, XOR, 0)
	f(counterSeries(1000), DeltaBlocks, Decimal, 0)
	f(constSeries(1000, 0.125), DeltaBlocks, Decimal, 3)
	f(constSeries(10, math.NaN()), DeltaOfDelta, XOR, 0)
	// A few odd values are patched.
	odd := walkSeries(1, 3600, 1, 1000, 0.5)
	odd.vals[0][0] = math.NaN()
	odd.vals[0][100] = math.Copysign(0, -1)
	odd.vals[0][2000] = 0.1 + 0.2
	odd.vals[0][3599] = math.Inf(1)
	f(odd, DeltaBlocks, DecimalPatched, 2)
	// Many values with more decimals raise the scale instead.
	more := walkSeries(1, 3600, 1, 1000, 0.5)
	for j := 0; j < len(more.ts); j += 10 {
		more.vals[0][j] = math.Round(more.vals[0][j]*1000+1) / 1000
	}
	f(more, DeltaBlocks, Decimal, 3)
	// Timestamps whose spacing drifts steadily suit delta-of-delta.
	s := newSeries("v")
	for i := range 2000 {
		s.add(start+int64(i*i), 1)
	}
	f(s, DeltaOfDelta, Decimal, 0)
}

func TestAppender_Aggregates(t *testing.T) {
	nan := math.NaN()
	s := newSeries("a", "b", "c")
	s.add(100, nan, 5, nan)
	s.add(200, 3, -1, nan)
	s.add(200, 7, 2.5, nan)
	s.add(300, nan, math.Inf(1), nan)
	s.add(400, -2, 0, nan)
	s.add(400, 4, 1, nan)
	s.add(500, nan, 9, nan)
	a := s.appender(t)
	got := a.Aggregates()
	want := []Aggregate{
		{Count: 4, Sum: 12, Min: -2, Max: 7, First: 3, Last: 4, FirstTime: 200, LastTime: 400},
		{Count: 7, Sum: math.Inf(1), Min: -1, Max: math.Inf(1), First: 5, Last: 9, FirstTime: 100, LastTime: 500},
		{},
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	s.check(t, a.Bytes())

	// Merging the aggregates of two halves gives those of the whole.
	left, right := newSeries("a"), newSeries("a")
	whole := walkSeries(4, 1000, 1, 1000, 0.5)
	for j, tm := range whole.ts {
		if j < 400 {
			left.add(tm, whole.vals[0][j])
		} else {
			right.add(tm, whole.vals[0][j])
		}
	}
	m := left.appender(t).Aggregates()[0].Merge(right.appender(t).Aggregates()[0])
	w := whole.appender(t).Aggregates()[0]
	if m.Count != w.Count || m.Min != w.Min || m.Max != w.Max || m.First != w.First || m.Last != w.Last ||
		m.FirstTime != w.FirstTime || m.LastTime != w.LastTime || math.Abs(m.Sum-w.Sum) > 1e-9 {
		t.Errorf("merged %+v, want %+v", m, w)
	}
	if e := (Aggregate{}); e.Merge(w) != w || w.Merge(e) != w {
		t.Errorf("merging with an empty aggregate changed it")
	}
}

// TestAppender_Aggregates_Prefixes asks for the aggregates between
// appends: each time those of the readings so far.
func TestAppender_Aggregates_Prefixes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 50 {
		s := randomSeries(r)
		a, err := NewAppender(s.fields)
		if err != nil {
			t.Fatal(err)
		}
		s.appendTo(t, a, func(j int) {
			if r.IntN(20) > 0 && j < len(s.ts)-1 {
				return
			}
			prefix := &series{fields: s.fields, ts: s.ts[:j+1], vals: make([][]float64, len(s.vals))}
			for i := range s.vals {
				prefix.vals[i] = s.vals[i][:j+1]
			}
			got, want := a.Aggregates(), prefix.aggregates()
			for i := range want {
				if !sameAggregate(got[i], want[i]) {
					t.Fatalf("after %d readings, field %d: %+v, want %+v", j+1, i, got[i], want[i])
				}
			}
		})
	}
}

func TestAppender_Reset(t *testing.T) {
	a := walkSeries(1, 100, 1, 1000, 0.5).appender(t)
	a.Reset()
	if a.Len() != 0 || a.Aggregates()[0].Count != 0 || a.MinTime() != 0 {
		t.Fatalf("after Reset: %d readings, %+v", a.Len(), a.Aggregates())
	}
	s := walkSeries(2, 50, 1, 1000, 0.5)
	for j, tm := range s.ts {
		if err := a.Append(tm, []float64{s.vals[0][j]}); err != nil {
			t.Fatal(err)
		}
	}
	s.fields = a.Fields()
	s.check(t, a.Bytes())
}

func TestDecodeAll_Columns(t *testing.T) {
	s := walkSeries(1, 1000, 3, 1000, 0.5)
	c, err := Open(s.encode(t))
	if err != nil {
		t.Fatal(err)
	}
	// Only the second field, into a larger buffer.
	vals := [][]float64{nil, make([]float64, 1500)}
	if err := c.DecodeAll(nil, vals); err != nil {
		t.Fatal(err)
	}
	for j := range 1000 {
		if vals[1][j] != s.vals[1][j] {
			t.Fatalf("reading %d = %v, want %v", j, vals[1][j], s.vals[1][j])
		}
	}
	if err := c.DecodeAll(make([]int64, 999), nil); err == nil {
		t.Error("DecodeAll into a short slice succeeded")
	}
	if err := c.DecodeAll(nil, make([][]float64, 4)); err == nil {
		t.Error("DecodeAll of 4 fields succeeded")
	}
	if err := c.DecodeField(0, make([]float64, 10)); err == nil {
		t.Error("DecodeField into a short slice succeeded")
	}
}
