package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment variables of the Prometheus test.
const (
	// prometheusEnv names the Prometheus binary (default: prometheus on
	// PATH).
	prometheusEnv = "TIMETABLE_PROMETHEUS"
	// requirePrometheusEnv set to "1" turns the skip for a missing
	// Prometheus into a failure (scripts/e2e.sh sets it when it could
	// install one).
	requirePrometheusEnv = "TIMETABLE_REQUIRE_PROMETHEUS"
)

// The test's schedule. Once Prometheus has scraped both targets, it runs
// for promRange (so that a range query's ranges of promRange start after
// the first samples) and promWindow more (the steps compared), and
// promSettle more (the last scrapes may not be in Prometheus' head yet);
// then timetable has promCatchUp to hold what Prometheus remote-wrote.
const (
	promRange   = time.Minute
	promWindow  = 15 * time.Second
	promSettle  = 5 * time.Second
	promCatchUp = 20 * time.Second
	promStep    = time.Second
)

// promQuery is a range query whose answers must agree, exactly unless
// tolerance (relative) says otherwise, and why.
type promQuery struct {
	q         string
	tolerance float64
	why       string
}

// promQueries are the range queries compared: raw samples of each job,
// counters' rates, aggregations, a classic histogram's quantile, a regex
// matcher.
var promQueries = []promQuery{
	{q: `up`},
	{q: `prometheus_build_info`},
	{q: `rate(prometheus_http_requests_total[1m])`},
	{q: `sum by (job)(rate(prometheus_tsdb_head_samples_appended_total[1m]))`},
	{q: `histogram_quantile(0.9, rate(prometheus_http_request_duration_seconds_bucket{handler="/metrics"}[1m]))`},
	{q: `histogram_quantile(0.9, sum by (le)(rate(prometheus_http_request_duration_seconds_bucket[1m])))`, tolerance: 1e-12,
		why: "a sum of several series: the engine of Prometheus 2.50 and later adds with Kahan summation, older ones do not"},
	{q: `go_goroutines`},
	{q: `scrape_samples_scraped{job=~"prom.*|time.+"}`},
	{q: `increase(timetable_http_readings_ingested_total[30s])`},
	{q: `max_over_time(process_resident_memory_bytes[20s]) - min_over_time(process_resident_memory_bytes[20s])`},
}

