package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/timetable-db/timetable/series"
)

// LineProtocol decodes InfluxDB line protocol (parsed by
// github.com/influxdata/line-protocol/v2) into readings:
//
//   - the measurement is the kind (looked up once per request);
//   - the series id is the value of the tag named "series" if the entry
//     has one, else the entry's tags sorted by key, "k=v,k=v", with ',',
//     '=' and '\' escaped by a '\' in keys and values (so two tag sets
//     never give one id), or "_" for an entry without tags;
//   - a tag whose name is one of the schema's tags is also the reading's
//     tag, and so is a string field of that name;
//   - a field whose name is one of the schema's fields is its value:
//     float, integer (i), unsigned (u), boolean as 1 or 0 (integers beyond
//     2^53 lose precision as float64s do);
//   - the timestamp is read in o.Precision; an entry without one takes
//     o.Now.
//
// Anything else is an *Error naming the entry's first line: a syntax
// error, an unknown kind (Err is the Lookup's error), a field not of the
// schema, a string field that is not a tag, a numeric field named as a
// tag, a field or tag given twice, a timestamp outside the years
// 0000-9999, a series id series refuses (empty, over 512 bytes, holding
// '#'), more than o.MaxReadings readings, an entry or line over
// o.MaxLineBytes. Blank lines and comment lines (starting with '#') are
// skipped. Values the entry does not give are NaN.
func LineProtocol(r io.Reader, lookup Lookup, o Options) (*Batch, error) {
	b := newBuilder(lookup, &o, "")
	f := newFeed(r, o.maxLine())
	d := lineprotocol.NewDecoder(f)
	e := lpEntry{b: b, d: d, prec: o.Precision}
	for d.Next() {
		line := f.begin()
		if err := e.decode(line); err != nil {
			if f.err != nil && f.err != io.EOF {
				return nil, readErr(f.err, "line protocol")
			}
			return nil, err
		}
		f.end()
	}
	if f.err != nil && f.err != io.EOF {
		return nil, readErr(f.err, "line protocol")
	}
	return b.batch(), nil
}

// readErr returns err, an *Error of the feed or the reader's error,
// wrapped with what was being read.
func readErr(err error, what string) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return fmt.Errorf("ingest: cannot read %s: %w", what, err)
}

// lpEntry decodes entries, with scratch space they share.
type lpEntry struct {
	b    *builder
	d    *lineprotocol.Decoder
	prec Precision
	now  time.Time // Options.now(), read at the first entry without a time

	buf    []byte    // the entry's tag keys and values, field keys and strings
	tags   []tagSpan // into buf
	fields []lpField
	id     []byte
	seen   []bool // fields, then tags, given by the entry
}

// tagSpan is a tag of an entry: key buf[k:v], value buf[v:end].
type tagSpan struct{ k, v, end int }

// lpField is a field of an entry: key buf[k:v], a string buf[v:end],
// another value num.
type lpField struct {
	tagSpan
	kind lineprotocol.ValueKind
	num  float64
}

// span appends key and val to buf and returns where they are.
func (e *lpEntry) span(key, val []byte) tagSpan {
	t := tagSpan{k: len(e.buf)}
	e.buf = append(e.buf, key...)
	t.v = len(e.buf)
	e.buf = append(e.buf, val...)
	t.end = len(e.buf)
	return t
}

// lacking returns the names of the entry's fields and tags that kind k
// (nil: none) lacks: numbers and booleans are fields, tags and strings
// are tags; the tag "series" (the series id) is not one.
func (e *lpEntry) lacking(k *kind) (fields, tags []string) {
	has := func(name []byte) bool { // a field or a tag of k
		if k == nil {
			return false
		}
		_, f := index(k.s.Fields, k.fields, name)
		_, t := index(k.s.Tags, k.tags, name)
		return f || t
	}
	for _, t := range e.tags {
		key := e.key(t)
		if string(key) != "series" && !has(key) {
			tags = append(tags, string(key))
		}
	}
	for _, f := range e.fields {
		key := e.key(f.tagSpan)
		switch {
		case has(key):
		case f.kind == lineprotocol.String:
			if !slices.Contains(tags, string(key)) {
				tags = append(tags, string(key))
			}
		default:
			fields = append(fields, string(key))
		}
	}
	return fields, tags
}

func (e *lpEntry) key(t tagSpan) []byte { return e.buf[t.k:t.v] }
func (e *lpEntry) val(t tagSpan) []byte { return e.buf[t.v:t.end] }

