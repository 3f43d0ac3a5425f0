package ingest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/otlptranslator"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/timetable-db/timetable/series"
)

// OTLPEncoding is the encoding of an OTLP/HTTP request body.
type OTLPEncoding uint8

const (
	// OTLPProtobuf is the binary protobuf encoding
	// (application/x-protobuf).
	OTLPProtobuf OTLPEncoding = iota
	// OTLPJSON is OTLP's JSON encoding (application/json): protobuf's
	// JSON mapping, field names in lowerCamelCase or as in the .proto,
	// enums as numbers or names, 64-bit integers as strings or numbers.
	OTLPJSON
)

// OTLPOptions tune the mapping of OTLP metrics to series. The zero value
// is Prometheus' default.
type OTLPOptions struct {
	// PromoteResourceAttributes names resource attributes copied into the
	// labels of every series of their resource, as Prometheus'
	// otlp.promote_resource_attributes: a data point's own attribute of
	// the same label name wins. nil promotes none.
	PromoteResourceAttributes []string
}

// OTLPResult says what became of the data points of an OTLP request that
// OTLP did not refuse whole.
type OTLPResult struct {
	// Rejected is the number of data points refused (OTLP's
	// partial_success.rejected_data_points).
	Rejected int64
	// Reason says why the first of them was refused (with its 1-based
	// index among the request's data points); "" when none was.
	Reason string
}

// The depth of messages the OTLP decoders follow: a metrics request
// holds 8 levels down to an attribute's value, and a little nesting of
// attribute values (arrays, key-value lists) fits under this.
const otlpMaxDepth = 16

// otlpMessageBytes bounds what one decoded message holds in memory
// besides its strings and repeated numbers: its struct (a
// HistogramDataPoint, the largest, is under 200 bytes), the pointer to it
// in its parent's slice, that slice's spare capacity, a oneof wrapper.
// TestOTLP_Estimate checks it against the heap.
const otlpMessageBytes = 320

// targetInfoPoints bounds the samples of target_info one resource of a
// request gets: Prometheus writes one every 2.5 minutes from its earliest
// data point to its latest; past this many, they are spaced further.
const targetInfoPoints = 1024

// OTLP decodes an OTLP/HTTP metrics request (an
// opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest,
// encoded as enc) into a Batch, mapping its data points to Prometheus
// series as Prometheus' own OTLP endpoint does (docs/metrics.md): names
// through otlptranslator's MetricNamer with unit and type suffixes
// (http.server.duration in s, a histogram, gives
// http_server_duration_seconds_bucket, _sum and _count; a monotonic sum
// gets _total), attribute names through its LabelNamer (invalid
// characters as '_', attributes colliding once renamed joined by ';'),
// job from service.namespace/service.name, instance from
// service.instance.id, resource attributes in target_info (or promoted,
// OTLPOptions), otel_scope_name, otel_scope_version,
// otel_scope_schema_url and otel_scope_<attribute> from the scope. Each
// series then enters as a remote-write series does (RemoteWrite): its
// kind KindOfMetric(name), its value in the field "value", its labels as
// tags, the label set as series id, the kind grown through Options.Grow,
// the metric's type, description and unit as the kind's metadata.
//
// Gauges, sums, histograms, exponential histograms and summaries are
// taken; exponential histograms as classic histograms with a bound at
// each bucket's edge (expHistogram; Prometheus stores them as native
// histograms, which the store does not keep). Delta sums and histograms
// are stored as sent, each point its own increment (as Prometheus'
// experimental delta ingestion: query them with sum_over_time), their
// metadata type "unknown". A data point OTLP cannot map is refused alone
// and counted in OTLPResult: of an exponential histogram of a scale
// outside -10..20, of a metric of unspecified temporality, with a name or label the store refuses, with more labels
// than MaxLabels. A refused point of a histogram or summary may leave
// the readings of its series written before the one refused.
//
// The request whole is refused with an error, and no batch, when it is
// not a metrics request of that encoding (an *Error), when a cap is met
// (Options.MaxReadings, MaxSeries, Reserve, a kind limit of Grow: an
// *Error wrapping the cause), or when Grow fails otherwise (returned
// wrapped). Before decoding, OTLP reserves through Options.Reserve an
// estimate of the memory the decoded messages hold (see
// Options.Reserve). Exemplars and start times are not kept.
func OTLP(data []byte, enc OTLPEncoding, lookup Lookup, o Options, oo OTLPOptions) (*Batch, OTLPResult, error) {
	md, err := decodeOTLP(data, enc, &o)
	if err != nil {
		return nil, OTLPResult{}, err
	}
	c := &otlpDecoder{
		d:       &rwDecoder{b: newBuilder(lookup, &o, "data point")},
		metrics: otlptranslator.MetricNamer{WithMetricSuffixes: true},
		names:   map[string]string{},
	}
	if len(oo.PromoteResourceAttributes) > 0 {
		c.promote = map[string]bool{}
		for _, a := range oo.PromoteResourceAttributes {
			c.promote[a] = true
		}
	}
	for _, rm := range md.GetResourceMetrics() {
		if err := c.resource(rm); err != nil {
			return nil, OTLPResult{}, err
		}
	}
	return c.d.b.batch(), c.res, nil
}

