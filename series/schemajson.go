package series

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/keys"
)

// Schema JSON is the schema's form in the table (the stored schemas of
// Store.Define) and in the HTTP API (docs/http-api.md):
//
//	{"name": "SENSOR", "fields": ["temperature", "humidity"], "tags": ["location"],
//	 "layout": "chunks", "duplicates": "last_wins",
//	 "rollups": ["hour", "day", "month"], "no_rollups": false,
//	 "retention": {"raw": "30d", "hour": "90d", "day": "730d", "month": "forever"},
//	 "shards": 1, "bucket_period": "day", "metric_index": false, "index_shards": 1,
//	 "no_compaction": false, "meta": {"type": "counter", "help": "...", "unit": "seconds"}}
//
// Durations are whole days ("30d"), Go durations ("36h", "90m", "1d12h")
// or "forever". A member left out, or null, takes its zero value (so its
// default once the schema is normalised); "rollups": [] keeps no tier.

// schemaJSON is Schema's JSON form.
type schemaJSON struct {
	Name         string         `json:"name"`
	Fields       []string       `json:"fields"`
	Tags         []string       `json:"tags"`
	Layout       Layout         `json:"layout"`
	Duplicates   DuplicateRule  `json:"duplicates"`
	Rollups      []tierJSON     `json:"rollups"`
	NoRollups    bool           `json:"no_rollups"`
	Retention    *retentionJSON `json:"retention,omitempty"`
	Shards       int            `json:"shards,omitempty"`
	BucketPeriod *tierJSON      `json:"bucket_period,omitempty"`
	MetricIndex  bool           `json:"metric_index"`
	IndexShards  int            `json:"index_shards,omitempty"`
	NoCompaction bool           `json:"no_compaction"`
	Meta         *metaJSON      `json:"meta,omitempty"`
}

// metaJSON is Meta's JSON form; an empty Meta is left out.
type metaJSON struct {
	Type string `json:"type,omitempty"`
	Help string `json:"help,omitempty"`
	Unit string `json:"unit,omitempty"`
}

type retentionJSON struct {
	Raw   retentionDur `json:"raw,omitempty"`
	Hour  retentionDur `json:"hour,omitempty"`
	Day   retentionDur `json:"day,omitempty"`
	Month retentionDur `json:"month,omitempty"`
}

// MarshalJSON encodes s as Schema JSON. A zero retention, shard count or
// bucket period (the defaults) is left out; Rollups nil without NoRollups
// (all tiers) is null.
func (s Schema) MarshalJSON() ([]byte, error) {
	j := schemaJSON{
		Name: s.Name, Fields: s.Fields, Tags: s.Tags, Layout: s.Layout, Duplicates: s.Duplicates,
		NoRollups: s.NoRollups, Shards: s.Shards, MetricIndex: s.MetricIndex, IndexShards: s.IndexShards,
		NoCompaction: s.NoCompaction,
	}
	if s.Meta != (Meta{}) {
		j.Meta = &metaJSON{s.Meta.Type, s.Meta.Help, s.Meta.Unit}
	}
	if j.Fields == nil {
		j.Fields = []string{}
	}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if s.Rollups != nil || s.NoRollups {
		j.Rollups = make([]tierJSON, len(s.Rollups))
		for i, g := range s.Rollups {
			j.Rollups[i] = tierJSON(g)
		}
	}
	if s.BucketPeriod != 0 {
		bp := tierJSON(s.BucketPeriod)
		j.BucketPeriod = &bp
	}
	if r := s.Retention; r != (Retention{}) {
		j.Retention = &retentionJSON{retentionDur(r.Raw), retentionDur(r.Hourly), retentionDur(r.Daily), retentionDur(r.Monthly)}
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes Schema JSON into s. Unknown members, trailing
// data and bad values (an unknown layout, duplicate rule or tier, a
// duration that does not parse or is not positive) are errors wrapping
// ErrInvalidSchema. It does not normalise or validate the schema beyond
// that: Open, Define and Change do.
func (s *Schema) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var j schemaJSON
	if err := dec.Decode(&j); err != nil {
		if errors.Is(err, ErrInvalidSchema) {
			return err // from an UnmarshalText below, which names the value
		}
		return fmt.Errorf("%w: %s", ErrInvalidSchema, jsonMessage(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: data after the schema", ErrInvalidSchema)
	}
	out := Schema{
		Name: j.Name, Fields: j.Fields, Tags: j.Tags, Layout: j.Layout, Duplicates: j.Duplicates,
		NoRollups: j.NoRollups, Shards: j.Shards, MetricIndex: j.MetricIndex, IndexShards: j.IndexShards,
		NoCompaction: j.NoCompaction,
	}
	if j.Rollups != nil {
		out.Rollups = make([]keys.Granularity, len(j.Rollups))
		for i, g := range j.Rollups {
			out.Rollups[i] = keys.Granularity(g)
		}
	}
	if j.BucketPeriod != nil {
		out.BucketPeriod = keys.Granularity(*j.BucketPeriod)
	}
	if r := j.Retention; r != nil {
		out.Retention = Retention{time.Duration(r.Raw), time.Duration(r.Hour), time.Duration(r.Day), time.Duration(r.Month)}
	}
	if m := j.Meta; m != nil {
		out.Meta = Meta{m.Type, m.Help, m.Unit}
	}
	*s = out
	return nil
}

// jsonMessage is the message of a JSON decoding error, without the Go
// type names encoding/json puts in it.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			want := jsonKind(te.Type.Kind().String())
			if reflect.PointerTo(te.Type).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
				want = "a string"
			}
			return fmt.Sprintf("member %q: want %s, got %s", te.Field, want, te.Value)
		}
		return fmt.Sprintf("want an object, got %s", te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("bad JSON at byte %d: %v", se.Offset, err)
	}
	if errors.Is(err, io.EOF) {
		return "empty document"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated JSON"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names a Go kind as JSON does.
func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"), strings.HasPrefix(k, "float"):
		return "a number"
	case k == "slice":
		return "an array"
	case k == "struct", k == "map", k == "ptr":
		return "an object"
	case k == "bool":
		return "true or false"
	}
	return "a " + k
}

