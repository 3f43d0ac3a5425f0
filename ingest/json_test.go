package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/series"
)

func TestJSON_Shapes(t *testing.T) {
	want := `3 readings
SENSOR
  123
    2024-12-01T14:30:00.123Z 21.5 - "lab"
    1970-01-01T00:00:01Z - 40
  7
    0000-01-01T00:00:00Z - -
`
	readings := []string{
		`{"series": "123", "time": "2024-12-01T14:30:00.123999999+00:00", "values": {"temperature": 21.5, "humidity": null}, "tags": {"location": "lab"}}`,
		`{"time": 1000, "series": "7", "values": {}, "tags": null}`,
		`{"series": "123", "values": {"humidity": 40}, "time": "1970-01-01T01:00:01+01:00", "tags": {"location": ""}}`,
	}
	// Reorder to the expected series order: 123, 7, 123.
	readings[1], readings[2] = readings[2], readings[1]
	readings[2] = `{"time": "0000-01-01T00:00:00Z", "series": "7"}`
	for name, body := range map[string]string{
		"object": `{"readings": [` + strings.Join(readings, ",") + `]}`,
		"array":  " [\n" + strings.Join(readings, ",\n") + "]\n",
	} {
		b, err := JSON(strings.NewReader(body), "SENSOR", lookupOf(), Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkShape(t, b, lookupOf())
		if got := format(b); got != want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", name, got, want)
		}
	}
	b, err := JSONLines(strings.NewReader(strings.Join(readings, "\n\n")+"\n"), "SENSOR", lookupOf(), Options{})
	if err != nil {
		t.Fatalf("lines: %v", err)
	}
	if got := format(b); got != want {
		t.Errorf("lines:\ngot\n%s\nwant\n%s", got, want)
	}
	for _, body := range []string{`{"readings": []}`, `[]`} {
		if b, err := JSON(strings.NewReader(body), "SENSOR", lookupOf(), Options{}); err != nil || b.Readings != 0 || len(b.Kinds) != 0 {
			t.Errorf("%s: %v, %v", body, b, err)
		}
	}
	if b, err := JSONLines(strings.NewReader(""), "SENSOR", lookupOf(), Options{}); err != nil || b.Readings != 0 {
		t.Errorf("no lines: %v, %v", b, err)
	}
}

