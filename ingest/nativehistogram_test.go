package ingest

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// nhSeries is a series of a remote-write request: label pairs, float
// samples and native histograms, all at 1000 ms.
type nhSeries struct {
	labels  []string
	samples []float64
	hists   []*writev2.Histogram
}

// nhRequest encodes series as a request of version v (1.0's Histogram
// has the fields of 2.0's it uses here).
func nhRequest(t testing.TB, v RemoteWriteVersion, series ...nhSeries) []byte {
	t.Helper()
	if v == RemoteWrite2 {
		st := writev2.NewSymbolTable()
		req := &writev2.Request{}
		for _, s := range series {
			ts := &writev2.TimeSeries{LabelsRefs: st.SymbolizeLabels(s.labels, nil), Histograms: s.hists}
			for _, x := range s.samples {
				ts.Samples = append(ts.Samples, &writev2.Sample{Value: x, Timestamp: 1000})
			}
			req.Timeseries = append(req.Timeseries, ts)
		}
		req.Symbols = st.Symbols()
		b, err := proto.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var body []byte
	for _, s := range series {
		ts := labelFields(s.labels)
		for _, x := range s.samples {
			var sm []byte
			sm = protowire.AppendTag(sm, 1, protowire.Fixed64Type)
			sm = protowire.AppendFixed64(sm, math.Float64bits(x))
			sm = protowire.AppendTag(sm, 2, protowire.VarintType)
			sm = protowire.AppendVarint(sm, 1000)
			ts = protowire.AppendTag(ts, 2, protowire.BytesType)
			ts = protowire.AppendBytes(ts, sm)
		}
		for _, h := range s.hists {
			hb, err := proto.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			ts = protowire.AppendTag(ts, 4, protowire.BytesType)
			ts = protowire.AppendBytes(ts, hb)
		}
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendBytes(body, ts)
	}
	return body
}

// intHist is an integer histogram at 1000 ms.
func intHist(schema int32, count uint64, sum float64, zt float64, zero uint64, neg []*writev2.BucketSpan, negD []int64, pos []*writev2.BucketSpan, posD []int64) *writev2.Histogram {
	return &writev2.Histogram{Count: &writev2.Histogram_CountInt{CountInt: count}, Sum: sum, Schema: schema,
		ZeroThreshold: zt, ZeroCount: &writev2.Histogram_ZeroCountInt{ZeroCountInt: zero},
		NegativeSpans: neg, NegativeDeltas: negD, PositiveSpans: pos, PositiveDeltas: posD, Timestamp: 1000}
}

func spans(s ...int64) []*writev2.BucketSpan {
	var out []*writev2.BucketSpan
	for i := 0; i+1 < len(s); i += 2 {
		out = append(out, &writev2.BucketSpan{Offset: int32(s[i]), Length: uint32(s[i+1])})
	}
	return out
}

// nhLines decodes a request of both versions, checks they give the
// same, and returns the lines of its batch and the 2.0 result.
func nhLines(t *testing.T, series ...nhSeries) ([]string, RemoteWriteResult) {
	t.Helper()
	var lines [2][]string
	var res RemoteWriteResult
	for i, v := range []RemoteWriteVersion{RemoteWrite1, RemoteWrite2} {
		o := openLookup{}
		b, r, err := RemoteWrite(nhRequest(t, v, series...), v, o.lookup, Options{Grow: o.grow})
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		o.checkBatch(t, b)
		lines[i], res = o.lines(b), r
	}
	if strings.Join(lines[0], "\n") != strings.Join(lines[1], "\n") {
		t.Fatalf("1.0 and 2.0 differ:\n%s\n\n%s", strings.Join(lines[0], "\n"), strings.Join(lines[1], "\n"))
	}
	return lines[1], res
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNativeHistogram_Integer: an integer histogram of schema 0 (base 2)
// with both sides, a zero bucket and a gap between spans, against the
// buckets computed by hand: negative bucket 1 is [-2, -1), positive
// bucket i is (2^(i-1), 2^i].
func TestNativeHistogram_Integer(t *testing.T) {
	h := intHist(0, 9, 5, 0.001, 2,
		spans(1, 1), []int64{3}, // negative bucket 1: 3
		spans(0, 2, 1, 1), []int64{1, 1, -1}) // positive 0: 1, 1: 2, 3: 1
	got, res := nhLines(t, nhSeries{labels: []string{"__name__", "lat", "job", "a"}, samples: []float64{7}, hists: []*writev2.Histogram{h}})
	wantLines(t, got,
		"lat job=a=7@1000",
		"lat_bucket job=a,le=+Inf=9@1000",
		"lat_bucket job=a,le=-1=3@1000",    // the upper edge of [-2, -1)
		"lat_bucket job=a,le=-2=0@1000",    // its lower edge
		"lat_bucket job=a,le=0.001=5@1000", // the zero bucket
		"lat_bucket job=a,le=0.5=5@1000",   // the lower edge of (0.5, 1]
		"lat_bucket job=a,le=1=6@1000",
		"lat_bucket job=a,le=2=8@1000",
		"lat_bucket job=a,le=4=8@1000", // the empty bucket between the spans
		"lat_bucket job=a,le=8=9@1000",
		"lat_count job=a=9@1000",
		"lat_sum job=a=5@1000",
	)
	if res != (RemoteWriteResult{Samples: 1, Histograms: 1}) {
		t.Errorf("result %+v", res)
	}
}

// TestNativeHistogram_Float: a float histogram of schema 2 (base
// 2^(1/4)), absolute counts, zero threshold 0.
func TestNativeHistogram_Float(t *testing.T) {
	h := &writev2.Histogram{Count: &writev2.Histogram_CountFloat{CountFloat: 4}, Sum: 3, Schema: 2,
		ZeroCount: &writev2.Histogram_ZeroCountFloat{}, PositiveSpans: spans(-2, 3), PositiveCounts: []float64{0.5, 1.5, 2}, Timestamp: 1000}
	got, _ := nhLines(t, nhSeries{labels: []string{"__name__", "f"}, hists: []*writev2.Histogram{h}})
	// 2^-0.75 = 0.59460355750136053..., 2^-0.5 = 0.70710678118654752...,
	// 2^-0.25 = 0.84089641525371454...: math.Exp2's float64 of each, within
	// an ulp (as the bounds of OTLP's exponential histograms).
	wantLines(t, got,
		"f_bucket le=+Inf=4@1000",
		"f_bucket le=0.5946035575013605=0@1000",
		"f_bucket le=0.7071067811865475=0.5@1000",
		"f_bucket le=0.8408964152537146=2@1000",
		"f_bucket le=0=0@1000",
		"f_bucket le=1=4@1000",
		"f_count _=4@1000",
		"f_sum _=3@1000",
	)
}

// TestNativeHistogram_CustomBuckets: schema -53, the custom values as the
// bounds, every one of them (empty or not), the last span reaching the
// +Inf bucket.
func TestNativeHistogram_CustomBuckets(t *testing.T) {
	h := intHist(-53, 9, 20, 0, 0, nil, nil, spans(0, 2, 1, 2), []int64{2, -1, 3, -2})
	h.CustomValues = []float64{0.1, 0.5, 1, 5}
	got, _ := nhLines(t, nhSeries{labels: []string{"__name__", "c"}, hists: []*writev2.Histogram{h}})
	wantLines(t, got,
		"c_bucket le=+Inf=9@1000",
		"c_bucket le=0.1=2@1000",
		"c_bucket le=0.5=3@1000",
		"c_bucket le=1=3@1000",
		"c_bucket le=5=7@1000",
		"c_count _=9@1000",
		"c_sum _=20@1000",
	)
}

// TestNativeHistogram_LowerResolution: buckets 1 and 1000 of schema 8 span
// 1000 bounds, more than MaxHistogramBounds: they are mapped at schema
// 6 (buckets 1 and 250, every fourth bound), where 252 bounds fit.
func TestNativeHistogram_LowerResolution(t *testing.T) {
	h := intHist(8, 2, 3, 0, 0, nil, nil, spans(1, 1, 998, 1), []int64{1, 0})
	got, _ := nhLines(t, nhSeries{labels: []string{"__name__", "r"}, hists: []*writev2.Histogram{h}})
	bounds := map[float64]float64{}
	for _, l := range got {
		if !strings.HasPrefix(l, "r_bucket le=") || strings.Contains(l, "+Inf") {
			continue
		}
		le, v, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(l, "r_bucket le="), "@1000"), "=")
		x, err1 := strconv.ParseFloat(le, 64)
		y, err2 := strconv.ParseFloat(v, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %q", l)
		}
		bounds[x] = y
	}
	if len(bounds) != 252 {
		t.Fatalf("%d bounds, want 252 (0, 1 and 2^(j/64) for j in 1..250)", len(bounds))
	}
	for j := 1; j <= 250; j++ {
		le, want := math.Pow(2, float64(j)/64), 1.0
		if j == 250 {
			want = 2
		}
		found := false
		for x, y := range bounds {
			if math.Abs(x-le) <= 1e-15*le {
				found = true
				if y != want {
					t.Errorf("le=%v: %v, want %v", x, y, want)
				}
			}
		}
		if !found {
			t.Errorf("no bound 2^(%d/64) = %v", j, le)
		}
	}
	if bounds[0] != 0 || bounds[1] != 0 {
		t.Errorf("le=0: %v, le=1: %v", bounds[0], bounds[1])
	}
}

