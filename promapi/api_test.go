package promapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/timetable-db/timetable/promapi"
)

// newAPIServer serves the API's routes over the fixture, the kinds
// allowed by allow (nil: all).
func newAPIServer(t *testing.T, allow func(context.Context, string) bool) *httptest.Server {
	t.Helper()
	f := newFixture(t, 3)
	a := promapi.New(promapi.Config{Store: f.st, Allow: allow, Now: func() time.Time { return base.Add(2 * time.Hour) }})
	mux := http.NewServeMux()
	for pattern, h := range map[string]http.HandlerFunc{
		"/api/v1/query": a.Query, "/api/v1/query_range": a.QueryRange, "/api/v1/series": a.Series,
		"/api/v1/labels": a.Labels, "/api/v1/label/{name}/values": a.LabelValues,
		"/api/v1/metadata": a.Metadata, "/api/v1/status/buildinfo": a.BuildInfo, "/api/v1/format_query": a.FormatQuery,
		"/api/v1/query_exemplars": a.QueryExemplars, "/api/v1/rules": a.Rules, "/api/v1/alerts": a.Alerts,
	} {
		mux.HandleFunc(pattern, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// answer is Prometheus' documented envelope.
type answer struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Warnings  []string        `json:"warnings"`
}

// call sends a GET (form nil) or a form POST and decodes the envelope,
// checking the status code and the envelope's shape.
func call(t *testing.T, srv *httptest.Server, method, path string, q url.Values, wantCode int) answer {
	t.Helper()
	var resp *http.Response
	var err error
	if method == http.MethodPost {
		resp, err = http.PostForm(srv.URL+path, q)
	} else {
		resp, err = http.Get(srv.URL + path + "?" + q.Encode())
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != wantCode {
		t.Fatalf("%s %s?%s: status %d, want %d: %s", method, path, q.Encode(), resp.StatusCode, wantCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	var a answer
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%s: %v: %s", path, err, body)
	}
	switch {
	case wantCode == 200 && (a.Status != "success" || a.Data == nil || a.ErrorType != ""):
		t.Fatalf("%s: not a success envelope: %s", path, body)
	case wantCode != 200 && (a.Status != "error" || a.ErrorType == "" || a.Error == "" || a.Data != nil):
		t.Fatalf("%s: not an error envelope: %s", path, body)
	}
	return a
}

// sample is [seconds, "value"], as Prometheus' API encodes a point.
func checkPoint(t *testing.T, what string, p []json.RawMessage) float64 {
	t.Helper()
	if len(p) != 2 {
		t.Fatalf("%s: point %v is not [time, value]", what, p)
	}
	var ts float64
	if err := json.Unmarshal(p[0], &ts); err != nil {
		t.Fatalf("%s: time %s is not a number", what, p[0])
	}
	var v string
	if err := json.Unmarshal(p[1], &v); err != nil {
		t.Fatalf("%s: value %s is not a string", what, p[1])
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && v != "NaN" && v != "+Inf" && v != "-Inf" {
		t.Fatalf("%s: value %q", what, v)
	}
	_ = f
	return ts
}

type vectorData struct {
	ResultType string `json:"resultType"`
	Result     []struct {
		Metric map[string]string `json:"metric"`
		Value  []json.RawMessage `json:"value"`
	} `json:"result"`
}

type matrixData struct {
	ResultType string `json:"resultType"`
	Result     []struct {
		Metric map[string]string   `json:"metric"`
		Values [][]json.RawMessage `json:"values"`
	} `json:"result"`
}

func decode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("data %s: %v", raw, err)
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestGrafanaCalls sends each call Grafana's Prometheus data source makes
// and checks each answer against the shape Prometheus documents.
func TestGrafanaCalls(t *testing.T) {
	srv := newAPIServer(t, nil)
	start := strconv.FormatInt(base.Unix(), 10)
	end := strconv.FormatInt(base.Add(3*time.Hour).Unix(), 10)
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		t.Run(method, func(t *testing.T) {
			// Save & Test: an instant query of 1+1, then the build info.
			var s struct {
				ResultType string            `json:"resultType"`
				Result     []json.RawMessage `json:"result"`
			}
			decode(t, call(t, srv, method, "/api/v1/query", url.Values{"query": {"1+1"}, "time": {end}}, 200).Data, &s)
			if s.ResultType != "scalar" || len(s.Result) != 2 || string(s.Result[1]) != `"2"` {
				t.Errorf("1+1: %+v", s)
			}
			var bi map[string]string
			decode(t, call(t, srv, http.MethodGet, "/api/v1/status/buildinfo", nil, 200).Data, &bi)
			if !strings.HasPrefix(bi["version"], "3.") || bi["goVersion"] == "" {
				t.Errorf("buildinfo %v", bi)
			}

			// Metric browser: label names, the values of __name__, the
			// series of a metric.
			var names []string
			decode(t, call(t, srv, method, "/api/v1/labels", url.Values{"start": {start}, "end": {end}}, 200).Data, &names)
			for _, want := range []string{"__name__", "code", "host", "instance", "job", "location", "series"} {
				if !has(names, want) {
					t.Errorf("labels %v lack %s", names, want)
				}
			}
			var metrics []string
			decode(t, call(t, srv, http.MethodGet, "/api/v1/label/__name__/values", url.Values{"start": {start}, "end": {end}}, 200).Data, &metrics)
			if strings.Join(metrics, " ") != "cpu_usage_idle cpu_usage_user http_requests_total temp" {
				t.Errorf("__name__ values %v", metrics)
			}
			var sets []map[string]string
			decode(t, call(t, srv, method, "/api/v1/series", url.Values{"match[]": {`http_requests_total{job="api"}`}, "start": {start}, "end": {end}}, 200).Data, &sets)
			if len(sets) != 6 || sets[0]["__name__"] != "http_requests_total" || sets[0]["job"] != "api" {
				t.Errorf("series %v", sets)
			}
			escaped := 0
			for _, ls := range sets {
				if ls["instance"] == "b,c=d:80" {
					escaped++
				}
			}
			if escaped != 3 {
				t.Errorf("%d series of the instance whose value holds ',' and '=': %v", escaped, sets)
			}

			// Label values with match[] (the browser's and the ad-hoc
			// filters' value lookups).
			var codes []string
			decode(t, call(t, srv, http.MethodGet, "/api/v1/label/code/values", url.Values{"match[]": {`http_requests_total{instance="a:80"}`}, "start": {start}, "end": {end}}, 200).Data, &codes)
			if strings.Join(codes, " ") != "200 404 500" {
				t.Errorf("code values %v", codes)
			}
			var locs []string
			decode(t, call(t, srv, http.MethodGet, "/api/v1/label/location/values", url.Values{"match[]": {`temp{series="s1"}`}}, 200).Data, &locs)
			if strings.Join(locs, " ") != "lab roof" {
				t.Errorf("location values %v", locs)
			}
			var few []string
			a := call(t, srv, http.MethodGet, "/api/v1/label/__name__/values", url.Values{"limit": {"2"}}, 200)
			decode(t, a.Data, &few)
			if len(few) != 2 || len(a.Warnings) != 1 {
				t.Errorf("limit 2: %v, warnings %v", few, a.Warnings)
			}

			// A panel: query_range of rate().
			var m matrixData
			decode(t, call(t, srv, method, "/api/v1/query_range", url.Values{
				"query": {`sum by (code) (rate(http_requests_total[5m]))`}, "start": {start}, "end": {end}, "step": {"60"}}, 200).Data, &m)
			if m.ResultType != "matrix" || len(m.Result) != 3 {
				t.Fatalf("query_range: %s with %d series", m.ResultType, len(m.Result))
			}
			for _, r := range m.Result {
				if len(r.Metric) != 1 || r.Metric["code"] == "" || len(r.Values) < 150 {
					t.Errorf("series %v with %d points", r.Metric, len(r.Values))
				}
				last := 0.0
				for _, p := range r.Values {
					ts := checkPoint(t, "query_range", p)
					if ts <= last || ts != float64(int64(ts)) || int64(ts)%60 != base.Unix()%60 {
						t.Fatalf("point time %v after %v", ts, last)
					}
					last = ts
				}
			}
			// Exemplars, as a panel with its exemplar switch on asks:
			// none kept, an empty list as Prometheus gives with its
			// exemplar storage off.
			ex := call(t, srv, method, "/api/v1/query_exemplars", url.Values{"query": {`http_requests_total`}, "start": {start}, "end": {end}}, 200)
			if string(ex.Data) != "[]" {
				t.Errorf("query_exemplars: %s", ex.Data)
			}
			call(t, srv, method, "/api/v1/query_exemplars", url.Values{"query": {`sum(`}}, 400)
			// The alerting pages (a data source that manages alerts): no
			// rule groups and no alerts, as Prometheus with no rule files.
			if r := call(t, srv, method, "/api/v1/rules", url.Values{"type": {"alert"}, "exclude_alerts": {"true"}}, 200); string(r.Data) != `{"groups":[]}` {
				t.Errorf("rules: %s", r.Data)
			}
			for _, bad := range []url.Values{
				{"type": {"alerts"}}, {"exclude_alerts": {"maybe"}}, {"match[]": {"{"}},
				{"group_limit": {"0"}}, {"group_next_token": {"x"}}, {"group_limit": {"2"}, "group_next_token": {"x"}},
			} {
				if r := call(t, srv, method, "/api/v1/rules", bad, 400); r.ErrorType != "bad_data" {
					t.Errorf("rules %v: %+v", bad, r)
				}
			}
			if r := call(t, srv, method, "/api/v1/alerts", nil, 200); string(r.Data) != `{"alerts":[]}` {
				t.Errorf("alerts: %s", r.Data)
			}
			// An instant vector, as the table view and the explore page ask.
			var v vectorData
			decode(t, call(t, srv, method, "/api/v1/query", url.Values{"query": {`cpu_usage_idle`}, "time": {"1740794400.5"}}, 200).Data, &v)
			if v.ResultType != "vector" || len(v.Result) != 3 {
				t.Fatalf("vector: %+v", v)
			}
			for _, r := range v.Result {
				if ts := checkPoint(t, "query", r.Value); ts != 1740794400.5 {
					t.Errorf("vector time %v", ts)
				}
			}
		})
	}
	// Metadata, as the query editor's hints ask.
	var md map[string][]map[string]string
	decode(t, call(t, srv, http.MethodGet, "/api/v1/metadata", nil, 200).Data, &md)
	if len(md) != 4 || md["cpu_usage_idle"][0]["help"] != "field usage_idle of kind cpu" || md["temp"][0]["type"] != "unknown" {
		t.Errorf("metadata %v", md)
	}
	var pretty string
	decode(t, call(t, srv, http.MethodGet, "/api/v1/format_query", url.Values{"query": {`sum(rate(foo{a="b"}[5m]))by(x)`}}, 200).Data, &pretty)
	if pretty != `sum by (x) (rate(foo{a="b"}[5m]))` {
		t.Errorf("format_query %q", pretty)
	}
}

// TestErrors: bad requests are answered in Prometheus' error format with
// its error types and statuses.
func TestErrors(t *testing.T) {
	srv := newAPIServer(t, nil)
	for _, c := range []struct {
		path string
		q    url.Values
		code int
		typ  string
	}{
		{"/api/v1/query", url.Values{}, 400, "bad_data"},
		{"/api/v1/query", url.Values{"query": {"sum("}}, 400, "bad_data"},
		{"/api/v1/query", url.Values{"query": {"1"}, "time": {"yesterday"}}, 400, "bad_data"},
		{"/api/v1/query_range", url.Values{"query": {"1"}, "start": {"10"}, "end": {"5"}, "step": {"1"}}, 400, "bad_data"},
		{"/api/v1/query_range", url.Values{"query": {"1"}, "start": {"0"}, "end": {"100000"}, "step": {"1"}}, 400, "bad_data"},
		{"/api/v1/query_range", url.Values{"query": {"1"}, "start": {"0"}, "end": {"10"}, "step": {"0"}}, 400, "bad_data"},
		{"/api/v1/query_range", url.Values{"query": {"1"}, "start": {"0"}, "end": {"10"}}, 400, "bad_data"},
		{"/api/v1/series", url.Values{}, 400, "bad_data"},
		{"/api/v1/series", url.Values{"match[]": {"{"}}, 400, "bad_data"},
		{"/api/v1/labels", url.Values{"limit": {"-1"}}, 400, "bad_data"},
		{"/api/v1/label/%FF/values", url.Values{}, 400, "bad_data"},
		{"/api/v1/query", url.Values{"query": {`label_replace(temp, "series", "x", "", "")`}, "time": {strconv.FormatInt(base.Add(time.Hour).Unix(), 10)}}, 422, "execution"},
	} {
		a := call(t, srv, http.MethodGet, c.path, c.q, c.code)
		if a.ErrorType != c.typ {
			t.Errorf("%s?%s: %s %q", c.path, c.q.Encode(), a.ErrorType, a.Error)
		}
	}
}

// TestKindLimits: a caller limited to kinds sees those metrics only, in
// every lookup and query.
func TestKindLimits(t *testing.T) {
	srv := newAPIServer(t, func(_ context.Context, kind string) bool { return kind == "cpu" })
	var metrics []string
	decode(t, call(t, srv, http.MethodGet, "/api/v1/label/__name__/values", nil, 200).Data, &metrics)
	if strings.Join(metrics, " ") != "cpu_usage_idle cpu_usage_user" {
		t.Errorf("__name__ values %v", metrics)
	}
	var v vectorData
	decode(t, call(t, srv, http.MethodGet, "/api/v1/query", url.Values{"query": {`count({__name__=~".+"})`}, "time": {strconv.FormatInt(base.Add(time.Hour).Unix(), 10)}}, 200).Data, &v)
	if len(v.Result) != 1 || string(v.Result[0].Value[1]) != `"6"` {
		t.Errorf("count of every series: %+v", v)
	}
	var names []string
	decode(t, call(t, srv, http.MethodGet, "/api/v1/labels", nil, 200).Data, &names)
	if strings.Join(names, " ") != "__name__ host" {
		t.Errorf("labels %v", names)
	}
}

// TestSeriesCap: a selection that would list more series of a kind than
// MaxSeries is refused with 422, naming the cap.
func TestSeriesCap(t *testing.T) {
	f := newFixture(t, 5)
	a := promapi.New(promapi.Config{Store: f.st, MaxSeries: 5})
	rec := httptest.NewRecorder()
	a.Query(rec, httptest.NewRequest(http.MethodGet, "/api/v1/query?query=http_requests_total&time="+strconv.FormatInt(base.Add(time.Hour).Unix(), 10), nil))
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"errorType":"execution"`) || !strings.Contains(rec.Body.String(), "more than 5 series") {
		t.Errorf("%d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	a.Query(rec, httptest.NewRequest(http.MethodGet, "/api/v1/query?query=cpu_usage_idle&time="+strconv.FormatInt(base.Add(time.Hour).Unix(), 10), nil))
	if rec.Code != 200 {
		t.Errorf("a kind under the cap: %d %s", rec.Code, rec.Body)
	}
}

// TestQueryAnswers_Values: the answers of query and query_range hold the
// engine's results exactly: the metric, the time of each point in
// seconds, its value as a string that parses back to the same float
// (NaN, +Inf and -Inf by name), for a matrix, a vector, a scalar and a
// string, with the warnings.
func TestQueryAnswers_Values(t *testing.T) {
	f := newFixture(t, 3)
	a := promapi.New(promapi.Config{Store: f.st})
	engine := promql.NewEngine(promql.EngineOpts{
		MaxSamples: promapi.DefaultMaxSamples, Timeout: time.Minute, LookbackDelta: promapi.DefaultLookbackDelta,
		EnableAtModifier: true, EnableNegativeOffset: true,
	})
	ctx := context.Background()
	start, end, step := base.Add(10*time.Minute), base.Add(2*time.Hour), 97*time.Second
	at := base.Add(61 * time.Minute)
	seconds := func(t time.Time) string { return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64) }
	for _, c := range []struct {
		query string
		rng   bool
	}{
		{`temp`, true},
		{`rate(http_requests_total[5m]) / 0`, true}, // +Inf, NaN
		{`-temp / 0`, false},                        // -Inf
		{`cpu_usage_idle * 1.000001`, false},
		{`sum(temp) / 7`, false},
		{`scalar(sum(temp)) / 3`, false},
		{`"some string"`, false},
		{`histogram_quantile(0.5, temp)`, false}, // a warning
	} {
		var pq promql.Query
		var err error
		q := url.Values{"query": {c.query}}
		path := "/api/v1/query"
		if c.rng {
			pq, err = engine.NewRangeQuery(ctx, a.Queryable(), nil, c.query, start, end, step)
			q.Set("start", seconds(start))
			q.Set("end", seconds(end))
			q.Set("step", strconv.FormatFloat(step.Seconds(), 'f', -1, 64))
			path = "/api/v1/query_range"
		} else {
			pq, err = engine.NewInstantQuery(ctx, a.Queryable(), nil, c.query, at)
			q.Set("time", seconds(at))
		}
		if err != nil {
			t.Fatal(err)
		}
		res := pq.Exec(ctx)
		if res.Err != nil {
			t.Fatalf("%s: %v", c.query, res.Err)
		}
		want := canonical(res.Value)
		if s, ok := res.Value.(promql.String); ok {
			want = fmt.Sprintf("%d %s", s.T, s.V)
		}
		pq.Close()

		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil)
		if c.rng {
			a.QueryRange(w, r)
		} else {
			a.Query(w, r)
		}
		if w.Code != http.StatusOK || !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s: %d %s", c.query, w.Code, w.Body)
		}
		var body struct {
			Status string `json:"status"`
			Data   struct {
				ResultType string          `json:"resultType"`
				Result     json.RawMessage `json:"result"`
			} `json:"data"`
			Warnings []string `json:"warnings"`
		}
		dec := json.NewDecoder(w.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&body); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if body.Data.ResultType != string(res.Value.Type()) {
			t.Errorf("%s: resultType %q, want %q", c.query, body.Data.ResultType, res.Value.Type())
		}
		if got := len(body.Warnings); got != len(res.Warnings) {
			t.Errorf("%s: %d warnings, want %d", c.query, got, len(res.Warnings))
		}
		if got := canonicalAnswer(t, body.Data.ResultType, body.Data.Result); got != want {
			t.Errorf("%s: the answer holds\n%s\nthe engine's result is\n%s", c.query, clip(got), clip(want))
		}
	}
}

// canonicalAnswer prints an answer's result as canonical prints the
// engine's.
func canonicalAnswer(t *testing.T, typ string, raw json.RawMessage) string {
	t.Helper()
	point := func(p []json.RawMessage) (int64, string) {
		if len(p) != 2 {
			t.Fatalf("point %s", p)
		}
		secs, err := strconv.ParseFloat(string(p[0]), 64)
		if err != nil {
			t.Fatalf("time %s: %v", p[0], err)
		}
		var v string
		if err := json.Unmarshal(p[1], &v); err != nil {
			t.Fatalf("value %s: %v", p[1], err)
		}
		if typ == "string" {
			return int64(math.Round(secs * 1000)), v
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("value %q: %v", v, err)
		}
		// Prometheus' format: NaN, +Inf and -Inf by name, others in
		// decimal, the shortest that parses back.
		named := v == "NaN" || v == "+Inf" || v == "-Inf"
		if !named && (math.IsNaN(x) || math.IsInf(x, 0) || strconv.FormatFloat(x, 'f', -1, 64) != v) {
			t.Fatalf("value %q is not written as Prometheus writes it", v)
		}
		s := fmt.Sprintf("%x", math.Float64bits(x))
		if math.IsNaN(x) {
			s = "NaN"
		}
		return int64(math.Round(secs * 1000)), s
	}
	var lines []string
	switch typ {
	case "matrix", "vector":
		var series []struct {
			Metric map[string]string   `json:"metric"`
			Values [][]json.RawMessage `json:"values"`
			Value  []json.RawMessage   `json:"value"`
		}
		if err := json.Unmarshal(raw, &series); err != nil {
			t.Fatal(err)
		}
		for _, s := range series {
			m := labels.FromMap(s.Metric).String()
			if typ == "vector" {
				ts, v := point(s.Value)
				lines = append(lines, fmt.Sprintf("%s %d %s", m, ts, v))
				continue
			}
			var b strings.Builder
			b.WriteString(m)
			for _, p := range s.Values {
				ts, v := point(p)
				fmt.Fprintf(&b, " %d:%s", ts, v)
			}
			lines = append(lines, b.String())
		}
		slices.Sort(lines)
	case "scalar":
		var p []json.RawMessage
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		ts, v := point(p)
		lines = append(lines, fmt.Sprintf("%d %s", ts, v))
	case "string":
		var p []json.RawMessage
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		ts, v := point(p)
		return fmt.Sprintf("%d %s", ts, v)
	}
	if len(lines) == 0 {
		return "[]"
	}
	return strings.Join(lines, "\n")
}
