package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/timetable-db/timetable/series"
)

// RemoteWriteVersion is the protobuf message of a Prometheus remote-write
// body.
type RemoteWriteVersion uint8

const (
	// RemoteWrite1 is remote write 1.0's prometheus.WriteRequest.
	RemoteWrite1 RemoteWriteVersion = 1
	// RemoteWrite2 is remote write 2.0's io.prometheus.write.v2.Request.
	RemoteWrite2 RemoteWriteVersion = 2
)

// ValueField is the field a remote-write sample is stored in.
const ValueField = "value"

// SampleNaNBits are the bits of the NaN a remote-write or OTLP sample
// whose value is NaN (and not Prometheus' staleness marker, whose own
// bits, 0x7ff0000000000002, are kept) is stored as. series takes any NaN
// for an absent value, and gives back the NaN math.NaN() for a value
// that was never written; the Chunks layout keeps a NaN's bits, so that
// a reader of such a kind tells the three apart (StoredValue). The other
// layouts keep no NaN: they give back math.NaN() for either.
const SampleNaNBits = 0x7ff8_0000_5a4e_614e

// sampleValue returns the value a sample v is stored as: v, or, for a
// NaN that is not the staleness marker, the NaN of SampleNaNBits.
func sampleValue(v float64) float64 {
	if math.IsNaN(v) && math.Float64bits(v) != staleNaN {
		return math.Float64frombits(SampleNaNBits)
	}
	return v
}

// MaxLabels is the most labels a remote-write series may have (its
// __name__ included).
const MaxLabels = series.MaxTags + 1

// metaSuffixes are the suffixes of the series names a metric family of
// remote write 1.0's metadata names: its kinds get its metadata.
var metaSuffixes = []string{"", "_total", "_bucket", "_sum", "_count", "_created", "_info"}

// maxSeriesHint bounds the series a kind's map is first sized for.
const maxSeriesHint = 4096

// RemoteWrite decodes a Prometheus remote-write request (the protobuf
// message of version v, its snappy compression undone) into a Batch: a
// reading per sample, of the kind KindOfMetric(__name__), its value in
// the field "value" (a NaN that is not a staleness marker as the NaN of
// SampleNaNBits), its labels other than __name__ (and those with an
// empty value) as tags named TagOfLabel(name), in the series whose id
// is the label set (docs/metrics.md). The kind's schema must hold the
// field and the tags, or Options.Grow adds them; Options.MaxReadings and
// MaxSeries bound the samples and series as they do a line-protocol
// body, and an Error names the 1-based index of the series
// (Item "timeseries").
//
// Metric metadata (type, help, unit) goes to the Meta of the kinds, through
// Options.Grow: remote write 2.0's with each series, 1.0's by metric
// family to the kinds of the family's name and of that name with
// _total, _bucket, _sum, _count, _created or _info, that exist. Without
// Options.Grow metadata is not kept. Help and unit are cut to
// series.MaxMetaBytes.
//
// A native histogram (integer or float; exponential, schema -4 to 8, or
// above as Prometheus takes it, at schema 8; or custom buckets) is
// written as a classic histogram (docs/prometheus.md): name_bucket{le}
// per bound (nativeHistogram.classicBounds) and le="+Inf", cumulative,
// name_count and name_sum, each a series of its own as above. One that
// cannot be mapped (a schema out of range, spans that do not match its
// buckets, a negative count, a count below its buckets, more custom
// bounds than MaxHistogramBounds) refuses a 1.0 request whole (an
// Error), as Prometheus does; in 2.0 it is refused alone and counted in
// RemoteWriteResult, the rest of the request written (2.0's partial
// write). Reset hints are not kept (a reset shows as counts that fall),
// nor exemplars and 2.0's start timestamps.
//
// The request whole is refused with an error, and no batch, when it is
// not a request of that version, a series cannot be taken, or a cap is
// met: an *Error naming the series, wrapping the cause of a cap.
func RemoteWrite(data []byte, v RemoteWriteVersion, lookup Lookup, o Options) (*Batch, RemoteWriteResult, error) {
	var res RemoteWriteResult
	if v != RemoteWrite1 && v != RemoteWrite2 {
		return nil, res, &Error{Reason: fmt.Sprintf("unknown remote-write version %d", v)}
	}
	b := newBuilder(lookup, &o, "timeseries")
	d := &rwDecoder{b: b, v: v}
	tsField := protowire.Number(1) // the field of the series
	if v == RemoteWrite2 {
		tsField = 5
	}
	// Symbols (2.0) and metadata (1.0) first: they may follow the series.
	for m := data; len(m) > 0; {
		f, rest, err := nextField(m)
		if err != nil {
			return nil, res, &Error{Reason: fmt.Sprintf("not a remote-write %s request: %v", v, err)}
		}
		m = rest
		switch {
		case f.num == tsField:
			b.seriesHint++
		case f.typ != protowire.BytesType:
		case v == RemoteWrite2 && f.num == 4:
			if err := d.symbol(f.b); err != nil {
				return nil, res, err
			}
		case v == RemoteWrite1 && f.num == 3:
			if err := d.family(f.b); err != nil {
				return nil, res, err
			}
		}
	}
	// Sized by the series of the body, but not beyond what a request
	// should hold (a body may be made of empty series).
	b.seriesHint = min(b.seriesHint, maxSeriesHint)
	if b.o.MaxSeries > 0 {
		b.seriesHint = min(b.seriesHint, b.o.MaxSeries)
	}
	if v == RemoteWrite2 && len(d.symbols) > 0 && len(d.symbols[0]) != 0 {
		return nil, res, &Error{Reason: "the first symbol is not the empty string"}
	}
	n := 0
	for m := data; len(m) > 0; {
		f, rest, _ := nextField(m) // checked above
		m = rest
		if f.num != tsField {
			continue
		}
		n++
		if f.typ != protowire.BytesType {
			return nil, res, b.errf(n, "malformed: a series of wire type %d", f.typ)
		}
		if err := d.series(f.b, n); err != nil {
			return nil, res, err
		}
	}
	if err := d.familyMeta(); err != nil {
		return nil, res, err
	}
	return b.batch(), d.res, nil
}