// TestNativeHistogram_Stale: a staleness marker (the sum's bits) ends
// _count, _sum and le="+Inf".
func TestNativeHistogram_Stale(t *testing.T) {
	h := intHist(0, 0, math.Float64frombits(staleNaN), 0, 0, nil, nil, nil, nil)
	got, res := nhLines(t, nhSeries{labels: []string{"__name__", "s"}, hists: []*writev2.Histogram{h}})
	wantLines(t, got, "s_bucket le=+Inf=stale@1000", "s_count _=stale@1000", "s_sum _=stale@1000")
	if res.Histograms != 1 {
		t.Errorf("result %+v", res)
	}
}

// TestNativeHistogram_Refused: a histogram that cannot be mapped refuses
// a 1.0 request whole, and in 2.0 is refused alone, the rest written and
// counted.
func TestNativeHistogram_Refused(t *testing.T) {
	good := intHist(0, 1, 1, 0, 0, nil, nil, spans(0, 1), []int64{1})
	custom := func(cv ...float64) *writev2.Histogram {
		h := intHist(-53, 1, 1, 0, 0, nil, nil, spans(0, 1), []int64{1})
		h.CustomValues = cv
		return h
	}
	many := make([]float64, MaxHistogramBounds+1)
	for i := range many {
		many[i] = float64(i)
	}
	withCustom := intHist(0, 1, 1, 0, 0, nil, nil, spans(0, 1), []int64{1})
	withCustom.CustomValues = []float64{1}
	for _, c := range []struct {
		h    *writev2.Histogram
		want string
	}{
		{intHist(-5, 1, 1, 0, 0, nil, nil, spans(0, 1), []int64{1}), "schema -5"},
		{intHist(53, 1, 1, 0, 0, nil, nil, spans(0, 1), []int64{1}), "schema 53"},
		{intHist(0, 2, 1, 0, 0, nil, nil, spans(0, 2), []int64{1}), "spans cover more or fewer buckets than the 1 given"},
		{intHist(0, 1, 1, 0, 0, nil, nil, spans(0, 4_000_000_000), []int64{1}), "spans cover"}, // a hostile length
		{intHist(0, 1, 1, 0, 0, nil, nil, spans(0, 1, -1, 1), []int64{1, 0}), "negative offset"},
		{intHist(0, 1, 1, 0, 0, nil, nil, spans(0, 2), []int64{1, -2}), "negative count"},
		{intHist(0, 3, 1, 0, 0, nil, nil, spans(0, 1), []int64{2}), "2 observations in the buckets of a histogram whose count is 3"},
		{intHist(0, 1, 1, 0, 0, nil, nil, spans(math.MaxInt32, 2), []int64{1, -1}), "index 2147483648 out of range"},
		{custom(1, 1), "do not rise"},
		{custom(math.Inf(1)), "not finite"},
		{custom(many...), "257 custom bounds, more than 256"},
		{intHist(-53, 1, 1, 0, 0, nil, nil, spans(2, 1), []int64{1}), "out of range"}, // past +Inf's index
		{withCustom, "exponential schema 0 has custom bounds"},
		{&writev2.Histogram{Count: &writev2.Histogram_CountFloat{CountFloat: 1}, PositiveSpans: spans(0, 1), PositiveCounts: []float64{-1}}, "negative count"},
	} {
		series := []nhSeries{
			{labels: []string{"__name__", "ok"}, samples: []float64{1}},
			{labels: []string{"__name__", "h", "job", "x"}, hists: []*writev2.Histogram{good, c.h}},
		}
		o := openLookup{}
		_, _, err := RemoteWrite(nhRequest(t, RemoteWrite1, series...), RemoteWrite1, o.lookup, Options{Grow: o.grow})
		var e *Error
		if !errors.As(err, &e) || e.Line != 2 || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `metric "h"`) {
			t.Errorf("1.0: %v, want an *Error of series 2 with %q", err, c.want)
		}
		b, res, err := RemoteWrite(nhRequest(t, RemoteWrite2, series...), RemoteWrite2, o.lookup, Options{Grow: o.grow})
		if err != nil {
			t.Fatalf("2.0: %v", err)
		}
		if res.Samples != 1 || res.Histograms != 1 || res.Rejected != 1 || !strings.Contains(res.Reason, c.want) || !strings.Contains(res.Reason, "timeseries 2") {
			t.Errorf("2.0: %+v, want %q refused", res, c.want)
		}
		if got := o.lines(b); len(got) != 7 { // ok, then h's good one: _count, _sum, le=0.5, 0, 1, +Inf
			t.Errorf("2.0 wrote %q", got)
		}
	}
}

