package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"github.com/prometheus/prometheus/prompb"
)

var tinyLoad = promLoad{counters: 3, counterSpan: 10 * time.Minute, counterStep: time.Minute,
	gauges: 20, zones: 2, gaugeSpan: 2 * time.Minute, gaugeStep: 15 * time.Second}

// decodeBodies undoes buildShard: the requests of bodies.
func decodeBodies(t *testing.T, bodies [][]byte) []prompb.WriteRequest {
	t.Helper()
	var out []prompb.WriteRequest
	for i, b := range bodies {
		raw, err := snappy.Decode(nil, b)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		var req prompb.WriteRequest
		if err := req.Unmarshal(raw); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		out = append(out, req)
	}
	return out
}

// seriesKey writes the labels of ts.
func seriesKey(ts prompb.TimeSeries) string {
	var parts []string
	for _, l := range ts.Labels {
		parts = append(parts, l.Name+"="+l.Value)
	}
	return strings.Join(parts, ",")
}

func TestPromSeries(t *testing.T) {
	const end = 1_700_000_000_000
	ss := promSeries(tinyLoad, end)
	if len(ss) != 23 {
		t.Fatalf("%d series, want 23", len(ss))
	}
	var n int64
	for _, s := range ss {
		names := make([]string, len(s.labels))
		for i, l := range s.labels {
			names[i] = l.Name
		}
		if !slices.IsSorted(names) || names[0] != "__name__" {
			t.Errorf("labels %v: want sorted, __name__ first", names)
		}
		if last := s.start + int64(s.n-1)*s.step; last != end {
			t.Errorf("%v: last sample at %d, want %d", s.labels, last, end)
		}
		n += int64(s.n)
	}
	if n != tinyLoad.samples() || n != 3*10+20*8 {
		t.Errorf("%d samples, samples() %d, want %d", n, tinyLoad.samples(), 3*10+20*8)
	}
	if z := ss[3+17].labels[4]; z.Name != "zone" || z.Value != "zone-1" {
		t.Errorf("gauge 17: label %v, want zone=zone-1 (instance 1)", z)
	}
}

