package ingest

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/timetable-db/timetable/series"
)

// rw1 builds a remote write 1.0 request: a TimeSeries per label set
// (name, value, ...), each with one sample, at 1000 ms plus its index.
func rw1(sets ...[]string) []byte {
	var body []byte
	for i, labels := range sets {
		ts := labelFields(labels)
		var sm []byte
		sm = protowire.AppendTag(sm, 1, protowire.Fixed64Type)
		sm = protowire.AppendFixed64(sm, math.Float64bits(float64(i)+0.5))
		sm = protowire.AppendTag(sm, 2, protowire.VarintType)
		sm = protowire.AppendVarint(sm, uint64(1000+i))
		ts = protowire.AppendTag(ts, 2, protowire.BytesType)
		ts = protowire.AppendBytes(ts, sm)
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendBytes(body, ts)
	}
	return body
}

// labelFields returns the Label fields of a TimeSeries of labels (name,
// value, ...): the key of its label set in a SeriesCache.
func labelFields(labels []string) []byte {
	var ts []byte
	for j := 0; j+1 < len(labels); j += 2 {
		var l []byte
		l = protowire.AppendTag(l, 1, protowire.BytesType)
		l = protowire.AppendString(l, labels[j])
		l = protowire.AppendTag(l, 2, protowire.BytesType)
		l = protowire.AppendString(l, labels[j+1])
		ts = protowire.AppendTag(ts, 1, protowire.BytesType)
		ts = protowire.AppendBytes(ts, l)
	}
	return ts
}

