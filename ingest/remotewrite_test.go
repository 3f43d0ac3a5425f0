package ingest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/timetable-db/timetable/series"
)

// openLookup is a Lookup and a Grow over a map of schemas, as a store
// with open kinds: Grow appends what a kind lacks.
type openLookup map[string]series.Schema

func (o openLookup) lookup(k string) (series.Schema, error) {
	if s, ok := o[k]; ok {
		return s, nil
	}
	return series.Schema{}, fmt.Errorf("%w: %q", series.ErrUnknownKind, k)
}

func (o openLookup) grow(sc series.Schema) (series.Schema, error) {
	s := o[sc.Name]
	s.Name = sc.Name
	for _, f := range sc.Fields {
		if !slices.Contains(s.Fields, f) {
			s.Fields = append(slices.Clone(s.Fields), f)
		}
	}
	for _, t := range sc.Tags {
		if !slices.Contains(s.Tags, t) {
			s.Tags = append(slices.Clone(s.Tags), t)
		}
	}
	if sc.Meta != (series.Meta{}) {
		s.Meta = sc.Meta
	}
	if len(s.Tags) > 4 {
		return series.Schema{}, &series.LimitError{Kind: sc.Name, Limit: "tags", Max: 4, Want: len(s.Tags)}
	}
	o[sc.Name] = s
	return s, nil
}

// rw2 builds a remote write 2.0 request: series of label pairs, each
// with one sample per value, a second apart from 1000 ms.
func rw2(series ...[]string) []byte {
	syms := []string{""}
	ref := func(s string) uint64 {
		if i := slices.Index(syms, s); i >= 0 {
			return uint64(i)
		}
		syms = append(syms, s)
		return uint64(len(syms) - 1)
	}
	var body []byte
	for _, labels := range series {
		var refs, ts []byte
		for _, l := range labels {
			refs = protowire.AppendVarint(refs, ref(l))
		}
		ts = protowire.AppendTag(ts, 1, protowire.BytesType)
		ts = protowire.AppendBytes(ts, refs)
		var sm []byte
		sm = protowire.AppendTag(sm, 1, protowire.Fixed64Type)
		sm = protowire.AppendFixed64(sm, math.Float64bits(1.5))
		sm = protowire.AppendTag(sm, 2, protowire.VarintType)
		sm = protowire.AppendVarint(sm, 1000)
		ts = protowire.AppendTag(ts, 2, protowire.BytesType)
		ts = protowire.AppendBytes(ts, sm)
		body = protowire.AppendTag(body, 5, protowire.BytesType)
		body = protowire.AppendBytes(body, ts)
	}
	var head []byte
	for _, s := range syms {
		head = protowire.AppendTag(head, 4, protowire.BytesType)
		head = protowire.AppendString(head, s)
	}
	return append(head, body...)
}

func TestRemoteWrite_Mapping(t *testing.T) {
	o := openLookup{}
	b, _, err := RemoteWrite(rw2(
		[]string{"__name__", "up", "job", "a,b=c", "_x", "1"},
		[]string{"job", "z", "__name__", "up"},
		[]string{"__name__", "rule:rate:5m"},
	), RemoteWrite2, o.lookup, Options{Grow: o.grow})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Kinds) != 2 || b.Kinds[0].Kind != "up" || b.Kinds[1].Kind != "rule.rate.5m" || b.Readings != 3 {
		t.Fatalf("batch %+v", b)
	}
	var ids []string
	for _, s := range b.Kinds[0].Series {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []string{`_x=1,job=a\,b\=c`, "job=z"}) || b.Kinds[1].Series[0].ID != "_" {
		t.Fatalf("ids %q, %q", ids, b.Kinds[1].Series[0].ID)
	}
	if s := o["up"]; !slices.Equal(s.Fields, []string{"value"}) || !slices.Equal(s.Tags, []string{"~_x", "job"}) {
		t.Fatalf("schema %+v", s)
	}
	r := b.Kinds[0].Series[0].Readings[0]
	if r.Values[0] != 1.5 || r.Time.UnixMilli() != 1000 || !slices.Equal(r.Tags, []string{"1", "a,b=c"}) {
		t.Fatalf("reading %+v", r)
	}

	// Without Grow, the kind must hold the field and the tags.
	closed := openLookup{"up": {Name: "up", Fields: []string{"value"}, Tags: []string{"job"}}}
	_, _, err = RemoteWrite(rw2([]string{"__name__", "up", "job", "a", "zone", "b"}), RemoteWrite2, closed.lookup, Options{})
	if err == nil || !strings.Contains(err.Error(), `label "zone" is not a tag of kind up`) {
		t.Fatalf("closed kind: %v", err)
	}
	// A cap of Grow is an *Error naming the series.
	_, _, err = RemoteWrite(rw2([]string{"__name__", "w", "a", "1", "b", "1", "c", "1", "d", "1", "e", "1"}), RemoteWrite2, o.lookup, Options{Grow: o.grow})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, series.ErrLimit) || e.Line != 1 || e.Item != "timeseries" {
		t.Fatalf("cap: %v", err)
	}
	// A label set longer than a series id is hashed.
	long := strings.Repeat("x", 600)
	b, _, err = RemoteWrite(rw2([]string{"__name__", "up", "job", long}), RemoteWrite2, o.lookup, Options{Grow: o.grow})
	if err != nil {
		t.Fatal(err)
	}
	if id := b.Kinds[0].Series[0].ID; !strings.HasPrefix(id, HashedIDPrefix) || len(id) != len(HashedIDPrefix)+64 {
		t.Fatalf("long id %q", id)
	}
}

