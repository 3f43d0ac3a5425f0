package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childEnv names the arguments, separated by the unit separator (0x1f), with which the test binary
// runs as the timetable binary instead of running tests.
const childEnv = "TIMETABLE_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, strings.Split(args, "\x1f"), os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// child is `timetable serve` in a process of its own.
type child struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	done   chan error
}

// startServe runs serve on dir in a new process and waits for its address.
func startServe(t *testing.T, dir string, extra ...string) *child {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	args := append([]string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--addr-file", addrFile}, extra...)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	c := &child{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = c.stderr
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-c.done })
	addr, err := waitForAddr(addrFile, c.done, 60*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, c.stderr.String())
	}
	c.url = "http://" + addr
	return c
}

// signal sends sig to the process; it fails the test, with the
// process's end and its standard error, if the process has already
// ended.
func (c *child) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		end := <-c.done
		c.done <- end
		t.Fatalf("serve ended before %v: %v (exit: %v)\n%s", sig, err, end, c.stderr.String())
	}
}

// kill kills the process with SIGKILL and waits for its end.
func (c *child) kill(t *testing.T) {
	t.Helper()
	c.signal(t, syscall.SIGKILL)
	c.done <- <-c.done // the end, left for the cleanup
}

// killStopping kills with SIGKILL a process sent SIGTERM before, and
// waits for its end; if its clean stop has ended already, it must have
// exited with status 0. It reports whether the kill came first.
func (c *child) killStopping(t *testing.T) bool {
	t.Helper()
	err := c.cmd.Process.Signal(syscall.SIGKILL)
	end := <-c.done
	c.done <- end // for the cleanup
	switch {
	case err == nil:
		return true
	case errors.Is(err, os.ErrProcessDone) && end == nil:
		return false
	default:
		t.Fatalf("SIGKILL during the clean stop: %v (exit: %v)\n%s", err, end, c.stderr.String())
		return false
	}
}

// stop stops the process with SIGTERM and fails the test unless it
// exits with status 0.
func (c *child) stop(t *testing.T) {
	t.Helper()
	c.signal(t, syscall.SIGTERM)
	err := <-c.done
	c.done <- err // for the cleanup
	if err != nil {
		t.Fatalf("serve after SIGTERM: %v (want exit 0)\n%s", err, c.stderr.String())
	}
}

// ackedReading is a reading a server acknowledged with a 2xx.
type ackedReading struct {
	series string
	ms     int64
	value  float64
}

