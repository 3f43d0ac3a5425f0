package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/timetable-db/timetable/series"
)

var now = ms("2024-12-01T14:30:00.123456Z")

func TestLineProtocol_Mapping(t *testing.T) {
	f := func(in string, o Options, want string) {
		t.Helper()
		if o.Now.IsZero() {
			o.Now = now
		}
		b, err := LineProtocol(strings.NewReader(in), lookupOf(), o)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		checkShape(t, b, lookupOf())
		if got := format(b); got != want {
			t.Fatalf("%q:\ngot\n%s\nwant\n%s", in, got, want)
		}
	}
	// The series tag names the series and, not being a schema tag, is not
	// stored; location is. Integers, unsigned and booleans are numbers.
	f("SENSOR,location=lab,series=123 temperature=21.5,humidity=40i 1733063400000000000\n", Options{}, `1 readings
SENSOR
  123
    2024-12-01T14:30:00Z 21.5 40 "lab"
`)
	f("SENSOR humidity=7u,temperature=t 1\nSENSOR temperature=f 2", Options{}, `2 readings
SENSOR
  _
    1970-01-01T00:00:00Z 1 7
    1970-01-01T00:00:00Z 0 -
`)
	// Without a series tag, the sorted tag set, escaped; a string field
	// named as a schema tag is the tag; no time is Options.Now, to the
	// millisecond.
	f(`SENSOR,z=1,a\,b=x\=y\z temperature=1,location="hall"`, Options{}, `1 readings
SENSOR
  a\,b=x\=y\\z,z=1
    2024-12-01T14:30:00.123Z 1 - "hall"
`)
	// Kinds in order of first appearance, series too, readings in input
	// order; comments, blank lines and leading spaces skipped.
	f("# header\n\nMETER,series=m1 kwh=1 3000\n  SENSOR,series=a temperature=1 1000\r\nMETER,series=m2 kwh=2 1000\n#\nMETER,series=m1 kwh=3 2000\n",
		Options{Precision: Millisecond}, `4 readings
METER
  m1
    1970-01-01T00:00:03Z 1
    1970-01-01T00:00:02Z 3
  m2
    1970-01-01T00:00:01Z 2
SENSOR
  a
    1970-01-01T00:00:01Z 1 -
`)
	// Precisions; times before 1970 round down like series.
	for _, c := range []struct {
		p    Precision
		ts   string
		want string
	}{
		{Nanosecond, "-1", "1969-12-31T23:59:59.999Z"},
		{Microsecond, "1500", "1970-01-01T00:00:00.001Z"},
		{Millisecond, "-253402300800000", ""},
		{Second, "253402300799", "9999-12-31T23:59:59Z"},
		{Minute, "-62167219200", ""},
		{Minute, "1", "1970-01-01T00:01:00Z"},
		{Hour, "-17268672", "0000-01-01T00:00:00Z"},
	} {
		b, err := LineProtocol(strings.NewReader("METER kwh=1 "+c.ts), lookupOf(), Options{Precision: c.p})
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s %s: accepted %v, want an error", c.ts, c.p, b.Kinds[0].Series[0].Readings[0].Time)
		case c.want == "":
		case err != nil:
			t.Errorf("%s %s: %v", c.ts, c.p, err)
		case b.Kinds[0].Series[0].Readings[0].Time.Format(time.RFC3339Nano) != c.want:
			t.Errorf("%s %s: %v, want %s", c.ts, c.p, b.Kinds[0].Series[0].Readings[0].Time, c.want)
		}
	}
	// Nothing: an empty batch.
	f("", Options{}, "0 readings\n")
	f("# only a comment\n\n", Options{}, "0 readings\n")
}

