package ingest

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/series"
)

// randomBatch returns a batch of kind s as the decoders would return it:
// a few series, readings with random times (0000-9999, to the
// millisecond), values (absent, -0, tiny, huge) and tags (absent, any
// UTF-8 but "\r", which CSV does not keep before a "\n").
func randomBatch(rng *rand.Rand, s series.Schema) *Batch {
	kb := KindBatch{Kind: s.Name}
	n := 0
	for i := range 1 + rng.IntN(4) {
		sr := series.SeriesReadings{ID: []string{"123", "a b", `x="q",y`, "ünïcode", "_", "line\nbreak"}[i]}
		for range rng.IntN(20) {
			r := series.Reading{Time: time.UnixMilli(minMs + rng.Int64N(maxMs-minMs)).UTC(), Values: make([]float64, len(s.Fields))}
			for j := range r.Values {
				r.Values[j] = randomValue(rng)
			}
			if rng.IntN(3) > 0 {
				r.Tags = make([]string, len(s.Tags))
				for j := range r.Tags {
					r.Tags[j] = []string{"", "lab", "a,b", `"`, "\n", " lead", "日本", "\\", "<&>", "\t\x01"}[rng.IntN(10)]
				}
			}
			sr.Readings = append(sr.Readings, r)
			n++
		}
		if len(sr.Readings) > 0 {
			kb.Series = append(kb.Series, sr)
		}
	}
	if n == 0 {
		return &Batch{}
	}
	return &Batch{Kinds: []KindBatch{kb}, Readings: n}
}

func randomValue(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.SmallestNonzeroFloat64
	case 3:
		return -math.MaxFloat64
	case 4:
		return float64(rng.Int64())
	}
	return math.Float64frombits(rng.Uint64()&^(0x7ff<<52) | uint64(rng.IntN(0x7ff))<<52) // finite
}

// encodeJSONLines writes a batch of one kind with WriteJSONLines.
func encodeJSONLines(t testing.TB, s series.Schema, b *Batch) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, k := range b.Kinds {
		for _, sr := range k.Series {
			if err := WriteJSONLines(&buf, s, sr.ID, sr.Readings); err != nil {
				t.Fatal(err)
			}
		}
	}
	return buf.Bytes()
}