// decodeOTLP unmarshals the request, its estimated memory reserved
// first.
func decodeOTLP(data []byte, enc OTLPEncoding, o *Options) (*metricspb.MetricsData, error) {
	// ExportMetricsServiceRequest and MetricsData are one message on the
	// wire and in JSON (field 1: the ResourceMetrics): decoding into the
	// latter spares the collector package, which brings gRPC.
	var md metricspb.MetricsData
	var est int64
	switch enc {
	case OTLPProtobuf:
		est = 2*int64(len(data)) + otlpMessageBytes*pbMessages(data, md.ProtoReflect().Descriptor(), 0)
	case OTLPJSON:
		est = 2*int64(len(data)) + otlpMessageBytes*int64(bytes.Count(data, []byte{'{'})) + 16*int64(bytes.Count(data, []byte{','}))
	default:
		return nil, &Error{Reason: fmt.Sprintf("unknown OTLP encoding %d", enc)}
	}
	if o.Reserve != nil {
		if err := o.Reserve(est); err != nil {
			return nil, &Error{Reason: err.Error(), Err: err}
		}
	}
	var err error
	if enc == OTLPProtobuf {
		err = proto.UnmarshalOptions{RecursionLimit: otlpMaxDepth}.Unmarshal(data, &md)
	} else {
		err = protojson.UnmarshalOptions{DiscardUnknown: true, RecursionLimit: otlpMaxDepth}.Unmarshal(data, &md)
	}
	if err != nil {
		return nil, &Error{Reason: fmt.Sprintf("not an OTLP metrics request: %v", err)}
	}
	return &md, nil
}

// pbMessages counts the messages in m, a message of type md at depth
// depth, and in the messages it holds down to otlpMaxDepth: what
// proto.Unmarshal would make of it. Malformed parts count as nothing
// (Unmarshal refuses them).
func pbMessages(m []byte, md protoreflect.MessageDescriptor, depth int) int64 {
	var n int64
	for len(m) > 0 {
		num, typ, k := protowire.ConsumeTag(m)
		if k < 0 {
			return n
		}
		m = m[k:]
		if typ == protowire.BytesType {
			b, k := protowire.ConsumeBytes(m)
			if k < 0 {
				return n
			}
			if fd := md.Fields().ByNumber(num); fd != nil && fd.Message() != nil && depth < otlpMaxDepth {
				n += 1 + pbMessages(b, fd.Message(), depth+1)
			}
			m = m[k:]
			continue
		}
		k = protowire.ConsumeFieldValue(num, typ, m)
		if k < 0 {
			return n
		}
		m = m[k:]
	}
	return n
}

// otlpDecoder maps the metrics of one request to series, through the
// remote-write decoder's put.
type otlpDecoder struct {
	d       *rwDecoder
	metrics otlptranslator.MetricNamer
	labels  otlptranslator.LabelNamer
	units   otlptranslator.UnitNamer
	promote map[string]bool   // resource attributes promoted; nil: none
	names   map[string]string // attribute name -> label name
	res     OTLPResult
	n       int // data points seen

	// Of the resource and scope at hand.
	job, instance string
	promoted      []strLabel
	scope         []strLabel
	minT, maxT    uint64 // of the resource's data points, ns
	// Scratch.
	base, ls []strLabel
	hist     nativeHistogram
}

type strLabel struct{ name, value string }

// The resource attributes that name job and instance.
const (
	attrServiceName      = "service.name"
	attrServiceNamespace = "service.namespace"
	attrServiceInstance  = "service.instance.id"
)

