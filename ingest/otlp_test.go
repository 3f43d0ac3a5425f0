package ingest

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func otlpKV(k string, v *commonpb.AnyValue) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: v}
}

func otlpStr(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

// otlpMetrics is a request of one resource and scope holding metrics.
func otlpMetrics(res []*commonpb.KeyValue, ms ...*metricspb.Metric) *metricspb.MetricsData {
	return &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource:     &resourcepb.Resource{Attributes: res},
		ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: ms}},
	}}}
}

func otlpNumber(ms int64, v float64, attrs ...*commonpb.KeyValue) *metricspb.NumberDataPoint {
	return &metricspb.NumberDataPoint{TimeUnixNano: uint64(ms) * 1e6, Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: v}, Attributes: attrs}
}

// otlpSeries decodes md in both encodings, checks they give the same
// batch, and returns its series as "kind id=value@ms" lines, sorted.
func otlpSeries(t *testing.T, md *metricspb.MetricsData, oo OTLPOptions) ([]string, OTLPResult) {
	t.Helper()
	pb, err := proto.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	js, err := protojson.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	o := openLookup{}
	b, res, err := OTLP(pb, OTLPProtobuf, o.lookup, Options{Grow: o.grow}, oo)
	if err != nil {
		t.Fatal(err)
	}
	o2 := openLookup{}
	b2, res2, err := OTLP(js, OTLPJSON, o2.lookup, Options{Grow: o2.grow}, oo)
	if err != nil {
		t.Fatal(err)
	}
	if diff := sameBatch(b, b2); diff != "" || res != res2 {
		t.Fatalf("protobuf and JSON differ: %s; %+v %+v", diff, res, res2)
	}
	return o.lines(b), res
}

// lines returns the readings of b, decoded over o, as "kind
// id=value@ms" lines, sorted.
func (o openLookup) lines(b *Batch) []string {
	var out []string
	for _, k := range b.Kinds {
		sc := o[k.Kind]
		for _, s := range k.Series {
			for _, r := range s.Readings {
				v := r.Values[sc.FieldIndex(ValueField)]
				vs := strconv.FormatFloat(v, 'g', -1, 64)
				if math.Float64bits(v) == staleNaN {
					vs = "stale"
				}
				out = append(out, k.Kind+" "+s.ID+"="+vs+"@"+strconv.FormatInt(r.Time.UnixMilli(), 10))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestOTLP_Mapping: names, labels and values as Prometheus' translation
// gives them.
func TestOTLP_Mapping(t *testing.T) {
	md := otlpMetrics(
		[]*commonpb.KeyValue{otlpKV("service.name", otlpStr("api")), otlpKV("service.namespace", otlpStr("shop"))},
		&metricspb.Metric{Name: "queue.size", Unit: "{item}", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{
			otlpNumber(1000, 3, otlpKV("a.b", otlpStr("x")), otlpKV("a_b", otlpStr("y")), otlpKV("1st", &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 7}})),
			{TimeUnixNano: 2e9, Flags: 1},
		}}}},
		&metricspb.Metric{Name: "bytes.sent", Unit: "By", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
			IsMonotonic: true, AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA,
			DataPoints: []*metricspb.NumberDataPoint{otlpNumber(1000, 5), otlpNumber(2000, 6)},
		}}},
		&metricspb.Metric{Name: "x", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
			DataPoints: []*metricspb.NumberDataPoint{otlpNumber(1000, 5)}, // temporality unspecified
		}}},
	)
	got, res := otlpSeries(t, md, OTLPOptions{})
	want := []string{
		"bytes_sent_total job=shop/api=5@1000", // no unit suffix: the name has it
		"bytes_sent_total job=shop/api=6@2000",
		"queue_size a_b=x;y,job=shop/api,key_1st=7=3@1000",
		"queue_size job=shop/api=stale@2000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Rejected != 1 || !strings.Contains(res.Reason, "data point 5") || !strings.Contains(res.Reason, "temporality") {
		t.Errorf("result %+v", res)
	}
}