func TestJSON_Errors(t *testing.T) {
	const r = `{"series": "1", "time": 0`
	f := errorsOf(t, func(r io.Reader, o Options) (*Batch, error) { return JSON(r, "SENSOR", lookupOf(), o) })
	f(``, Options{}, `empty body: want {"readings": [...]} or [...]`)
	e := f(`"`+strings.Repeat("x", 200<<10)+`"`, Options{MaxLineBytes: 100 << 10}, `longer than 102400 bytes`)
	if !errors.Is(e, ErrTooLong) {
		t.Errorf("%v does not wrap ErrTooLong", e)
	}
	f(`readings`, Options{}, `invalid JSON: invalid character 'r' looking for beginning of value`)
	f(`"readings"`, Options{}, `the body is "readings": want {"readings": [...]} or [...]`)
	f(`{"readings": [], "more": 1}`, Options{}, `unknown or repeated key "more": want {"readings": [...]}`)
	f(`{"readings": [], "readings": []}`, Options{}, `unknown or repeated key "readings": want {"readings": [...]}`)
	f(`{"Readings": []}`, Options{}, `unknown or repeated key "Readings": want {"readings": [...]}`)
	f(`{}`, Options{}, `no "readings" key: want {"readings": [...]}`)
	f(`{"readings": {}}`, Options{}, `"readings" is an object, not an array`)
	f(`[] []`, Options{}, `text after the JSON value`)
	f(`[1]`, Options{}, `reading 1: the reading is a number, not an object`)
	f(`[`+r+`}, `+r+`, "values": {"temp": 1}}]`, Options{}, `reading 2: field "temp" is not a field of kind SENSOR`)
	f(`[`+r+`, "values": {"location": 1}}]`, Options{}, `reading 1: "location" is a tag of kind SENSOR: give it in "tags"`)
	f(`[`+r+`, "values": {"temperature": 1, "temperature": 2}}]`, Options{}, `reading 1: field "temperature" appears twice`)
	f(`[`+r+`, "values": {"temperature": "1"}}]`, Options{}, `reading 1: field "temperature": "1" is not a number`)
	f(`[`+r+`, "values": {"temperature": 1e999}}]`, Options{}, `reading 1: field "temperature": "1e999" is not a finite number`)
	f(`[`+r+`, "values": {"temperature": {"deeper": 1}}}]`, Options{}, `reading 1: values "temperature" is an object, not a number`)
	f(`[`+r+`, "values": [1]}]`, Options{}, `reading 1: "values" is an array, not an object`)
	f(`[`+r+`, "tags": {"location": 1}}]`, Options{}, `reading 1: tag "location" is a number, not a string`)
	f(`[`+r+`, "tags": {"location": ["lab"]}}]`, Options{}, `reading 1: tags "location" is an array, not a string`)
	f(`[`+r+`, "tags": {"room": "1"}}]`, Options{}, `reading 1: tag "room" is not a tag of kind SENSOR`)
	f(`[`+r+`, "tags": {"location": "a", "location": "b"}}]`, Options{}, `reading 1: tag "location" appears twice`)
	f(`[`+r+`, "colour": "red"}]`, Options{}, `reading 1: unknown key "colour": a reading has "series", "time", "values" and "tags"`)
	f(`[`+r+`, "series": "2"}]`, Options{}, `reading 1: key "series" appears twice`)
	f(`[{"time": 0}]`, Options{}, `reading 1: no "series"`)
	f(`[{"series": "1"}]`, Options{}, `reading 1: no "time"`)
	f(`[{"series": 1, "time": 0}]`, Options{}, `reading 1: "series" is a number, not a string`)
	f(`[{"series": "", "time": 0}]`, Options{}, `reading 1: series id is empty`)
	f(`[{"series": "a#1", "time": 0}]`, Options{}, `reading 1: series id "a#1" holds '#'`)
	f(`[{"series": "1", "time": "yesterday"}]`, Options{}, `reading 1: time "yesterday" is neither RFC 3339 nor an integer of milliseconds`)
	f(`[{"series": "1", "time": 1.5}]`, Options{}, `reading 1: time "1.5" is neither RFC 3339 nor an integer of milliseconds`)
	f(`[{"series": "1", "time": 253402300800000}]`, Options{}, `reading 1: time "253402300800000" is outside the years 0000-9999`)
	f(`[{"series": "1", "time": true}]`, Options{}, `reading 1: "time" is a boolean: want an RFC 3339 string or an integer of milliseconds`)
	f(`[`+r+`}, `+r+`, ]`, Options{}, `reading 2: invalid JSON: invalid character ']' looking for beginning of object key string`)
	f(`[`+r+`}, `+r, Options{}, `reading 2: invalid JSON: unexpected end`)
	e = f(`[`+r+`}, `+r+`}, `+r+`}]`, Options{MaxReadings: 2}, `reading 3: more than 2 readings`)
	if !errors.Is(e, ErrTooManyReadings) {
		t.Errorf("%v does not wrap ErrTooManyReadings", e)
	}
	long := `{"series": "1", "time": 0, "tags": {"location": "` + strings.Repeat("x", 200<<10) + `"}}`
	e = f(`[`+r+`}, `+long+`]`, Options{MaxLineBytes: 100 << 10}, `reading 2: longer than 102400 bytes`)
	if !errors.Is(e, ErrTooLong) {
		t.Errorf("%v does not wrap ErrTooLong", e)
	}
	if _, err := JSON(strings.NewReader(`[`+r+`}, `+long+`]`), "SENSOR", lookupOf(), Options{}); err != nil {
		t.Errorf("a reading of 200 KiB under the default limit: %v", err)
	}
	_, err := JSON(strings.NewReader(`[]`), "FOO", lookupOf(), Options{})
	if _, ok := err.(*Error); ok || !errors.Is(err, series.ErrUnknownKind) {
		t.Errorf("unknown kind: %v (%T), want the lookup's error", err, err)
	}
}

func TestJSONLines_Errors(t *testing.T) {
	const r = `{"series": "1", "time": 0}`
	f := errorsOf(t, func(r io.Reader, o Options) (*Batch, error) { return JSONLines(r, "SENSOR", lookupOf(), o) })
	f(r+"\n\n"+r+" "+r+"\n", Options{}, `line 3: text after the reading`)
	f(r+"\n[]\n", Options{}, `line 2: the reading is an array, not an object`)
	f(r+"\n{\"series\": \"1\",\n\"time\": 0}\n", Options{}, `line 2: invalid JSON: unexpected end`)
	f(r+"\n"+`{"series": "1", "time": 0, "values": {"x": 1}}`, Options{}, `line 2: field "x" is not a field of kind SENSOR`)
	e := f(r+"\n"+`{"series": "1", "time": 0, "tags": {"location": "`+strings.Repeat("x", 100)+`"}}`+"\n", Options{MaxLineBytes: 64}, `line 2: longer than 64 bytes`)
	if !errors.Is(e, ErrTooLong) {
		t.Errorf("%v does not wrap ErrTooLong", e)
	}
}
