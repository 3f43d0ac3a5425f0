package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/timetable-db/timetable/series"
)

// JSON decodes the readings of one kind from a JSON body: an object
// {"readings": [Reading...]} or a bare array [Reading...], where a
// Reading is the object of docs/http-api.md:
//
//	{"series": "123", "time": "2024-12-01T14:30:00.123Z", "values": {"temperature": 21.5}, "tags": {"location": "lab"}}
//
// "series" (a string) and "time" (an RFC 3339 string of any precision,
// or an integer of milliseconds since the epoch) are required; "values"
// maps fields to numbers (null: absent) and "tags" maps tags to strings
// (null or "": absent), each optional. Times are truncated to the
// millisecond, as series keeps them. Keys are matched exactly.
//
// The kind is looked up first; its error is returned as it is. Any other
// refusal is an *Error whose Line is the 1-based index of the reading
// (Item "reading"), or 0 for the body as a whole (not JSON, not of that
// shape, text after it): invalid JSON, an unknown or repeated key, a
// value of the wrong type or nested deeper than this shape, a number
// that is not finite (1e999), a field or tag not of the schema, a
// series id series refuses, more than o.MaxReadings readings, a reading
// of more than o.MaxLineBytes.
func JSON(r io.Reader, kind string, lookup Lookup, o Options) (*Batch, error) {
	b := newBuilder(lookup, &o, "reading")
	k, err := b.kind([]byte(kind))
	if err != nil {
		return nil, err
	}
	cr := &budgetReader{r: r}
	cr.mark(o.maxLine())
	u := newUTF8Reader(cr)
	dec := json.NewDecoder(u)
	dec.UseNumber()
	jd := &jsonDec{b: b, k: k, dec: dec, cr: cr, u: u, max: o.maxLine()}
	if err := jd.body(); err != nil {
		if cr.err != nil && cr.err != errBudget {
			return nil, fmt.Errorf("ingest: cannot read JSON: %w", cr.err)
		}
		return nil, err
	}
	return b.batch(), nil
}

// JSONLines decodes the readings of one kind from JSON lines
// (application/x-ndjson): one Reading object per line, as in JSON, blank
// lines skipped. Its errors are JSON's, with Line the 1-based number of
// the line (Item ""); a line of more than o.MaxLineBytes is an Error
// wrapping ErrTooLong.
func JSONLines(r io.Reader, kind string, lookup Lookup, o Options) (*Batch, error) {
	b := newBuilder(lookup, &o, "")
	k, err := b.kind([]byte(kind))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(r)
	// The limit is the larger of the buffer's capacity and the maximum;
	// +1: the '\n'.
	sc.Buffer(make([]byte, 0, min(64<<10, o.maxLine()+1)), o.maxLine()+1)
	jd := &jsonDec{b: b, k: k}
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		jd.u = newUTF8Reader(bytes.NewReader(text))
		jd.dec = json.NewDecoder(jd.u)
		jd.dec.UseNumber()
		if err := jd.reading(line); err != nil {
			return nil, err
		}
		if _, err := jd.dec.Token(); err != io.EOF {
			return nil, b.errf(line, "text after the reading")
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{Line: line + 1, Reason: fmt.Sprintf("longer than %d bytes", o.maxLine()), Err: ErrTooLong}
		}
		return nil, fmt.Errorf("ingest: cannot read JSON lines: %w", err)
	}
	return b.batch(), nil
}

// jsonDec walks the tokens of a JSON body, so that it can refuse what
// encoding/json's struct decoding lets through (repeated keys, keys
// matched without case, nesting).
type jsonDec struct {
	b   *builder
	k   *kind
	dec *json.Decoder
	cr  *budgetReader // JSON's reader; nil for JSON lines
	u   *utf8Reader   // what dec reads
	// at names what the next token is, for an error: "a key", "series
	// id", "field", "tag" (then name is its name).
	at, name string
	max      int
	n        int    // readings decoded (JSON)
	seen     []bool // fields, then tags, given by the reading
}

// jsonKeyAt names the value of a Reading's key, for an error.
var jsonKeyAt = map[string]string{"series": "series id", "time": `"time"`, "values": `a key of "values"`, "tags": `a key of "tags"`}