// RemoteWriteResult counts what RemoteWrite took of a request it did not
// refuse whole.
type RemoteWriteResult struct {
	// Samples and Histograms are the float samples and the native
	// histograms written (2.0's X-Prometheus-Remote-Write-*-Written).
	Samples, Histograms int
	// Rejected is the number of native histograms of a 2.0 request
	// refused alone; Reason says why the first was, naming its series.
	Rejected int
	Reason   string
}

// String returns "1.0" or "2.0".
func (v RemoteWriteVersion) String() string { return fmt.Sprintf("%d.0", v) }

// rwDecoder decodes the series of one request, with scratch space they
// share.
type rwDecoder struct {
	b       *builder
	v       RemoteWriteVersion
	symbols [][]byte               // 2.0: into the request
	meta    map[string]series.Meta // 1.0: by metric family name
	labels  []label                // of a series, into the request
	raw     [][]byte               // 1.0: a series' Label messages, into the request
	key     []byte                 // 1.0: a series' Label fields, as the request encodes them
	samples []sample
	hists   [][]byte // a series' Histogram messages, into the request
	hist    nativeHistogram
	base    []label // a series' labels, as sent
	name    []byte  // a histogram's series name
	bounds  []classicBound
	res     RemoteWriteResult
	refs    []uint32
	id      []byte
	fields  []string
	tags    []string
}

type label struct{ name, value []byte }

type sample struct {
	v float64
	t int64
}

// symbolBytes is what a symbol of 2.0 holds in memory, besides the
// request: its slice header.
const symbolBytes = 24

func (d *rwDecoder) symbol(s []byte) error {
	d.symbols = append(d.symbols, s)
	if len(d.symbols)%1024 == 0 {
		d.b.b.Bytes += 1024 * symbolBytes
		return d.b.reserve(0)
	}
	return nil
}

// family reads a MetricMetadata of 1.0.
func (d *rwDecoder) family(m []byte) error {
	var name []byte
	var meta series.Meta
	for len(m) > 0 {
		f, rest, err := nextField(m)
		if err != nil {
			return &Error{Reason: fmt.Sprintf("malformed metadata: %v", err)}
		}
		m = rest
		switch {
		case f.num == 1 && f.typ == protowire.VarintType:
			meta.Type = metricType(f.u, "unknown")
		case f.num == 2 && f.typ == protowire.BytesType:
			name = f.b
		case f.num == 4 && f.typ == protowire.BytesType:
			meta.Help = metaText(f.b)
		case f.num == 5 && f.typ == protowire.BytesType:
			meta.Unit = metaText(f.b)
		}
	}
	if len(name) == 0 || meta == (series.Meta{}) {
		return nil
	}
	if d.meta == nil {
		d.meta = map[string]series.Meta{}
	}
	d.meta[string(name)] = meta
	return nil
}

