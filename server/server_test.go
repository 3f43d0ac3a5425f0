package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/server"
)

func TestKinds(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	var sc struct {
		Name       string
		Fields     []string
		Layout     string
		Duplicates string
	}
	e.get("/api/v1/kinds/SENSOR").must(t, 200).json(t, &sc)
	if sc.Name != "SENSOR" || !slices.Equal(sc.Fields, []string{"temperature", "humidity"}) || sc.Layout != "chunks" || sc.Duplicates != "last_wins" {
		t.Fatalf("schema: %+v", sc)
	}
	if c := e.postJSON("/api/v1/kinds", map[string]any{"name": "SENSOR", "fields": []string{"x"}}).must(t, 409).errorCode(t); c != "conflict" {
		t.Fatalf("second create: %s", c)
	}
	var list struct{ Kinds []struct{ Name string } }
	e.get("/api/v1/kinds").must(t, 200).json(t, &list)
	if len(list.Kinds) != 1 || list.Kinds[0].Name != "SENSOR" {
		t.Fatalf("list: %+v", list)
	}
	// Appending a field is allowed; changing the layout is not.
	b, _ := json.Marshal(map[string]any{"name": "SENSOR", "fields": []string{"temperature", "humidity", "pressure"}, "tags": []string{"location"}})
	e.do("PUT", "/api/v1/kinds/SENSOR", "application/json", bytes.NewReader(b)).must(t, 200)
	b, _ = json.Marshal(map[string]any{"name": "SENSOR", "fields": []string{"temperature", "humidity", "pressure"}, "tags": []string{"location"}, "layout": "buckets"})
	e.do("PUT", "/api/v1/kinds/SENSOR", "application/json", bytes.NewReader(b)).must(t, 409)
	e.get("/api/v1/kinds/NOPE").must(t, 404)
	e.postJSON("/api/v1/kinds", map[string]any{"name": "bad#name", "fields": []string{"x"}}).must(t, 400)
	e.post("/api/v1/kinds", "application/json", `{"name":"X","fields":["a"],"surprise":1}`).must(t, 400)
}

func TestWriteFormatsAndRead(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	t1, t2, t3 := t0.Add(time.Minute), t0.Add(2*time.Minute), t0.Add(3*time.Minute)
	e.postJSON("/api/v1/kinds/SENSOR/readings", map[string]any{"readings": []map[string]any{
		{"series": "s1", "time": t1.Format(time.RFC3339), "values": map[string]any{"temperature": 20.5}, "tags": map[string]string{"location": "lab"}},
	}}).must(t, 204)
	e.post("/api/v1/kinds/SENSOR/readings", "text/csv", fmt.Sprintf("series,time,temperature,humidity,location\ns1,%d,21.5,40,lab\n", ms(t2))).must(t, 204)
	e.post("/api/v1/write?precision=ms", "text/plain", fmt.Sprintf("SENSOR,series=s1,location=hall temperature=22.5,humidity=41 %d\n", ms(t3))).must(t, 204)

	var latest struct {
		Series string
		Time   string
		Values map[string]float64
		Tags   map[string]string
	}
	e.get("/api/v1/kinds/SENSOR/series/s1/latest").must(t, 200).json(t, &latest)
	if latest.Values["temperature"] != 22.5 || latest.Tags["location"] != "hall" {
		t.Fatalf("latest: %+v", latest)
	}

	// Pages of one reading, newest first, follow the cursor.
	var temps []float64
	q := fmt.Sprintf("/api/v1/kinds/SENSOR/series/s1/readings?from=%d&order=desc&page_size=1", ms(t0))
	for cursor, n := "", 0; ; n++ {
		var p struct {
			Readings []struct{ Values map[string]float64 }
			Cursor   string
		}
		path := q
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		e.get(path).must(t, 200).json(t, &p)
		for _, r := range p.Readings {
			temps = append(temps, r.Values["temperature"])
		}
		if cursor = p.Cursor; cursor == "" || n > 5 {
			break
		}
	}
	if !slices.Equal(temps, []float64{22.5, 21.5, 20.5}) {
		t.Fatalf("pages newest first: %v", temps)
	}

	var filtered struct {
		Readings []struct{ Values map[string]float64 }
	}
	e.get(fmt.Sprintf("/api/v1/kinds/SENSOR/series/s1/readings?from=%d&filter=temperature%%3E21&filter=location=lab", ms(t0))).must(t, 200).json(t, &filtered)
	if len(filtered.Readings) != 1 || filtered.Readings[0].Values["temperature"] != 21.5 {
		t.Fatalf("filtered: %+v", filtered)
	}

	var agg struct {
		Periods []struct {
			Count  int64
			Fields map[string]struct {
				Count          int64
				Min, Max, Mean float64
			}
		}
	}
	e.get(fmt.Sprintf("/api/v1/kinds/SENSOR/series/s1/aggregate?from=%d&step=1h", ms(t0))).must(t, 200).json(t, &agg)
	if len(agg.Periods) != 1 || agg.Periods[0].Count != 3 || agg.Periods[0].Fields["temperature"].Max != 22.5 || agg.Periods[0].Fields["humidity"].Count != 2 {
		t.Fatalf("aggregate: %+v", agg)
	}

	var many struct {
		Readings map[string]struct{ Values map[string]float64 }
		Missing  []string
	}
	e.get("/api/v1/kinds/SENSOR/latest?series=s1,s9").must(t, 200).json(t, &many)
	if len(many.Readings) != 1 || !slices.Equal(many.Missing, []string{"s9"}) {
		t.Fatalf("latest of many: %+v", many)
	}
	e.get("/api/v1/kinds/SENSOR/series/s9/latest").must(t, 404)

	if err := e.store.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ids struct{ Series []string }
	e.get("/api/v1/kinds/SENSOR/series").must(t, 200).json(t, &ids)
	if !slices.Equal(ids.Series, []string{"s1"}) {
		t.Fatalf("series: %v", ids.Series)
	}
}