// TestPrometheus_RemoteWrite_QueryRange runs Debian's Prometheus against
// timetable serve, as an operator would: Prometheus scrapes itself and
// the server's /metrics every second and remote-writes every sample to
// the server's /api/v1/write with a token. After a minute and a bit,
// timetable must hold every sample Prometheus holds (the same series,
// times and values), and Prometheus' /api/v1/query_range and the
// server's must give the same series and the same values at every step
// for each of promQueries, over a window both hold fully.
//
// The two engines differ in versions (Debian 12's Prometheus is 2.42;
// timetable's is the promql package of go.mod), so the steps avoid what
// changed between them: no range of a query starts before the first
// samples (rate's extrapolation at a series' start changed in 2.48), and
// no step falls on a scrape's millisecond (ranges became left-open in 3.0).
func TestPrometheus_RemoteWrite_QueryRange(t *testing.T) {
	if testing.Short() {
		t.Skip("the Prometheus test runs for over a minute; not in -short mode")
	}
	t.Parallel() // it waits most of the time
	prom := os.Getenv(prometheusEnv)
	if prom == "" {
		prom, _ = exec.LookPath("prometheus")
	}
	if prom == "" {
		msg := fmt.Sprintf("no Prometheus: set %s or install Debian's prometheus (make e2e installs it with apt-get where it can)", prometheusEnv)
		if os.Getenv(requirePrometheusEnv) == "1" {
			t.Fatalf("%s (%s=1)", msg, requirePrometheusEnv)
		}
		t.Skip(msg)
	}
	began := time.Now()
	dir := t.TempDir()
	bin := buildTimetable(t, dir)
	version, _ := exec.Command(prom, "--version").CombinedOutput()
	t.Logf("%s; timetable built in %v", firstLine(string(version)), time.Since(began).Round(time.Millisecond))

	data := filepath.Join(dir, "data")
	out, err := exec.Command(bin, "token", "create", "--data", data, "--name", "prometheus", "--scopes", "read,write").Output()
	if err != nil {
		t.Fatalf("timetable token create: %v", exitError(err))
	}
	token := strings.TrimSpace(string(out))

	addrFile := filepath.Join(dir, "addr")
	startProcess(t, filepath.Join(dir, "timetable.log"), bin, "serve", "--data", data, "--addr", "127.0.0.1:0", "--addr-file", addrFile)
	tt := &promClient{base: "http://" + waitAddrFile(t, addrFile), token: token}
	waitHTTP(t, tt.base+"/healthz")

	pc := startPrometheus(t, prom, dir, tt.base, token)
	promStart := time.Now()
	t.Logf("timetable at %s, Prometheus at %s, ready after %v", tt.base, pc.base, time.Since(began).Round(time.Millisecond))

	// Wait for the first scrapes of both targets (service discovery takes
	// some seconds), then run, checking every second that both serve.
	var firstScrape time.Time
	for {
		up, err := pc.samples(`up`, promStart.Add(-time.Minute), time.Now())
		if err != nil {
			t.Fatalf("Prometheus: %v", err)
		}
		if len(up) == 2 {
			firstScrape = time.Now()
			break
		}
		if time.Since(promStart) > 30*time.Second {
			t.Fatalf("Prometheus scraped %d of its 2 targets in 30 s", len(up))
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("first scrapes %v after Prometheus' start", firstScrape.Sub(promStart).Round(time.Millisecond))
	for time.Since(firstScrape) < promRange+promWindow+promSettle {
		time.Sleep(time.Second)
		if _, err := pc.samples(`up`, promStart, time.Now()); err != nil {
			t.Fatalf("Prometheus stopped answering: %v", err)
		}
		if _, err := tt.samples(`up`, promStart, time.Now()); err != nil {
			t.Fatalf("timetable stopped answering: %v", err)
		}
	}

	// Every sample Prometheus holds, then the steps of the range queries:
	// whole seconds plus the eighth of a second farthest from every
	// scrape's offset (a float64 holds n/8 s exactly, so that the steps
	// are the same whatever a parser does with the decimal fraction).
	end := time.Now().Add(-promSettle)
	all, err := pc.samples(`{__name__=~".+"}`, promStart, end)
	if err != nil {
		t.Fatalf("Prometheus: %v", err)
	}
	phase := stepPhase(all, promStep, promStep/8)
	start := firstScrape.Truncate(promStep).Add(promRange + promStep + phase)
	stop := end.Add(-promStep).Truncate(promStep).Add(phase)
	checks := []promCheck{{
		name: "the samples of every series",
		ask:  func(c *promClient) (matrix, error) { return c.samples(`{__name__=~".+"}`, promStart, end) },
	}}
	for _, q := range promQueries {
		checks = append(checks, promCheck{name: q.q, tolerance: q.tolerance, why: q.why,
			ask: func(c *promClient) (matrix, error) { return c.queryRange(q.q, start, stop, promStep) }})
	}
	// And the steps of a decimal fraction a float64 holds only below
	// (x.086 is 0.0859999...): Prometheus rounds it to the millisecond.
	inexact := inexactMillis(start)
	checks = append(checks, promCheck{name: "up, at steps of " + milliTime(inexact.UnixMilli()) + " (a decimal fraction a float64 holds only below)",
		ask: func(c *promClient) (matrix, error) {
			return c.queryRange(`up`, inexact, inexact.Add(stop.Sub(start)), promStep)
		}})
	t.Logf("comparing the samples of every series over (%s, %s] and %d range queries over [%s, %s], step %v",
		clock(promStart), clock(end), len(promQueries), clock(start), clock(stop), promStep)
	want := make([]matrix, len(checks))
	for i, c := range checks {
		if want[i], err = c.ask(pc); err != nil {
			t.Fatalf("Prometheus: %s: %v", c.name, err)
		}
		if len(want[i]) == 0 {
			t.Errorf("Prometheus answers %s with no series: the check tests nothing", c.name)
		}
	}

	// timetable may lag behind by remote write's batches: ask again until
	// it agrees, or until promCatchUp, then report every difference.
	deadline := time.Now().Add(promCatchUp)
	for attempt := 1; ; attempt++ {
		var diffs, agree []string
		for i, c := range checks {
			got, err := c.ask(tt)
			if err != nil {
				t.Fatalf("timetable: %s: %v", c.name, err)
			}
			d, near, nanGap := diffMatrix(c, want[i], got)
			if nanGap > 0 && (len(d) == 0 || time.Now().After(deadline)) {
				t.Logf("%s: known gap: %d of Prometheus' NaN points are not in timetable's answer (a NaN sample is stored as a staleness marker)", c.name, nanGap)
			}
			if len(d) == 0 {
				series, points := want[i].size()
				line := fmt.Sprintf("%s: %d series, %d points", c.name, series, points)
				if near > 0 {
					line += fmt.Sprintf(", %d of them within %g of Prometheus' (%s)", near, c.tolerance, c.why)
				}
				agree = append(agree, line)
			}
			diffs = append(diffs, d...)
		}
		if len(diffs) == 0 || time.Now().After(deadline) {
			t.Logf("attempt %d, %v after the window's end (%v in all): timetable agrees with Prometheus on %d of %d checks:\n%s",
				attempt, time.Since(end).Round(time.Millisecond), time.Since(began).Round(time.Millisecond), len(agree), len(checks), strings.Join(agree, "\n"))
		}
		if len(diffs) == 0 {
			return
		}
		if attempt == 1 {
			t.Logf("attempt 1: %d differences (timetable may lag behind); asking again every 2 s for %v", len(diffs), promCatchUp)
		}
		if time.Now().After(deadline) {
			t.Errorf("timetable's answers differ from Prometheus':\n%s", strings.Join(diffs, "\n"))
			return
		}
		time.Sleep(2 * time.Second)
	}
}

// promCheck is a question asked of both Prometheus and timetable, whose
// answers must agree exactly, or within tolerance (relative) for the
// reason why.
type promCheck struct {
	name      string
	ask       func(*promClient) (matrix, error)
	tolerance float64
	why       string
}

// stepPhase returns the offset into step, a multiple of unit, farthest
// from the offsets of the samples of m.
func stepPhase(m matrix, step, unit time.Duration) time.Duration {
	n, u := step.Milliseconds(), unit.Milliseconds()
	taken := map[int64]bool{}
	for _, s := range m {
		for _, ts := range s.times {
			taken[ts%n] = true
		}
	}
	best, bestGap := int64(0), int64(-1)
	for p := int64(0); p < n; p += u {
		gap := n
		for o := range taken {
			d := (p - o + n) % n
			gap = min(gap, d, n-d)
		}
		if gap > bestGap {
			best, bestGap = p, gap
		}
	}
	return time.Duration(best) * time.Millisecond
}

// inexactMillis returns the first millisecond after t whose time in Unix
// seconds, written with three decimals, a float64 holds only below it:
// its fraction read as a float64 truncates to the millisecond before.
func inexactMillis(t time.Time) time.Time {
	for ms := t.UnixMilli() + 1; ; ms++ {
		v, _ := strconv.ParseFloat(unixSeconds(time.UnixMilli(ms)), 64)
		_, frac := math.Modf(v)
		if int64(math.Round(frac*1e9))/1e6 != ms%1000 {
			return time.UnixMilli(ms)
		}
	}
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// buildTimetable builds cmd/timetable into dir and returns its path.
func buildTimetable(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "timetable")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/timetable-db/timetable/cmd/timetable")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/timetable: %v\n%s", err, out)
	}
	return bin
}

