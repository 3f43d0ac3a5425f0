package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCSV_Rows(t *testing.T) {
	in := "humidity,location,time,series,temperature\n" +
		"40,lab,2024-12-01T14:30:00.123456Z,123,21.5\n" +
		",,1000,7,\n" +
		"1e3,\"a, \"\"quoted\"\"\nlabel\",1970-01-01T00:00:02Z,123,-0.5\n"
	b, err := CSV(strings.NewReader(in), "SENSOR", lookupOf(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, b, lookupOf())
	want := `3 readings
SENSOR
  123
    2024-12-01T14:30:00.123Z 21.5 40 "lab"
    1970-01-01T00:00:02Z -0.5 1000 "a, \"quoted\"\nlabel"
  7
    1970-01-01T00:00:01Z - -
`
	if got := format(b); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A header alone: no readings.
	if b, err := CSV(strings.NewReader("series,time\n"), "SENSOR", lookupOf(), Options{}); err != nil || b.Readings != 0 {
		t.Fatalf("header alone: %v, %v", b, err)
	}
}

func TestCSV_Errors(t *testing.T) {
	f := errorsOf(t, func(r io.Reader, o Options) (*Batch, error) { return CSV(r, "SENSOR", lookupOf(), o) })
	const h = "series,time,temperature,location\n"
	f("", Options{}, `line 1: no header row: want series,time,<field or tag>...`)
	f("series,time,colour\n", Options{}, `line 1: column "colour" is not series, time or a field or tag of kind SENSOR`)
	f("series,time,time\n", Options{}, `line 1: column "time" appears twice`)
	f("time,temperature\n", Options{}, `line 1: no "series" column: want series,time,<field or tag>...`)
	f("series,temperature\n", Options{}, `line 1: no "time" column: want series,time,<field or tag>...`)
	f(h+"1,0,1,lab\n1,0,hot,lab\n", Options{}, `line 3: field "temperature": "hot" is not a finite number`)
	f(h+"1,0,NaN,lab\n", Options{}, `line 2: field "temperature": "NaN" is not a finite number`)
	f(h+"1,0,1e999,lab\n", Options{}, `line 2: field "temperature": "1e999" is not a finite number`)
	f(h+"1,0,1\n", Options{}, `line 2: the row has a different number of cells than the header`)
	f(h+"1,0,1,\"lab\n\"\n2,0,1,la\"b\n", Options{}, `line 4: invalid CSV: bare " in non-quoted-field`)
	f(h+",0,1,lab\n", Options{}, `line 2: empty series`)
	f(h+"1,,1,lab\n", Options{}, `line 2: empty time`)
	f(h+"1,noon,1,lab\n", Options{}, `line 2: time "noon" is neither RFC 3339 nor an integer of milliseconds`)
	f(h+"a#b,0,1,lab\n", Options{}, `line 2: series id "a#b" holds '#'`)
	f(h+"1,0,1,\xff\n", Options{}, `line 2: tag "location": "\xff" is not UTF-8`)
	f(h+"\xff,0,1,lab\n", Options{}, `line 2: series id "\xff" is not UTF-8`)
	e := f(h+"1,0,1,lab\n1,1,1,lab\n", Options{MaxReadings: 1}, `line 3: more than 1 readings`)
	if !errors.Is(e, ErrTooManyReadings) {
		t.Errorf("%v does not wrap ErrTooManyReadings", e)
	}
	long := strings.Repeat("x", 200<<10)
	e = f(h+"1,0,1,lab\n1,0,1,"+long+"\n", Options{MaxLineBytes: 100 << 10}, `line 3: longer than 102400 bytes`)
	if !errors.Is(e, ErrTooLong) {
		t.Errorf("%v does not wrap ErrTooLong", e)
	}
	if _, err := CSV(strings.NewReader(h+"1,0,1,lab\n1,0,1,"+long+"\n"), "SENSOR", lookupOf(), Options{}); err != nil {
		t.Errorf("a row of 200 KiB under the default limit: %v", err)
	}
}