// token returns the next token; an error is an *Error at line. A string
// token that is not UTF-8 is refused, naming j.at.
func (j *jsonDec) token(line int) (json.Token, error) {
	t, err := j.dec.Token()
	if err != nil {
		return nil, j.tokenErr(line, err)
	}
	if j.u.notUTF8(j.dec.InputOffset()) {
		if j.name != "" {
			return nil, j.b.errf(line, "%s %s is not UTF-8", j.at, clip(j.name))
		}
		return nil, j.b.errf(line, "%s is not UTF-8", j.at)
	}
	return t, nil
}

// tokenErr returns the *Error at line of a token's error.
func (j *jsonDec) tokenErr(line int, err error) error {
	if j.cr != nil && j.cr.err == errBudget {
		return &Error{Line: line, Item: j.b.item, Reason: fmt.Sprintf("longer than %d bytes", j.max), Err: ErrTooLong}
	}
	if err == io.EOF {
		return j.b.errf(line, "invalid JSON: unexpected end")
	}
	return j.b.errf(line, "invalid JSON: %v", err)
}

// body decodes {"readings": [...]} or [...], then the end of the input.
func (j *jsonDec) body() error {
	t, err := j.dec.Token()
	if err == io.EOF {
		return j.b.errf(0, `empty body: want {"readings": [...]} or [...]`)
	}
	if err != nil {
		return j.tokenErr(0, err)
	}
	switch t {
	case json.Delim('['):
		if err := j.array(); err != nil {
			return err
		}
	case json.Delim('{'):
		found := false
		for j.dec.More() {
			t, err := j.token(0)
			if err != nil {
				return err
			}
			if t != "readings" || found {
				return j.b.errf(0, `unknown or repeated key %s: want {"readings": [...]}`, describe(t))
			}
			found = true
			if t, err := j.token(0); err != nil {
				return err
			} else if t != json.Delim('[') {
				return j.b.errf(0, `"readings" is %s, not an array`, describe(t))
			}
			if err := j.array(); err != nil {
				return err
			}
		}
		if _, err := j.token(0); err != nil { // '}'
			return err
		}
		if !found {
			return j.b.errf(0, `no "readings" key: want {"readings": [...]}`)
		}
	default:
		return j.b.errf(0, `the body is %s: want {"readings": [...]} or [...]`, describe(t))
	}
	if _, err := j.dec.Token(); err != io.EOF {
		return j.b.errf(0, "text after the JSON value")
	}
	return nil
}

// array decodes readings up to and including the ']'.
func (j *jsonDec) array() error {
	for j.dec.More() {
		j.n++
		j.cr.mark(j.max)
		if err := j.reading(j.n); err != nil {
			return err
		}
	}
	_, err := j.token(j.n + 1) // ']'
	return err
}

// describe names a token for an error message.
func describe(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return clip(v)
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", t)
}

