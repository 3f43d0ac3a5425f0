package server_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"

	"github.com/timetable-db/timetable/auth"
)

// TestPrometheusAPI_Access: serve's Prometheus query API answers under
// the read scope, in Prometheus' error format, and a token limited to
// kinds sees the metrics of those kinds only. SENSOR_humidity is absent:
// series s1 gets its location from its readings, read for the lookup,
// and none has a humidity.
func TestPrometheusAPI_Access(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	e.token = e.mintToken("admin", auth.ScopeAdmin, nil)
	e.defineSensor()
	e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"value"}}).must(t, 201)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=s1 temperature=21.5\nOTHER,host=a value=1\n").must(t, 204)

	type promAnswer struct {
		Status, ErrorType, Error string
		Data                     []string
	}
	var a promAnswer
	e.token = ""
	e.get("/api/v1/label/__name__/values").must(t, http.StatusUnauthorized).json(t, &a)
	if a.Status != "error" || a.ErrorType == "" || a.Error == "" {
		t.Errorf("401 not in Prometheus' format: %+v", a)
	}
	e.token = e.mintToken("writer", auth.ScopeWrite, nil)
	e.get("/api/v1/labels").must(t, http.StatusForbidden).json(t, &a)
	if a.Status != "error" || !strings.Contains(a.Error, "read") {
		t.Errorf("403 %+v", a)
	}

	e.token = e.mintToken("reader", auth.ScopeRead, nil)
	a = promAnswer{}
	e.get("/api/v1/label/__name__/values").must(t, 200).json(t, &a)
	if strings.Join(a.Data, " ") != "OTHER SENSOR_temperature" {
		t.Errorf("every kind: %v", a.Data)
	}
	e.token = e.mintToken("sensors", auth.ScopeRead, []string{"SENSOR"})
	a = promAnswer{}
	e.get("/api/v1/label/__name__/values").must(t, 200).json(t, &a)
	if strings.Join(a.Data, " ") != "SENSOR_temperature" {
		t.Errorf("a token limited to SENSOR: %v", a.Data)
	}
	body := e.post("/api/v1/query", "application/x-www-form-urlencoded", "query=count(OTHER)%20or%20vector(0)").must(t, 200).body
	if !strings.Contains(string(body), `"resultType":"vector"`) || !strings.Contains(string(body), `"0"]`) {
		t.Errorf("a token limited to SENSOR counts OTHER: %s", body)
	}
}

// TestPrometheus_WriteThenQuery: what Prometheus remote-writes comes back
// through the query API under the names and labels it was sent with, also
// where the kind and tag names differ from them (a ':' in the metric
// name, labels named "pk" or starting with "__", a label set too long to
// be the series id).
func TestPrometheus_WriteThenQuery(t *testing.T) {
	e := newEnv(t, envOptions{})
	long := strings.Repeat("x", 600)
	req := v1Request{series: []v1Series{
		{labels: []string{"__name__", "job:requests:rate5m", "job", "api", "pk", "p", "__tenant", "t1"}, vals: []float64{1, 2, 3}},
		{labels: []string{"__name__", "job:requests:rate5m", "job", "web", "path", long}, vals: []float64{10, 20, 30}},
		// A series that stopped: its staleness marker ends it at once,
		// not after the 5 minutes of the lookback.
		{labels: []string{"__name__", "job:requests:rate5m", "job", "gone"}, vals: []float64{5, staleNaN}},
	}}
	if _, err := promAPI(t, e).Write(context.Background(), remote.WriteV1MessageType, &req); err != nil {
		t.Fatal(err)
	}
	var a struct {
		Status string
		Data   struct {
			ResultType string
			Result     []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	at := t0.Add(2 * time.Second).Unix()
	e.get(fmt.Sprintf("/api/v1/query?query=%s&time=%d", url.QueryEscape(`job:requests:rate5m`), at)).must(t, 200).json(t, &a)
	if a.Status != "success" || a.Data.ResultType != "vector" || len(a.Data.Result) != 2 {
		t.Fatalf("answer %+v", a)
	}
	got := map[string]string{}
	for _, r := range a.Data.Result {
		if r.Metric["__name__"] != "job:requests:rate5m" {
			t.Errorf("metric name %q, want the one sent", r.Metric["__name__"])
		}
		got[r.Metric["job"]] = fmt.Sprint(r.Value[1])
		switch r.Metric["job"] {
		case "api":
			if r.Metric["pk"] != "p" || r.Metric["__tenant"] != "t1" || len(r.Metric) != 4 {
				t.Errorf("labels %v, want those sent", r.Metric)
			}
		case "web":
			if r.Metric["path"] != long || len(r.Metric) != 3 {
				t.Errorf("labels of the long label set: %v", r.Metric)
			}
		}
	}
	if got["api"] != "3" || got["web"] != "30" || len(got) != 2 {
		t.Errorf("values %v, want api 3 and web 30 (gone ended by its staleness marker)", got)
	}
	e.get(fmt.Sprintf("/api/v1/query?query=%s&time=%d", url.QueryEscape(`job:requests:rate5m{job="gone"}`), t0.Unix())).must(t, 200).json(t, &a)
	if len(a.Data.Result) != 1 || fmt.Sprint(a.Data.Result[0].Value[1]) != "5" {
		t.Errorf("gone before its marker: %+v", a.Data.Result)
	}
}

// TestPrometheus_NaNSamples: a NaN sample (a gauge that is NaN) comes back
// through the query API as NaN, and a staleness marker as a marker (the
// series ends there), both remote-written to a kind of the default
// layout.
func TestPrometheus_NaNSamples(t *testing.T) {
	e := newEnv(t, envOptions{})
	req := v1Request{series: []v1Series{
		// Samples at t0, t0+1s, ...
		{labels: []string{"__name__", "temperature", "probe", "p1"}, vals: []float64{1, math.NaN(), 2, staleNaN}},
		{labels: []string{"__name__", "temperature", "probe", "p2"}, vals: []float64{math.NaN(), math.Float64frombits(0x7ff8000000000000)}},
	}}
	if _, err := promAPI(t, e).Write(context.Background(), remote.WriteV1MessageType, &req); err != nil {
		t.Fatal(err)
	}
	var a struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Values [][2]any
			}
		}
	}
	e.get(fmt.Sprintf("/api/v1/query_range?query=temperature&start=%d&end=%d&step=1", t0.Unix(), t0.Add(5*time.Second).Unix())).must(t, 200).json(t, &a)
	got := map[string]string{}
	for _, r := range a.Data.Result {
		var pts []string
		for _, p := range r.Values {
			pts = append(pts, fmt.Sprintf("%v:%v", p[0].(float64)-float64(t0.Unix()), p[1]))
		}
		got[r.Metric["probe"]] = strings.Join(pts, " ")
	}
	// p1: the NaN is a sample at 1s; the marker at 3s ends the series.
	// p2: NaN samples, whatever their bits, kept for the lookback.
	want := map[string]string{"p1": "0:1 1:NaN 2:2", "p2": "0:NaN 1:NaN 2:NaN 3:NaN 4:NaN 5:NaN"}
	if a.Status != "success" || !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