// syntax returns the *Error of a decoding error in what ("kind", "tag",
// "field", "time") at line: one of bytes that are not UTF-8 names what
// holds them, as JSON and CSV do.
func (e *lpEntry) syntax(line int, what string, err error) error {
	var de *lineprotocol.DecodeError
	if errors.As(err, &de) {
		err = de.Err
	}
	if strings.Contains(err.Error(), "invalid utf-8") {
		return e.b.errf(line, "%s is not UTF-8: %v", what, err)
	}
	return e.b.errf(line, "%v", err)
}

// decode decodes the entry at line, from its measurement to its time.
func (e *lpEntry) decode(line int) error {
	b, d := e.b, e.d
	m, err := d.Measurement()
	if err != nil {
		return e.syntax(line, "kind", err)
	}
	k, err := b.kind(m)
	open := b.o.Grow != nil
	name := ""
	if err != nil {
		if !open || !errors.Is(err, series.ErrUnknownKind) {
			reason := fmt.Sprintf("kind %q: %v", m, err)
			if errors.Is(err, series.ErrUnknownKind) {
				reason = fmt.Sprintf("unknown kind %q", m)
			}
			return &Error{Line: line, Reason: reason, Err: err}
		}
		name = string(m) // m is the decoder's until the next call
	}

	// Tags, sorted: the series id, and tags of the kind.
	e.buf, e.tags, e.fields = e.buf[:0], e.tags[:0], e.fields[:0]
	for {
		key, val, err := d.NextTag()
		if err != nil {
			return e.syntax(line, "tag", err)
		}
		if key == nil {
			break
		}
		e.tags = append(e.tags, e.span(key, val))
	}
	cmpTags := func(a, c tagSpan) int { return bytes.Compare(e.key(a), e.key(c)) }
	if !slices.IsSortedFunc(e.tags, cmpTags) {
		slices.SortFunc(e.tags, cmpTags)
	}
	var id []byte
	for i, t := range e.tags {
		key := e.key(t)
		if i > 0 && bytes.Equal(key, e.key(e.tags[i-1])) {
			return b.errf(line, "tag %q appears twice", key)
		}
		if string(key) == "series" {
			id = e.val(t)
		}
	}
	fromTag := id != nil
	if id == nil {
		id = e.tagSetID()
	}

	// Fields, kept until the kind is known to hold them.
	for {
		key, val, err := d.NextField()
		if err != nil {
			return e.syntax(line, "field", err)
		}
		if key == nil {
			break
		}
		f := lpField{kind: val.Kind()}
		switch f.kind {
		case lineprotocol.Float:
			f.num = val.FloatV()
		case lineprotocol.Int:
			f.num = float64(val.IntV())
		case lineprotocol.Uint:
			f.num = float64(val.UintV())
		case lineprotocol.Bool:
			if val.BoolV() {
				f.num = 1
			}
		}
		var sv []byte
		if f.kind == lineprotocol.String {
			sv = val.BytesV()
		}
		f.tagSpan = e.span(key, sv)
		e.fields = append(e.fields, f)
	}
	if open {
		if fields, tags := e.lacking(k); k == nil || len(fields)+len(tags) > 0 {
			if k == nil {
				fields, tags = e.lacking(nil)
			} else {
				name = k.s.Name
			}
			if k, err = b.grow(k, name, fields, tags, series.Meta{}, line); err != nil {
				return err
			}
		}
	}

	nf := len(k.s.Fields)
	e.seen = slices.Grow(e.seen[:0], nf+len(k.s.Tags))[:nf+len(k.s.Tags)]
	clear(e.seen)
	r := series.Reading{Values: k.values()}
	for _, t := range e.tags {
		key := e.key(t)
		j, ok := index(k.s.Tags, k.tags, key)
		if !ok {
			// A tag the kind lacks is kept in the series id when the id
			// is the tag set; with a "series" tag it would be lost.
			if string(key) == "series" || !fromTag {
				continue
			}
			return b.errf(line, "tag %q is not a tag of kind %s (and the series id comes from the tag \"series\")", key, k.s.Name)
		}
		if r.Tags == nil {
			r.Tags = k.newTags()
		}
		r.Tags[j] = b.str(e.val(t))
		e.seen[nf+j] = true
	}
	for _, f := range e.fields {
		key := e.key(f.tagSpan)
		if i, ok := index(k.s.Fields, k.fields, key); ok {
			if e.seen[i] {
				return b.errf(line, "field %q appears twice", key)
			}
			e.seen[i] = true
			if f.kind == lineprotocol.String {
				return b.errf(line, "field %q of kind %s is a number, not %s", key, k.s.Name, kindName(f.kind))
			}
			r.Values[i] = f.num
			continue
		}
		j, ok := index(k.s.Tags, k.tags, key)
		switch {
		case ok && f.kind != lineprotocol.String:
			return b.errf(line, "field %q is a tag of kind %s: give it as a tag or a string field, not %s", key, k.s.Name, kindName(f.kind))
		case ok && e.seen[nf+j]:
			return b.errf(line, "tag %q is given twice", key)
		case ok:
			e.seen[nf+j] = true
			if s := e.val(f.tagSpan); len(s) > 0 {
				if r.Tags == nil {
					r.Tags = k.newTags()
				}
				r.Tags[j] = b.str(s)
			}
		case f.kind == lineprotocol.String:
			return b.errf(line, "string field %q is not a tag of kind %s", key, k.s.Name)
		default:
			return b.errf(line, "field %q is not a field of kind %s", key, k.s.Name)
		}
	}

	tb, err := d.TimeBytes()
	if err != nil {
		return e.syntax(line, "time", err)
	}
	if tb == nil {
		if e.now.IsZero() {
			e.now = b.o.now()
		}
		r.Time = e.now
	} else {
		ts, err := strconv.ParseInt(string(tb), 10, 64)
		ok := err == nil
		if ok {
			r.Time, ok = lpTime(ts, e.prec)
		}
		if !ok {
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return b.errf(line, "invalid timestamp %q", tb)
			}
			return b.errf(line, "timestamp %s (%s) is outside the years 0000-9999", clip(string(tb)), e.prec)
		}
	}
	return b.add(k, id, r, line)
}