// MarshalText returns the layout's JSON name: "chunks",
// "item_per_reading", "day_partitioned" or "buckets".
func (l Layout) MarshalText() ([]byte, error) {
	if !l.known() {
		return nil, fmt.Errorf("%w: unknown layout %d", ErrInvalidSchema, l)
	}
	return []byte(layouts[l].json), nil
}

// UnmarshalText parses a layout's JSON name (or its String, with '-'
// for '_').
func (l *Layout) UnmarshalText(b []byte) error {
	names := make([]string, len(layouts))
	for i := range layouts {
		names[i] = layouts[i].json
	}
	i, err := parseName(string(b), "layout", names)
	*l = Layout(i)
	return err
}

var duplicateNames = []string{LastWins: "last_wins", KeepAll: "keep_all", RejectDifferent: "reject_different"}

// MarshalText returns the rule's JSON name: "last_wins", "keep_all" or
// "reject_different".
func (d DuplicateRule) MarshalText() ([]byte, error) {
	if int(d) >= len(duplicateNames) {
		return nil, fmt.Errorf("%w: unknown duplicate rule %d", ErrInvalidSchema, d)
	}
	return []byte(duplicateNames[d]), nil
}

// UnmarshalText parses a rule's JSON name (or its String, with '-' for
// '_').
func (d *DuplicateRule) UnmarshalText(b []byte) error {
	i, err := parseName(string(b), "duplicate rule", duplicateNames)
	*d = DuplicateRule(i)
	return err
}

// parseName returns the index of name (or of name with '-' for '_') in
// names.
func parseName(name, what string, names []string) (int, error) {
	for i, n := range names {
		if name == n || strings.ReplaceAll(name, "-", "_") == n {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown %s %q: want one of %s", ErrInvalidSchema, what, name, strings.Join(names, ", "))
}

// tierJSON is a keys.Granularity as "hour", "day" or "month".
type tierJSON keys.Granularity

var tierNames = map[keys.Granularity]string{keys.Hour: "hour", keys.Day: "day", keys.Month: "month"}

func (t tierJSON) MarshalText() ([]byte, error) {
	if n, ok := tierNames[keys.Granularity(t)]; ok {
		return []byte(n), nil
	}
	return nil, fmt.Errorf("%w: unknown tier %d", ErrInvalidSchema, t)
}

func (t *tierJSON) UnmarshalText(b []byte) error {
	for g, n := range tierNames {
		if string(b) == n {
			*t = tierJSON(g)
			return nil
		}
	}
	return fmt.Errorf("%w: unknown tier %q: want hour, day or month", ErrInvalidSchema, b)
}

// retentionDur is a retention as "30d", "36h" or "forever".
type retentionDur time.Duration

const day = 24 * time.Hour

func (r retentionDur) MarshalText() ([]byte, error) {
	return []byte(formatRetention(time.Duration(r))), nil
}

func (r *retentionDur) UnmarshalText(b []byte) error {
	d, err := ParseRetention(string(b))
	*r = retentionDur(d)
	return err
}

// formatRetention formats a retention as ParseRetention reads it: whole
// days as "30d", else whole hours or minutes as "36h" or "90m", Forever as
// "forever", anything else as Go does ("1.5s").
func formatRetention(d time.Duration) string {
	switch {
	case d == Forever:
		return "forever"
	case d > 0 && d%day == 0:
		return strconv.FormatInt(int64(d/day), 10) + "d"
	case d > 0 && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d > 0 && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// ParseRetention parses a retention of Schema JSON: "forever" (Forever),
// a whole number of days with an optional Go duration after it ("30d",
// "1d12h"), or a Go duration ("36h", "90m"). It must be positive; the
// error wraps ErrInvalidSchema.
func ParseRetention(s string) (time.Duration, error) {
	bad := func(why string) (time.Duration, error) {
		return 0, fmt.Errorf("%w: retention %q: %s", ErrInvalidSchema, s, why)
	}
	if s == "forever" {
		return Forever, nil
	}
	var d time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil || n < 0 || s[:i] == "" || s[0] == '+' {
			return bad(`want a whole number of days before "d"`)
		}
		if n > int64(maxRetention/day) {
			return bad("too long")
		}
		d = time.Duration(n) * day
		rest = s[i+1:]
	}
	if rest != "" {
		e, err := time.ParseDuration(rest)
		if err != nil || e < 0 {
			return bad(`want "forever", days such as "30d" or a duration such as "36h"`)
		}
		if e > maxRetention-d {
			return bad("too long")
		}
		d += e
	}
	if d <= 0 {
		return bad(`must be positive (or "forever")`)
	}
	return d, nil
}

// maxRetention is the longest retention ParseRetention takes (some 290
// years, about what a time.Duration holds, rounded down to whole days).
const maxRetention = time.Duration(1<<63-1) / day * day