// TestServe_KillNineKeepsAcknowledgedWrites: serve under sustained HTTP
// ingest (line protocol and JSON readings, and web-analytics hits on
// /api/event) is killed with SIGKILL at a random moment, restarted, and
// every reading and hit acknowledged with a 2xx is there, once; the kind
// keeps every reading of an instant (KeepAll), so a reading stored twice
// would show, and each hit has a page of its own (checkHits). At the end
// the aggregates count each stored hit once. A SIGTERM at the end exits 0.
func TestServe_KillNineKeepsAcknowledgedWrites(t *testing.T) {
	cycles := 20
	if testing.Short() {
		cycles = 4
	}
	dir := filepath.Join(t.TempDir(), "data")
	flags := []string{"--no-auth", "--flush-interval", "100ms", "--collect-rate-limit", "-1", "--aggregate-every", "200ms"}
	srv := startServe(t, dir, flags...)
	post(t, srv.url+"/api/v1/kinds", "application/json",
		`{"name":"CRASH","fields":["v"],"duplicates":"keep_all"}`, http.StatusCreated)
	post(t, srv.url+"/api/v1/sites", "application/json", `{"id":"crash","domains":["crash.test"]}`, http.StatusCreated)
	start := time.Now()
	var hits []string // the pages of the hits acknowledged
	nextHit := 0

	var mu sync.Mutex      // guards hits and nextHit
	var writes ackedWrites // the writers' counter counts instants
	base := time.Now().Add(-time.Hour).UnixMilli()
	for cycle := range cycles {
		if cycle > 0 {
			srv = startServe(t, dir, flags...)
			checkAcked(t, srv.url, writes.acked)
			checkHits(t, srv.url, hits, start, false)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		writes.start(ctx, &wg, srv.url, "CRASH", 4, 50, func(w int, first, i int64) ackedReading {
			return ackedReading{series: fmt.Sprintf("w%d", w), ms: base + first + i, value: float64(first + i)}
		})
		for range 2 {
			wg.Go(func() {
				for ctx.Err() == nil {
					mu.Lock()
					page := fmt.Sprintf("/h/%d", nextHit)
					nextHit++
					mu.Unlock()
					if sendHit(ctx, srv.url, page) {
						mu.Lock()
						hits = append(hits, page)
						mu.Unlock()
					}
				}
			})
		}
		time.Sleep(time.Duration(150+rand.IntN(500)) * time.Millisecond)
		srv.kill(t)
		cancel()
		wg.Wait()
	}
	srv = startServe(t, dir, flags...)
	checkAcked(t, srv.url, writes.acked)
	checkHits(t, srv.url, hits, start, true)
	t.Logf("%d cycles, %d readings and %d hits acknowledged and found once", cycles, len(writes.acked), len(hits))

	srv.stop(t)
}

// ackedWrites is the crash tests' writers' shared state: the counter they
// take their batches' values from, and the readings acknowledged.
type ackedWrites struct {
	limit int64 // the counter's end, if not 0: no batch goes past it

	mu    sync.Mutex
	next  int64
	acked []ackedReading
}

// start runs n writers in wg until ctx is done or the counter reaches its
// limit: each takes the next size values of the counter, makes a batch of
// the readings reading(writer, first, i) for i below size, sends it as line
// protocol (even writers) or JSON, and keeps it if acknowledged. acked may
// be read once wg is done.
func (a *ackedWrites) start(ctx context.Context, wg *sync.WaitGroup, url, kind string, n int, size int64, reading func(w int, first, i int64) ackedReading) {
	for w := range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				a.mu.Lock()
				first := a.next
				a.next += size
				a.mu.Unlock()
				if a.limit > 0 && first+size > a.limit {
					return
				}
				batch := make([]ackedReading, size)
				for i := range batch {
					batch[i] = reading(w, first, int64(i))
				}
				if sendBatch(ctx, url, kind, batch, w%2 == 0) {
					a.mu.Lock()
					a.acked = append(a.acked, batch...)
					a.mu.Unlock()
				}
			}
		})
	}
}

// sendBatch writes readings of kind (field v) as line protocol or JSON,
// with the header's name, value pairs, and reports whether the server
// acknowledged them.
func sendBatch(ctx context.Context, url, kind string, rs []ackedReading, lineProtocol bool, header ...string) bool {
	var body bytes.Buffer
	path, ctype := "/api/v1/write?precision=ms", "text/plain"
	if lineProtocol {
		for _, r := range rs {
			fmt.Fprintf(&body, "%s,series=%s v=%g %d\n", kind, r.series, r.value, r.ms)
		}
	} else {
		path, ctype = "/api/v1/kinds/"+kind+"/readings", "application/json"
		type rd struct {
			Series string             `json:"series"`
			Time   int64              `json:"time"`
			Values map[string]float64 `json:"values"`
		}
		var out struct {
			Readings []rd `json:"readings"`
		}
		for _, r := range rs {
			out.Readings = append(out.Readings, rd{r.series, r.ms, map[string]float64{"v": r.value}})
		}
		_ = json.NewEncoder(&body).Encode(out)
	}
	return postAcked(ctx, url+path, &body, append([]string{"Content-Type", ctype}, header...)...)/100 == 2
}

