package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/timetable-db/timetable/series"
)

// encodedPage is the readings answer as encoding/json writes it (the
// writer the readings route used before readingsJSON): the reference
// readingsJSON must match byte for byte.
func encodedPage(t testing.TB, sc *series.Schema, rs []series.Reading, cursor string) []byte {
	t.Helper()
	out := struct {
		Readings []readingJSON `json:"readings"`
		Cursor   string        `json:"cursor,omitempty"`
	}{Readings: make([]readingJSON, len(rs)), Cursor: cursor}
	for i, rd := range rs {
		out.Readings[i] = toJSON(sc, "", rd)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// streamedPage is the readings answer readingsJSON writes.
func streamedPage(t testing.TB, sc *series.Schema, rs []series.Reading, cursor string) []byte {
	t.Helper()
	w := newReadingsJSON(sc)
	defer w.release()
	for _, rd := range rs {
		if err := w.add(rd); err != nil {
			t.Fatal(err)
		}
	}
	return bytes.Clone(w.finish(cursor))
}

func checkSamePage(t testing.TB, sc *series.Schema, rs []series.Reading, cursor string) {
	t.Helper()
	want := encodedPage(t, sc, rs, cursor)
	if got := streamedPage(t, sc, rs, cursor); !bytes.Equal(got, want) {
		t.Fatalf("readingsJSON wrote\n%s\nencoding/json writes\n%s", got, want)
	}
}

// extremes are floats whose formatting has edge cases: signed zeros, the
// switches to and from exponent form, 17 significant digits, subnormals
// and the largest finite values.
var extremes = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 0.3, 1.0 / 3, 2.0 / 3, 123456789.12345678,
	0.1 + 0.2, 1e-6, 9.999999999999999e-7, 1e-7, 1.5e-9, 1e20, 1e21, 9.999999999999999e20,
	123456789012345678901234567890.0, 1e100, -1e-100, math.MaxFloat64, -math.MaxFloat64,
	math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 4.35, 21.53, 1013.25,
	math.Nextafter(1, 2), math.Nextafter(1, 0), float64(1 << 53), float64(1<<53 + 2),
}

// randomFloat returns one of extremes, a two-decimal reading, or any
// finite float64 (random bits).
func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(4) {
	case 0:
		return extremes[r.IntN(len(extremes))]
	case 1:
		return float64(r.IntN(200001)-100000) / 100
	case 2:
		return math.NaN() // absent
	}
	for {
		if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}

var tagSamples = []string{"", "plain", "site 7", `q"uote\back`, "<b>&amp;", "tab\tnew\nline\r", "\x00\x01\x1f\x7f", "\b\f", "é 日本 🎉", "\u2028\u2029", "bad\xffutf8\xc3", "\xed\xa0\x80"}

// The streamed answer is byte for byte encoding/json's on random pages:
// fields and tags in any declared order (the maps' keys are sorted),
// values missing (NaN, or a short slice), extremes, tags that need
// escaping, times from the first year to the last, with and without a
// cursor.
func TestReadingsJSON_SameAsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	schemas := []series.Schema{
		{Name: "A", Fields: []string{"v"}},
		{Name: "B", Fields: []string{"f3", "f1", "f2"}},
		{Name: "C", Fields: []string{"temperature", "humidity", "Pressure", "wind_speed"}, Tags: []string{"location", "host"}},
		{Name: "D", Fields: []string{"é", "z\"q", "a<b"}, Tags: []string{"t\u2028", "a"}},
	}
	for round := range 300 {
		sc := &schemas[round%len(schemas)]
		rs := make([]series.Reading, r.IntN(20))
		for i := range rs {
			ms := r.Int64N(253402300800000+62167219200000) - 62167219200000 // years 0 to 9999
			rd := series.Reading{Time: time.UnixMilli(ms), Values: make([]float64, r.IntN(len(sc.Fields)+2))}
			for j := range rd.Values {
				rd.Values[j] = randomFloat(r)
			}
			if len(sc.Tags) > 0 {
				rd.Tags = make([]string, r.IntN(len(sc.Tags)+2))
				for j := range rd.Tags {
					rd.Tags[j] = tagSamples[r.IntN(len(tagSamples))]
				}
			}
			rs[i] = rd
		}
		cursor := ""
		if round%2 == 1 {
			cursor = "YzAAAAGbjAyqmAAAAAAAAAAA"
		}
		checkSamePage(t, sc, rs, cursor)
	}
	// Every extreme on its own, with a missing field beside it.
	sc := &schemas[1]
	for _, f := range extremes {
		checkSamePage(t, sc, []series.Reading{{Time: time.UnixMilli(1700000000123), Values: []float64{f, math.NaN(), -f}}}, "")
	}
	checkSamePage(t, sc, nil, "")
	// Times at the bounds the store holds, and outside them.
	for _, ms := range []int64{-62167219200000, 253402300799999, -62167219200001, 253402300800000, 0, -1, 951782400000} {
		checkSamePage(t, sc, []series.Reading{{Time: time.UnixMilli(ms), Values: []float64{1}}}, "")
	}
}

// A pooled buffer left by a longer answer does not leak into the next.
func TestReadingsJSON_ReusedBuffer(t *testing.T) {
	sc := &series.Schema{Name: "A", Fields: []string{"v"}}
	long := make([]series.Reading, 500)
	for i := range long {
		long[i] = series.Reading{Time: time.UnixMilli(int64(i) * 1000), Values: []float64{float64(i) / 7}}
	}
	for range 3 {
		checkSamePage(t, sc, long, "c")
		checkSamePage(t, sc, long[:1], "")
	}
}

// An infinite value, which JSON cannot carry, is an error the route
// answers as one (encoding/json fails on it too).
func TestReadingsJSON_Infinity(t *testing.T) {
	sc := &series.Schema{Name: "A", Fields: []string{"v"}}
	w := newReadingsJSON(sc)
	defer w.release()
	err := w.add(series.Reading{Time: time.UnixMilli(0), Values: []float64{math.Inf(-1)}})
	var ae *apiError
	if !errors.As(err, &ae) || ae.status != http.StatusInternalServerError {
		t.Fatalf("add(-Inf) = %v, want a 500 apiError", err)
	}
}

func FuzzReadingsJSON(f *testing.F) {
	f.Add(int64(1700000000123), math.Float64bits(21.53), math.Float64bits(math.Copysign(0, -1)), "site 7", "f")
	f.Add(int64(-62135596800000), math.Float64bits(1e21), math.Float64bits(1e-7), "\b\u2028\xff", "é")
	f.Fuzz(func(t *testing.T, ms int64, a, b uint64, tag, field string) {
		if field == "x" {
			t.Skip() // the other field's name
		}
		sc := &series.Schema{Name: "F", Fields: []string{field, "x"}, Tags: []string{"t"}}
		rd := series.Reading{Time: time.UnixMilli(ms), Values: []float64{math.Float64frombits(a), math.Float64frombits(b)}, Tags: []string{tag}}
		for _, v := range rd.Values {
			if math.IsInf(v, 0) {
				t.Skip()
			}
		}
		checkSamePage(t, sc, []series.Reading{rd, rd}, tag)
	})
}