// Two tag sets never give one series id, whatever their bytes.
func TestLineProtocol_TagSetIDs(t *testing.T) {
	sets := []string{`a=b\,c`, `a=b,c=d`, `a\,b=c`, `a=b\=c`, `a\=b=c`, `a=x\y`, `a=x\\y`, `a=x\y,c=d`, `a=b\ c`, `a=b`, `a=b,b=a`, `b=a,a=b`}
	ids := map[string]string{}
	sets2 := map[string]bool{}
	for _, s := range sets {
		b, err := LineProtocol(strings.NewReader("METER,"+s+" kwh=1 1"), lookupOf(), Options{})
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		// Decode the tags back with the library's own decoder to tell
		// which sets are the same set.
		key := canonicalTags(t, s)
		sets2[key] = true
		id := b.Kinds[0].Series[0].ID
		if other, ok := ids[id]; ok && other != key {
			t.Errorf("tag sets %s and %s give one id %q", other, key, id)
		}
		ids[id] = key
	}
	if len(ids) != len(sets2) || len(ids) < len(sets)-1 {
		t.Errorf("%d ids of %d tag sets: %v", len(ids), len(sets2), ids)
	}
}

func TestLineProtocol_Errors(t *testing.T) {
	f := errorsOf(t, func(r io.Reader, o Options) (*Batch, error) { return LineProtocol(r, lookupOf(), o) })
	e := f("METER kwh=1\nFOO x=1", Options{}, `line 2: unknown kind "FOO"`)
	if !errors.Is(e, series.ErrUnknownKind) {
		t.Errorf("%v does not wrap the lookup's error", e)
	}
	f("SENSOR temp=1", Options{}, `line 1: field "temp" is not a field of kind SENSOR`)
	f("SENSOR note=\"x\"", Options{}, `line 1: string field "note" is not a tag of kind SENSOR`)
	f("SENSOR temperature=\"hot\"", Options{}, `line 1: field "temperature" of kind SENSOR is a number, not a string`)
	f("SENSOR location=1i", Options{}, `line 1: field "location" is a tag of kind SENSOR: give it as a tag or a string field, not an integer`)
	f("SENSOR,location=a location=\"b\"", Options{}, `line 1: tag "location" is given twice`)
	f("SENSOR,a=1,a=2 temperature=1", Options{}, `line 1: tag "a" appears twice`)
	f("SENSOR temperature=1,temperature=2", Options{}, `line 1: field "temperature" appears twice`)
	f("SENSOR,series=a#b temperature=1", Options{}, `line 1: series id "a#b" holds '#'`)
	f("SENSOR,series="+strings.Repeat("x", 513)+" temperature=1", Options{}, `line 1: series id "`+strings.Repeat("x", 64)+`"... is longer than 512 bytes`)
	f("SENSOR temperature=1 253402300800", Options{Precision: Second}, `line 1: timestamp "253402300800" (s) is outside the years 0000-9999`)
	f("SENSOR temperature=1 99999999999999999999", Options{}, `line 1: timestamp "99999999999999999999" (ns) is outside the years 0000-9999`)
	f("SENSOR temperature=1 9223372036854775807", Options{Precision: Hour}, `line 1: timestamp "9223372036854775807" (h) is outside the years 0000-9999`)
	f("SENSOR temperature=1 1-2", Options{}, `line 1: invalid timestamp "1-2"`)
	// Syntax errors are the library's.
	f("\n\nSENSOR\n", Options{}, `line 3: expected tag key or field but found '\n' instead`)
	f("SENSOR temperature=1e999", Options{}, `line 1: cannot parse value for field key "temperature": line-protocol value out of range`)
	f("SENSOR temperature=tru", Options{}, `line 1: cannot parse value for field key "temperature": invalid bool value "tru"`)
	f("SENSOR temperature=bad", Options{}, `line 1: field value has unrecognized type`)
	// Line numbers count comments, blank lines and the lines of a string
	// field holding a newline; the error names the entry's first line.
	f("# a\n\nSENSOR,series=1 location=\"a\nb\",temperature=1 1\n\nSENSOR temp=1 2\n", Options{}, `line 6: field "temp" is not a field of kind SENSOR`)
	f("METER kwh=1\nSENSOR location=\"a\nb\",temp=1 2\n", Options{}, `line 2: field "temp" is not a field of kind SENSOR`)
	e = f("METER kwh=1\nMETER kwh=2\nMETER kwh=3\n", Options{MaxReadings: 2}, `line 3: more than 2 readings`)
	if !errors.Is(e, ErrTooManyReadings) {
		t.Errorf("%v does not wrap ErrTooManyReadings", e)
	}
	if _, err := LineProtocol(strings.NewReader("METER kwh=1\nMETER kwh=2\n"), lookupOf(), Options{MaxReadings: 2}); err != nil {
		t.Errorf("MaxReadings 2, 2 readings: %v", err)
	}
}