// resource maps the metrics of one ResourceMetrics, then its target_info.
func (c *otlpDecoder) resource(rm *metricspb.ResourceMetrics) error {
	attrs := rm.GetResource().GetAttributes()
	c.job, c.instance, c.promoted = "", "", c.promoted[:0]
	if v, ok := attr(attrs, attrServiceName); ok {
		c.job = anyString(v)
		if ns, ok := attr(attrs, attrServiceNamespace); ok {
			c.job = anyString(ns) + "/" + c.job
		}
	}
	if v, ok := attr(attrs, attrServiceInstance); ok {
		c.instance = anyString(v)
	}
	if c.promote != nil {
		var err error
		if c.promoted, err = c.labelSet(c.promoted, attrs, func(k string) bool { return !c.promote[k] }); err != nil {
			c.rejectAll(rm, err)
			return nil
		}
	}
	c.minT, c.maxT = math.MaxUint64, 0
	for _, sm := range rm.GetScopeMetrics() {
		if err := c.scopeMetrics(sm); err != nil {
			return err
		}
	}
	if c.minT > c.maxT {
		return nil
	}
	return c.targetInfo(attrs)
}

// rejectAll refuses every data point of rm for err.
func (c *otlpDecoder) rejectAll(rm *metricspb.ResourceMetrics, err error) {
	for _, sm := range rm.GetScopeMetrics() {
		for _, m := range sm.GetMetrics() {
			n := pointsOf(m)
			c.n += n
			c.reject(n, fmt.Errorf("%s %d: %w", c.d.b.item, c.n, err))
		}
	}
}

// scopeMetrics maps the metrics of one scope.
func (c *otlpDecoder) scopeMetrics(sm *metricspb.ScopeMetrics) error {
	c.scope = c.scope[:0]
	if sc := sm.GetScope(); sc.GetName() != "" {
		var err error
		for _, kv := range sc.GetAttributes() {
			var name string
			if name, err = c.labelName("otel_scope_" + kv.GetKey()); err != nil {
				break
			}
			c.scope = setLabel(c.scope, name, anyString(kv.GetValue()), true)
		}
		if err != nil {
			for _, m := range sm.GetMetrics() {
				n := pointsOf(m)
				c.n += n
				c.reject(n, fmt.Errorf("%s %d: scope attributes: %w", c.d.b.item, c.n, err))
			}
			return nil
		}
		c.scope = setLabel(c.scope, "otel_scope_name", sc.GetName(), true)
		c.scope = setLabel(c.scope, "otel_scope_version", sc.GetVersion(), true)
		c.scope = setLabel(c.scope, "otel_scope_schema_url", sm.GetSchemaUrl(), true)
	}
	for _, m := range sm.GetMetrics() {
		if err := c.metric(m); err != nil {
			return err
		}
	}
	return nil
}

// pointsOf returns the number of data points of m.
func pointsOf(m *metricspb.Metric) int {
	switch d := m.GetData().(type) {
	case *metricspb.Metric_Gauge:
		return len(d.Gauge.GetDataPoints())
	case *metricspb.Metric_Sum:
		return len(d.Sum.GetDataPoints())
	case *metricspb.Metric_Histogram:
		return len(d.Histogram.GetDataPoints())
	case *metricspb.Metric_ExponentialHistogram:
		return len(d.ExponentialHistogram.GetDataPoints())
	case *metricspb.Metric_Summary:
		return len(d.Summary.GetDataPoints())
	}
	return 0
}

