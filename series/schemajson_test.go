package series

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
)

// The example of docs/http-api.md.
const docSchemaJSON = `{"name": "SENSOR", "fields": ["temperature", "humidity"], "tags": ["location"],
 "layout": "chunks", "duplicates": "last_wins",
 "rollups": ["hour", "day", "month"], "retention": {"raw": "30d", "hour": "365d", "day": "forever", "month": "forever"},
 "shards": 1, "bucket_period": "day", "metric_index": false, "no_compaction": false}`

func TestSchema_UnmarshalJSON_Doc(t *testing.T) {
	var s Schema
	if err := json.Unmarshal([]byte(docSchemaJSON), &s); err != nil {
		t.Fatal(err)
	}
	n, err := s.normalize()
	if err != nil {
		t.Fatal(err)
	}
	want := Schema{Name: "SENSOR", Fields: []string{"temperature", "humidity"}, Tags: []string{"location"},
		Rollups: []keys.Granularity{keys.Hour, keys.Day, keys.Month}, BucketPeriod: keys.Day, Shards: 1, IndexShards: 1,
		Retention: Retention{Raw: 30 * day, Hourly: 365 * day, Daily: Forever, Monthly: Forever}}
	if !sameSchema(n, want) {
		t.Fatalf("got %+v\nwant %+v", n, want)
	}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	const out = `{"name":"SENSOR","fields":["temperature","humidity"],"tags":["location"],"layout":"chunks","duplicates":"last_wins",` +
		`"rollups":["hour","day","month"],"no_rollups":false,"retention":{"raw":"30d","hour":"365d","day":"forever","month":"forever"},` +
		`"shards":1,"bucket_period":"day","metric_index":false,"index_shards":1,"no_compaction":false}`
	if string(b) != out {
		t.Fatalf("marshalled\n%s\nwant\n%s", b, out)
	}
}