// A line or entry over MaxLineBytes is refused, also when what was read
// of it would make a valid entry, and whatever the size of its pieces.
func TestLineProtocol_TooLong(t *testing.T) {
	f := func(in string, max int, want string) {
		t.Helper()
		for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in))} {
			_, err := LineProtocol(r, lookupOf(), Options{MaxLineBytes: max})
			if e := wantError(t, err, want); !errors.Is(e, ErrTooLong) {
				t.Errorf("%v does not wrap ErrTooLong", e)
			}
		}
	}
	f("METER kwh=1\nMETER kwh=1234567890123456789\n", 24, "line 2: longer than 24 bytes")
	f("METER kwh=1\n# a long comment, a long comment\n", 24, "line 2: longer than 24 bytes")
	f("METER kwh=1\n                                            \n", 24, "line 2: longer than 24 bytes")
	f("METER kwh=1\nSENSOR location=\"a\nb\nc\nd\ne\nf\ng\",temperature=1\n", 24, "line 2: longer than 24 bytes")
	// Positive control: the same lines pass a larger limit.
	for _, in := range []string{"METER kwh=1\nMETER kwh=1234567890123456789\n", "METER kwh=1\nSENSOR location=\"a\nb\nc\nd\ne\nf\ng\",temperature=1\n"} {
		if _, err := LineProtocol(iotest.OneByteReader(strings.NewReader(in)), lookupOf(), Options{MaxLineBytes: 64}); err != nil {
			t.Errorf("%q with a 64-byte limit: %v", in, err)
		}
	}
	// The default: 1 MiB.
	long := "METER,series=" + strings.Repeat("x", DefaultMaxLineBytes) + " kwh=1\n"
	f2 := func(in string) error {
		_, err := LineProtocol(strings.NewReader(in), lookupOf(), Options{})
		return err
	}
	if err := f2(long); !errors.Is(err, ErrTooLong) {
		t.Errorf("a line over 1 MiB: %v", err)
	}
	if err := f2("METER,series=" + strings.Repeat("x", 500) + " kwh=1\n"); err != nil {
		t.Errorf("a line of 520 bytes: %v", err)
	}
}

// An error of the reader is returned wrapped, not as an *Error, also
// when what was read before makes valid entries.
func TestLineProtocol_ReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("METER kwh=1\nMETER kwh=12"), iotest.ErrReader(boom))
	_, err := LineProtocol(r, lookupOf(), Options{})
	var e *Error
	if !errors.Is(err, boom) || errors.As(err, &e) {
		t.Fatalf("error %v (%T), want one wrapping the reader's", err, err)
	}
}

// The lookup runs once per kind and call.
func TestLineProtocol_LookupOnce(t *testing.T) {
	l := lookup{}
	if _, err := LineProtocol(strings.NewReader("METER kwh=1\nSENSOR temperature=1\nMETER kwh=2\nSENSOR temperature=2\n"), l.fn, Options{}); err != nil {
		t.Fatal(err)
	}
	if l["METER"] != 1 || l["SENSOR"] != 1 {
		t.Fatalf("lookups %v, want one per kind", l)
	}
}

func TestParsePrecision(t *testing.T) {
	for in, want := range map[string]Precision{"": Nanosecond, "n": Nanosecond, "ns": Nanosecond, "u": Microsecond, "us": Microsecond, "ms": Millisecond, "s": Second, "m": Minute, "h": Hour} {
		if p, err := ParsePrecision(in); err != nil || p != want {
			t.Errorf("ParsePrecision(%q) = %v, %v, want %v", in, p, err, want)
		}
	}
	if _, err := ParsePrecision("d"); err == nil || err.Error() != `ingest: unknown precision "d": want ns, us, ms, s, m or h` {
		t.Errorf("ParsePrecision(d): %v", err)
	}
}
