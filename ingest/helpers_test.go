package ingest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/timetable-db/timetable/series"
)

// sensor is the schema of most tests.
var sensor = series.Schema{Name: "SENSOR", Fields: []string{"temperature", "humidity"}, Tags: []string{"location"}}

// meter has no tags.
var meter = series.Schema{Name: "METER", Fields: []string{"kwh"}}

// lookup knows sensor and meter, and counts its calls.
type lookup map[string]int

func (l lookup) fn(kind string) (series.Schema, error) {
	l[kind]++
	switch kind {
	case "SENSOR":
		return sensor, nil
	case "METER":
		return meter, nil
	}
	return series.Schema{}, fmt.Errorf("%w: %q", series.ErrUnknownKind, kind)
}

func lookupOf() Lookup { return lookup{}.fn }

var nan = math.NaN()

func ms(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// format writes a batch for comparisons: kinds, series and readings in
// order, NaN as "-", a reading without tags as it is with all "".
func format(b *Batch) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d readings\n", b.Readings)
	n := 0
	for _, k := range b.Kinds {
		fmt.Fprintf(&sb, "%s\n", k.Kind)
		for _, s := range k.Series {
			fmt.Fprintf(&sb, "  %s\n", s.ID)
			for _, r := range s.Readings {
				n++
				fmt.Fprintf(&sb, "    %s %s\n", r.Time.UTC().Format(time.RFC3339Nano), formatReading(r))
			}
		}
	}
	if n != b.Readings {
		fmt.Fprintf(&sb, "Readings is %d, the batch holds %d\n", b.Readings, n)
	}
	return sb.String()
}

func formatReading(r series.Reading) string {
	var sb strings.Builder
	for i, v := range r.Values {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if math.IsNaN(v) {
			sb.WriteByte('-')
		} else {
			fmt.Fprintf(&sb, "%v", v)
		}
	}
	for _, t := range r.Tags {
		fmt.Fprintf(&sb, " %q", t)
	}
	return sb.String()
}

// checkShape fails unless every reading of b has the lengths of its
// kind's schema, UTC times to the millisecond, and no slice shared
// beyond its length.
func checkShape(t testing.TB, b *Batch, lookup Lookup) {
	t.Helper()
	for _, k := range b.Kinds {
		s, err := lookup(k.Kind)
		if err != nil {
			t.Fatalf("kind %s: %v", k.Kind, err)
		}
		for _, sr := range k.Series {
			for _, r := range sr.Readings {
				if len(r.Values) != len(s.Fields) || r.Tags != nil && len(r.Tags) != len(s.Tags) {
					t.Fatalf("%s %s: %d values and %d tags, schema has %d and %d", k.Kind, sr.ID, len(r.Values), len(r.Tags), len(s.Fields), len(s.Tags))
				}
				if cap(r.Values) != len(r.Values) || cap(r.Tags) != len(r.Tags) {
					t.Fatalf("%s %s: slices of capacity %d and %d beyond their lengths", k.Kind, sr.ID, cap(r.Values), cap(r.Tags))
				}
				if r.Time.Location() != time.UTC || r.Time.Nanosecond()%1e6 != 0 {
					t.Fatalf("%s %s: time %v is not UTC milliseconds", k.Kind, sr.ID, r.Time)
				}
			}
		}
	}
}

// sameReading reports whether a and b are the same reading: equal times,
// values equal bit for bit or both NaN (absent; missing values count as
// NaN), tags equal ("" and missing alike).
func sameReading(a, b series.Reading) bool {
	if !a.Time.Equal(b.Time) {
		return false
	}
	for i := range max(len(a.Values), len(b.Values)) {
		x, y := at(a.Values, i, nan), at(b.Values, i, nan)
		if !(math.IsNaN(x) && math.IsNaN(y)) && math.Float64bits(x) != math.Float64bits(y) {
			return false
		}
	}
	for i := range max(len(a.Tags), len(b.Tags)) {
		if at(a.Tags, i, "") != at(b.Tags, i, "") {
			return false
		}
	}
	return true
}

func at[T any](s []T, i int, zero T) T {
	if i < len(s) {
		return s[i]
	}
	return zero
}

// sameBatch returns "" if a and b hold the same kinds, series and
// readings in the same order, else what differs.
func sameBatch(a, b *Batch) string {
	if len(a.Kinds) != len(b.Kinds) || a.Readings != b.Readings {
		return fmt.Sprintf("%d kinds and %d readings, then %d and %d", len(a.Kinds), a.Readings, len(b.Kinds), b.Readings)
	}
	for i, ka := range a.Kinds {
		kb := b.Kinds[i]
		if ka.Kind != kb.Kind || len(ka.Series) != len(kb.Series) {
			return fmt.Sprintf("kind %s of %d series, then %s of %d", ka.Kind, len(ka.Series), kb.Kind, len(kb.Series))
		}
		for j, sa := range ka.Series {
			sb := kb.Series[j]
			if sa.ID != sb.ID || len(sa.Readings) != len(sb.Readings) {
				return fmt.Sprintf("series %q of %d readings, then %q of %d", sa.ID, len(sa.Readings), sb.ID, len(sb.Readings))
			}
			for n := range sa.Readings {
				if !sameReading(sa.Readings[n], sb.Readings[n]) {
					return fmt.Sprintf("series %q reading %d: %v %s, then %v %s", sa.ID, n,
						sa.Readings[n].Time, formatReading(sa.Readings[n]), sb.Readings[n].Time, formatReading(sb.Readings[n]))
				}
			}
		}
	}
	return ""
}

// wantError fails unless err is an *Error whose message is want.
// errorsOf returns a check that decode, given in and o, fails with the
// *Error want and no batch; the check returns that error.
func errorsOf(t *testing.T, decode func(r io.Reader, o Options) (*Batch, error)) func(in string, o Options, want string) *Error {
	return func(in string, o Options, want string) *Error {
		t.Helper()
		b, err := decode(strings.NewReader(in), o)
		if b != nil {
			t.Errorf("%q: a batch with the error", in)
		}
		return wantError(t, err, want)
	}
}

func wantError(t testing.TB, err error, want string) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %v (%T), want *Error %q", err, err, want)
	}
	if e.Error() != want {
		t.Fatalf("error %q, want %q", e.Error(), want)
	}
	return e
}

// canonicalTags returns the tag set of "k=v,..." as the line-protocol
// library reads it, sorted: the identity of the set.
func canonicalTags(t testing.TB, set string) string {
	t.Helper()
	d := lineprotocol.NewDecoderWithBytes([]byte("m," + set + " f=1"))
	d.Next()
	if _, err := d.Measurement(); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for {
		k, v, err := d.NextTag()
		if err != nil {
			t.Fatal(err)
		}
		if k == nil {
			break
		}
		tags = append(tags, fmt.Sprintf("%q=%q", k, v))
	}
	slices.Sort(tags)
	return strings.Join(tags, ",")
}
