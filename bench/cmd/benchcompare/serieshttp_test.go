package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLineGen_TimeOrderAndValues(t *testing.T) {
	g := newLineGen(tsDatasets[0], 3, 1000, 60, 1)
	buf, n := g.appendLines(nil, 100, 7) // stops at the limit
	if n != 7 {
		t.Fatalf("appended %d readings, want 7", n)
	}
	lines := strings.Split(strings.TrimSuffix(string(buf), "\n"), "\n")
	want := []string{"100000 1000", "100001 1000", "100002 1000", "100000 1060", "100001 1060", "100002 1060", "100000 1120"}
	for i, l := range lines {
		var id, ts string
		var f1, f2, f3 float64
		if _, err := fmt.Sscanf(strings.NewReplacer(",", " ", "=", " ").Replace(l), "SENSOR series %s f1 %g f2 %g f3 %g %s", &id, &f1, &f2, &f3, &ts); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if id+" "+ts != want[i] {
			t.Errorf("line %d is of %s at %s, want %s", i, id, ts, want[i])
		}
		for _, v := range []float64{f1, f2, f3} {
			if math.Abs(v*100-math.Round(v*100)) > 1e-6 {
				t.Errorf("line %q: value %v has more than two decimals", l, v)
			}
		}
		if i == 3 && !sameValues([]float64{f1, f2, f3}, g.atWatch[0]) {
			t.Errorf("watched step of series 0: kept %v, sent %v", g.atWatch[0], []float64{f1, f2, f3})
		}
		if i == 6 && !sameValues([]float64{f1, f2, f3}, g.last[0]) {
			t.Errorf("last of series 0: kept %v, sent %v", g.last[0], []float64{f1, f2, f3})
		}
	}
	// The same arguments give the same bytes.
	again, _ := newLineGen(tsDatasets[0], 3, 1000, 60, 1).appendLines(nil, 7, 7)
	if !bytes.Equal(buf, again) {
		t.Error("two generators with the same arguments made different lines")
	}
}

func TestTSDay(t *testing.T) {
	for _, tc := range []struct {
		readings int
		want     [2]int64
	}{{10000, [2]int64{4280, 5719}}, {1440, [2]int64{0, 1439}}, {30, [2]int64{0, 29}}} {
		if got := tsDay(tc.readings); got != tc.want {
			t.Errorf("tsDay(%d) = %v, want %v", tc.readings, got, tc.want)
		}
	}
}

func TestSoak_Levelled(t *testing.T) {
	mk := func(f func(min float64) float64) soakRun {
		r := soakRun{duration: 9 * time.Minute}
		for s := time.Duration(0); s <= r.duration; s += 10 * time.Second {
			r.samples = append(r.samples, rssSample{s, int64(f(s.Minutes()) * (1 << 20))})
		}
		return r
	}
	// Grows then flat: levels off.
	if first, last, ok := mk(func(m float64) float64 { return 100 + 50*min(m, 3) }).levelled(); !ok || math.Abs(first/(1<<20)-50) > 1 || math.Abs(last) > 1 {
		t.Errorf("growth then flat: slopes %.1f, %.1f MiB/min, levelled %v", first/(1<<20), last/(1<<20), ok)
	}
	// Steady growth (a leak): does not (the positive control).
	if first, last, ok := mk(func(m float64) float64 { return 100 + 20*m }).levelled(); ok {
		t.Errorf("steady growth taken as levelled: slopes %.1f, %.1f MiB/min", first/(1<<20), last/(1<<20))
	}
}

func TestPromValue(t *testing.T) {
	body := []byte("# HELP x\nvm_active_force_merges_total 7\nvm_active_force_merges 2\nvm_active_merges{type=\"small\"} 1\n")
	if v, ok := promValue(body, "vm_active_force_merges"); !ok || v != 2 {
		t.Errorf("promValue = %v, %v; want 2, true", v, ok)
	}
	if _, ok := promValue(body, "vm_active_merges"); ok {
		t.Error("promValue found an unlabelled sample that is only labelled")
	}
}

func FuzzPromValue(f *testing.F) {
	f.Add([]byte("vm_active_force_merges 0\n"), "vm_active_force_merges")
	f.Add([]byte("a 1e3\na 2\n"), "a")
	f.Add([]byte("a NaN"), "a")
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		v, ok := promValue(body, name)
		if ok && !bytes.Contains(body, []byte(name+" ")) {
			t.Fatalf("found %v for %q, which is not in the body", v, name)
		}
	})
}