// startPrometheus writes a configuration into dir and starts Prometheus
// on a free port of 127.0.0.1 with its data in dir: it scrapes itself and
// the timetable server at base (with token) every second, and
// remote-writes to base with token, in batches sent at least every
// second.
func startPrometheus(t *testing.T, bin, dir, base, token string) *promClient {
	t.Helper()
	target := strings.TrimPrefix(base, "http://")
	for attempt := 1; ; attempt++ {
		addr := freeAddr(t)
		config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: prometheus
    static_configs:
      - targets: [%[1]q]
  - job_name: timetable
    authorization:
      credentials: %[3]q
    static_configs:
      - targets: [%[2]q]
remote_write:
  - url: %[4]q
    authorization:
      credentials: %[3]q
    queue_config:
      batch_send_deadline: 1s
      max_samples_per_send: 2000
      min_backoff: 100ms
      max_backoff: 1s
    metadata_config:
      send_interval: 5s
`, addr, target, token, base+"/api/v1/write")
		configFile := filepath.Join(dir, "prometheus.yml")
		if err := os.WriteFile(configFile, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		p := startProcess(t, filepath.Join(dir, fmt.Sprintf("prometheus.%d.log", attempt)), bin,
			"--config.file="+configFile, "--storage.tsdb.path="+filepath.Join(dir, "prometheus"),
			"--web.listen-address="+addr)
		pc := &promClient{base: "http://" + addr}
		if p.waitReady(pc.base+"/-/ready", 30*time.Second) {
			return pc
		}
		if attempt == 3 {
			t.Fatalf("Prometheus did not start; its log:\n%s", p.tail())
		}
		p.stop()
	}
}

// freeAddr returns an address of 127.0.0.1 with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// process is a child process of the test, stopped at the test's cleanup;
// its output goes to a log file.
type process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{} // closed when the process has exited
}

// startProcess starts bin with args, its output to logFile, and stops it
// at t's cleanup (SIGTERM, then SIGKILL after 10 s). It shows the log's
// end when t fails.
func startProcess(t *testing.T, logFile, bin string, args ...string) *process {
	t.Helper()
	f, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		t.Fatalf("cannot start %s: %v", bin, err)
	}
	p := &process{cmd: cmd, log: logFile, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("the end of %s:\n%s", filepath.Base(logFile), p.tail())
		}
	})
	return p
}

// stop stops p, if it runs: SIGTERM, then SIGKILL after 10 s.
func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail returns the last lines of p's log.
func (p *process) tail() string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// waitReady waits until url answers 200, and reports whether it did
// before p exited or wait passed.
func (p *process) waitReady(url string, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return false
		default:
		}
		if resp, err := http.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// waitAddrFile waits for timetable serve to write its address to file.
func waitAddrFile(t *testing.T, file string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return string(bytes.TrimSpace(b))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timetable serve wrote no address to %s in 30 s", file)
	return ""
}

// waitHTTP waits until url answers 200.
func waitHTTP(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer 200 in 30 s", url)
}

func exitError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// promClient asks a Prometheus query API at base, with a bearer token
// unless token is "".
type promClient struct {
	base, token string
}

// matrix is the answer of a range query: its series, by their labels
// written {a="1", b="2"} in name order.
type matrix map[string]promSeries

// size returns the series and points of m.
func (m matrix) size() (series, points int) {
	for _, s := range m {
		points += len(s.values)
	}
	return len(m), points
}

// promSeries is a series of a range query's answer: the times of its
// points in Unix milliseconds, in order, and their values.
type promSeries struct {
	times  []int64
	values []float64
}

// queryRange asks /api/v1/query_range for q over [start, end] with step,
// and returns its matrix, keyed by the series' labels written
// {a="1", b="2"} in name order.
func (c *promClient) queryRange(q string, start, end time.Time, step time.Duration) (matrix, error) {
	return c.matrix("/api/v1/query_range", url.Values{
		"query": {q},
		"start": {unixSeconds(start)},
		"end":   {unixSeconds(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	})
}

// samples asks /api/v1/query for the samples of the series that
// selector selects over (start, end], and returns them as a matrix.
func (c *promClient) samples(selector string, start, end time.Time) (matrix, error) {
	window := strconv.FormatInt(end.Sub(start).Milliseconds(), 10) + "ms"
	return c.matrix("/api/v1/query", url.Values{"query": {selector + "[" + window + "]"}, "time": {unixSeconds(end)}})
}

// matrix asks path with form, and returns its answer, which must be a
// matrix.
func (c *promClient) matrix(path string, form url.Values) (matrix, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path+"?"+form.Encode(), nil)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var a struct {
		Status string
		Error  string
		Data   struct {
			ResultType string
			Result     []struct {
				Metric map[string]string
				Values [][2]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(body, &a); err != nil || resp.StatusCode != http.StatusOK || a.Status != "success" {
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body))
	}
	if a.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("result type %q, want matrix", a.Data.ResultType)
	}
	m := matrix{}
	for _, r := range a.Data.Result {
		var s promSeries
		for _, v := range r.Values {
			// Prometheus 2 writes times 1.120 and values 0.000000835
			// where 3 writes 1.12 and 8.35e-07: read both as numbers.
			var ts float64
			var val string
			if err := json.Unmarshal(v[0], &ts); err != nil {
				return nil, fmt.Errorf("time %s of %v: %w", v[0], r.Metric, err)
			}
			if err := json.Unmarshal(v[1], &val); err != nil {
				return nil, fmt.Errorf("value %s of %v: %w", v[1], r.Metric, err)
			}
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return nil, fmt.Errorf("value %s of %v: %w", v[1], r.Metric, err)
			}
			s.times = append(s.times, int64(math.Round(ts*1e3)))
			s.values = append(s.values, f)
		}
		key := labelString(r.Metric)
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("two series %s", key)
		}
		m[key] = s
	}
	return m, nil
}

func unixSeconds(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1e3, 'f', 3, 64)
}

// labelString writes ls as {a="1", b="2"}, in name order.
func labelString(ls map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(ls)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", k, ls[k])
	}
	b.WriteByte('}')
	return b.String()
}

// diffMatrix returns the differences of got (timetable's answer to c)
// from want (Prometheus'), a line each: series only in one, and for each
// series in both, the steps missing from one and those of different
// values (the first few, and how many in all); how many values differ
// within c's tolerance; and how many of Prometheus' NaN points timetable
// lacks, which are not differences here but a known gap: remote write
// stores a NaN sample as a reading without a value, which the query API
// reads as a staleness marker (docs/prometheus.md).
func diffMatrix(c promCheck, want, got matrix) (diffs []string, near, nanGap int) {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		w := want[k]
		g, ok := got[k]
		if !ok {
			if !slices.ContainsFunc(w.values, func(v float64) bool { return !math.IsNaN(v) }) {
				nanGap += len(w.values)
				continue
			}
			diffs = append(diffs, fmt.Sprintf("%s: series %s (%d points) missing", c.name, k, len(w.values)))
			continue
		}
		gotAt := make(map[int64]float64, len(g.times))
		for i, ts := range g.times {
			gotAt[ts] = g.values[i]
		}
		var missing, differ []string
		for i, ts := range w.times {
			v, ok := gotAt[ts]
			delete(gotAt, ts)
			switch {
			case !ok && math.IsNaN(w.values[i]):
				nanGap++
			case !ok:
				missing = append(missing, milliTime(ts))
			case sameFloat(v, w.values[i]):
			case math.Abs(v-w.values[i]) <= c.tolerance*max(math.Abs(v), math.Abs(w.values[i])):
				near++
			default:
				differ = append(differ, fmt.Sprintf("at %s %s, want %s", milliTime(ts), fmtFloat(v), fmtFloat(w.values[i])))
			}
		}
		extra := slices.Sorted(maps.Keys(gotAt))
		if len(missing) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s: series %s: %d of %d points missing, at %s", c.name, k, len(missing), len(w.times), firstFew(missing)))
		}
		if len(extra) > 0 {
			var at []string
			for _, ts := range extra {
				at = append(at, milliTime(ts))
			}
			diffs = append(diffs, fmt.Sprintf("%s: series %s: %d points Prometheus does not have, at %s", c.name, k, len(extra), firstFew(at)))
		}
		if len(differ) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s: series %s: %d of %d values differ: %s", c.name, k, len(differ), len(w.times), firstFew(differ)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: series %s (%d points) not in Prometheus' answer", c.name, k, len(got[k].values)))
		}
	}
	return diffs, near, nanGap
}

// sameFloat reports whether a and b are the same float64, NaN being NaN.
func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// milliTime writes Unix milliseconds as the time of day, UTC.
func milliTime(ms int64) string { return clock(time.UnixMilli(ms)) }

// firstFew joins the first five of ss, and says how many more there are.
func firstFew(ss []string) string {
	const n = 5
	if len(ss) <= n {
		return strings.Join(ss, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(ss[:n], "; "), len(ss)-n)
}