// TestOTLP_ExponentialHistogram: an exponential histogram is a classic
// one with a bound at each bucket's edge, negative buckets first (from
// the outer edge of the most negative), then the zero bucket, then the
// positive ones (from the lower edge of the lowest); a scale out of
// OTLP's range refuses the point alone. Bounds computed by hand.
func TestOTLP_ExponentialHistogram(t *testing.T) {
	sum := 10.0
	md := otlpMetrics(nil, &metricspb.Metric{Name: "lat", Data: &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{
		AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
		DataPoints: []*metricspb.ExponentialHistogramDataPoint{{
			TimeUnixNano: 1e9, Count: 15, Sum: &sum, Scale: 0, ZeroCount: 5,
			Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: -1, BucketCounts: []uint64{1, 2, 3}},
			Negative: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: 0, BucketCounts: []uint64{4}},
		}, {
			TimeUnixNano: 2e9, Count: 2, Scale: 1, ZeroThreshold: 0.5,
			Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{BucketCounts: []uint64{1, 1}},
		}, {
			TimeUnixNano: 3e9, Count: 1, Scale: 21,
			Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{BucketCounts: []uint64{1}},
		}},
	}}})
	got, res := otlpSeries(t, md, OTLPOptions{})
	want := []string{
		"lat_bucket le=+Inf=15@1000",
		"lat_bucket le=+Inf=2@2000",
		"lat_bucket le=-1=4@1000",
		"lat_bucket le=-2=0@1000", // the outer edge of the negative bucket (-2, -1]
		"lat_bucket le=0.5=0@2000",
		"lat_bucket le=0.5=9@1000", // the lower edge of the positive bucket (0.5, 1]
		"lat_bucket le=0=9@1000",
		"lat_bucket le=1.414213562373095=1@2000", // Exp2(0.5), within an ulp of √2,
		"lat_bucket le=1=0@2000",                 // the lower edge of (1, √2]
		"lat_bucket le=1=10@1000",
		"lat_bucket le=2=12@1000",
		"lat_bucket le=2=2@2000",
		"lat_bucket le=4=15@1000",
		"lat_count _=15@1000",
		"lat_count _=2@2000",
		"lat_sum _=10@1000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Rejected != 1 || !strings.Contains(res.Reason, "scale 21") {
		t.Errorf("result %+v", res)
	}
}

// TestOTLP_ExponentialHistogramAsNative: an OTLP exponential histogram
// and the remote-write native histogram of the same buckets (OTLP's
// index i is the native i+1) give the same series, on random histograms
// of every scale both take (-4..20; above 8 both read at 8, and bounds
// past MaxHistogramBounds lower the schema, up to 400 buckets a side).
func TestOTLP_ExponentialHistogramAsNative(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 24))
	side := func() (int32, []uint64) {
		if rng.IntN(4) == 0 {
			return 0, nil
		}
		counts := make([]uint64, 1+rng.IntN(400))
		for i := range counts {
			if rng.IntN(3) > 0 {
				counts[i] = uint64(rng.IntN(50))
			}
		}
		return int32(rng.IntN(600) - 300), counts
	}
	native := func(offset int32, counts []uint64) ([]*writev2.BucketSpan, []int64) {
		if len(counts) == 0 {
			return nil, nil
		}
		deltas := make([]int64, len(counts))
		prev := int64(0)
		for i, n := range counts {
			deltas[i], prev = int64(n)-prev, int64(n)
		}
		return spans(int64(offset)+1, int64(len(counts))), deltas
	}
	for c := range 200 {
		scale := int32(rng.IntN(25) - 4)
		negOff, neg := side()
		posOff, pos := side()
		zero, zt := uint64(rng.IntN(5)), []float64{0, 1e-9, 0.001}[rng.IntN(3)]
		count := zero
		for _, n := range append(append([]uint64{}, neg...), pos...) {
			count += n
		}
		sum := float64(rng.IntN(1000))
		md := otlpMetrics(nil, &metricspb.Metric{Name: "lat", Data: &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{
			AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
			DataPoints: []*metricspb.ExponentialHistogramDataPoint{{
				TimeUnixNano: 1e9, Count: count, Sum: &sum, Scale: scale, ZeroCount: zero, ZeroThreshold: zt,
				Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: posOff, BucketCounts: pos},
				Negative: &metricspb.ExponentialHistogramDataPoint_Buckets{Offset: negOff, BucketCounts: neg},
			}},
		}}})
		fromOTLP, res := otlpSeries(t, md, OTLPOptions{})
		if res.Rejected != 0 {
			t.Fatalf("case %d: OTLP refused: %+v", c, res)
		}
		negSpans, negDeltas := native(negOff, neg)
		posSpans, posDeltas := native(posOff, pos)
		h := intHist(scale, count, sum, zt, zero, negSpans, negDeltas, posSpans, posDeltas)
		fromRW, res2 := nhLines(t, nhSeries{labels: []string{"__name__", "lat"}, hists: []*writev2.Histogram{h}})
		if res2.Rejected != 0 {
			t.Fatalf("case %d: remote write refused: %+v", c, res2)
		}
		if a, b := strings.Join(fromOTLP, "\n"), strings.Join(fromRW, "\n"); a != b {
			t.Fatalf("case %d (scale %d): OTLP\n%s\nremote write\n%s", c, scale, a, b)
		}
		if n := len(fromOTLP) - 3; n > MaxHistogramBounds { // le="+Inf", _count and _sum aside
			t.Fatalf("case %d: %d bounds", c, n)
		}
	}
}