// TestNativeHistogram_ReservedSchema: a schema above 8 (Prometheus
// reduces it to 8) is read at schema 8: bucket 512 of schema 9 is
// bucket 256 of schema 8, bound 2.
func TestNativeHistogram_ReservedSchema(t *testing.T) {
	h := intHist(9, 1, 1.9, 0, 0, nil, nil, spans(512, 1), []int64{1})
	got, _ := nhLines(t, nhSeries{labels: []string{"__name__", "x"}, hists: []*writev2.Histogram{h}})
	wantLines(t, got,
		"x_bucket le=+Inf=1@1000",
		"x_bucket le=0=0@1000",
		"x_bucket le=1.9945921121709402=0@1000", // 2^(255/256) = 1.99459211217094..., the lower edge
		"x_bucket le=2=1@1000",
		"x_count _=1@1000",
		"x_sum _=1.9@1000",
	)
}

// histogramSeeds are series of native histograms of each kind.
func histogramSeeds() []nhSeries {
	h := intHist(0, 9, 5, 0.001, 2, spans(1, 1), []int64{3}, spans(0, 2, 1, 1), []int64{1, 1, -1})
	f := &writev2.Histogram{Count: &writev2.Histogram_CountFloat{CountFloat: 4}, Sum: 3, Schema: 2,
		NegativeSpans: spans(-3, 1), NegativeCounts: []float64{1}, PositiveSpans: spans(-2, 3), PositiveCounts: []float64{0.5, 1.5, 2}}
	c := intHist(-53, 9, 20, 0, 0, nil, nil, spans(0, 2, 1, 2), []int64{2, -1, 3, -2})
	c.CustomValues = []float64{0.1, 0.5, 1, 5}
	return []nhSeries{
		{labels: []string{"__name__", "lat", "job", "a"}, hists: []*writev2.Histogram{h, f}},
		{labels: []string{"__name__", "c"}, hists: []*writev2.Histogram{c}},
	}
}