// reading decodes one Reading object, the line-th of the input, and adds
// it to the batch.
func (j *jsonDec) reading(line int) error {
	b, k := j.b, j.k
	t, err := j.token(line)
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return b.errf(line, "the reading is %s, not an object", describe(t))
	}
	nf := len(k.s.Fields)
	j.seen = slices.Grow(j.seen[:0], nf+len(k.s.Tags))[:nf+len(k.s.Tags)]
	clear(j.seen)
	r := series.Reading{Values: k.values()}
	var id string
	var hasID, hasTime, hasValues, hasTags bool
	for j.dec.More() {
		j.at, j.name = "a key", ""
		t, err := j.token(line)
		if err != nil {
			return err
		}
		key, _ := t.(string)
		j.at = jsonKeyAt[key]
		var dup *bool
		switch key {
		case "series":
			dup = &hasID
		case "time":
			dup = &hasTime
		case "values":
			dup = &hasValues
		case "tags":
			dup = &hasTags
		default:
			return b.errf(line, `unknown key %s: a reading has "series", "time", "values" and "tags"`, clip(key))
		}
		if *dup {
			return b.errf(line, "key %q appears twice", key)
		}
		*dup = true
		v, err := j.token(line)
		if err != nil {
			return err
		}
		switch key {
		case "series":
			s, ok := v.(string)
			if !ok {
				return b.errf(line, `"series" is %s, not a string`, describe(v))
			}
			id = s
		case "time":
			tm, reason := jsonTime(v)
			if reason != "" {
				return b.errf(line, "%s", reason)
			}
			r.Time = tm
		case "values":
			if err := j.object(line, v, "values", func(name string, v json.Token) error {
				i, ok := k.fields[name]
				if !ok {
					if _, ok := k.tags[name]; ok {
						return b.errf(line, "%s is a tag of kind %s: give it in \"tags\"", clip(name), k.s.Name)
					}
					return b.errf(line, "field %s is not a field of kind %s", clip(name), k.s.Name)
				}
				if j.seen[i] {
					return b.errf(line, "field %s appears twice", clip(name))
				}
				j.seen[i] = true
				f, reason := jsonNumber(v)
				if reason != "" {
					return b.errf(line, "field %s: %s", clip(name), reason)
				}
				r.Values[i] = f
				return nil
			}); err != nil {
				return err
			}
		case "tags":
			if err := j.object(line, v, "tags", func(name string, v json.Token) error {
				i, ok := k.tags[name]
				if !ok {
					return b.errf(line, "tag %s is not a tag of kind %s", clip(name), k.s.Name)
				}
				if j.seen[nf+i] {
					return b.errf(line, "tag %s appears twice", clip(name))
				}
				j.seen[nf+i] = true
				switch s := v.(type) {
				case nil:
				case string:
					if s != "" {
						if r.Tags == nil {
							r.Tags = k.newTags()
						}
						r.Tags[i] = b.strS(s)
					}
				default:
					return b.errf(line, "tag %s is %s, not a string", clip(name), describe(v))
				}
				return nil
			}); err != nil {
				return err
			}
		}
	}
	if _, err := j.token(line); err != nil { // '}'
		return err
	}
	switch {
	case !hasID:
		return b.errf(line, `no "series"`)
	case !hasTime:
		return b.errf(line, `no "time"`)
	}
	return b.add(k, []byte(id), r, line)
}

// object decodes the members of the object that starts with token t
// (null is an empty object), calling f with each key and value token; a
// value that is an object or array is refused.
func (j *jsonDec) object(line int, t json.Token, what string, f func(string, json.Token) error) error {
	if t == nil {
		return nil
	}
	if t != json.Delim('{') {
		return j.b.errf(line, "%q is %s, not an object", what, describe(t))
	}
	for j.dec.More() {
		j.at, j.name = jsonKeyAt[what], ""
		t, err := j.token(line)
		if err != nil {
			return err
		}
		name, _ := t.(string)
		j.at, j.name = "field", name
		if what == "tags" {
			j.at = "tag"
		}
		v, err := j.token(line)
		if err != nil {
			return err
		}
		if _, ok := v.(json.Delim); ok {
			return j.b.errf(line, "%s %s is %s, not a %s", what, clip(name), describe(v), map[string]string{"values": "number", "tags": "string"}[what])
		}
		if err := f(name, v); err != nil {
			return err
		}
	}
	_, err := j.token(line) // '}'
	return err
}

// jsonNumber reads a field's value: a finite number, or null (NaN).
func jsonNumber(t json.Token) (float64, string) {
	switch v := t.(type) {
	case nil:
		return math.NaN(), ""
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return 0, fmt.Sprintf("%s is not a finite number", clip(string(v)))
		}
		return f, ""
	}
	return 0, fmt.Sprintf("%s is not a number", describe(t))
}

// jsonTime reads a reading's time: an RFC 3339 string or an integer of
// milliseconds since the epoch.
func jsonTime(t json.Token) (time.Time, string) {
	switch v := t.(type) {
	case string:
		return parseTime(v)
	case json.Number:
		return parseTime(string(v))
	}
	return time.Time{}, fmt.Sprintf(`"time" is %s: want an RFC 3339 string or an integer of milliseconds`, describe(t))
}

// parseTime reads a time, an RFC 3339 string or an integer of
// milliseconds since the epoch, truncated to the millisecond; the
// reason is "" if it is valid.
func parseTime(s string) (time.Time, string) {
	var t time.Time
	var ok bool
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		t, ok = msTime(ms)
	} else if errors.Is(err, strconv.ErrRange) {
		ok = false
	} else if p, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t, ok = checkTime(p)
	} else {
		return time.Time{}, fmt.Sprintf("time %s is neither RFC 3339 nor an integer of milliseconds", clip(s))
	}
	if !ok {
		return time.Time{}, fmt.Sprintf("time %s is outside the years 0000-9999", clip(s))
	}
	return t, ""
}