// sameBatches says how a and b differ (kinds, series, readings: times,
// values bit for bit, tags), "" if they do not.
func sameBatches(a, b *Batch) string {
	if a.Readings != b.Readings || len(a.Kinds) != len(b.Kinds) {
		return fmt.Sprintf("%d readings of %d kinds, against %d of %d", a.Readings, len(a.Kinds), b.Readings, len(b.Kinds))
	}
	for i, ka := range a.Kinds {
		kb := b.Kinds[i]
		if ka.Kind != kb.Kind || len(ka.Series) != len(kb.Series) {
			return fmt.Sprintf("kind %d: %s of %d series, against %s of %d", i, ka.Kind, len(ka.Series), kb.Kind, len(kb.Series))
		}
		for j, sa := range ka.Series {
			sb := kb.Series[j]
			if sa.ID != sb.ID || len(sa.Readings) != len(sb.Readings) {
				return fmt.Sprintf("%s series %d: %q of %d readings, against %q of %d", ka.Kind, j, sa.ID, len(sa.Readings), sb.ID, len(sb.Readings))
			}
			for r, ra := range sa.Readings {
				rb := sb.Readings[r]
				same := ra.Time.Equal(rb.Time) && slices.Equal(ra.Tags, rb.Tags) && (ra.Tags == nil) == (rb.Tags == nil) &&
					slices.EqualFunc(ra.Values, rb.Values, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
				if !same {
					return fmt.Sprintf("%s %q reading %d: %+v, against %+v", ka.Kind, sa.ID, r, ra, rb)
				}
			}
		}
	}
	return ""
}

// TestRemoteWrite_SeriesCache: a series decoded from the cache is the
// one decoding gives, also after its kind grew a tag (the cached entry,
// with fewer tags, is decoded again and replaced); a refused label set
// is not cached.
func TestRemoteWrite_SeriesCache(t *testing.T) {
	sc := NewSeriesCache(1 << 20)
	o := openLookup{}
	decode := func(data []byte, cache *SeriesCache) *Batch {
		t.Helper()
		b, _, err := RemoteWrite(data, RemoteWrite1, o.lookup, Options{Grow: o.grow, Series: cache})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := []string{"__name__", "up", "job", "api", "instance", "h:1"}
	bare := []string{"__name__", "up"}
	first := rw1(a, bare)
	b1 := decode(first, sc)
	if sc.Len() != 2 {
		t.Fatalf("%d label sets cached, want 2", sc.Len())
	}
	if d := sameBatches(b1, decode(first, nil)); d != "" {
		t.Fatalf("first decode: %s", d)
	}
	// From the cache: the same batch, the same id string.
	b2 := decode(first, sc)
	if d := sameBatches(b2, decode(first, nil)); d != "" {
		t.Fatalf("cached decode: %s", d)
	}
	if id1, id2 := b1.Kinds[0].Series[0].ID, b2.Kinds[0].Series[0].ID; id1 != "instance=h:1,job=api" || id2 != id1 {
		t.Fatalf("ids %q and %q", id1, id2)
	}
	// The kind grows a tag: a's cached tags are short, so a is decoded
	// again, with every tag of the kind.
	decode(rw1([]string{"__name__", "up", "zone", "z"}), sc)
	if tags := o["up"].Tags; len(tags) != 3 {
		t.Fatalf("tags %v", tags)
	}
	b3 := decode(first, sc)
	if d := sameBatches(b3, decode(first, nil)); d != "" {
		t.Fatalf("decode after the kind grew: %s", d)
	}
	if r := b3.Kinds[0].Series[0].Readings[0]; len(r.Tags) != 3 || r.Tags[2] != "" {
		t.Fatalf("reading after the kind grew: %+v", r)
	}
	// Refused label sets stay out.
	n := sc.Len()
	for _, bad := range [][]string{{"__name__", "bad-name"}, {"job", "x"}, {"__name__", "up", "a", "1", "a", "2"}} {
		if _, _, err := RemoteWrite(rw1(bad), RemoteWrite1, o.lookup, Options{Grow: o.grow, Series: sc}); err == nil {
			t.Fatalf("%v taken", bad)
		}
	}
	if sc.Len() != n {
		t.Fatalf("%d label sets cached after refusals, want %d", sc.Len(), n)
	}
}

// TestSeriesCache_Bounded: a cache of 64 KiB given thousands of label
// sets keeps at most about its size of them, and the last ones.
func TestSeriesCache_Bounded(t *testing.T) {
	sc := NewSeriesCache(64 << 10)
	o := openLookup{}
	labels := func(i int) []string { return []string{"__name__", "up", "instance", fmt.Sprintf("host-%05d:9100", i)} }
	const sets = 5000
	for i := range sets {
		if _, _, err := RemoteWrite(rw1(labels(i)), RemoteWrite1, o.lookup, Options{Grow: o.grow, Series: sc}); err != nil {
			t.Fatal(err)
		}
	}
	// An entry here is some 250 bytes by the cache's estimate.
	if n := sc.Len(); n > (64<<10)/200 || n < 10 {
		t.Fatalf("%d label sets cached in 64 KiB", n)
	}
	if sc.get(labelFields(labels(sets-1))) == nil || sc.get(labelFields(labels(0))) != nil {
		t.Fatal("the cache keeps the first label set, or not the last")
	}
}

// FuzzRemoteWrite_SeriesCache decodes any body, as 1.0 and as 2.0, with
// a cache warmed by decoding it once (as both: a 2.0 key never meets a
// 1.0 one): the batch and the result are those decoding without the
// cache gives, on the kinds as the first decodes left them, and so are
// the kinds after.
func FuzzRemoteWrite_SeriesCache(f *testing.F) {
	f.Add(rw1([]string{"__name__", "up", "job", "a"}, []string{"__name__", "x:y", "_a", "b"}, []string{"__name__", "up", "job", "a"}))
	f.Add(rw1([]string{"__name__", "up", "b", "1"}, []string{"__name__", "up", "a", "1"}, []string{"__name__", "up", "b", "1"}))
	f.Add(rw2([]string{"__name__", "up", "job", "a"}, []string{"__name__", "up", "b", "1"}, []string{"__name__", "up", "job", "a"}))
	for _, s := range histogramSeeds() {
		f.Add(nhRequest(f, RemoteWrite2, s, nhSeries{labels: s.labels, samples: []float64{1}}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc := NewSeriesCache(1 << 20)
		o := openLookup{}
		versions := []RemoteWriteVersion{RemoteWrite1, RemoteWrite2}
		for _, v := range versions {
			RemoteWrite(data, v, o.lookup, Options{Grow: o.grow, MaxReadings: 1000, Series: sc})
		}
		plain := maps.Clone(o)
		for _, v := range versions {
			cached, cres, cerr := RemoteWrite(data, v, o.lookup, Options{Grow: o.grow, MaxReadings: 1000, Series: sc})
			want, wres, werr := RemoteWrite(data, v, plain.lookup, Options{Grow: plain.grow, MaxReadings: 1000})
			if (cerr == nil) != (werr == nil) || cres != wres {
				t.Fatalf("%s: with the cache %+v, %v; without %+v, %v", v, cres, cerr, wres, werr)
			}
			if cerr != nil {
				continue
			}
			if d := sameBatches(cached, want); d != "" {
				t.Fatalf("%s: %s", v, d)
			}
		}
		if !maps.EqualFunc(map[string]series.Schema(o), map[string]series.Schema(plain), func(a, b series.Schema) bool {
			return a.Name == b.Name && a.Meta == b.Meta && slices.Equal(a.Fields, b.Fields) && slices.Equal(a.Tags, b.Tags)
		}) {
			t.Fatalf("kinds with the cache %+v, without %+v", o, plain)
		}
	})
}

// TestRemoteWrite_SeriesCacheV2: a 2.0 label set is cached apart from the
// same labels in 1.0 and decodes from the cache as without it; a series
// whose metadata changed is decoded again, so its kind takes the new
// metadata.
func TestRemoteWrite_SeriesCacheV2(t *testing.T) {
	sc := NewSeriesCache(1 << 20)
	o := openLookup{}
	labels := []string{"__name__", "up", "job", "api"}
	if _, _, err := RemoteWrite(rw1(labels), RemoteWrite1, o.lookup, Options{Grow: o.grow, Series: sc}); err != nil {
		t.Fatal(err)
	}
	body := rw2(labels)
	for i := range 2 {
		b, res, err := RemoteWrite(body, RemoteWrite2, o.lookup, Options{Grow: o.grow, Series: sc})
		want, _, werr := RemoteWrite(body, RemoteWrite2, o.lookup, Options{Grow: o.grow})
		if err != nil || werr != nil || res.Samples != 1 {
			t.Fatalf("decode %d: %+v, %v, %v", i, res, err, werr)
		}
		if d := sameBatches(b, want); d != "" {
			t.Fatalf("decode %d: %s", i, d)
		}
	}
	if sc.Len() != 2 {
		t.Fatalf("%d label sets cached, want 2 (1.0's and 2.0's)", sc.Len())
	}
	withHelp := func(help string) []byte {
		st := writev2.NewSymbolTable()
		req := &writev2.Request{Timeseries: []*writev2.TimeSeries{{LabelsRefs: st.SymbolizeLabels(labels, nil),
			Samples:  []*writev2.Sample{{Value: 1, Timestamp: 1000}},
			Metadata: &writev2.Metadata{Type: writev2.Metadata_METRIC_TYPE_GAUGE, HelpRef: st.Symbolize(help)}}}}
		req.Symbols = st.Symbols()
		data, err := proto.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for _, help := range []string{"first", "second"} {
		if _, _, err := RemoteWrite(withHelp(help), RemoteWrite2, o.lookup, Options{Grow: o.grow, Series: sc}); err != nil {
			t.Fatal(err)
		}
		if m := o["up"].Meta; m.Help != help || m.Type != "gauge" {
			t.Fatalf("meta %+v, want help %q", m, help)
		}
	}
}