// FuzzNativeHistogram decodes any Histogram message: refused, or mapped
// to at most MaxHistogramBounds bounds, each finite and above the one
// before, their counts cumulative (never falling) and, for an integer
// histogram, at most its count.
func FuzzNativeHistogram(f *testing.F) {
	for _, s := range histogramSeeds() {
		for _, h := range s.hists {
			b, err := proto.Marshal(h)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add(protowire.AppendTag(nil, 4, protowire.VarintType))
	var h nativeHistogram
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := parseHistogram(data, &h); err != nil || h.stale() {
			return
		}
		bounds := h.classicBounds(nil)
		if len(bounds) > MaxHistogramBounds {
			t.Fatalf("%d bounds", len(bounds))
		}
		for i, b := range bounds {
			if math.IsInf(b.le, 0) || math.IsNaN(b.le) || i > 0 && b.le <= bounds[i-1].le {
				t.Fatalf("bound %d: %v after %v", i, b.le, bounds[max(i-1, 0)].le)
			}
			if i > 0 && b.cum < bounds[i-1].cum {
				t.Fatalf("bound %v: %v observations, %v below", b.le, b.cum, bounds[i-1].cum)
			}
			if !h.float && b.cum > h.count {
				t.Fatalf("bound %v: %v observations of %v", b.le, b.cum, h.count)
			}
		}
	})
}