// postAcked posts body to url with the header's name, value pairs and
// returns the answer's status, 0 if there is none.
func postAcked(ctx context.Context, url string, body io.Reader, header ...string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return 0
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// crashUA is a browser's user agent: a hit without one is dropped as a
// bot's.
const crashUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// sendHit posts a page view of page on site crash to /api/event and
// reports whether the server acknowledged it.
func sendHit(ctx context.Context, url, page string) bool {
	body := fmt.Sprintf(`{"n":"pageview","u":"http://crash.test%s","d":"crash"}`, page)
	return postAcked(ctx, url+"/api/event", strings.NewReader(body), "Content-Type", "text/plain", "User-Agent", crashUA) == http.StatusAccepted
}

// checkHits checks that every acknowledged hit (each of a page of its
// own) is stored once: in the raw hits (the Stats API with a filter),
// and in the realtime counters when it is recent enough for them (all
// hits sent since start). With aggregated, it also waits for the
// aggregation to count every stored hit once.
func checkHits(t *testing.T, url string, hits []string, start time.Time, aggregated bool) {
	t.Helper()
	stored := pageViews(t, url, "crash", "/h/", true)
	total := 0
	for page, n := range stored {
		if n != 1 {
			t.Fatalf("page %s: %d page views stored, want one", page, n)
		}
		total++
	}
	for _, page := range hits {
		if stored[page] == 0 {
			t.Fatalf("the acknowledged hit of %s is lost (%d of %d acknowledged hits stored)", page, countIn(hits, stored), len(hits))
		}
	}
	// Realtime covers the minutes from four before this one's start.
	now := time.Now()
	if !start.Before(now.Truncate(time.Minute).Add(-4 * time.Minute)) {
		var live struct {
			PageViews int64 `json:"pageviews"`
			Pages     []struct {
				Page     string `json:"page"`
				Visitors int64  `json:"visitors"`
			} `json:"pages"`
		}
		getJSON(t, url+"/api/v1/sites/crash/realtime", &live)
		if live.PageViews != int64(total) || len(live.Pages) != total {
			t.Fatalf("realtime: %d page views of %d pages, want the %d stored (%d acknowledged)", live.PageViews, len(live.Pages), total, len(hits))
		}
	}
	if !aggregated {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		agg := pageViews(t, url, "crash", "/h/", false)[""]
		if agg == int64(total) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the aggregates count %d page views, the raw hits %d", agg, total)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// countIn returns the number of pages with a page view in stored.
func countIn(pages []string, stored map[string]int64) int {
	n := 0
	for _, p := range pages {
		if stored[p] > 0 {
			n++
		}
	}
	return n
}

// pageViews returns the page views of site from yesterday to tomorrow:
// from the raw hits, those of each page whose path holds prefix; from the
// aggregates, their total (keyed "").
func pageViews(t *testing.T, url, site, prefix string, raw bool) map[string]int64 {
	t.Helper()
	q := map[string]any{"site_id": site, "metrics": []string{"pageviews"},
		"date_range": []string{time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly), time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)}}
	if !raw {
		return queryStats(t, url, q, "aggregates")
	}
	q["dimensions"] = []string{"event:page"}
	q["filters"] = []any{[]any{"contains", "event:page", []string{prefix}}}
	m := map[string]int64{}
	for offset := 0; ; offset += 10000 {
		q["pagination"] = map[string]int{"limit": 10000, "offset": offset}
		page := queryStats(t, url, q, "raw_hits")
		maps.Copy(m, page)
		if len(page) < 10000 {
			return m
		}
	}
}

// queryStats runs the Stats API query q and returns its first metric by
// its dimensions (joined), checking that it was computed from what.
func queryStats(t *testing.T, url string, q map[string]any, from string) map[string]int64 {
	t.Helper()
	body, _ := json.Marshal(q)
	resp, err := http.Post(url+"/api/v2/query", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/v2/query: %d %s", resp.StatusCode, b)
	}
	var out struct {
		Results []struct {
			Metrics    []int64  `json:"metrics"`
			Dimensions []string `json:"dimensions"`
		} `json:"results"`
		Meta struct {
			ComputedFrom string `json:"computed_from"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.Meta.ComputedFrom != from {
		t.Fatalf("stats computed from %q, want %q", out.Meta.ComputedFrom, from)
	}
	m := map[string]int64{}
	for _, r := range out.Results {
		m[strings.Join(r.Dimensions, "")] = r.Metrics[0]
	}
	return m
}

// checkAcked reads every series back and checks that each acknowledged
// reading is there, and that no instant holds two readings.
func checkAcked(t *testing.T, url string, acked []ackedReading) {
	t.Helper()
	want := map[string]map[int64]float64{}
	for _, r := range acked {
		if want[r.series] == nil {
			want[r.series] = map[int64]float64{}
		}
		want[r.series][r.ms] = r.value
	}
	for id, readings := range want {
		seen := map[int64]int{}
		cursor := ""
		for {
			q := url + "/api/v1/kinds/CRASH/series/" + id + "/readings?page_size=10000"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			var p struct {
				Readings []struct {
					Time   string
					Values map[string]float64
				}
				Cursor string
			}
			getJSON(t, q, &p)
			for _, r := range p.Readings {
				tm, err := time.Parse(time.RFC3339Nano, r.Time)
				if err != nil {
					t.Fatal(err)
				}
				seen[tm.UnixMilli()]++
			}
			if cursor = p.Cursor; cursor == "" {
				break
			}
		}
		for ms, n := range seen {
			if n > 1 {
				t.Fatalf("series %s: %d readings at %d, want one", id, n, ms)
			}
		}
		for ms := range readings {
			if seen[ms] == 0 {
				t.Fatalf("series %s: the acknowledged reading at %d is lost", id, ms)
			}
		}
	}
}

func post(t *testing.T, url, ctype, body string, status int) {
	t.Helper()
	resp, err := http.Post(url, ctype, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != status {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d, want %d: %s", url, resp.StatusCode, status, b)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestServe_KillNineDuringCompactionKeepsReadings: serve takes readings
// of 20 closed days (one a minute, 5 series; the first cycles write
// them, the later ones restart on them) while it compacts them every
// 100 ms, and is killed with SIGKILL at a random moment: in the
// background compaction, or after a SIGTERM, in the clean stop's last
// compaction (which deletes merged chunks' sources at once) and the
// engine's compaction of its tables. After each restart every reading
// acknowledged is there, once (the kind keeps every reading of an
// instant, so a reading stored twice would show).
func TestServe_KillNineDuringCompactionKeepsReadings(t *testing.T) {
	cycles := 8
	if testing.Short() {
		cycles = 3
	}
	dir := filepath.Join(t.TempDir(), "data")
	flags := []string{"--no-auth", "--flush-interval", "100ms", "--compact-interval", "100ms"}
	srv := startServe(t, dir, flags...)
	post(t, srv.url+"/api/v1/kinds", "application/json",
		`{"name":"CRASH","fields":["v"],"duplicates":"keep_all","layout":"chunks"}`, http.StatusCreated)
	var writes ackedWrites // the writers' counter counts minutes
	const days = 20
	writes.limit = days * 24 * 60
	base := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -days-1).UnixMilli()
	killedStopping := 0 // clean stops killed before they ended
	for cycle := range cycles {
		if cycle > 0 {
			srv = startServe(t, dir, flags...)
			checkAcked(t, srv.url, writes.acked)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		writes.start(ctx, &wg, srv.url, "CRASH", 4, 60, func(_ int, first, i int64) ackedReading {
			m := first + i
			return ackedReading{series: fmt.Sprintf("c%d", m/60%5), ms: base + m*60_000, value: float64(m)}
		})
		time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
		if cycle%2 == 1 {
			// A clean stop, killed part way.
			srv.signal(t, syscall.SIGTERM)
			time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
			if srv.killStopping(t) {
				killedStopping++
			}
		} else {
			srv.kill(t)
		}
		cancel()
		wg.Wait()
	}
	srv = startServe(t, dir, flags...)
	checkAcked(t, srv.url, writes.acked)
	t.Logf("%d cycles (%d of %d clean stops killed before they ended), %d readings acknowledged and found once",
		cycles, killedStopping, cycles/2, len(writes.acked))
	srv.stop(t)
	srv = startServe(t, dir, flags...)
	checkAcked(t, srv.url, writes.acked)
}