// fakeSeriesAPI is the part of docs/http-api.md the series-http part
// uses, over a map: kind SENSOR, line protocol on /write, latest and
// readings with pages of 500. With corrupt, latest answers a value off by
// 0.01 (for the checks' positive control).
type fakeSeriesAPI struct {
	mu       sync.Mutex
	kinds    map[string]bool
	readings map[string][]fakeReading // by series, in time order
	corrupt  bool
}

type fakeReading struct {
	ms   int64
	vals map[string]float64
}

func newFakeSeriesAPI() *httptest.Server {
	api := &fakeSeriesAPI{kinds: map[string]bool{}, readings: map[string][]fakeReading{}}
	return httptest.NewServer(api.handler())
}

func (a *fakeSeriesAPI) handler() http.Handler {
	fail := func(w http.ResponseWriter, status int, code, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/kinds", func(w http.ResponseWriter, r *http.Request) {
		var s struct {
			Name   string   `json:"name"`
			Fields []string `json:"fields"`
		}
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil || !slices.Equal(s.Fields, tsFields) {
			fail(w, 400, "invalid_argument", fmt.Sprint(err))
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.kinds[s.Name] {
			fail(w, 409, "conflict", "kind exists")
			return
		}
		a.kinds[s.Name] = true
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("POST /write", func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		body.ReadFrom(r.Body)
		if r.URL.Query().Get("precision") != "s" {
			fail(w, 400, "invalid_argument", "precision")
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		for i, line := range strings.Split(strings.TrimSpace(body.String()), "\n") {
			head, rest, _ := strings.Cut(line, " ")
			fields, ts, _ := strings.Cut(rest, " ")
			kind, tag, _ := strings.Cut(head, ",")
			id, ok := strings.CutPrefix(tag, tsSeriesTag+"=")
			sec, err := strconv.ParseInt(ts, 10, 64)
			if !a.kinds[kind] || !ok || err != nil {
				fail(w, 400, "invalid_argument", fmt.Sprintf("line %d: %q", i+1, line))
				return
			}
			rd := fakeReading{ms: sec * 1000, vals: map[string]float64{}}
			for _, kv := range strings.Split(fields, ",") {
				k, v, _ := strings.Cut(kv, "=")
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					fail(w, 400, "invalid_argument", fmt.Sprintf("line %d: %v", i+1, err))
					return
				}
				rd.vals[k] = x
			}
			a.readings[id] = append(a.readings[id], rd)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	reading := func(id string, rd fakeReading) map[string]any {
		return map[string]any{"series": id, "time": time.UnixMilli(rd.ms).UTC().Format(time.RFC3339Nano), "values": rd.vals}
	}
	mux.HandleFunc("GET /api/v1/kinds/{kind}/series/{id}/latest", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		rs := a.readings[r.PathValue("id")]
		if len(rs) == 0 {
			fail(w, 404, "not_found", "no reading")
			return
		}
		last := rs[0]
		for _, rd := range rs {
			if rd.ms > last.ms {
				last = rd
			}
		}
		if a.corrupt {
			vals := map[string]float64{}
			for k, v := range last.vals {
				vals[k] = v + 0.01
			}
			last.vals = vals
		}
		json.NewEncoder(w).Encode(reading(r.PathValue("id"), last))
	})
	mux.HandleFunc("GET /api/v1/kinds/{kind}/series/{id}/readings", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		from, err1 := strconv.ParseInt(q.Get("from"), 10, 64)
		to, err2 := strconv.ParseInt(q.Get("to"), 10, 64)
		skip, _ := strconv.Atoi(q.Get("cursor"))
		if err1 != nil || err2 != nil || q.Get("order") != "asc" {
			fail(w, 400, "invalid_argument", "from, to, order")
			return
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		var page []map[string]any
		n := 0
		rs := a.readings[r.PathValue("id")] // in arrival order
		slices.SortStableFunc(rs, func(x, y fakeReading) int { return int(x.ms - y.ms) })
		for _, rd := range rs {
			if rd.ms >= from && rd.ms < to { // to excluded
				if n >= skip && len(page) < 500 {
					page = append(page, reading(r.PathValue("id"), rd))
				}
				n++
			}
		}
		cursor := ""
		if skip+len(page) < n {
			cursor = strconv.Itoa(skip + len(page))
		}
		json.NewEncoder(w).Encode(map[string]any{"readings": page, "cursor": cursor})
	})
	return mux
}

// TestTimetableServe_AgainstSpec drives the timetable side of the part
// (kind, ingest, checked reads) against a fake of docs/http-api.md, and
// checks that a wrong answer fails the reads.
func TestTimetableServe_AgainstSpec(t *testing.T) {
	for _, tc := range []struct {
		corrupt bool
		ds      tsDataset
	}{{false, tsDatasets[0]}, {true, tsDatasets[0]}, {false, tsDatasets[1]}} {
		corrupt := tc.corrupt
		t.Run(fmt.Sprintf("%s,corrupt=%v", tc.ds.name, corrupt), func(t *testing.T) {
			api := &fakeSeriesAPI{kinds: map[string]bool{}, readings: map[string][]fakeReading{}}
			srv := httptest.NewServer(api.handler())
			defer srv.Close()
			ctx := context.Background()
			tt, c := timetableServe{}, newTSClient(3)
			if err := tt.Prepare(ctx, c, srv.URL); err != nil {
				t.Fatal(err)
			}
			if err := tt.Prepare(ctx, c, srv.URL); err == nil {
				t.Fatal("a second Prepare of the same kind succeeded")
			}
			if _, err := tt.Latest(ctx, c, srv.URL, seriesID(0)); !errors.Is(err, errNoReading) {
				t.Fatalf("latest before any write: %v, want errNoReading", err)
			}
			const ids, readings = 7, 1600
			day := tsDay(readings)
			g := newLineGen(tc.ds, ids, 1_700_000_000, tsStep, day[0])
			n, err := sendLines(ctx, c, tt.WriteURL(srv.URL), g, sendConfig{batch: 500, senders: 3, limit: ids * readings}, nil)
			if err != nil || n != ids*readings {
				t.Fatalf("sent %d readings (%v), want %d", n, err, ids*readings)
			}
			api.corrupt = corrupt
			q, err := timeQueries(ctx, tt, c, srv.URL, g, day, int(day[1]-day[0])+1, 2, 10)
			if corrupt {
				if err == nil || !strings.Contains(err.Error(), "latest of") {
					t.Fatalf("reads of a server answering wrong values: %v, want an error naming latest", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(q.latest) != 10 || len(q.rng) != 10 {
				t.Fatalf("timed %d latest and %d range calls, want 10 each", len(q.latest), len(q.rng))
			}
		})
	}
}

// TestSendLines_StopsAtFirstError checks that a refused request fails the
// ingest with the server's message.
func TestSendLines_StopsAtFirstError(t *testing.T) {
	srv := newFakeSeriesAPI() // the kind is not defined: every write is refused
	defer srv.Close()
	g := newLineGen(tsDatasets[0], 5, 1_700_000_000, tsStep, 0)
	n, err := sendLines(context.Background(), newTSClient(2), timetableServe{}.WriteURL(srv.URL), g, sendConfig{batch: 10, senders: 2, limit: 1000}, nil)
	if err == nil || !strings.Contains(err.Error(), "400") || n != 0 {
		t.Fatalf("sendLines to a server refusing every write: %d readings, %v", n, err)
	}
}

// TestSeriesHTTP_VictoriaMetricsTiny runs the part against
// VictoriaMetrics at a tiny size (it needs the binary make bench-compare
// builds into .tools) and checks its section.
func TestSeriesHTTP_VictoriaMetricsTiny(t *testing.T) {
	stdout := runVictoriaMetricsTiny(t, "series-http",
		[]string{"-series-http-ids", "10", "-series-http-readings", "1500", "-series-http-batch", "1000", "-series-http-queries", "20", "-series-http-warmup", "2",
			"-series-http-soak", "6s", "-series-http-soak-rate", "2000", "-series-http-soak-ids", "10", "-series-http-soak-sample", "1s"},
		[]string{"## Series over HTTP", "| VictoriaMetrics | latest |", "| VictoriaMetrics | one day (1440 readings) |", "RSS over the soak", "vm_active_force_merges"})
	if stdout != "" {
		t.Errorf("figures printed with one server only: %s", stdout)
	}
}

// runVictoriaMetricsTiny runs the part only against VictoriaMetrics alone,
// with the further flags args, and fails t unless the report holds each
// of want. It skips t in -short mode and when the binary make
// bench-compare builds into .tools is missing. It returns what the run
// printed on its standard output.
func runVictoriaMetricsTiny(t *testing.T, only string, args, want []string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts VictoriaMetrics")
	}
	bin, err := filepath.Abs(filepath.Join("..", "..", "..", ".tools", "victoria-metrics"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("VictoriaMetrics is not built in .tools (make bench-compare ONLY=%s builds it)", only)
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	flags := append([]string{"-only", only, "-out", out, "-victoriametrics", bin, "-series-http-targets", "victoriametrics"}, args...)
	if err := run(flags, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report lacks %q", w)
		}
	}
	return stdout.String()
}

// TestSeriesHTTPFigures checks the direction of the ratios: above 1 when
// timetable is better (a higher rate, less CPU, fewer bytes, shorter
// reads), below 1 when it is worse.
func TestSeriesHTTPFigures(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	soakOf := func(f func(min float64) float64) *soakRun {
		r := &soakRun{duration: 3 * time.Minute}
		for at := time.Duration(0); at <= r.duration; at += 10 * time.Second {
			r.samples = append(r.samples, rssSample{at, int64(f(at.Minutes()) * (1 << 20))})
		}
		return r
	}
	better := tsRun{name: "timetable serve", readings: 1000, ingest: time.Second, ingestCPU: time.Millisecond, lifeCPU: 2 * time.Millisecond,
		peakRSS: 10 << 20, dirBytes: 1000, queries: queryRun{latest: ms(1, 2), rng: ms(3, 4)}, rangeWants: 1440, soak: soakOf(func(m float64) float64 { return 10 + 10*min(m, 1) })}
	worse := tsRun{name: "VictoriaMetrics", readings: 1000, ingest: 2 * time.Second, ingestCPU: 2 * time.Millisecond, lifeCPU: 4 * time.Millisecond,
		peakRSS: 20 << 20, dirBytes: 2000, queries: queryRun{latest: ms(2, 4), rng: ms(6, 8)}, rangeWants: 1440, soak: soakOf(func(m float64) float64 { return 10 + 10*m })}
	c := seriesHTTPConfig{ids: 1, readings: 1000, batch: 10, senders: 1, soak: soakConfig{duration: 3 * time.Minute}}
	for _, tc := range []struct {
		ours, peer tsRun
		above      bool
	}{{better, worse, true}, {worse, better, false}} {
		tc.ours.name, tc.peer.name = "timetable serve", "VictoriaMetrics"
		figs := seriesHTTPFigures(c, tsDatasets[0], 0, tc.ours, tc.peer)
		checkRatios(t, figs, 10, tc.above)
		last := figs[len(figs)-1]
		if last.met == nil || *last.met != tc.above {
			t.Errorf("soak figure: levels off %v, want %v", last.met, tc.above)
		}
	}
}

// TestNodeLike: the node_exporter-like dataset gives the same readings
// for the same seed; 2 series in 5 never change; in the others the
// counters (f1, f3) never fall, f1 is whole and f3 has at most two
// decimals, and the gauge (f2) moves.
func TestNodeLike(t *testing.T) {
	const steps = 500
	constant := 0
	for i := range uint64(50) {
		a, b := newNodeLike(i, 3), newNodeLike(i, 3)
		va, vb, prev := make([]float64, 3), make([]float64, 3), make([]float64, 3)
		changed := [3]bool{}
		for s := range steps {
			a.step(va)
			b.step(vb)
			if !slices.Equal(va, vb) {
				t.Fatalf("series %d step %d: %v and %v from one seed", i, s, va, vb)
			}
			if va[0] != math.Trunc(va[0]) || math.Abs(va[2]*100-math.Round(va[2]*100)) > 1e-6 {
				t.Fatalf("series %d step %d: %v", i, s, va)
			}
			if s > 0 {
				if va[0] < prev[0] || va[2] < prev[2] {
					t.Fatalf("series %d step %d: a counter fell: %v after %v", i, s, va, prev)
				}
				for f := range va {
					changed[f] = changed[f] || va[f] != prev[f]
				}
			}
			copy(prev, va)
		}
		switch changed {
		case [3]bool{}:
			constant++
		case [3]bool{true, true, true}:
		default:
			t.Errorf("series %d: fields changed %v, want all or none", i, changed)
		}
	}
	if constant != 20 {
		t.Errorf("%d constant series of 50, want 20", constant)
	}
}