// TestExpBound_ScalesNest: every bound of a scale is, to the bit, a bound
// of the next scale up, so a producer that lowers its scale keeps the
// series of the bounds that remain; and the bounds rise with the index
// within float64's range.
func TestExpBound_ScalesNest(t *testing.T) {
	for s := int32(minExpScale + 1); s <= maxExpScale; s++ {
		for i := int64(-300); i <= 300; i++ {
			if a, b := expBound(s-1, i), expBound(s, 2*i); a != b {
				t.Fatalf("scale %d index %d: %v, scale %d index %d: %v", s-1, i, a, s, 2*i, b)
			}
			if a, b := expBound(s, i), expBound(s, i+1); !(a < b) && a != 0 && !math.IsInf(a, 1) { // 0 and +Inf past float64's range
				t.Fatalf("scale %d: bound %d = %v, bound %d = %v", s, i, a, i+1, b)
			}
		}
	}
	if expBound(-10, 2) != math.Inf(1) || expBound(-10, -2) != 0 || expBound(0, 10) != 1024 || expBound(2, 4) != 2 {
		t.Errorf("edges: %v %v %v %v", expBound(-10, 2), expBound(-10, -2), expBound(0, 10), expBound(2, 4))
	}
}

// TestOTLP_TargetInfo: target_info from the earliest data point to the
// latest every 2.5 minutes, the latest included; promoted attributes in
// each series.
func TestOTLP_TargetInfo(t *testing.T) {
	md := otlpMetrics(
		[]*commonpb.KeyValue{otlpKV("service.name", otlpStr("api")), otlpKV("service.instance.id", otlpStr("i")), otlpKV("region", otlpStr("eu"))},
		&metricspb.Metric{Name: "g", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{
			otlpNumber(0, 1), otlpNumber(400_000, 2),
		}}}},
	)
	got, _ := otlpSeries(t, md, OTLPOptions{PromoteResourceAttributes: []string{"region"}})
	want := []string{
		"g instance=i,job=api,region=eu=1@0",
		"g instance=i,job=api,region=eu=2@400000",
		"target_info instance=i,job=api,region=eu=1@0",
		"target_info instance=i,job=api,region=eu=1@150000",
		"target_info instance=i,job=api,region=eu=1@300000",
		"target_info instance=i,job=api,region=eu=1@400000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Far apart points: target_info is bounded.
	md.ResourceMetrics[0].ScopeMetrics[0].Metrics[0].GetGauge().DataPoints[1].TimeUnixNano = 1e9 * 3600 * 24 * 365 * 100
	o := openLookup{}
	b, _, err := OTLP(mustMarshal(t, md), OTLPProtobuf, o.lookup, Options{Grow: o.grow}, OTLPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Readings > targetInfoPoints+4 {
		t.Errorf("%d readings", b.Readings)
	}
}

func mustMarshal(t testing.TB, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOTLP_Caps: caps refuse the request whole, wrapping their cause.
func TestOTLP_Caps(t *testing.T) {
	md := otlpMetrics(nil, &metricspb.Metric{Name: "g", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{
		otlpNumber(0, 1, otlpKV("a", otlpStr("1"))), otlpNumber(0, 1, otlpKV("a", otlpStr("2"))),
	}}}})
	o := openLookup{}
	_, _, err := OTLP(mustMarshal(t, md), OTLPProtobuf, o.lookup, Options{Grow: o.grow, MaxSeries: 1}, OTLPOptions{})
	if !errors.Is(err, ErrTooManySeries) {
		t.Errorf("MaxSeries: %v", err)
	}
	errBusy := errors.New("busy")
	_, _, err = OTLP(mustMarshal(t, md), OTLPProtobuf, o.lookup, Options{Grow: o.grow, Reserve: func(int64) error { return errBusy }}, OTLPOptions{})
	if !errors.Is(err, errBusy) {
		t.Errorf("Reserve: %v", err)
	}
	_, _, err = OTLP([]byte("{"), OTLPJSON, o.lookup, Options{Grow: o.grow}, OTLPOptions{})
	if e := (*Error)(nil); !errors.As(err, &e) || !strings.HasPrefix(e.Reason, "not an OTLP metrics request") {
		t.Errorf("bad JSON: %v", err)
	}
	// Nested attribute values deeper than the decoders follow.
	v := otlpStr("x")
	for range otlpMaxDepth {
		v = &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: []*commonpb.AnyValue{v}}}}
	}
	md.ResourceMetrics[0].Resource = &resourcepb.Resource{Attributes: []*commonpb.KeyValue{otlpKV("deep", v)}}
	_, _, err = OTLP(mustMarshal(t, md), OTLPProtobuf, o.lookup, Options{Grow: o.grow}, OTLPOptions{})
	if e := (*Error)(nil); !errors.As(err, &e) || !strings.HasPrefix(e.Reason, "not an OTLP metrics request") {
		t.Errorf("nested too deep: %v", err)
	}
}