func TestBuildShard(t *testing.T) {
	const end = 1_700_000_000_000
	ss := promSeries(tinyLoad, end)
	bodies, err := buildShard(ss, 7)
	if err != nil {
		t.Fatal(err)
	}
	reqs := decodeBodies(t, bodies)
	total := int(tinyLoad.samples())
	if want := (total + 6) / 7; len(reqs) != want {
		t.Fatalf("%d requests, want %d", len(reqs), want)
	}
	prev := int64(0)
	seen := map[string][]float64{}
	for i, r := range reqs {
		if want := min(7, total-7*i); len(r.Timeseries) != want {
			t.Errorf("request %d: %d samples, want %d", i, len(r.Timeseries), want)
		}
		for _, ts := range r.Timeseries {
			if len(ts.Samples) != 1 {
				t.Fatalf("a TimeSeries with %d samples, want 1", len(ts.Samples))
			}
			s := ts.Samples[0]
			if s.Timestamp < prev {
				t.Errorf("sample at %d after one at %d: want time order", s.Timestamp, prev)
			}
			prev = s.Timestamp
			key := seriesKey(ts)
			seen[key] = append(seen[key], s.Value)
		}
	}
	if prev != end {
		t.Errorf("last sample at %d, want %d", prev, end)
	}
	if len(seen) != 23 {
		t.Errorf("%d series sent, want 23", len(seen))
	}
	for key, vals := range seen {
		if strings.HasPrefix(key, promCounter) && !slices.IsSorted(vals) {
			t.Errorf("counter %s decreases: %v", key, vals)
		}
	}
	// The same arguments give the same bytes.
	again, err := buildShard(promSeries(tinyLoad, end), 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(bodies, again, bytes.Equal) {
		t.Error("two builds of the same load differ")
	}
	if _, err := buildShard(ss, 0); err == nil {
		t.Error("batch 0: no error")
	}
}

func TestBuildShards(t *testing.T) {
	shards, err := buildShards(promSeries(tinyLoad, 1_700_000_000_000), 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != 4 {
		t.Fatalf("%d shards, want 4", len(shards))
	}
	where := map[string]int{}
	n := 0
	for i, bodies := range shards {
		for _, r := range decodeBodies(t, bodies) {
			for _, ts := range r.Timeseries {
				key := seriesKey(ts)
				if j, ok := where[key]; ok && j != i {
					t.Errorf("series %s in shards %d and %d", key, j, i)
				}
				where[key] = i
				n++
			}
		}
	}
	if n != int(tinyLoad.samples()) || len(where) != 23 {
		t.Errorf("%d samples of %d series, want %d of 23", n, len(where), tinyLoad.samples())
	}
	if _, err := buildShards(nil, 0, 10); err == nil {
		t.Error("0 shards: no error")
	}
}

func TestParseMatrix(t *testing.T) {
	ok := `{"status":"success","data":{"resultType":"matrix","result":[
		{"metric":{"zone":"zone-0","job":"node"},"values":[[1700000000,"1.5"],[1700000060.5,"NaN"]]},
		{"metric":{},"values":[[1700000000,"2"]]}]}}`
	m, err := parseMatrix([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m.points() != 3 || m["job=node,zone=zone-0"][1700000000000] != 1.5 || m[""][1700000000000] != 2 {
		t.Errorf("parsed %v", m)
	}
	if _, found := m["job=node,zone=zone-0"][1700000060500]; !found {
		t.Errorf("no sample at 1700000060.5 s: %v", m)
	}
	for _, bad := range []string{
		`{"status":"error","errorType":"bad_data","error":"parse error"}`,
		`{"status":"success","data":{"resultType":"vector","result":[]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["1","2"]]}]}}`,
		`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[]},{"metric":{},"values":[]}]}}`,
		`not json`,
	} {
		if _, err := parseMatrix([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestDiffMatrix(t *testing.T) {
	a := promMatrix{"x=1": {1: 10, 2: 20, 3: 0}, "x=2": {1: 5}}
	b := promMatrix{"x=1": {1: 10, 2: 22, 3: 0, 4: 1}, "x=3": {1: 5}}
	d := diffMatrix(a, b)
	want := matrixDiff{common: 3, onlyA: 1, onlyB: 2, maxRel: 2.0 / 22}
	if d != want {
		t.Errorf("diff %+v, want %+v", d, want)
	}
	if d := diffMatrix(a, a); d.maxRel != 0 || d.onlyA != 0 || d.onlyB != 0 || d.common != 4 {
		t.Errorf("diff with itself %+v", d)
	}
}

func TestPromQueries(t *testing.T) {
	qs := promQueries(tinyLoad, 1_700_000_000)
	if len(qs) != 2 || qs[0].series != 3 || qs[1].series != 2 {
		t.Fatalf("queries %+v", qs)
	}
	v := qs[0].values()
	if v.Get("query") != "rate(bench_requests_total[5m])" || v.Get("start") != "1699999400" || v.Get("step") != "60" {
		t.Errorf("query string %s", v.Encode())
	}
	if v := qs[1].values(); v.Get("step") != "15" || v.Get("start") != "1699999880" {
		t.Errorf("query string %s", v.Encode())
	}
}

func TestPromConfig_Check(t *testing.T) {
	good := promConfig{load: tinyLoad, batch: 500, senders: 4, queries: 10}
	if err := good.check(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*promConfig){
		func(c *promConfig) { c.load.counters = 0 },
		func(c *promConfig) { c.load.gaugeStep = 0 },
		func(c *promConfig) { c.load.counterSpan = 30 * time.Second },
		func(c *promConfig) { c.load.counterSpan = 72 * time.Hour },
		func(c *promConfig) { c.batch = 0 },
		func(c *promConfig) { c.warmup = -1 },
	} {
		c := good
		f(&c)
		if err := c.check(); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestPromFigures checks the direction of the ratios: above 1 when
// timetable is better (a higher rate, less CPU, fewer bytes, shorter
// queries), below 1 when it is worse.
func TestPromFigures(t *testing.T) {
	ms := func(x int) []time.Duration { return []time.Duration{time.Duration(x) * time.Millisecond} }
	better := promRun{name: "timetable serve", samples: 1000, ingest: time.Second, ingestCPU: time.Second,
		ingestBytes: 1000, mergedBytes: 500, lat: [][]time.Duration{ms(10), ms(20)}}
	worse := promRun{name: "VictoriaMetrics", samples: 1000, ingest: 2 * time.Second, ingestCPU: 2 * time.Second,
		ingestBytes: 2000, mergedBytes: 1000, lat: [][]time.Duration{ms(20), ms(40)}}
	c := promConfig{load: tinyLoad, batch: 500, senders: 4}
	qs := promQueries(tinyLoad, 0)
	for _, tc := range []struct {
		ours, peer promRun
		above      bool
	}{{better, worse, true}, {worse, better, false}} {
		checkRatios(t, promFigures(c, qs, tc.ours, tc.peer), 6, tc.above)
	}
}

// TestProm_PeersTiny runs the part at a tiny size against
// VictoriaMetrics (built by make bench-compare into .tools) and
// Prometheus (on PATH), whichever are there, and checks its section.
func TestProm_PeersTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("starts servers")
	}
	var targets []string
	vm, err := filepath.Abs(filepath.Join("..", "..", "..", ".tools", "victoria-metrics"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(vm); err == nil {
		targets = append(targets, "victoriametrics")
	}
	if _, err := exec.LookPath("prometheus"); err == nil {
		targets = append(targets, "prometheus")
	}
	if len(targets) == 0 {
		t.Skip("neither VictoriaMetrics in .tools nor prometheus on PATH")
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	err = run([]string{"-only", "prometheus", "-out", out, "-victoriametrics", vm, "-prometheus-targets", strings.Join(targets, ","),
		"-prometheus-counters", "20", "-prometheus-counter-span", "30m", "-prometheus-gauges", "100", "-prometheus-gauge-span", "10m",
		"-prometheus-queries", "2", "-prometheus-settle", "20s"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Prometheus remote write and query_range", "| rate of 20 series over 30m0s, step 1m |", "| 20 | "} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report lacks %q\n%s", w, md)
		}
	}
}

func TestPromTargets(t *testing.T) {
	ctx := t.Context()
	for _, bad := range []string{"bogus", "", " , ", "victoriametrics"} {
		e := &env{cfg: config{prom: promConfig{targets: bad}, seriesHTTP: seriesHTTPConfig{vmBin: filepath.Join(t.TempDir(), "none")}}}
		if _, err := promTargets(ctx, e); err == nil || !strings.Contains(err.Error(), "-prometheus-targets") && !strings.Contains(err.Error(), "not found") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
	e := &env{cfg: config{prom: promConfig{targets: " prometheus ", bin: "/bin/true"}}}
	ts, err := promTargets(ctx, e)
	if err != nil || len(ts) != 1 || ts[0].Name() != "Prometheus" {
		t.Errorf("targets %v, error %v", ts, err)
	}
}
