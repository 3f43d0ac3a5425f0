package ingest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/timetable-db/timetable/series"
)

// timeFormat is how the encoders write times: RFC 3339 in UTC, to the
// millisecond (finer digits are dropped, as series drops them).
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// WriteJSONLines writes readings of series id of kind as JSON lines, one
// Reading object of docs/http-api.md per line, which JSONLines reads
// back:
//
//	{"series":"123","time":"2024-12-01T14:30:00.000Z","values":{"temperature":21.5},"tags":{"location":"lab"}}
//
// Absent values (NaN) and tags ("") are left out, and so is "values" or
// "tags" when nothing of it is present. It returns an error, having
// written the readings before, for a reading with more values or tags
// than the schema or an infinite value (JSON has no such number).
func WriteJSONLines(w io.Writer, kind series.Schema, id string, rs []series.Reading) error {
	head := append(appendJSONString([]byte(`{"series":`), id), `,"time":"`...)
	buf := make([]byte, 0, 256)
	for _, r := range rs {
		if err := check(&kind, r); err != nil {
			return err
		}
		buf = append(buf[:0], head...)
		buf = toUTC(r.Time).AppendFormat(buf, timeFormat)
		buf = append(buf, '"')
		n := 0
		for i, v := range r.Values {
			if !math.IsNaN(v) {
				buf = appendMember(buf, n, "values", kind.Fields[i])
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
				n++
			}
		}
		if n > 0 {
			buf = append(buf, '}')
		}
		n = 0
		for i, t := range r.Tags {
			if t != "" {
				buf = appendMember(buf, n, "tags", kind.Tags[i])
				buf = appendJSONString(buf, t)
				n++
			}
		}
		if n > 0 {
			buf = append(buf, '}')
		}
		buf = append(buf, "}\n"...)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// appendMember appends the start of the n-th member name of the object
// named object: `,"object":{"name":` for the first, `,"name":` after.
func appendMember(buf []byte, n int, object, name string) []byte {
	if n == 0 {
		buf = append(append(append(buf, `,"`...), object...), `":{`...)
	} else {
		buf = append(buf, ',')
	}
	return append(appendJSONString(buf, name), ':')
}

// check returns an error if r cannot be encoded for kind s.
func check(s *series.Schema, r series.Reading) error {
	if len(r.Values) > len(s.Fields) || len(r.Tags) > len(s.Tags) {
		return fmt.Errorf("ingest: a reading of %d values and %d tags, kind %s has %d fields and %d tags",
			len(r.Values), len(r.Tags), s.Name, len(s.Fields), len(s.Tags))
	}
	if _, ok := checkTime(r.Time); !ok {
		return fmt.Errorf("ingest: a reading at %v, outside the years 0000-9999", r.Time)
	}
	for i, v := range r.Values {
		if math.IsInf(v, 0) {
			return fmt.Errorf("ingest: field %q of a reading at %v is infinite", s.Fields[i], r.Time)
		}
	}
	return nil
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it (invalid UTF-8 becomes U+FFFD).
func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}

func toUTC(t time.Time) time.Time { return t.UTC() }

// CSVWriter writes readings of one kind as CSV that CSV reads back: a
// header row, series,time then the schema's fields and tags in schema
// order, written once before the first row (or by Flush if there is
// none), then a row per reading. Absent values and tags are empty cells;
// times are RFC 3339 in UTC to the millisecond. A tag holding "\r\n"
// reads back with "\n" (encoding/csv's rule): use JSON lines to keep
// such tags exact. It is not safe for concurrent use.
type CSVWriter struct {
	s      series.Schema
	w      *csv.Writer
	header bool
	row    []string
	err    error
}

// NewCSVWriter returns a writer of readings of kind s to w. Call Flush
// when done.
func NewCSVWriter(w io.Writer, s series.Schema) *CSVWriter {
	c := &CSVWriter{s: s, w: csv.NewWriter(w), row: make([]string, 2+len(s.Fields)+len(s.Tags))}
	for _, name := range append(append([]string(nil), s.Fields...), s.Tags...) {
		if name == "series" || name == "time" {
			c.err = fmt.Errorf("ingest: kind %s has a field or tag named %q, which a CSV header cannot tell from the column of that name", s.Name, name)
		}
	}
	return c
}

func (c *CSVWriter) writeHeader() error {
	if c.header || c.err != nil {
		return c.err
	}
	c.header = true
	c.row = append(append(append(c.row[:0], "series", "time"), c.s.Fields...), c.s.Tags...)
	c.err = c.w.Write(c.row)
	return c.err
}

// Write writes a row per reading of series id. After an error every call
// returns it.
func (c *CSVWriter) Write(id string, rs ...series.Reading) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	nf := len(c.s.Fields)
	for _, r := range rs {
		if err := check(&c.s, r); err != nil {
			c.err = err
			return err
		}
		c.row[0] = id
		c.row[1] = toUTC(r.Time).Format(timeFormat)
		for i := range c.row[2:] {
			c.row[2+i] = ""
		}
		for i, v := range r.Values {
			if !math.IsNaN(v) {
				c.row[2+i] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		for i, t := range r.Tags {
			c.row[2+nf+i] = t
		}
		if c.err = c.w.Write(c.row); c.err != nil {
			return c.err
		}
	}
	return nil
}

// Flush writes the header if no row was written, and any buffered data,
// to the underlying writer; it returns the first error of the writer.
func (c *CSVWriter) Flush() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		c.err = err
	}
	return c.err
}