// familyMeta gives 1.0's metadata to the kinds of each family that exist.
func (d *rwDecoder) familyMeta() error {
	if d.b.o.Grow == nil {
		return nil
	}
	for _, fam := range slices.Sorted(maps.Keys(d.meta)) {
		meta := d.meta[fam]
		for _, suf := range metaSuffixes {
			name, err := KindOfMetric(fam + suf)
			if err != nil {
				continue
			}
			var s series.Schema
			if k, ok := d.b.kinds[name]; ok {
				s = k.s
			} else if s, err = d.b.lookup(name); err != nil {
				continue
			}
			if s.Meta == meta {
				continue
			}
			if _, err := d.b.o.Grow(series.Schema{Name: name, Meta: meta}); err != nil {
				return fmt.Errorf("ingest: cannot keep the metadata of kind %s: %w", name, err)
			}
		}
	}
	return nil
}

// series decodes the n-th series of the request, m.
func (d *rwDecoder) series(m []byte, n int) error {
	b := d.b
	d.labels, d.samples, d.refs, d.hists = d.labels[:0], d.samples[:0], d.refs[:0], d.hists[:0]
	d.raw, d.key = d.raw[:0], d.key[:0]
	if d.v == RemoteWrite2 {
		d.key = append(d.key, rw2KeyPrefix)
	}
	var meta series.Meta
	for len(m) > 0 {
		f, rest, err := nextField(m)
		if err != nil {
			return b.errf(n, "malformed: %v", err)
		}
		field := m[:len(m)-len(rest)]
		m = rest
		switch {
		case d.v == RemoteWrite1 && f.num == 1 && f.typ == protowire.BytesType:
			d.raw = append(d.raw, f.b)
			d.key = append(d.key, field...)
		case d.v == RemoteWrite2 && f.num == 1 && f.typ == protowire.BytesType:
			for p := f.b; len(p) > 0; {
				x, k := protowire.ConsumeVarint(p)
				if k < 0 {
					return b.errf(n, "malformed label references: %v", protowire.ParseError(k))
				}
				d.refs = append(d.refs, uint32(x))
				p = p[k:]
			}
		case d.v == RemoteWrite2 && f.num == 1 && f.typ == protowire.VarintType:
			d.refs = append(d.refs, uint32(f.u))
		case f.num == 2 && f.typ == protowire.BytesType:
			s, err := parseSample(f.b)
			if err != nil {
				return b.errf(n, "malformed sample: %v", err)
			}
			d.samples = append(d.samples, s)
		case d.v == RemoteWrite1 && f.num == 4, d.v == RemoteWrite2 && f.num == 3:
			if f.typ != protowire.BytesType {
				return b.errf(n, "malformed: a histogram of wire type %d", f.typ)
			}
			d.hists = append(d.hists, f.b)
		case d.v == RemoteWrite2 && f.num == 5 && f.typ == protowire.BytesType:
			if meta, err = d.seriesMeta(f.b); err != nil {
				return b.errf(n, "%v", err)
			}
		}
		if len(d.raw) > MaxLabels || len(d.refs) > 2*MaxLabels {
			return b.errf(n, "more than %d labels", MaxLabels)
		}
	}
	if d.v == RemoteWrite1 {
		if ok, err := d.cached(n, meta); ok || err != nil {
			return err
		}
		for _, raw := range d.raw {
			l, err := parseLabel(raw)
			if err != nil {
				return b.errf(n, "malformed label: %v", err)
			}
			d.labels = append(d.labels, l)
		}
	}
	if d.v == RemoteWrite2 {
		if len(d.refs)%2 != 0 {
			return b.errf(n, "an odd number of label references")
		}
		for i := 0; i < len(d.refs); i += 2 {
			name, err := d.sym(d.refs[i])
			if err != nil {
				return b.errf(n, "%v", err)
			}
			val, err := d.sym(d.refs[i+1])
			if err != nil {
				return b.errf(n, "%v", err)
			}
			d.labels = append(d.labels, label{name, val})
			d.key = protowire.AppendBytes(protowire.AppendBytes(d.key, name), val)
		}
		if ok, err := d.cached(n, meta); ok || err != nil {
			return err
		}
	}
	if len(d.hists) == 0 {
		return d.putSamples(n, meta)
	}
	d.base = append(d.base[:0], d.labels...)
	if err := d.putSamples(n, meta); err != nil {
		return err
	}
	return d.histograms(n, meta)
}