// metric maps the data points of one metric.
func (c *otlpDecoder) metric(m *metricspb.Metric) error {
	tm := otlptranslator.Metric{Name: m.GetName(), Unit: m.GetUnit()}
	meta := series.Meta{Help: metaText([]byte(m.GetDescription())), Unit: metaText([]byte(c.units.Build(m.GetUnit())))}
	temporality := metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	var refuse string
	switch d := m.GetData().(type) {
	case *metricspb.Metric_Gauge:
		tm.Type, meta.Type = otlptranslator.MetricTypeGauge, "gauge"
	case *metricspb.Metric_Sum:
		tm.Type, meta.Type = otlptranslator.MetricTypeNonMonotonicCounter, "gauge"
		if d.Sum.GetIsMonotonic() {
			tm.Type, meta.Type = otlptranslator.MetricTypeMonotonicCounter, "counter"
		}
		temporality = d.Sum.GetAggregationTemporality()
	case *metricspb.Metric_Histogram:
		tm.Type, meta.Type = otlptranslator.MetricTypeHistogram, "histogram"
		temporality = d.Histogram.GetAggregationTemporality()
	case *metricspb.Metric_Summary:
		tm.Type, meta.Type = otlptranslator.MetricTypeSummary, "summary"
	case *metricspb.Metric_ExponentialHistogram:
		tm.Type, meta.Type = otlptranslator.MetricTypeHistogram, "histogram"
		temporality = d.ExponentialHistogram.GetAggregationTemporality()
	default:
		return nil // no data: nothing to write
	}
	switch temporality {
	case metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE:
	case metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA:
		meta.Type = "unknown"
	default:
		refuse = fmt.Sprintf("aggregation temporality %d is neither cumulative nor delta", temporality)
	}
	n := pointsOf(m)
	if refuse != "" {
		c.n += n
		c.reject(n, fmt.Errorf("%s %d: metric %s: %s", c.d.b.item, c.n, clip(m.GetName()), refuse))
		return nil
	}
	name, err := c.metrics.Build(tm)
	if err == nil {
		_, err = KindOfMetric(name)
	}
	if err != nil {
		c.n += n
		c.reject(n, fmt.Errorf("%s %d: metric %s: %w", c.d.b.item, c.n, clip(m.GetName()), err))
		return nil
	}
	switch d := m.GetData().(type) {
	case *metricspb.Metric_Gauge:
		return c.numbers(d.Gauge.GetDataPoints(), name, meta)
	case *metricspb.Metric_Sum:
		return c.numbers(d.Sum.GetDataPoints(), name, meta)
	case *metricspb.Metric_Histogram:
		for _, p := range d.Histogram.GetDataPoints() {
			if err := c.point(p.GetAttributes(), p.GetTimeUnixNano(), func(t int64) error { return c.histogram(p, name, meta, t) }); err != nil {
				return err
			}
		}
	case *metricspb.Metric_ExponentialHistogram:
		for _, p := range d.ExponentialHistogram.GetDataPoints() {
			if err := c.point(p.GetAttributes(), p.GetTimeUnixNano(), func(t int64) error { return c.expHistogram(p, name, meta, t) }); err != nil {
				return err
			}
		}
	case *metricspb.Metric_Summary:
		for _, p := range d.Summary.GetDataPoints() {
			if err := c.point(p.GetAttributes(), p.GetTimeUnixNano(), func(t int64) error { return c.summary(p, name, meta, t) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// numbers maps the points of a gauge or sum.
func (c *otlpDecoder) numbers(ps []*metricspb.NumberDataPoint, name string, meta series.Meta) error {
	for _, p := range ps {
		err := c.point(p.GetAttributes(), p.GetTimeUnixNano(), func(t int64) error {
			v := p.GetAsDouble()
			if x, ok := p.GetValue().(*metricspb.NumberDataPoint_AsInt); ok {
				v = float64(x.AsInt)
			}
			return c.sample(name, meta, t, noValue(p.GetFlags(), v))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// histogram writes a classic histogram point: _sum (when sent), _count,
// a _bucket per bound, cumulative, and _bucket{le="+Inf"} of the count.
func (c *otlpDecoder) histogram(p *metricspb.HistogramDataPoint, name string, meta series.Meta, t int64) error {
	if p.Sum != nil {
		if err := c.sample(name+"_sum", meta, t, noValue(p.GetFlags(), p.GetSum())); err != nil {
			return err
		}
	}
	if err := c.sample(name+"_count", meta, t, noValue(p.GetFlags(), float64(p.GetCount()))); err != nil {
		return err
	}
	var cum uint64
	counts := p.GetBucketCounts()
	for i, bound := range p.GetExplicitBounds() {
		if i >= len(counts) {
			break
		}
		cum += counts[i]
		if err := c.bucket(name, meta, t, p.GetFlags(), bound, float64(cum)); err != nil {
			return err
		}
	}
	return c.sample(name+"_bucket", meta, t, noValue(p.GetFlags(), float64(p.GetCount())), "le", "+Inf")
}

// bucket writes name_bucket{le="<bound>"} of the cumulative count cum,
// unless bound is +Inf (le="+Inf" is the count, written last) or NaN.
func (c *otlpDecoder) bucket(name string, meta series.Meta, t int64, flags uint32, bound, cum float64) error {
	if math.IsInf(bound, 1) || math.IsNaN(bound) {
		return nil
	}
	return c.sample(name+"_bucket", meta, t, noValue(flags, cum), "le", leValue(bound))
}

// The scales an exponential histogram may have (OTLP's data model).
const minExpScale, maxExpScale = -10, 20

// expHistogram writes an exponential histogram point as a classic
// histogram, with the bounds remote write's native histograms get
// (nativeHistogram.classicBounds): a bound at each bucket's edge from the
// most negative bucket's outer edge to the highest positive bucket's
// upper edge, the zero threshold between, at most MaxHistogramBounds of
// them (a finer scale is read at a lower one, whose bounds are a subset
// of its own); then le="+Inf" of the count, _sum (when sent) and _count.
// OTLP's bucket index i is remote write's i+1: both count the bucket
// whose upper edge, in absolute value, is base^index of their own
// index, OTLP's base^(i+1). Counts are cumulative, so histogram_quantile
// and rate read it as any classic histogram. A negative bucket takes
// its upper edge as le, although OTLP puts that edge in the next bucket
// up: an observation exactly on it counts one bound early.
func (c *otlpDecoder) expHistogram(p *metricspb.ExponentialHistogramDataPoint, name string, meta series.Meta, t int64) error {
	scale := p.GetScale()
	if scale < minExpScale || scale > maxExpScale {
		return c.d.b.errf(c.n, "exponential histogram scale %d outside %d..%d", scale, minExpScale, maxExpScale)
	}
	if p.Sum != nil {
		if err := c.sample(name+"_sum", meta, t, noValue(p.GetFlags(), p.GetSum())); err != nil {
			return err
		}
	}
	if err := c.sample(name+"_count", meta, t, noValue(p.GetFlags(), float64(p.GetCount()))); err != nil {
		return err
	}
	h := &c.hist
	*h = nativeHistogram{
		schema: scale, zero: float64(p.GetZeroCount()), zeroThreshold: p.GetZeroThreshold(),
		pos: otlpSide(h.pos, p.GetPositive()), neg: otlpSide(h.neg, p.GetNegative()),
	}
	c.d.bounds = h.classicBounds(c.d.bounds[:0])
	for _, b := range c.d.bounds {
		if err := c.bucket(name, meta, t, p.GetFlags(), b.le, b.cum); err != nil {
			return err
		}
	}
	return c.sample(name+"_bucket", meta, t, noValue(p.GetFlags(), float64(p.GetCount())), "le", "+Inf")
}

// otlpSide returns b's buckets as remote write's indexes and counts, in
// the slices of s reused.
func otlpSide(s sideBuckets, b *metricspb.ExponentialHistogramDataPoint_Buckets) sideBuckets {
	s.idx, s.n = s.idx[:0], s.n[:0]
	for i, n := range b.GetBucketCounts() {
		s.idx = append(s.idx, int64(b.GetOffset())+int64(i)+1)
		s.n = append(s.n, float64(n))
	}
	return s
}

// expBound returns base^index for base 2^(2^-scale): exact for scales up
// to 0, the nearest float64 of Exp2 above; +Inf past float64's range.
func expBound(scale int32, index int64) float64 {
	if scale <= 0 {
		e := index << -scale
		if e > 1024 {
			return math.Inf(1)
		}
		if e < -1074 {
			return 0
		}
		return math.Ldexp(1, int(e))
	}
	return math.Exp2(float64(index) / float64(int64(1)<<scale))
}

// summary writes a summary point: _sum, _count and a series per quantile.
func (c *otlpDecoder) summary(p *metricspb.SummaryDataPoint, name string, meta series.Meta, t int64) error {
	if err := c.sample(name+"_sum", meta, t, noValue(p.GetFlags(), p.GetSum())); err != nil {
		return err
	}
	if err := c.sample(name+"_count", meta, t, noValue(p.GetFlags(), float64(p.GetCount()))); err != nil {
		return err
	}
	for _, q := range p.GetQuantileValues() {
		qs := strconv.FormatFloat(q.GetQuantile(), 'f', -1, 64)
		if err := c.sample(name, meta, t, noValue(p.GetFlags(), q.GetValue()), "quantile", qs); err != nil {
			return err
		}
	}
	return nil
}

// point maps one data point: its labels into c.base, then write with its
// time in ms. A refusal of the point's content is counted, not returned.
func (c *otlpDecoder) point(attrs []*commonpb.KeyValue, ns uint64, write func(t int64) error) error {
	c.n++
	c.minT, c.maxT = min(c.minT, ns), max(c.maxT, ns)
	if err := c.pointLabels(attrs); err != nil {
		c.reject(1, c.d.b.errf(c.n, "%v", err))
		return nil
	}
	if err := write(int64(ns / 1e6)); err != nil {
		if fatal(err) {
			return err
		}
		c.reject(1, err)
	}
	return nil
}

// fatal reports whether err, of put, refuses the request whole: a cap,
// the budget, a store that failed, a kind the caller may not write;
// every other *Error refuses the point alone.
func fatal(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return true
	}
	return e.Err != nil && !errors.Is(e.Err, series.ErrUnknownKind) && !errors.Is(e.Err, series.ErrInvalidSchema)
}

// reject counts n points refused for err.
func (c *otlpDecoder) reject(n int, err error) {
	if n == 0 {
		return
	}
	c.res.Rejected += int64(n)
	if c.res.Reason == "" {
		c.res.Reason = err.Error()
	}
}

// pointLabels sets c.base to the labels of a data point as Prometheus
// builds them: its attributes, the promoted resource attributes it lacks,
// job and instance, the scope's.
func (c *otlpDecoder) pointLabels(attrs []*commonpb.KeyValue) error {
	var err error
	if c.base, err = c.labelSet(c.base[:0], attrs, func(k string) bool { return k == "__name__" }); err != nil {
		return err
	}
	for _, l := range c.promoted {
		c.base = setLabel(c.base, l.name, l.value, false)
	}
	c.resourceLabels()
	for _, l := range c.scope {
		c.base = setLabel(c.base, l.name, l.value, true)
	}
	return nil
}

// resourceLabels sets job and instance in c.base.
func (c *otlpDecoder) resourceLabels() {
	if c.job != "" {
		c.base = setLabel(c.base, "job", c.job, true)
	}
	if c.instance != "" {
		c.base = setLabel(c.base, "instance", c.instance, true)
	}
}

// labelSet appends to ls the labels of attrs but those skip names, their
// names sanitised; attributes whose names collide once sanitised get
// their values joined by ';' in the order of their names.
func (c *otlpDecoder) labelSet(ls []strLabel, attrs []*commonpb.KeyValue, skip func(string) bool) ([]strLabel, error) {
	if len(attrs) > MaxLabels {
		return ls, fmt.Errorf("%d attributes, more than the %d labels a series may have", len(attrs), MaxLabels)
	}
	sorted := slices.SortedFunc(slices.Values(attrs), func(a, b *commonpb.KeyValue) int { return strings.Compare(a.GetKey(), b.GetKey()) })
	for _, kv := range sorted {
		if skip(kv.GetKey()) {
			continue
		}
		name, err := c.labelName(kv.GetKey())
		if err != nil {
			return ls, err
		}
		v := anyString(kv.GetValue())
		if i := labelIndex(ls, name); i >= 0 {
			ls[i].value += ";" + v
			continue
		}
		ls = append(ls, strLabel{name, v})
	}
	return ls, nil
}

// labelName returns the Prometheus label name of attribute name a.
func (c *otlpDecoder) labelName(a string) (string, error) {
	if n, ok := c.names[a]; ok {
		return n, nil
	}
	n, err := c.labels.Build(a)
	if err != nil {
		return "", fmt.Errorf("attribute %s: %w", clip(a), err)
	}
	if len(c.names) < 4096 {
		c.names[strings.Clone(a)] = n
	}
	return n, nil
}

// labelIndex returns the index of label name in ls, -1 if absent.
func labelIndex(ls []strLabel, name string) int {
	return slices.IndexFunc(ls, func(l strLabel) bool { return l.name == name })
}

// setLabel sets label name to value in ls: replacing a value if
// override, else only if absent.
func setLabel(ls []strLabel, name, value string, override bool) []strLabel {
	if i := labelIndex(ls, name); i >= 0 {
		if override {
			ls[i].value = value
		}
		return ls
	}
	return append(ls, strLabel{name, value})
}

// sample puts one sample of series name{c.base, extra...} at t ms.
func (c *otlpDecoder) sample(name string, meta series.Meta, t int64, v float64, extra ...string) error {
	c.ls = append(c.ls[:0], c.base...)
	for i := 0; i+1 < len(extra); i += 2 {
		c.ls = setLabel(c.ls, extra[i], extra[i+1], true)
	}
	c.ls = setLabel(c.ls, "__name__", name, true)
	d := c.d
	d.labels = d.labels[:0]
	for _, l := range c.ls {
		d.labels = append(d.labels, label{[]byte(l.name), []byte(l.value)})
	}
	d.samples = append(d.samples[:0], sample{v: v, t: t})
	return d.put(c.n, meta, false)
}

// targetInfo writes the resource's target_info, as Prometheus does: its
// attributes but those that name job and instance, with job and
// instance, value 1, from its earliest data point to its latest every
// 2.5 minutes (half the default lookback); none when the resource has
// no other attribute, or neither job nor instance.
func (c *otlpDecoder) targetInfo(attrs []*commonpb.KeyValue) error {
	other := 0
	for _, kv := range attrs {
		switch kv.GetKey() {
		case attrServiceName, attrServiceNamespace, attrServiceInstance:
		default:
			other++
		}
	}
	if other == 0 || (c.job == "" && c.instance == "") {
		return nil
	}
	var err error
	c.base, err = c.labelSet(c.base[:0], attrs, func(k string) bool {
		return k == attrServiceName || k == attrServiceNamespace || k == attrServiceInstance || k == "__name__"
	})
	if err != nil {
		c.warn(c.d.b.errf(c.n, "%v", err))
		return nil
	}
	c.resourceLabels()
	meta := series.Meta{Type: "gauge", Help: "Target metadata"}
	step := max(uint64(150*time.Second), (c.maxT-c.minT)/targetInfoPoints+1)
	for t := c.minT; ; t += step {
		if t >= c.maxT || t < c.minT { // the last, or past it (overflow)
			t = c.maxT
		}
		if err := c.sample("target_info", meta, int64(t/1e6), 1); err != nil {
			if fatal(err) {
				return err
			}
			c.warn(err)
			return nil
		}
		if t == c.maxT {
			return nil
		}
	}
}

// warn notes err, of target_info (not a data point: said, not counted).
func (c *otlpDecoder) warn(err error) {
	if c.res.Reason == "" {
		c.res.Reason = "target_info: " + err.Error()
	}
}

// staleNaN is Prometheus' staleness marker.
const staleNaN = 0x7ff0000000000002

// noValue returns v, or the staleness marker if flags say the point has
// no recorded value.
func noValue(flags uint32, v float64) float64 {
	if flags&uint32(metricspb.DataPointFlags_DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK) != 0 {
		return math.Float64frombits(staleNaN)
	}
	return v
}

// attr returns the value of attribute key in attrs.
func attr(attrs []*commonpb.KeyValue, key string) (*commonpb.AnyValue, bool) {
	for _, kv := range attrs {
		if kv.GetKey() == key {
			return kv.GetValue(), true
		}
	}
	return nil, false
}

// anyString returns an attribute value as a label value, as OpenTelemetry
// Collector's pcommon.Value.AsString does (Prometheus' translation uses
// it): strings as they are, numbers and booleans as JSON writes them,
// bytes in base64, arrays and maps as JSON.
func anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return floatString(x.DoubleValue)
	case *commonpb.AnyValue_BytesValue:
		return base64.StdEncoding.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue, *commonpb.AnyValue_KvlistValue:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(anyRaw(v)) // NaN and infinities: "", as there
		return strings.TrimRight(buf.String(), "\n")
	}
	return ""
}

// anyRaw returns v as a Go value for encoding/json.
func anyRaw(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BytesValue:
		return x.BytesValue
	case *commonpb.AnyValue_ArrayValue:
		a := make([]any, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			a = append(a, anyRaw(e))
		}
		return a
	case *commonpb.AnyValue_KvlistValue:
		m := make(map[string]any, len(x.KvlistValue.GetValues()))
		for _, kv := range x.KvlistValue.GetValues() {
			m[kv.GetKey()] = anyRaw(kv.GetValue())
		}
		return m
	}
	return nil
}

// floatString writes f as ECMAScript does (and pcommon): NaN,
// Infinity, -Infinity, else the shortest decimal, with an exponent below
// 1e-6 and from 1e21.
func floatString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// e-09 as e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}