func TestRemoteWrite_Refusals(t *testing.T) {
	o := openLookup{}
	for _, c := range []struct {
		body []byte
		want string
	}{
		{[]byte{0x2a, 0xff}, "not a remote-write 2.0 request"},
		{rw2([]string{"job", "x"}), "no label __name__"},
		{rw2([]string{"__name__", "1up"}), "only [a-zA-Z_:]"},
		{rw2([]string{"__name__", "up", "job"}), "odd number"},
		{rw2([]string{"__name__", "up", "a", "1", "a", "2"}), `label "a" appears twice`},
		{rw2([]string{"__name__", "up", "\xff", "1"}), "not UTF-8"},
		{append(rw2([]string{"__name__", "up"}), 0x2a, 0x04, 0x0a, 0x02, 0x01, 0x63), "symbol reference 99"},
	} {
		_, _, err := RemoteWrite(c.body, RemoteWrite2, o.lookup, Options{Grow: o.grow})
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%x: %v, want %q", c.body, err, c.want)
		}
	}
}

func TestNames_RoundTrip(t *testing.T) {
	for _, c := range []struct{ metric, kind string }{
		{"up", "up"}, {"node_cpu_seconds_total", "node_cpu_seconds_total"},
		{"job:up:sum", "job.up.sum"}, {"_x", "0_x"}, {":a", "0.a"}, {"a0", "a0"},
	} {
		k, err := KindOfMetric(c.metric)
		if err != nil || k != c.kind {
			t.Errorf("KindOfMetric(%q) = %q, %v; want %q", c.metric, k, err, c.kind)
		}
		if m := MetricOfKind(k); m != c.metric {
			t.Errorf("MetricOfKind(%q) = %q, want %q", k, m, c.metric)
		}
	}
	for _, m := range []string{"", "1a", "a-b", "é", strings.Repeat("a", series.MaxKindName+1)} {
		if k, err := KindOfMetric(m); err == nil {
			t.Errorf("KindOfMetric(%q) = %q, want an error", m, k)
		}
	}
	if m := MetricOfKind("SENSOR-1"); m != "SENSOR_1" {
		t.Errorf("MetricOfKind(SENSOR-1) = %q", m)
	}
	for _, c := range []struct{ label, tag string }{
		{"job", "job"}, {"__meta", "~__meta"}, {"pk", "~pk"}, {"ttl", "~ttl"}, {"~x", "~~x"}, {"pkx", "pkx"},
	} {
		if got := TagOfLabel(c.label); got != c.tag {
			t.Errorf("TagOfLabel(%q) = %q, want %q", c.label, got, c.tag)
		}
		if got := LabelOfTag(c.tag); got != c.label {
			t.Errorf("LabelOfTag(%q) = %q, want %q", c.tag, got, c.label)
		}
	}
}

// checkBatch fails t unless every reading of b, decoded over o, is of
// the shape the Batch promises, every series id one series takes, and
// Batch.Readings their count.
func (o openLookup) checkBatch(t *testing.T, b *Batch) {
	t.Helper()
	n := 0
	for _, k := range b.Kinds {
		s := o[k.Kind]
		for _, sr := range k.Series {
			if badID([]byte(sr.ID)) != "" {
				t.Fatalf("series id %q", sr.ID)
			}
			for _, r := range sr.Readings {
				n++
				if len(r.Values) != len(s.Fields) || r.Tags != nil && len(r.Tags) > len(s.Tags) {
					t.Fatalf("reading %+v of schema %+v", r, s)
				}
			}
		}
	}
	if n != b.Readings {
		t.Fatalf("%d readings, Batch.Readings %d", n, b.Readings)
	}
}

