package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	for deadline := time.Now().Add(60 * time.Second); ; {
		if b, err := os.ReadFile(addrFile); err == nil && strings.HasSuffix(string(b), "\n") {
			c.url = "http://" + strings.TrimSpace(string(b))
			return c
		}
		select {
		case err := <-c.done:
			t.Fatalf("serve ended early: %v\n%s", err, c.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve has no address after 60s\n%s", c.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ackedReading is a reading a server acknowledged with a 2xx.
type ackedReading struct {
	series string
	ms     int64
	value  float64
}

// TestServe_KillNineKeepsAcknowledgedWrites: serve under sustained HTTP
// ingest (line protocol and JSON) is killed with SIGKILL at a random
// moment, restarted, and every reading acknowledged with a 2xx is there,
// once; the kind keeps every reading of an instant (KeepAll), so a reading
// stored twice would show. A SIGTERM at the end exits 0.
func TestServe_KillNineKeepsAcknowledgedWrites(t *testing.T) {
	cycles := 20
	if testing.Short() {
		cycles = 4
	}
	dir := filepath.Join(t.TempDir(), "data")
	srv := startServe(t, dir, "--no-auth", "--flush-interval", "100ms")
	post(t, srv.url+"/api/v1/kinds", "application/json",
		`{"name":"CRASH","fields":["v"],"duplicates":"keep_all"}`, http.StatusCreated)

	var mu sync.Mutex
	var acked []ackedReading
	base := time.Now().Add(-time.Hour).UnixMilli()
	next := int64(0) // the writers' shared counter of instants
	for cycle := range cycles {
		if cycle > 0 {
			srv = startServe(t, dir, "--no-auth", "--flush-interval", "100ms")
			checkAcked(t, srv.url, acked)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for ctx.Err() == nil {
					mu.Lock()
					first := next
					next += 50
					mu.Unlock()
					batch := make([]ackedReading, 50)
					for i := range batch {
						batch[i] = ackedReading{series: fmt.Sprintf("w%d", w), ms: base + first + int64(i), value: float64(first + int64(i))}
					}
					if sendBatch(ctx, srv.url, batch, w%2 == 0) {
						mu.Lock()
						acked = append(acked, batch...)
						mu.Unlock()
					}
				}
			})
		}
		time.Sleep(time.Duration(150+rand.IntN(500)) * time.Millisecond)
		if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-srv.done
		cancel()
		wg.Wait()
		srv.done <- nil // for the cleanup
	}
	srv = startServe(t, dir, "--no-auth")
	checkAcked(t, srv.url, acked)
	t.Logf("%d cycles, %d readings acknowledged and found once", cycles, len(acked))

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-srv.done; err != nil {
		t.Fatalf("serve after SIGTERM: %v (want exit 0)\n%s", err, srv.stderr.String())
	}
	srv.done <- nil
}

// sendBatch writes readings as line protocol or JSON and reports whether
// the server acknowledged them.
func sendBatch(ctx context.Context, url string, rs []ackedReading, lineProtocol bool) bool {
	var body bytes.Buffer
	path, ctype := "/api/v1/write?precision=ms", "text/plain"
	if lineProtocol {
		for _, r := range rs {
			fmt.Fprintf(&body, "CRASH,series=%s v=%g %d\n", r.series, r.value, r.ms)
		}
	} else {
		path, ctype = "/api/v1/kinds/CRASH/readings", "application/json"
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, &body)
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode/100 == 2
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
