package server_test

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/client_golang/exp/api/remote"
	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

const ctypeV2 = "application/x-protobuf;proto=io.prometheus.write.v2.Request"

// postV2 posts req as remote write 2.0.
func (e *env) postV2(req *writev2.Request) answer {
	e.t.Helper()
	b, err := proto.Marshal(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.do(http.MethodPost, "/api/v1/write", ctypeV2, bytes.NewReader(snappy.Encode(nil, b)), "Content-Encoding", "snappy")
}

// TestRemoteWrite_NativeHistograms: native histograms of 2.0 and 1.0
// come back through the query API as classic histograms; one that
// cannot be mapped is refused alone in 2.0 (400 naming it, the headers
// counting what was written, which reads back) and refuses a 1.0
// request whole.
func TestRemoteWrite_NativeHistograms(t *testing.T) {
	e := newEnv(t, envOptions{})
	st := writev2.NewSymbolTable()
	// Schema 0: positive buckets 0 (0.5, 1] of 1 and 1 (1, 2] of 3, zero
	// bucket of 1.
	hist := func(at time.Time, schema int32) *writev2.Histogram {
		return &writev2.Histogram{Count: &writev2.Histogram_CountInt{CountInt: 5}, Sum: 4, Schema: schema, ZeroThreshold: 0.25,
			ZeroCount: &writev2.Histogram_ZeroCountInt{ZeroCountInt: 1}, PositiveSpans: []*writev2.BucketSpan{{Offset: 0, Length: 2}},
			PositiveDeltas: []int64{1, 2}, Timestamp: ms(at)}
	}
	req := &writev2.Request{Timeseries: []*writev2.TimeSeries{
		{LabelsRefs: st.SymbolizeLabels([]string{"__name__", "req_seconds", "job", "api"}, nil),
			Histograms: []*writev2.Histogram{hist(t0, 0)},
			Metadata:   &writev2.Metadata{Type: writev2.Metadata_METRIC_TYPE_HISTOGRAM, HelpRef: st.Symbolize("Request time.")}},
		{LabelsRefs: st.SymbolizeLabels([]string{"__name__", "up", "job", "api"}, nil), Samples: []*writev2.Sample{{Value: 1, Timestamp: ms(t0)}}},
		{LabelsRefs: st.SymbolizeLabels([]string{"__name__", "bad_seconds"}, nil), Histograms: []*writev2.Histogram{hist(t0, -5)}},
	}}
	req.Symbols = st.Symbols()
	a := e.postV2(req).must(t, http.StatusBadRequest)
	if s, h := a.header.Get("X-Prometheus-Remote-Write-Samples-Written"), a.header.Get("X-Prometheus-Remote-Write-Histograms-Written"); s != "1" || h != "1" {
		t.Errorf("written: %s samples, %s histograms; want 1 and 1", s, h)
	}
	if !strings.Contains(string(a.body), "timeseries 3") || !strings.Contains(string(a.body), "schema -5") {
		t.Errorf("body %s", a.body)
	}
	check := func(q string, want ...string) {
		t.Helper()
		if got := e.query(q, t0); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", q, got, want)
		}
	}
	check(`req_seconds_bucket`,
		"__name__=req_seconds_bucket,job=api,le=+Inf 5",
		"__name__=req_seconds_bucket,job=api,le=0.25 1",
		"__name__=req_seconds_bucket,job=api,le=0.5 1",
		"__name__=req_seconds_bucket,job=api,le=1 2",
		"__name__=req_seconds_bucket,job=api,le=2 5")
	check(`req_seconds_count`, "__name__=req_seconds_count,job=api 5")
	check(`req_seconds_sum`, "__name__=req_seconds_sum,job=api 4")
	// Rank 2.5 of 5 lies in (1, 2], which holds ranks 2 to 5: 1 + 0.5/3.
	check(`histogram_quantile(0.5, req_seconds_bucket)`, "job=api "+strconv.FormatFloat(1+0.5/3, 'f', -1, 64))
	check(`up`, "__name__=up,job=api 1")
	check(`bad_seconds_count`)
	var k struct{ Meta struct{ Type, Help string } }
	e.get("/api/v1/kinds/req_seconds_bucket").must(t, 200).json(t, &k)
	if k.Meta.Type != "histogram" || k.Meta.Help != "Request time." {
		t.Errorf("metadata %+v", k.Meta)
	}

	// Prometheus' client reads the counts: two histograms, no sample.
	req = &writev2.Request{Timeseries: []*writev2.TimeSeries{{LabelsRefs: req.Timeseries[0].LabelsRefs,
		Histograms: []*writev2.Histogram{hist(t0.Add(time.Second), 0), hist(t0.Add(2*time.Second), 0)}}}, Symbols: req.Symbols}
	stats, err := promAPI(t, e).Write(context.Background(), remote.WriteV2MessageType, req)
	if err != nil || stats.Histograms != 2 || stats.Samples != 0 {
		t.Fatalf("stats %+v, %v; want 2 histograms", stats, err)
	}

	// 1.0: the same histograms, the bad one refusing the request whole.
	good := v1Request{series: []v1Series{{labels: []string{"__name__", "one_seconds"}, hists: []*writev2.Histogram{hist(t0, 0)}}}}
	if _, err := promAPI(t, e).Write(context.Background(), remote.WriteV1MessageType, &good); err != nil {
		t.Fatal(err)
	}
	check(`one_seconds_bucket{le="2"}`, "__name__=one_seconds_bucket,le=2 5")
	bad := v1Request{series: []v1Series{
		{labels: []string{"__name__", "two_seconds"}, hists: []*writev2.Histogram{hist(t0, 0)}},
		{labels: []string{"__name__", "three_seconds"}, hists: []*writev2.Histogram{hist(t0, 9), hist(t0, 53)}},
	}}
	b := e.do(http.MethodPost, "/api/v1/write", "application/x-protobuf", bytes.NewReader(snappy.Encode(nil, bad.marshal())), "Content-Encoding", "snappy")
	if b.must(t, http.StatusBadRequest); !strings.Contains(string(b.body), "timeseries 2") || !strings.Contains(string(b.body), "schema 53") {
		t.Errorf("1.0 body %s", b.body)
	}
	check(`two_seconds_count`)
}