// rw2KeyPrefix starts the key of a 2.0 label set in a SeriesCache: a
// 1.0 key is empty or starts with its first Label field's tag, 0x0a.
const rw2KeyPrefix = 0xff

// cached puts the float samples of the n-th series, of metadata meta,
// to the series Options.Series holds for its label set d.key, and
// reports whether it did: not for a series with histograms, or unknown
// to the cache, or whose kind has changed since in a way putCached
// refuses, or whose metadata is not the kind's.
func (d *rwDecoder) cached(n int, meta series.Meta) (bool, error) {
	if len(d.samples) == 0 || len(d.hists) > 0 {
		return false, nil
	}
	c := d.b.o.Series.get(d.key)
	if c == nil {
		return false, nil
	}
	ok, err := d.putCached(n, c, meta)
	if ok && err == nil {
		d.res.Samples += len(d.samples)
	}
	return ok, err
}

// putSamples puts the float samples of the n-th series and counts them.
func (d *rwDecoder) putSamples(n int, meta series.Meta) error {
	if err := d.put(n, meta, true); err != nil {
		return err
	}
	d.res.Samples += len(d.samples)
	return nil
}

// histograms writes the native histograms d.hists of the n-th series,
// of labels d.base: one that cannot be mapped refuses a 1.0 request, and
// is counted alone in d.res in 2.0.
func (d *rwDecoder) histograms(n int, meta series.Meta) error {
	var name []byte
	for _, l := range d.base {
		if string(l.name) == "__name__" {
			name = l.value
		}
	}
	if name == nil {
		return d.b.errf(n, "no label __name__")
	}
	for _, m := range d.hists {
		if err := parseHistogram(m, &d.hist); err != nil {
			e := d.b.errf(n, "metric %s: %v", clip(string(name)), err)
			if d.v == RemoteWrite1 {
				return e
			}
			if d.res.Rejected++; d.res.Reason == "" {
				d.res.Reason = e.Error()
			}
			continue
		}
		if err := d.histogram(n, meta, name, &d.hist); err != nil {
			return err
		}
		d.res.Histograms++
	}
	return nil
}