// FuzzRemoteWrite decodes any body as both versions: no panic, every
// refusal an *Error, every reading of the shape the Batch promises.
func FuzzRemoteWrite(f *testing.F) {
	f.Add(rw2([]string{"__name__", "up", "job", "a"}, []string{"__name__", "x:y", "_a", "b"}))
	f.Add([]byte{0x0a, 0x10, 0x0a, 0x0c, 0x0a, 0x08, '_', '_', 'n', 'a', 'm', 'e', '_', '_', 0x12, 0x00})
	f.Add([]byte{})
	for _, s := range histogramSeeds() {
		f.Add(nhRequest(f, RemoteWrite1, s))
		f.Add(nhRequest(f, RemoteWrite2, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []RemoteWriteVersion{RemoteWrite1, RemoteWrite2} {
			o := openLookup{}
			b, res, err := RemoteWrite(data, v, o.lookup, Options{Grow: o.grow, MaxReadings: 1000})
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %v (%T), want an *Error", v, err, err)
				}
				continue
			}
			o.checkBatch(t, b)
			// A histogram is at most MaxHistogramBounds + 3 readings;
			// 1.0 refuses rather than drops.
			if b.Readings > res.Samples+res.Histograms*(MaxHistogramBounds+3) || v == RemoteWrite1 && res.Rejected > 0 {
				t.Fatalf("%s: %d readings of %+v", v, b.Readings, res)
			}
		}
	})
}

func TestLineProtocol_Open(t *testing.T) {
	o := openLookup{}
	in := "cpu,host=a usage_idle=98.1 1000000000\ncpu,host=a,dc=x usage_user=1i,state=\"ok\" 2000000000\ncpu,series=s1 usage_idle=1 3000000000\n"
	b, err := LineProtocol(strings.NewReader(in), o.lookup, Options{Grow: o.grow})
	if err != nil {
		t.Fatal(err)
	}
	if s := o["cpu"]; !slices.Equal(s.Fields, []string{"usage_idle", "usage_user"}) || !slices.Equal(s.Tags, []string{"host", "dc", "state"}) {
		t.Fatalf("schema %+v", s)
	}
	k := b.Kinds[0]
	if len(k.Series) != 3 || k.Series[0].ID != "host=a" || k.Series[1].ID != "dc=x,host=a" || k.Series[2].ID != "s1" {
		t.Fatalf("series %+v", k.Series)
	}
	// A reading decoded before the kind grew is shorter: series pads it.
	if r := k.Series[0].Readings[0]; len(r.Values) != 1 || r.Values[0] != 98.1 || !slices.Equal(r.Tags, []string{"a"}) {
		t.Fatalf("first reading %+v", r)
	}
	if r := k.Series[1].Readings[0]; r.Values[1] != 1 || !slices.Equal(r.Tags, []string{"a", "x", "ok"}) {
		t.Fatalf("second reading %+v", r)
	}
	if r := k.Series[2].Readings[0]; r.Tags != nil {
		t.Fatalf("the series tag is no tag: %+v", r)
	}
	// A cap refuses the line that passes it.
	_, err = LineProtocol(strings.NewReader("cpu,a=1,b=2 usage_idle=1\n"), o.lookup, Options{Grow: o.grow})
	var e *Error
	if !errors.As(err, &e) || e.Line != 1 || !errors.Is(err, series.ErrLimit) {
		t.Fatalf("cap: %v", err)
	}
}

// TestRemoteWrite_NaN: a NaN sample is stored as the NaN of SampleNaNBits,
// whatever its bits; the staleness marker keeps its own; a number is
// itself.
func TestRemoteWrite_NaN(t *testing.T) {
	for _, c := range []struct{ in, want uint64 }{
		{math.Float64bits(math.NaN()), SampleNaNBits},
		{0x7ff8000000000000, SampleNaNBits},
		{0xfff8000000000001, SampleNaNBits},
		{SampleNaNBits, SampleNaNBits},
		{staleNaN, staleNaN},
		{math.Float64bits(1.5), math.Float64bits(1.5)},
		{math.Float64bits(math.Inf(-1)), math.Float64bits(math.Inf(-1))},
	} {
		if got := math.Float64bits(sampleValue(math.Float64frombits(c.in))); got != c.want {
			t.Errorf("sample %#x stored as %#x, want %#x", c.in, got, c.want)
		}
	}
}
