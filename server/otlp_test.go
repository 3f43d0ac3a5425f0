package server_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/timetable-db/timetable/server"
)

func kv(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

// otlpRequest is an OTLP metrics request (MetricsData is
// ExportMetricsServiceRequest on the wire) of one resource of service
// svc: a gauge, a cumulative monotonic sum, a histogram, a summary, an
// exponential histogram of two points (the second of a scale refused),
// all at t.
func otlpRequest(t time.Time) *metricspb.MetricsData {
	ns := uint64(t.UnixNano())
	sum := 7.5
	return &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			kv("service.name", "svc"), kv("service.instance.id", "i-1"), kv("host.name", "h1"), kv("k8s.namespace.name", "prod"),
		}},
		ScopeMetrics: []*metricspb.ScopeMetrics{{
			Scope: &commonpb.InstrumentationScope{Name: "lib", Version: "1.2"},
			Metrics: []*metricspb.Metric{
				{Name: "process.memory.usage", Unit: "By", Description: "memory in use", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{
					DataPoints: []*metricspb.NumberDataPoint{{TimeUnixNano: ns, Value: &metricspb.NumberDataPoint_AsInt{AsInt: 2048}, Attributes: []*commonpb.KeyValue{kv("memory.type", "heap")}}},
				}}},
				{Name: "http.server.requests", Unit: "1", Data: &metricspb.Metric_Sum{Sum: &metricspb.Sum{
					IsMonotonic: true, AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
					DataPoints: []*metricspb.NumberDataPoint{{TimeUnixNano: ns, Value: &metricspb.NumberDataPoint_AsDouble{AsDouble: 42}, Attributes: []*commonpb.KeyValue{kv("http.method", "GET")}}},
				}}},
				{Name: "http.server.duration", Unit: "s", Data: &metricspb.Metric_Histogram{Histogram: &metricspb.Histogram{
					AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
					DataPoints: []*metricspb.HistogramDataPoint{{TimeUnixNano: ns, Count: 10, Sum: &sum,
						ExplicitBounds: []float64{0.1, 0.5, 1}, BucketCounts: []uint64{3, 4, 2, 1}}},
				}}},
				{Name: "rpc.latency", Unit: "ms", Data: &metricspb.Metric_Summary{Summary: &metricspb.Summary{
					DataPoints: []*metricspb.SummaryDataPoint{{TimeUnixNano: ns, Count: 5, Sum: 50,
						QuantileValues: []*metricspb.SummaryDataPoint_ValueAtQuantile{{Quantile: 0.5, Value: 9}, {Quantile: 0.99, Value: 20}}}},
				}}},
				{Name: "exp.hist", Data: &metricspb.Metric_ExponentialHistogram{ExponentialHistogram: &metricspb.ExponentialHistogram{
					AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE,
					DataPoints: []*metricspb.ExponentialHistogramDataPoint{
						{TimeUnixNano: ns, Count: 10, Positive: &metricspb.ExponentialHistogramDataPoint_Buckets{BucketCounts: []uint64{4, 6}}},
						{TimeUnixNano: ns, Count: 1, Scale: 21}, // beyond OTLP's scales: refused
					},
				}}},
			},
		}},
	}}}
}

// partialSuccess decodes an ExportMetricsServiceResponse in protobuf.
func partialSuccess(t *testing.T, b []byte) (rejected int64, msg string) {
	t.Helper()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num != 1 || typ != protowire.BytesType {
			t.Fatalf("not an ExportMetricsServiceResponse: %x", b)
		}
		ps, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			t.Fatalf("malformed response %x", b)
		}
		b = b[n+m:]
		for len(ps) > 0 {
			num, typ, n := protowire.ConsumeTag(ps)
			ps = ps[n:]
			switch {
			case num == 1 && typ == protowire.VarintType:
				v, k := protowire.ConsumeVarint(ps)
				rejected, ps = int64(v), ps[k:]
			case num == 2 && typ == protowire.BytesType:
				v, k := protowire.ConsumeBytes(ps)
				msg, ps = string(v), ps[k:]
			default:
				t.Fatalf("unexpected field %d of partial_success", num)
			}
		}
	}
	return rejected, msg
}