// put adds the samples d.samples of the series of labels d.labels (its
// __name__ among them), the n-th of the request, with the metric
// metadata meta (zero: none), growing its kind as Options.Grow allows.
// It takes the labels as they come (empty values dropped, the rest
// sorted in place) and refuses a label set remote write would. Remote
// write and OTLP both enter here; cache says the label set is d.key, a
// series of remote write that Options.Series may keep.
func (d *rwDecoder) put(n int, meta series.Meta, cache bool) error {
	b := d.b
	if len(d.samples) == 0 {
		return nil
	}
	if len(d.labels) > MaxLabels {
		return b.errf(n, "more than %d labels", MaxLabels)
	}

	// The metric name, then the other labels sorted.
	var metric []byte
	d.labels = slices.DeleteFunc(d.labels, func(l label) bool {
		if string(l.name) == "__name__" {
			metric = l.value
			return true
		}
		return len(l.value) == 0
	})
	if metric == nil {
		return b.errf(n, "no label __name__")
	}
	name, err := KindOfMetric(string(metric))
	if err != nil {
		return b.errf(n, "%v", err)
	}
	slices.SortFunc(d.labels, func(a, c label) int { return bytes.Compare(a.name, c.name) })
	for i, l := range d.labels {
		switch {
		case len(l.name) == 0:
			return b.errf(n, "a label name is empty")
		case i > 0 && bytes.Equal(l.name, d.labels[i-1].name):
			return b.errf(n, "label %q appears twice", l.name)
		case !utf8.Valid(l.name) || !utf8.Valid(l.value):
			return b.errf(n, "label %s is not UTF-8", clip(string(l.name)))
		}
	}

	// The kind, grown to hold the field, the tags and the metadata.
	k, err := b.kind([]byte(name))
	if err != nil && (b.o.Grow == nil || !errors.Is(err, series.ErrUnknownKind)) {
		return &Error{Line: n, Item: b.item, Reason: fmt.Sprintf("kind %s: %v", name, err), Err: err}
	}
	d.fields, d.tags = d.fields[:0], d.tags[:0]
	if k == nil || k.s.FieldIndex(ValueField) < 0 {
		d.fields = append(d.fields, ValueField)
	}
	for _, l := range d.labels {
		t := TagOfLabel(string(l.name))
		if _, ok := k.tagIndex(t); !ok {
			d.tags = append(d.tags, t)
		}
	}
	var growMeta series.Meta
	if meta != (series.Meta{}) && (k == nil || k.s.Meta != meta) {
		growMeta = meta
	}
	if k == nil || len(d.fields)+len(d.tags) > 0 || growMeta != (series.Meta{}) {
		if b.o.Grow == nil {
			if len(d.fields) > 0 {
				return b.errf(n, "kind %s has no field %q", name, ValueField)
			}
			if len(d.tags) > 0 {
				return b.errf(n, "label %q is not a tag of kind %s", LabelOfTag(d.tags[0]), name)
			}
		} else if k, err = b.grow(k, name, d.fields, d.tags, growMeta, n); err != nil {
			return err
		}
	}

	// The series id: the label set as line protocol writes a tag set.
	d.id = d.id[:0]
	for i, l := range d.labels {
		if i > 0 {
			d.id = append(d.id, ',')
		}
		d.id = appendEscaped(d.id, l.name)
		d.id = append(d.id, '=')
		d.id = appendEscaped(d.id, l.value)
	}
	if len(d.id) == 0 {
		d.id = append(d.id, '_')
	}
	d.id = shortID(d.id)

	var tags []string // shared by the readings of the series
	if len(d.labels) > 0 {
		tags = k.newTags()
		for _, l := range d.labels {
			j, _ := k.tagIndex(TagOfLabel(string(l.name)))
			tags[j] = b.str(l.value)
		}
	}
	if cache && b.o.Series != nil {
		// Cached once the first reading is taken: the label set is
		// valid for its kind as it is now.
		c := &cachedSeries{kind: k.s.Name, id: string(d.id)}
		if err := d.addSamples(n, k, d.id, c.id, tags, false); err != nil {
			return err
		}
		if tags != nil {
			c.tags = slices.Clone(tags)
		}
		b.o.Series.put(d.key, c)
		return nil
	}
	return d.addSamples(n, k, d.id, "", tags, false)
}

// putCached adds the samples d.samples of the n-th series of the request
// to the series c that its label set named in an earlier request, and
// reports whether it did: not if c's kind has changed the number of its
// tags since, nor if the metadata meta (of 2.0; zero: none) is not the
// kind's (the caller then decodes the labels again).
func (d *rwDecoder) putCached(n int, c *cachedSeries, meta series.Meta) (bool, error) {
	k, err := d.b.kindS(c.kind)
	if err != nil || len(k.s.Tags) != len(c.tags) || k.s.FieldIndex(ValueField) < 0 ||
		meta != (series.Meta{}) && meta != k.s.Meta {
		return false, nil
	}
	return true, d.addSamples(n, k, nil, c.id, c.tags, true)
}

// addSamples adds the samples d.samples of the n-th series of the
// request, of series id (or sid; see builder.addTo) of kind k, as
// readings sharing tags (which the batch keeps). known says id and tags
// were checked before (a cached series).
func (d *rwDecoder) addSamples(n int, k *kind, id []byte, sid string, tags []string, known bool) error {
	vi := k.s.FieldIndex(ValueField)
	for _, s := range d.samples {
		t, ok := msTime(s.t)
		if !ok {
			return d.b.errf(n, "timestamp %d ms is outside the years 0000-9999", s.t)
		}
		r := series.Reading{Time: t, Values: k.values(), Tags: tags}
		r.Values[vi] = sampleValue(s.v)
		if err := d.b.addTo(k, id, sid, r, n, known); err != nil {
			return err
		}
	}
	return nil
}