// TestOTLP_Estimate: what OTLP reserves before decoding covers what the
// decoded messages hold on the heap, for the shapes that hold the most
// per byte sent: points without values, attributes without keys.
func TestOTLP_Estimate(t *testing.T) {
	shapes := map[string]*metricspb.MetricsData{}
	var empty []*metricspb.NumberDataPoint
	for range 20000 {
		empty = append(empty, &metricspb.NumberDataPoint{})
	}
	shapes["empty points"] = otlpMetrics(nil, &metricspb.Metric{Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: empty}}})
	var attrs []*commonpb.KeyValue
	for range 20000 {
		attrs = append(attrs, &commonpb.KeyValue{Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{}}})
	}
	shapes["empty attributes"] = otlpMetrics(attrs)
	var hists []*metricspb.HistogramDataPoint
	for range 5000 {
		hists = append(hists, &metricspb.HistogramDataPoint{BucketCounts: []uint64{0, 0}, ExplicitBounds: []float64{0}})
	}
	shapes["histograms"] = otlpMetrics(nil, &metricspb.Metric{Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{DataPoints: hists}}})
	for name, md := range shapes {
		for _, enc := range []OTLPEncoding{OTLPProtobuf, OTLPJSON} {
			var data []byte
			if enc == OTLPJSON {
				data, _ = protojson.Marshal(md)
			} else {
				data = mustMarshal(t, md)
			}
			var reserved int64
			o := Options{Reserve: func(n int64) error { reserved += n; return errors.New("stop") }}
			OTLP(data, enc, lookupOf(), o, OTLPOptions{})
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got, err := decodeOTLP(data, enc, &Options{})
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			runtime.KeepAlive(got)
			if held > reserved {
				t.Errorf("%s, encoding %d: %d bytes on the heap, %d reserved", name, enc, held, reserved)
			}
		}
	}
}

// FuzzOTLP decodes any body in both encodings: no panic, every refusal
// an *Error, every reading of the shape the Batch promises, and what the
// protobuf decoder takes the JSON one takes alike once re-encoded.
func FuzzOTLP(f *testing.F) {
	seed := otlpMetrics([]*commonpb.KeyValue{otlpKV("service.name", otlpStr("s")), otlpKV("h", otlpStr("x"))},
		&metricspb.Metric{Name: "g", Unit: "s", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{otlpNumber(5, 1, otlpKV("a", otlpStr("b")))}}}},
		&metricspb.Metric{Name: "h", Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{AggregationTemporality: 2,
			DataPoints: []*metricspb.HistogramDataPoint{{Count: 2, BucketCounts: []uint64{1, 1}, ExplicitBounds: []float64{1}}}}}},
		&metricspb.Metric{Name: "s", Data: &metricspb.Metric_Summary{Summary: &metricspb.Summary{
			DataPoints: []*metricspb.SummaryDataPoint{{Count: 2, QuantileValues: []*metricspb.SummaryDataPoint_ValueAtQuantile{{Quantile: 0.5}}}}}}},
	)
	pb := mustMarshal(f, seed)
	js, _ := protojson.Marshal(seed)
	f.Add(pb, false)
	f.Add(js, true)
	f.Add([]byte(`{"resourceMetrics":[{"scopeMetrics":[{"scope":{"name":"l"},"metrics":[{"name":"x","sum":{"aggregationTemporality":1,"dataPoints":[{"asInt":"3"}]}}]}]}]}`), true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		enc := OTLPProtobuf
		if isJSON {
			enc = OTLPJSON
		}
		o := openLookup{}
		b, _, err := OTLP(data, enc, o.lookup, Options{Grow: o.grow, MaxReadings: 1000}, OTLPOptions{PromoteResourceAttributes: []string{"h"}})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want an *Error", err, err)
			}
			return
		}
		o.checkBatch(t, b)
	})
}