// encodeCSV writes a batch of one kind with a CSVWriter.
func encodeCSV(t testing.TB, s series.Schema, b *Batch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewCSVWriter(&buf, s)
	for _, k := range b.Kinds {
		for _, sr := range k.Series {
			if err := w.Write(sr.ID, sr.Readings...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// asJSON turns JSON lines into a JSON body {"readings": [...]}.
func asJSON(lines []byte) []byte {
	body := strings.Join(strings.Split(strings.TrimSuffix(string(lines), "\n"), "\n"), ",\n")
	return []byte(`{"readings": [` + body + `]}`)
}

// What WriteJSONLines and CSVWriter write, JSONLines, JSON and CSV read
// back: the same series in the same order, the same readings (NaN as
// absent, -0 kept).
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		want := randomBatch(rng, sensor)
		lines := encodeJSONLines(t, sensor, want)
		for name, decode := range map[string]func() (*Batch, error){
			"json lines": func() (*Batch, error) { return JSONLines(bytes.NewReader(lines), "SENSOR", lookupOf(), Options{}) },
			"json":       func() (*Batch, error) { return JSON(bytes.NewReader(asJSON(lines)), "SENSOR", lookupOf(), Options{}) },
			"csv": func() (*Batch, error) {
				return CSV(bytes.NewReader(encodeCSV(t, sensor, want)), "SENSOR", lookupOf(), Options{})
			},
		} {
			got, err := decode()
			if err != nil {
				t.Fatalf("batch %d, %s: %v\n%s", i, name, err, lines)
			}
			checkShape(t, got, lookupOf())
			if diff := sameBatch(want, got); diff != "" {
				t.Fatalf("batch %d, %s: %s", i, name, diff)
			}
		}
	}
}

// Positive control: the comparison of the round trip sees a changed value,
// time or tag, an absent value for a present one, and a lost -0.
func TestRoundTrip_Control(t *testing.T) {
	base := series.Reading{Time: time.UnixMilli(5).UTC(), Values: []float64{1, nan}, Tags: []string{"lab"}}
	b := func(r series.Reading) *Batch {
		return &Batch{Kinds: []KindBatch{{Kind: "SENSOR", Series: []series.SeriesReadings{{ID: "1", Readings: []series.Reading{r}}}}}, Readings: 1}
	}
	if d := sameBatch(b(base), b(series.Reading{Time: base.Time, Values: []float64{1}, Tags: []string{"lab", ""}})); d != "" {
		t.Fatalf("the same reading differs: %s", d)
	}
	for _, r := range []series.Reading{
		{Time: base.Time.Add(time.Millisecond), Values: base.Values, Tags: base.Tags},
		{Time: base.Time, Values: []float64{2, nan}, Tags: base.Tags},
		{Time: base.Time, Values: []float64{1, 0}, Tags: base.Tags},
		{Time: base.Time, Values: []float64{nan, nan}, Tags: base.Tags},
		{Time: base.Time, Values: base.Values, Tags: []string{"lab2"}},
		{Time: base.Time, Values: base.Values},
	} {
		if sameBatch(b(base), b(r)) == "" {
			t.Errorf("%v %s reads as %v %s", r.Time, formatReading(r), base.Time, formatReading(base))
		}
	}
	if sameBatch(b(series.Reading{Time: base.Time, Values: []float64{0}}), b(series.Reading{Time: base.Time, Values: []float64{math.Copysign(0, -1)}})) == "" {
		t.Error("-0 reads as 0")
	}
}

func TestWriteJSONLines(t *testing.T) {
	var buf bytes.Buffer
	rs := []series.Reading{
		{Time: ms("2024-12-01T14:30:00.123999Z"), Values: []float64{21.5, nan}, Tags: []string{"lab"}},
		{Time: ms("2024-12-01T15:30:00+01:00"), Values: []float64{nan}},
		{Time: ms("2024-12-01T14:30:00Z"), Tags: []string{""}},
	}
	if err := WriteJSONLines(&buf, sensor, `1"<`, rs); err != nil {
		t.Fatal(err)
	}
	want := `{"series":"1\"\u003c","time":"2024-12-01T14:30:00.123Z","values":{"temperature":21.5},"tags":{"location":"lab"}}
{"series":"1\"\u003c","time":"2024-12-01T14:30:00.000Z"}
{"series":"1\"\u003c","time":"2024-12-01T14:30:00.000Z"}
`
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	for _, r := range []series.Reading{
		{Time: time.Unix(0, 0), Values: []float64{math.Inf(1)}},
		{Time: time.Unix(0, 0), Values: []float64{1, 2, 3}},
		{Time: time.Unix(0, 0), Tags: []string{"a", "b"}},
		{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if err := WriteJSONLines(&bytes.Buffer{}, sensor, "1", []series.Reading{r}); err == nil {
			t.Errorf("%v %s: no error", r.Time, formatReading(r))
		}
	}
}

func TestCSVWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewCSVWriter(&buf, sensor)
	if err := w.Write("1", series.Reading{Time: ms("2024-12-01T14:30:00.5Z"), Values: []float64{1e21, nan}, Tags: []string{"a,b"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write("2", series.Reading{Time: ms("2024-12-01T14:30:00Z")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "series,time,temperature,humidity,location\n1,2024-12-01T14:30:00.500Z,1e+21,,\"a,b\"\n2,2024-12-01T14:30:00.000Z,,,\n"
	if buf.String() != want {
		t.Fatalf("got\n%q\nwant\n%q", buf.String(), want)
	}
	// No rows: the header alone.
	buf.Reset()
	if err := NewCSVWriter(&buf, meter).Flush(); err != nil || buf.String() != "series,time,kwh\n" {
		t.Fatalf("no rows: %q, %v", buf.String(), err)
	}
	// A column named like series or time cannot be told apart.
	err := NewCSVWriter(&buf, series.Schema{Name: "X", Fields: []string{"time"}}).Flush()
	if err == nil {
		t.Fatal("a field named time: no error")
	}
	// A writer's error is returned, and kept.
	w = NewCSVWriter(errWriter{}, meter)
	w.Write("1", series.Reading{Time: time.Unix(0, 0)})
	if err := w.Flush(); !errors.Is(err, errWrite) {
		t.Fatalf("Flush: %v", err)
	}
	if err := w.Write("1"); !errors.Is(err, errWrite) {
		t.Fatalf("Write after an error: %v", err)
	}
}

var errWrite = errors.New("write failed")

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errWrite }