func TestBadBatchIsRefusedWhole(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	lines := fmt.Sprintf("SENSOR,series=a temperature=1 %[1]d\nSENSOR,series=b temperature=2 %[1]d\nSENSOR,series=c temperature=\"warm\" %[1]d\n", ms(t0))
	a := e.post("/api/v1/write?precision=ms", "text/plain", lines).must(t, 400)
	if code := a.errorCode(t); code != "invalid_argument" || !strings.Contains(string(a.body), "line 3") {
		t.Fatalf("answer: %s", a.body)
	}
	for _, id := range []string{"a", "b"} {
		e.get("/api/v1/kinds/SENSOR/series/"+id+"/latest").must(t, 404)
	}
	// Over two kinds, a reading the store refuses (older than the
	// retention) refuses the other kind's too.
	e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"x"}}).must(t, 201)
	mixed := fmt.Sprintf("SENSOR,series=m temperature=1 %d\nOTHER,series=m x=1 1000\n", ms(t0))
	if a := e.post("/api/v1/write?precision=ms", "text/plain", mixed).must(t, 400); !strings.Contains(string(a.body), "OTHER") {
		t.Fatalf("mixed batch: %s", a.body)
	}
	e.get("/api/v1/kinds/SENSOR/series/m/latest").must(t, 404)
	// Unknown kinds and media types: line protocol defines a kind
	// (docs/metrics.md), the series API does not.
	e.post("/api/v1/write", "text/plain", "NOPE,series=a x=1\n").must(t, 204)
	e.post("/api/v1/kinds/NONE/readings", "application/json", `{"readings":[]}`).must(t, 404)
	e.post("/api/v1/kinds/SENSOR/readings", "application/xml", `<x/>`).must(t, 415)
}