// tagSetID returns the series id of an entry without a "series" tag:
// its tags (sorted) as "k=v,k=v", escaped, or "_" without tags; a tag set
// longer than series takes is hashed (shortID). The result is valid until
// the next call.
func (e *lpEntry) tagSetID() []byte {
	if len(e.tags) == 0 {
		return []byte("_")
	}
	e.id = e.id[:0]
	for i, t := range e.tags {
		if i > 0 {
			e.id = append(e.id, ',')
		}
		e.id = appendEscaped(e.id, e.key(t))
		e.id = append(e.id, '=')
		e.id = appendEscaped(e.id, e.val(t))
	}
	e.id = shortID(e.id)
	return e.id
}

// appendEscaped appends s with ',', '=' and '\' escaped by a '\'.
func appendEscaped(dst, s []byte) []byte {
	for _, c := range s {
		if c == ',' || c == '=' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst
}

// lpTime returns the time of timestamp ts in precision p, truncated to
// the millisecond, and whether series can store it.
func lpTime(ts int64, p Precision) (time.Time, bool) {
	var unit int64 // milliseconds of p, for p of a millisecond or more
	switch p {
	case Nanosecond:
		return msTime(floorDiv(ts, 1e6))
	case Microsecond:
		return msTime(floorDiv(ts, 1e3))
	case Millisecond:
		return msTime(ts)
	case Second:
		unit = 1e3
	case Minute:
		unit = 60e3
	case Hour:
		unit = 3600e3
	default:
		return time.Time{}, false
	}
	if ts > math.MaxInt64/unit || ts < math.MinInt64/unit {
		return time.Time{}, false
	}
	return msTime(ts * unit)
}

// floorDiv returns a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// kindName names a line-protocol value kind in an error: "a string",
// "a float", "an integer", "an unsigned integer", "a boolean".
func kindName(k lineprotocol.ValueKind) string {
	switch k {
	case lineprotocol.String:
		return "a string"
	case lineprotocol.Float:
		return "a float"
	case lineprotocol.Int:
		return "an integer"
	case lineprotocol.Uint:
		return "an unsigned integer"
	case lineprotocol.Bool:
		return "a boolean"
	}
	return k.String()
}

// index returns the position of name in names, which m maps: a scan for
// a few names (cheaper than hashing), else the map.
func index(names []string, m map[string]int, name []byte) (int, bool) {
	if len(names) > 8 {
		i, ok := m[string(name)]
		return i, ok
	}
	for i, n := range names {
		if n == string(name) {
			return i, true
		}
	}
	return 0, false
}