// TestRemoteWrite_NativeHistogramQuantiles is a differential test: the
// same observations recorded by Prometheus' client library in a native
// histogram (schema 3) and in a classic one whose bounds are the native
// bounds from 2^-4 to 2^4; the native one written through remote write
// 2.0, the classic one as float samples. histogram_quantile over the
// classic series the native histogram maps to gives what it gives over
// the client's classic histogram, instant and over a rate, from the
// lowest bucket (q=0.0001, interpolated from its lower edge) up.
func TestRemoteWrite_NativeHistogramQuantiles(t *testing.T) {
	e := newEnv(t, envOptions{})
	var bounds []float64
	for i := -32; i <= 32; i++ {
		bounds = append(bounds, math.Pow(2, float64(i)/8))
	}
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "x", Buckets: bounds, NativeHistogramBucketFactor: 1.1})
	rng := rand.New(rand.NewPCG(1, 2))
	// The lowest and the highest bucket first: the native histogram's
	// range is the classic one's from the start.
	h.Observe(math.Nextafter(bounds[0], 1))
	h.Observe(bounds[len(bounds)-1])
	st := writev2.NewSymbolTable()
	req := &writev2.Request{}
	for step := range 3 {
		for range 500 * (step + 1) {
			h.Observe(math.Exp2(rng.Float64()*7.9 - 3.95))
		}
		at := ms(t0.Add(time.Duration(step) * 30 * time.Second))
		var m dto.Metric
		if err := h.Write(&m); err != nil {
			t.Fatal(err)
		}
		dh := m.GetHistogram()
		if dh.GetSchema() != 3 {
			t.Fatalf("schema %d, want 3", dh.GetSchema())
		}
		req.Timeseries = append(req.Timeseries, &writev2.TimeSeries{
			LabelsRefs: st.SymbolizeLabels([]string{"__name__", "nat"}, nil),
			Histograms: []*writev2.Histogram{nativeOf(dh, at)},
		})
		sample := func(v float64, labels ...string) {
			req.Timeseries = append(req.Timeseries, &writev2.TimeSeries{LabelsRefs: st.SymbolizeLabels(labels, nil), Samples: []*writev2.Sample{{Value: v, Timestamp: at}}})
		}
		for _, b := range dh.GetBucket() {
			sample(float64(b.GetCumulativeCount()), "__name__", "cls_bucket", "le", strconv.FormatFloat(b.GetUpperBound(), 'f', -1, 64))
		}
		sample(float64(dh.GetSampleCount()), "__name__", "cls_bucket", "le", "+Inf")
		sample(float64(dh.GetSampleCount()), "__name__", "cls_count")
		sample(dh.GetSampleSum(), "__name__", "cls_sum")
	}
	req.Symbols = st.Symbols()
	if a := e.postV2(req).must(t, http.StatusNoContent); a.header.Get("X-Prometheus-Remote-Write-Histograms-Written") != "3" {
		t.Fatalf("headers %v", a.header)
	}
	at := t0.Add(time.Minute)
	compared := 0
	for _, q := range []string{"0.0001", "0.01", "0.1", "0.25", "0.5", "0.75", "0.9", "0.99", "0.999"} {
		for _, f := range []string{`histogram_quantile(%s, %s_bucket)`, `histogram_quantile(%s, rate(%s_bucket[2m]))`} {
			nat := e.query(strings.Replace(strings.Replace(f, "%s", q, 1), "%s", "nat", 1), at)
			cls := e.query(strings.Replace(strings.Replace(f, "%s", q, 1), "%s", "cls", 1), at)
			if len(nat) != 1 || len(cls) != 1 {
				t.Fatalf("%s: native %q, classic %q", f, nat, cls)
			}
			x, err1 := strconv.ParseFloat(strings.TrimPrefix(nat[0], " "), 64)
			y, err2 := strconv.ParseFloat(strings.TrimPrefix(cls[0], " "), 64)
			// The bounds agree within an ulp (math.Exp2 and math.Pow).
			if err1 != nil || err2 != nil || math.IsNaN(x) || !(math.Abs(x-y) <= 1e-12*math.Abs(y)) {
				t.Errorf("%s at %s: native %q, classic %q", f, q, nat, cls)
			}
			compared++
		}
	}
	if compared != 18 {
		t.Fatalf("%d comparisons", compared)
	}
	if got, want := e.query("nat_count", at), e.query("cls_count", at); len(got) != 1 || strings.TrimPrefix(got[0], "__name__=nat_count") != strings.TrimPrefix(want[0], "__name__=cls_count") {
		t.Errorf("count %q, classic %q", got, want)
	}
}

// nativeOf returns the native histogram of a client's histogram at ms.
func nativeOf(h *dto.Histogram, at int64) *writev2.Histogram {
	spans := func(ss []*dto.BucketSpan) []*writev2.BucketSpan {
		var out []*writev2.BucketSpan
		for _, s := range ss {
			out = append(out, &writev2.BucketSpan{Offset: s.GetOffset(), Length: s.GetLength()})
		}
		return out
	}
	return &writev2.Histogram{Count: &writev2.Histogram_CountInt{CountInt: h.GetSampleCount()}, Sum: h.GetSampleSum(),
		Schema: h.GetSchema(), ZeroThreshold: h.GetZeroThreshold(), ZeroCount: &writev2.Histogram_ZeroCountInt{ZeroCountInt: h.GetZeroCount()},
		NegativeSpans: spans(h.GetNegativeSpan()), NegativeDeltas: h.GetNegativeDelta(),
		PositiveSpans: spans(h.GetPositiveSpan()), PositiveDeltas: h.GetPositiveDelta(), Timestamp: at}
}