func TestHostileBodies(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.MaxBodyBytes = 1 << 20; c.MaxInflatedBytes = 4 << 20 }})
	e.defineSensor()
	// Over the body limit.
	big := strings.Repeat(fmt.Sprintf("SENSOR,series=a temperature=1 %d\n", ms(t0)), 40_000)
	e.post("/api/v1/write?precision=ms", "text/plain", big).must(t, 413)
	// A gzip bomb: 64 MB of valid lines in a small body.
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	chunk := []byte(strings.Repeat(fmt.Sprintf("SENSOR,series=a temperature=1 %d\n", ms(t0)), 1<<15))
	for written := 0; written < 64<<20; written += len(chunk) {
		_, _ = zw.Write(chunk)
	}
	_ = zw.Close()
	if bomb.Len() > 1<<20 {
		t.Fatalf("bomb of %d bytes is over the body limit", bomb.Len())
	}
	e.do("POST", "/api/v2/write?org=o&bucket=b", "text/plain", &bomb, "Content-Encoding", "gzip").must(t, 413)
	// Not gzip at all.
	e.do("POST", "/api/v2/write?org=o&bucket=b", "text/plain", strings.NewReader("not gzip"), "Content-Encoding", "gzip").must(t, 400)
	e.do("POST", "/api/v2/write", "text/plain", strings.NewReader("x"), "Content-Encoding", "br").must(t, 415)
	// Deep nesting and invalid UTF-8.
	deep := `{"readings":[` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `]}`
	e.post("/api/v1/kinds/SENSOR/readings", "application/json", deep).must(t, 400)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=\xff\xfe temperature=1\n").must(t, 400)
	// The server still answers.
	e.get("/healthz").must(t, 200)
}

func TestNotFoundAndMethods(t *testing.T) {
	e := newEnv(t, envOptions{})
	if c := e.get("/nope").must(t, 404).errorCode(t); c != "not_found" {
		t.Fatal(c)
	}
	a := e.do("DELETE", "/api/v1/kinds", "", nil).must(t, 405)
	if a.errorCode(t) != "method_not_allowed" || !strings.Contains(a.header.Get("Allow"), "GET") {
		t.Fatalf("405: %v %s", a.header, a.body)
	}
	if a := e.get("/"); a.status != 200 || !strings.Contains(string(a.body), "/api/v1/") {
		t.Fatalf("index: %d %s", a.status, a.body)
	}
}

func TestReadyAndDrain(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	e.get("/readyz").must(t, 200)
	e.srv.Drain()
	e.get("/readyz").must(t, 503)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=a temperature=1\n").must(t, 503)
	e.get("/healthz").must(t, 200)
}

func TestDelete(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	var lines strings.Builder
	for i := range 10 {
		fmt.Fprintf(&lines, "SENSOR,series=d temperature=%d %d\n", i, ms(t0.Add(time.Duration(i)*time.Minute)))
	}
	e.post("/api/v1/write?precision=ms", "text/plain", lines.String()).must(t, 204)
	e.do("DELETE", fmt.Sprintf("/api/v1/kinds/SENSOR/series/d/readings?from=%d&to=%d", ms(t0.Add(2*time.Minute)), ms(t0.Add(5*time.Minute))), "", nil).must(t, 204)
	var p struct {
		Readings []struct{ Values map[string]float64 }
	}
	e.get(fmt.Sprintf("/api/v1/kinds/SENSOR/series/d/readings?from=%d", ms(t0))).must(t, 200).json(t, &p)
	var got []float64
	for _, r := range p.Readings {
		got = append(got, r.Values["temperature"])
	}
	if !slices.Equal(got, []float64{0, 1, 5, 6, 7, 8, 9}) {
		t.Fatalf("after deleting [2, 5): %v", got)
	}
	e.do("DELETE", "/api/v1/kinds/SENSOR/series/d/readings", "", nil).must(t, 400)
	e.do("DELETE", "/api/v1/kinds/SENSOR/series/d", "", nil).must(t, 204)
	e.get("/api/v1/kinds/SENSOR/series/d/latest").must(t, 404)
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	e.post("/api/v1/write", "text/plain", "SENSOR,series=a temperature=1\n").must(t, 204)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=a temperature=\"bad\"\n").must(t, 400)
	body := string(e.get("/metrics").must(t, 200).body)
	for _, want := range []string{
		`timetable_http_request_duration_seconds_count{code="204",route="POST /api/v1/write"} 1`,
		`timetable_http_readings_ingested_total 1`,
		`timetable_http_write_requests_refused_total{reason="decode"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.CORSOrigins = []string{"https://dash.example"} }})
	a := e.do("OPTIONS", "/api/v1/kinds", "", nil, "Origin", "https://dash.example", "Access-Control-Request-Method", "POST").must(t, 204)
	if a.header.Get("Access-Control-Allow-Origin") != "https://dash.example" {
		t.Fatalf("preflight: %v", a.header)
	}
	a = e.do("GET", "/api/v1/kinds", "", nil, "Origin", "https://evil.example")
	if a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("an origin not allowed got %v", a.header)
	}
}