// query returns the instant vector of q at t as "labels value" lines,
// sorted.
func (e *env) query(q string, at time.Time) []string {
	e.t.Helper()
	var a struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	e.get(fmt.Sprintf("/api/v1/query?query=%s&time=%d", url.QueryEscape(q), at.Unix())).must(e.t, 200).json(e.t, &a)
	var out []string
	for _, r := range a.Data.Result {
		var ls []string
		for k, v := range r.Metric {
			ls = append(ls, k+"="+v)
		}
		sort.Strings(ls)
		out = append(out, strings.Join(ls, ",")+" "+fmt.Sprint(r.Value[1]))
	}
	sort.Strings(out)
	return out
}

// TestOTLP_WriteThenQuery: an OTLP request, in protobuf and gzip, comes
// back through the Prometheus query API under the names Prometheus'
// OTLP translation gives, with job, instance, the scope's labels and
// target_info; the exponential histogram reads as a classic one, but for
// its point of a scale out of range, refused in partial_success.
func TestOTLP_WriteThenQuery(t *testing.T) {
	e := newEnv(t, envOptions{})
	at := t0.Add(time.Minute)
	body, err := proto.Marshal(otlpRequest(at))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(body)
	zw.Close()
	a := e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", &gz, "Content-Encoding", "gzip").must(t, 200)
	if ct := a.header.Get("Content-Type"); ct != "application/x-protobuf" {
		t.Errorf("Content-Type %q", ct)
	}
	rejected, msg := partialSuccess(t, a.body)
	if rejected != 1 || !strings.Contains(msg, "data point 6") || !strings.Contains(msg, "scale 21") {
		t.Errorf("partial success %d %q, want the exponential histogram's point of scale 21", rejected, msg)
	}

	common := "instance=i-1,job=svc,otel_scope_name=lib,otel_scope_version=1.2"
	check := func(q string, want ...string) {
		t.Helper()
		got := e.query(q, at)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	check(`process_memory_usage_bytes`, "__name__=process_memory_usage_bytes,instance=i-1,job=svc,memory_type=heap,otel_scope_name=lib,otel_scope_version=1.2 2048")
	check(`http_server_requests_total`, "__name__=http_server_requests_total,http_method=GET,"+common+" 42")
	check(`http_server_duration_seconds_bucket{le="0.5",job="svc"}`, "__name__=http_server_duration_seconds_bucket,instance=i-1,job=svc,le=0.5,otel_scope_name=lib,otel_scope_version=1.2 7")
	check(`http_server_duration_seconds_bucket{le="+Inf"}`, "__name__=http_server_duration_seconds_bucket,instance=i-1,job=svc,le=+Inf,otel_scope_name=lib,otel_scope_version=1.2 10")
	check(`http_server_duration_seconds_sum`, "__name__=http_server_duration_seconds_sum,"+common+" 7.5")
	check(`http_server_duration_seconds_count`, "__name__=http_server_duration_seconds_count,"+common+" 10")
	check(`histogram_quantile(0.7, http_server_duration_seconds_bucket)`, common+" 0.5")
	check(`rpc_latency_milliseconds{quantile="0.99"}`, "__name__=rpc_latency_milliseconds,"+common+",quantile=0.99 20")
	check(`rpc_latency_milliseconds_count`, "__name__=rpc_latency_milliseconds_count,"+common+" 5")
	check(`target_info`, "__name__=target_info,host_name=h1,instance=i-1,job=svc,k8s_namespace_name=prod 1")
	check(`exp_hist_bucket`,
		"__name__=exp_hist_bucket,instance=i-1,job=svc,le=+Inf,otel_scope_name=lib,otel_scope_version=1.2 10",
		"__name__=exp_hist_bucket,instance=i-1,job=svc,le=0,otel_scope_name=lib,otel_scope_version=1.2 0",
		"__name__=exp_hist_bucket,instance=i-1,job=svc,le=1,otel_scope_name=lib,otel_scope_version=1.2 0",
		"__name__=exp_hist_bucket,instance=i-1,job=svc,le=2,otel_scope_name=lib,otel_scope_version=1.2 4",
		"__name__=exp_hist_bucket,instance=i-1,job=svc,le=4,otel_scope_name=lib,otel_scope_version=1.2 10")
	check(`histogram_quantile(0.7, exp_hist_bucket)`, common+" 3")

	// The metadata Prometheus would keep, in the kind.
	var k struct {
		Meta struct{ Type, Help, Unit string }
	}
	e.get("/api/v1/kinds/process_memory_usage_bytes").must(t, 200).json(t, &k)
	if k.Meta.Type != "gauge" || k.Meta.Help != "memory in use" || k.Meta.Unit != "bytes" {
		t.Errorf("metadata of the gauge: %+v", k.Meta)
	}
	// And through Prometheus' metadata API, as Grafana's metric browser reads it.
	var md struct {
		Data map[string][]struct{ Type, Help, Unit string }
	}
	e.get("/api/v1/metadata?metric=process_memory_usage_bytes").must(t, 200).json(t, &md)
	if m := md.Data["process_memory_usage_bytes"]; len(m) != 1 || m[0].Type != "gauge" || m[0].Help != "memory in use" || m[0].Unit != "bytes" {
		t.Errorf("/api/v1/metadata: %+v", md.Data)
	}
}

// TestOTLP_JSON: the same request in OTLP's JSON encoding writes the
// same series, and is answered in JSON.
func TestOTLP_JSON(t *testing.T) {
	at := t0.Add(time.Minute)
	req := otlpRequest(at)
	pb, _ := proto.Marshal(req)
	js, err := protojson.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	e1 := newEnv(t, envOptions{})
	e1.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", bytes.NewReader(pb)).must(t, 200)
	e2 := newEnv(t, envOptions{})
	a := e2.do(http.MethodPost, "/v1/metrics", "application/json", bytes.NewReader(js)).must(t, 200)
	var resp struct {
		PartialSuccess struct{ RejectedDataPoints, ErrorMessage string }
	}
	a.json(t, &resp)
	if resp.PartialSuccess.RejectedDataPoints != "1" || resp.PartialSuccess.ErrorMessage == "" {
		t.Errorf("JSON answer %s", a.body)
	}
	q := `{__name__=~".+"}`
	got1, got2 := e1.query(q, at), e2.query(q, at)
	if len(got1) < 10 || strings.Join(got1, "\n") != strings.Join(got2, "\n") {
		t.Errorf("protobuf wrote\n%s\nJSON wrote\n%s", strings.Join(got1, "\n"), strings.Join(got2, "\n"))
	}

	// Everything taken: an empty answer.
	ok := &metricspb.MetricsData{ResourceMetrics: req.ResourceMetrics[:1]}
	ok.ResourceMetrics[0].ScopeMetrics[0].Metrics = ok.ResourceMetrics[0].ScopeMetrics[0].Metrics[:1]
	js, _ = protojson.Marshal(ok)
	if a := e2.do(http.MethodPost, "/v1/metrics", "application/json", bytes.NewReader(js)).must(t, 200); strings.TrimSpace(string(a.body)) != "{}" {
		t.Errorf("a request taken whole answers %s", a.body)
	}
	pb, _ = proto.Marshal(ok)
	if a := e2.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", bytes.NewReader(pb)).must(t, 200); len(a.body) != 0 {
		t.Errorf("a request taken whole answers %x", a.body)
	}
}