func TestSchema_UnmarshalJSON_Errors(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "empty document"},
		{`[]`, "want an object"},
		{`{"name": "S", "colour": "red"}`, `unknown field "colour"`},
		{`{"name": "S", "retention": {"raw": "30d", "week": "1d"}}`, `unknown field "week"`},
		{`{"name": "S", "layout": "columns"}`, `unknown layout "columns"`},
		{`{"name": "S", "layout": 2}`, `"layout": want a string`},
		{`{"name": "S", "duplicates": "first_wins"}`, `unknown duplicate rule "first_wins"`},
		{`{"name": "S", "rollups": ["week"]}`, `unknown tier "week"`},
		{`{"name": "S", "bucket_period": "year"}`, `unknown tier "year"`},
		{`{"name": "S", "retention": {"raw": "30 days"}}`, `retention "30 days"`},
		{`{"name": "S", "retention": {"raw": "0s"}}`, `must be positive`},
		{`{"name": "S", "retention": {"raw": "-1d"}}`, `retention "-1d"`},
		{`{"name": "S", "retention": {"raw": "999999999d"}}`, `too long`},
		{`{"name": "S", "shards": "2"}`, `"shards": want a number`},
		{`{"name": "S", "fields": "a"}`, `"fields": want an array`},
		{`{"name": "S"} {}`, `data after the schema`},
		{`{"name": "S"`, `truncated`},
		{`{"name": 'S'}`, `bad JSON`},
	}
	for _, c := range cases {
		var s Schema
		err := json.Unmarshal([]byte(c.in), &s)
		if c.in == `` || c.in == `{"name": "S"} {}` || c.in == `{"name": "S"` || c.in == `{"name": 'S'}` {
			err = s.UnmarshalJSON([]byte(c.in)) // json.Unmarshal checks the syntax first
		}
		if !errors.Is(err, ErrInvalidSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrInvalidSchema with %q", c.in, err, c.want)
		}
	}
	// A positive control: the same member names, good values.
	var s Schema
	if err := json.Unmarshal([]byte(`{"name": "S", "layout": "day_partitioned", "duplicates": "keep-all", "retention": {"raw": "1d12h"}}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Layout != DayPartitioned || s.Duplicates != KeepAll || s.Retention.Raw != 36*time.Hour {
		t.Fatalf("%+v", s)
	}
}

func TestParseRetention(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"forever": Forever, "30d": 30 * day, "36h": 36 * time.Hour, "90m": 90 * time.Minute, "1d12h": 36 * time.Hour, "1.5s": 1500 * time.Millisecond,
	} {
		got, err := ParseRetention(in)
		if err != nil || got != want {
			t.Errorf("ParseRetention(%q) = %v, %v; want %v", in, got, err, want)
		}
		if f := formatRetention(got); f != in && !(in == "1d12h" && f == "36h") {
			t.Errorf("formatRetention(%v) = %q, want %q", got, f, in)
		}
	}
	for _, in := range []string{"", "d", "+1d", "1e3d", "1dd", "-1h", "0d", "forever!", "1d-1h"} {
		if d, err := ParseRetention(in); err == nil {
			t.Errorf("ParseRetention(%q) = %v, want an error", in, d)
		}
	}
}

// randomSchema returns a random valid schema.
func randomSchema(r *rand.Rand) Schema {
	names := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, prefix+string(rune('a'+i))+"é")
		}
		return out
	}
	tiers := []keys.Granularity{keys.Hour, keys.Day, keys.Month}
	rets := []time.Duration{0, Forever, time.Hour, 36 * time.Hour, 30 * day, 90 * time.Minute, 1500 * time.Millisecond}
	s := Schema{
		Name: "K" + string(rune('A'+r.IntN(26))), Fields: names("f", r.IntN(5)), Tags: names("t", r.IntN(3)),
		Layout: Layout(r.IntN(4)), Duplicates: DuplicateRule(r.IntN(3)), NoCompaction: r.IntN(2) == 0,
		BucketPeriod: []keys.Granularity{0, keys.Hour, keys.Day, keys.Month}[r.IntN(4)],
		Shards:       r.IntN(5), MetricIndex: r.IntN(2) == 0, IndexShards: r.IntN(3),
		Retention: Retention{rets[r.IntN(len(rets))], rets[r.IntN(len(rets))], rets[r.IntN(len(rets))], rets[r.IntN(len(rets))]},
	}
	switch r.IntN(3) {
	case 0:
		s.NoRollups = true
	case 1:
		for _, g := range tiers {
			if r.IntN(2) == 0 {
				s.Rollups = append(s.Rollups, g)
			}
		}
		if s.Rollups == nil {
			s.Rollups = []keys.Granularity{}
		}
	}
	return s
}

// TestSchema_JSONRoundTrip: a schema, normalised or not, reads back from
// its JSON as it was, and normalises to the same schema.
func TestSchema_JSONRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := randomSchema(r)
		n, err := s.normalize()
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		for _, x := range []Schema{s, n} {
			b, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			var back Schema
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			bn, err := back.normalize()
			if err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			if !sameSchema(bn, n) {
				t.Fatalf("%s\nreads back as %+v\nwant %+v", b, bn, n)
			}
		}
		if b, _ := json.Marshal(n); true {
			var back Schema
			_ = json.Unmarshal(b, &back)
			if !sameSchema(back, n) {
				t.Fatalf("normalised %s reads back as %+v, want it unchanged", b, back)
			}
		}
	}
}

func FuzzSchema_UnmarshalJSON(f *testing.F) {
	f.Add([]byte(docSchemaJSON))
	f.Add([]byte(`{"name": "S", "rollups": [], "no_rollups": true, "retention": {"raw": "1d12h"}}`))
	f.Add([]byte(`{"name": "S", "layout": "buckets", "bucket_period": "month", "shards": 4}`))
	f.Add([]byte(`{"name": "S", "retention": {"raw": "999999999d"}}`))
	f.Add([]byte(`{"name": 1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Schema
		if err := s.UnmarshalJSON(b); err != nil {
			if !errors.Is(err, ErrInvalidSchema) {
				t.Fatalf("error %v does not wrap ErrInvalidSchema", err)
			}
			return
		}
		n, err := s.normalize()
		if err != nil {
			return
		}
		out, err := json.Marshal(n)
		if err != nil {
			t.Fatalf("%+v: %v", n, err)
		}
		var back Schema
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if !sameSchema(back, n) {
			t.Fatalf("%s reads back as %+v, want %+v", out, back, n)
		}
	})
}
