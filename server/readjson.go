package server

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/timetable-db/timetable/internal/jsonstr"
	"github.com/timetable-db/timetable/series"
)

// readingsJSON appends the JSON of readings (a readings page's members)
// to a buffer without reflection or allocation per reading, byte for byte
// what encoding/json (HTML escaping off) makes of readingJSON: members in
// the struct's order, the values and tags maps with their keys sorted,
// floats in encoding/json's format.
type readingsJSON struct {
	pooled *[]byte // the buffer's holder in answerBufs
	buf    []byte
	fields []member // the schema's fields, by name
	tags   []member // the schema's tags, by name
	n      int      // readings appended
}

// member is a field or tag of the schema: its index and its name as a
// JSON string followed by a colon.
type member struct {
	i   int
	key []byte
}

// members returns names' members sorted by name, as encoding/json sorts
// a map's keys.
func members(names []string) []member {
	out := make([]member, len(names))
	for i, name := range names {
		out[i] = member{i, append(appendJSONString(nil, name), ':')}
	}
	slices.SortFunc(out, func(a, b member) int { return strings.Compare(names[a.i], names[b.i]) })
	return out
}

// answerBufs holds the buffers of readings answers.
var answerBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledAnswer bounds the buffers answerBufs keeps: one page of the
// largest size (10,000 readings) of a few fields fits.
const maxPooledAnswer = 4 << 20

// newReadingsJSON returns a writer of readings of schema sc, its buffer
// from answerBufs (see release), opened with `{"readings":[`.
func newReadingsJSON(sc *series.Schema) *readingsJSON {
	p := answerBufs.Get().(*[]byte)
	return &readingsJSON{pooled: p, buf: append((*p)[:0], `{"readings":[`...), fields: members(sc.Fields), tags: members(sc.Tags)}
}

// release returns the writer's buffer to answerBufs; the writer and the
// bytes finish returned are not used after.
func (w *readingsJSON) release() {
	if cap(w.buf) <= maxPooledAnswer {
		*w.pooled = w.buf[:0]
		answerBufs.Put(w.pooled)
	}
	w.buf, w.pooled = nil, nil
}

// add appends reading rd. A value encoding/json cannot encode (an
// infinity) is an error, and leaves the buffer unusable.
func (w *readingsJSON) add(rd series.Reading) error {
	b := w.buf
	if w.n > 0 {
		b = append(b, ',')
	}
	w.n++
	b = append(b, `{"time":"`...)
	b = appendTime(b, rd.Time)
	b = append(b, '"')
	open := false
	for _, m := range w.fields {
		if m.i >= len(rd.Values) {
			continue
		}
		v := rd.Values[m.i]
		if math.IsNaN(v) {
			continue
		}
		if math.IsInf(v, 0) {
			return errorf(http.StatusInternalServerError, codeInternal, "the reading at %s has an infinite value, which JSON cannot carry", rd.Time.UTC().Format(timeLayout))
		}
		b = appendOpen(b, &open, `,"values":{`)
		b = append(b, m.key...)
		b = appendFloat(b, v)
	}
	if open {
		b = append(b, '}')
	}
	open = false
	for _, m := range w.tags {
		if m.i >= len(rd.Tags) || rd.Tags[m.i] == "" {
			continue
		}
		b = appendOpen(b, &open, `,"tags":{`)
		b = append(b, m.key...)
		b = appendJSONString(b, rd.Tags[m.i])
	}
	if open {
		b = append(b, '}')
	}
	w.buf = append(b, '}')
	return nil
}

// appendTime appends t in UTC as timeLayout writes it, by hand for the
// years 0 to 9999 (all a store holds), by AppendFormat for others.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/int(time.Millisecond), 3)
	return append(b, 'Z')
}

// appendDigits appends n (0 <= n < 10^width) in width decimal digits.
func appendDigits(b []byte, n, width int) []byte {
	end := len(b) + width
	b = append(b, "0000"[:width]...)
	for i := end - 1; n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// appendOpen appends a comma if *open, else head (a map's opening), and
// sets *open.
func appendOpen(b []byte, open *bool, head string) []byte {
	if *open {
		return append(b, ',')
	}
	*open = true
	return append(b, head...)
}

// finish closes the answer with its cursor (left out when "") and the
// newline encoding/json's Encoder ends a value with, and returns it.
func (w *readingsJSON) finish(cursor string) []byte {
	w.buf = append(w.buf, ']')
	if cursor != "" {
		w.buf = append(w.buf, `,"cursor":`...)
		w.buf = appendJSONString(w.buf, cursor)
	}
	w.buf = append(w.buf, '}', '\n')
	return w.buf
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21
// on in magnitude (with a two-digit exponent where Go writes e-07). f is
// finite.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString appends s as encoding/json writes a string with HTML
// escaping off. jsonstr.Append writes the same bytes for every string
// but those with a backspace, a form feed (encoding/json: \b and \f) or
// U+2028 and U+2029 (escaped by encoding/json); those rare ones are
// written by encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	if strings.ContainsAny(s, "\b\f\u2028\u2029") {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s) // a string always encodes
		return append(b, bytes.TrimSuffix(out.Bytes(), []byte("\n"))...)
	}
	return jsonstr.Append(b, s)
}