// TestOTLP_PromoteResourceAttributes: a promoted resource attribute is a
// label of each series of its resource, a data point's own wins.
func TestOTLP_PromoteResourceAttributes(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) {
		c.OTLPPromoteResourceAttributes = []string{"k8s.namespace.name", "memory.type"}
	}})
	at := t0.Add(time.Minute)
	req := otlpRequest(at)
	req.ResourceMetrics[0].Resource.Attributes = append(req.ResourceMetrics[0].Resource.Attributes, kv("memory.type", "resource"))
	pb, _ := proto.Marshal(req)
	e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", bytes.NewReader(pb)).must(t, 200)
	got := e.query(`process_memory_usage_bytes`, at)
	if len(got) != 1 || !strings.Contains(got[0], "k8s_namespace_name=prod") || !strings.Contains(got[0], "memory_type=heap") {
		t.Errorf("promoted: %q", got)
	}
}

// TestOTLP_Refused: bad bodies and types are refused 4xx with a
// google.rpc.Status in the request's encoding; caps and bombs are 413;
// with --no-auto-kinds the points of unknown kinds are refused in
// partial_success.
func TestOTLP_Refused(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) {
		c.MaxInflatedBytes = 1 << 20
		c.MaxReadings = 5
	}})
	status := func(a answer) (int, string) {
		t.Helper()
		var code int
		var msg string
		for b := a.body; len(b) > 0; {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 {
				t.Fatalf("not a Status: %x", a.body)
			}
			b = b[n:]
			n = protowire.ConsumeFieldValue(num, typ, b)
			switch {
			case num == 1 && typ == protowire.VarintType:
				v, _ := protowire.ConsumeVarint(b)
				code = int(v)
			case num == 2 && typ == protowire.BytesType:
				v, _ := protowire.ConsumeBytes(b)
				msg = string(v)
			}
			b = b[n:]
		}
		return code, msg
	}

	a := e.post("/v1/metrics", "application/x-protobuf", "\xff\xff\xff").must(t, 400)
	if code, msg := status(a); code != 3 || !strings.Contains(msg, "not an OTLP metrics request") {
		t.Errorf("bad protobuf: %d %q", code, msg)
	}
	a = e.post("/v1/metrics", "application/json", `{"resourceMetrics": 3}`).must(t, 400)
	var st struct {
		Code    int
		Message string
	}
	a.json(t, &st)
	if st.Code != 3 || st.Message == "" {
		t.Errorf("bad JSON: %s", a.body)
	}
	e.post("/v1/metrics", "text/plain", "x").must(t, 415)
	e.post("/v1/metrics", "application/x-protobuf", "x").must(t, 400)
	e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", strings.NewReader("x"), "Content-Encoding", "br").must(t, 415)
	e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", strings.NewReader("not gzip"), "Content-Encoding", "gzip").must(t, 400)

	// A gzip bomb: 4 MiB of zeros inflate past --max-inflated.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(make([]byte, 4<<20))
	zw.Close()
	a = e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", &gz, "Content-Encoding", "gzip").must(t, 413)
	if code, msg := status(a); code != 8 || !strings.Contains(msg, "--max-inflated") {
		t.Errorf("bomb: %d %q", code, msg)
	}

	// More readings than --max-readings: the histogram alone has 6.
	pb, _ := proto.Marshal(otlpRequest(t0))
	a = e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", bytes.NewReader(pb)).must(t, 413)
	if _, msg := status(a); !strings.Contains(msg, "more than 5 readings") {
		t.Errorf("readings cap: %q", msg)
	}

	// A huge label set: more attributes than a series has labels is a
	// point refused.
	var attrs []*commonpb.KeyValue
	for i := range 2000 {
		attrs = append(attrs, kv(fmt.Sprintf("a%d", i), "v"))
	}
	big := &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{ScopeMetrics: []*metricspb.ScopeMetrics{{Metrics: []*metricspb.Metric{
		{Name: "g", Data: &metricspb.Metric_Gauge{Gauge: &metricspb.Gauge{DataPoints: []*metricspb.NumberDataPoint{
			{TimeUnixNano: uint64(t0.UnixNano()), Attributes: attrs},
			{TimeUnixNano: uint64(t0.UnixNano()), Attributes: attrs[:2]},
		}}}},
	}}}}}}
	pb, _ = proto.Marshal(big)
	a = e.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", bytes.NewReader(pb)).must(t, 200)
	if n, msg := partialSuccess(t, a.body); n != 1 || !strings.Contains(msg, "data point 1") || !strings.Contains(msg, "labels") {
		t.Errorf("huge label set: %d %q", n, msg)
	}
	if got := e.query("g", t0); len(got) != 1 {
		t.Errorf("the other point: %q", got)
	}

	// --no-auto-kinds: unknown kinds are refused point by point.
	e2 := newEnv(t, envOptions{config: func(c *server.Config) { c.NoAutoKinds = true }})
	pb, _ = proto.Marshal(otlpRequest(t0))
	a = e2.do(http.MethodPost, "/v1/metrics", "application/x-protobuf", bytes.NewReader(pb)).must(t, 200)
	if n, msg := partialSuccess(t, a.body); n != 6 || !strings.Contains(msg, "unknown kind") {
		t.Errorf("--no-auto-kinds: %d %q", n, msg)
	}
}