// tagIndex returns the index of tag t in kind k (nil: none).
func (k *kind) tagIndex(t string) (int, bool) {
	if k == nil {
		return 0, false
	}
	j, ok := k.tags[t]
	return j, ok
}

// sym returns the symbol of reference i.
func (d *rwDecoder) sym(i uint32) ([]byte, error) {
	if int(i) >= len(d.symbols) {
		return nil, fmt.Errorf("symbol reference %d out of the %d symbols", i, len(d.symbols))
	}
	return d.symbols[i], nil
}

// seriesMeta reads the Metadata of a 2.0 series.
func (d *rwDecoder) seriesMeta(m []byte) (series.Meta, error) {
	var meta series.Meta
	for len(m) > 0 {
		f, rest, err := nextField(m)
		if err != nil {
			return meta, fmt.Errorf("malformed metadata: %v", err)
		}
		m = rest
		if f.typ != protowire.VarintType {
			continue
		}
		switch f.num {
		case 1:
			meta.Type = metricType(f.u, "")
		case 3, 4:
			s, err := d.sym(uint32(f.u))
			if err != nil {
				return meta, err
			}
			if f.num == 3 {
				meta.Help = metaText(s)
			} else {
				meta.Unit = metaText(s)
			}
		}
	}
	return meta, nil
}

// metricType names a metric type of the protocol's enum; zero is zero.
func metricType(t uint64, zero string) string {
	types := []string{zero, "counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset"}
	if t < uint64(len(types)) {
		return types[t]
	}
	return "unknown"
}

// metaText returns s as a string of at most series.MaxMetaBytes bytes of
// UTF-8 (cut at a rune, invalid bytes replaced).
func metaText(s []byte) string {
	t := string(bytes.ToValidUTF8(s, []byte("\uFFFD")))
	if len(t) <= series.MaxMetaBytes {
		return t
	}
	cut := series.MaxMetaBytes
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return t[:cut]
}

// parseLabel reads a Label {1: name, 2: value}.
func parseLabel(m []byte) (label, error) {
	var l label
	err := eachField(m, func(f pbField) error {
		switch {
		case f.typ != protowire.BytesType:
		case f.num == 1:
			l.name = f.b
		case f.num == 2:
			l.value = f.b
		}
		return nil
	})
	return l, err
}

// parseSample reads a Sample {1: double value, 2: int64 timestamp}.
func parseSample(m []byte) (sample, error) {
	var s sample
	err := eachField(m, func(f pbField) error {
		switch {
		case f.num == 1 && f.typ == protowire.Fixed64Type:
			s.v = math.Float64frombits(f.u)
		case f.num == 2 && f.typ == protowire.VarintType:
			s.t = int64(f.u)
		case f.num <= 2:
			return fmt.Errorf("field %d of wire type %d", f.num, f.typ)
		}
		return nil
	})
	return s, err
}

// pbField is a field of a protobuf message: bytes in b, a number in u.
type pbField struct {
	num protowire.Number
	typ protowire.Type
	b   []byte
	u   uint64
}

// eachField calls fn on each field of the message m in turn, until m
// ends, a field is malformed or fn returns an error.
func eachField(m []byte, fn func(pbField) error) error {
	for len(m) > 0 {
		f, rest, err := nextField(m)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
		m = rest
	}
	return nil
}

// nextField reads the field at the start of m and returns it with the
// rest of m.
func nextField(m []byte) (pbField, []byte, error) {
	num, typ, n := protowire.ConsumeTag(m)
	if n < 0 {
		return pbField{}, nil, protowire.ParseError(n)
	}
	m = m[n:]
	f := pbField{num: num, typ: typ}
	switch typ {
	case protowire.BytesType:
		f.b, n = protowire.ConsumeBytes(m)
	case protowire.VarintType:
		f.u, n = protowire.ConsumeVarint(m)
	case protowire.Fixed64Type:
		f.u, n = protowire.ConsumeFixed64(m)
	case protowire.Fixed32Type:
		var x uint32
		x, n = protowire.ConsumeFixed32(m)
		f.u = uint64(x)
	default:
		n = protowire.ConsumeFieldValue(num, typ, m)
	}
	if n < 0 {
		return pbField{}, nil, protowire.ParseError(n)
	}
	return f, m[n:], nil
}
