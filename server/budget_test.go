package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/server"
)

// TestWrite_GzipBombBounded reproduces finding 8 of issue 21: a small
// gzip body inflating to 300 MiB of line protocol, 300 bytes a line,
// was refused only past a million readings and some 200 MB held. With
// the defaults it is refused 413 at the readings cap, having inflated a
// few tens of MB of it, and the memory the request held (the budget's
// high-water mark) stays within tens of MB.
func TestWrite_GzipBombBounded(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	line := fmt.Sprintf("SENSOR,series=s,location=%s temperature=1 %%d\n", strings.Repeat("x", 240))
	pr, pw := io.Pipe()
	var inflated atomic.Int64 // bytes of lines handed to the gzip writer
	go func() {
		zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
		var buf []byte
		for i := 0; inflated.Load() < 300<<20; i++ {
			buf = fmt.Appendf(buf[:0], line, ms(t0)+int64(i))
			if _, err := zw.Write(buf); err != nil {
				return // the server stopped reading
			}
			inflated.Add(int64(len(buf)))
		}
		_ = zw.Close()
		_ = pw.Close()
	}()
	// Served in this goroutine, without a connection's buffers between
	// the lines made and those the server reads.
	req := httptest.NewRequest("POST", "/api/v2/write?org=o&bucket=b&precision=ms", pr)
	req.Header.Set("Content-Encoding", "gzip")
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	_ = pr.CloseWithError(io.ErrClosedPipe)
	if rec.Code != 413 || !strings.Contains(rec.Body.String(), fmt.Sprintf("more than %d readings", server.DefaultMaxReadings)) {
		t.Errorf("answer %d %s, want 413 naming the readings cap", rec.Code, rec.Body)
	}
	got := inflated.Load()
	t.Logf("inflated %d MB before the answer", got>>20)
	if got > 48<<20 {
		t.Errorf("the server inflated %d bytes of the bomb before refusing it", got)
	}
	peak := e.metric("timetable_http_inflight_bytes_peak")
	t.Logf("held at most %d MB", int64(peak)>>20)
	if peak <= 0 || peak > 48<<20 {
		t.Errorf("the request held at most %v bytes, want some and under 48 MB", peak)
	}
}

// TestWrite_SmallGzipOfManyReadings: a gzip body of some tens of KB
// holding 999,000 readings (finding 8: accepted) is refused 413 naming
// the readings cap.
func TestWrite_SmallGzipOfManyReadings(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	lines := []byte(strings.Repeat("SENSOR,series=a,location=lab temperature=21.5,humidity=40i\n", 1000))
	for range 999 {
		_, _ = zw.Write(lines)
	}
	_ = zw.Close()
	t.Logf("999,000 readings in %d KB of gzip", body.Len()>>10)
	a := e.do("POST", "/api/v1/write", "text/plain", &body, "Content-Encoding", "gzip").must(t, 413)
	if !strings.Contains(string(a.body), "more than 100000 readings") {
		t.Errorf("413 does not name the readings cap: %s", a.body)
	}
	e.get("/api/v1/kinds/SENSOR/series/a/latest").must(t, 404)
}

// budgetEnv is a server whose DynamoDB endpoint and routes share a
// budget of size bytes that does not wait.
func budgetEnv(t *testing.T, size int64, config func(*server.Config)) (*env, *server.Budget) {
	b := server.NewBudget(size, -1)
	return newEnv(t, envOptions{budget: b, config: config}), b
}

// dynamo sends a DynamoDB request and returns its answer.
func (e *env) dynamo(op, body string) answer {
	e.t.Helper()
	return e.do("POST", "/", "application/x-amz-json-1.0", strings.NewReader(body),
		"X-Amz-Target", "DynamoDB_20120810."+op, "Authorization", "AWS4-HMAC-SHA256 Credential=k/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
}

// TestBudget_SharedByEveryFace: the DynamoDB endpoint, series writes,
// the admin routes and the Stats API draw on one budget. With it spent,
// a series write is answered 503 with Retry-After naming the budget, a
// DynamoDB request ThrottlingException, a kind definition 503; once it
// is given back they all pass, each holding some of it, and every byte
// is given back after.
func TestBudget_SharedByEveryFace(t *testing.T) {
	const size = 4 << 20
	e, b := budgetEnv(t, size, nil)
	e.defineSensor()
	write := func(e *env) answer {
		return e.post("/api/v1/write?precision=ms", "text/plain", fmt.Sprintf("SENSOR,series=a temperature=1 %d\n", ms(t0)))
	}
	if err := b.Acquire(context.Background(), size-1024); err != nil {
		t.Fatal(err)
	}
	a := write(e).must(t, 503)
	if a.header.Get("Retry-After") == "" || !strings.Contains(string(a.body), "in-flight budget") {
		t.Errorf("503 without Retry-After or reason: %v %s", a.header, a.body)
	}
	if a := e.dynamo("ListTables", "{}"); a.status != 400 || !strings.Contains(string(a.body), "ThrottlingException") {
		t.Errorf("DynamoDB with the budget spent: %d %s", a.status, a.body)
	}
	e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"x"}}).must(t, 503)
	b.Release(size - 1024)
	if st := b.Stats(); st.Held != 0 {
		t.Fatalf("refused requests hold %d bytes", st.Held)
	}

	// Each face holds some of a budget of its own, and gives it back.
	for _, c := range []struct {
		what string
		do   func(e *env)
	}{
		{"DynamoDB", func(e *env) { e.dynamo("ListTables", "{}").must(t, 200) }},
		{"series write", func(e *env) { e.defineSensor(); write(e).must(t, 204) }},
		{"kind", func(e *env) {
			e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"x"}}).must(t, 201)
		}},
	} {
		e, b := budgetEnv(t, size, nil)
		c.do(e)
		if st := b.Stats(); st.Held != 0 || st.Peak <= 0 || st.Peak > size {
			t.Errorf("%s: held %d after, peak %d", c.what, st.Held, st.Peak)
		}
	}
}

// TestBudget_ConcurrentWrites: six concurrent writes of 30,000 readings
// (some 3 MB each decoded) against a budget of 8 MiB: each is taken or
// refused 503 with Retry-After, the budget is never passed, and nothing
// stays held. With most of the budget held elsewhere, all are refused.
func TestBudget_ConcurrentWrites(t *testing.T) {
	const size = 8 << 20
	e, b := budgetEnv(t, size, nil)
	e.defineSensor()
	body := func(w int) string {
		var sb strings.Builder
		for i := range 30_000 {
			fmt.Fprintf(&sb, "SENSOR,series=w%d-%d temperature=%d %d\n", w, i%100, i, ms(t0)+int64(i))
		}
		return sb.String()
	}
	run := func() (taken, busy int) {
		var wg sync.WaitGroup
		answers := make([]answer, 6)
		for w := range answers {
			in := body(w)
			wg.Go(func() { answers[w] = e.post("/api/v1/write?precision=ms", "text/plain", in) })
		}
		wg.Wait()
		for _, a := range answers {
			switch {
			case a.status == 204:
				taken++
			case a.status == 503 && a.header.Get("Retry-After") != "":
				busy++
			default:
				t.Errorf("answer %d %s", a.status, a.body)
			}
		}
		return taken, busy
	}
	if err := b.Acquire(context.Background(), size-(1<<20)); err != nil {
		t.Fatal(err)
	}
	if taken, _ := run(); taken != 0 {
		t.Errorf("%d writes of ~3 MB taken with 1 MiB of the budget free", taken)
	}
	b.Release(size - (1 << 20))
	taken, busy := run()
	st := b.Stats()
	t.Logf("%d taken, %d refused; peak %d of %d", taken, busy, st.Peak, st.Size)
	if st.Peak > size || st.Held != 0 {
		t.Errorf("peak %d, held %d after", st.Peak, st.Held)
	}
	if st.Peak < 2<<20 {
		t.Errorf("peak %d: the writes' readings were not held", st.Peak)
	}
}

// TestWrite_Caps: a write holding more than the whole budget, or of more
// series than MaxSeries, is refused 413 naming the cap.
func TestWrite_Caps(t *testing.T) {
	e, _ := budgetEnv(t, 1<<20, func(c *server.Config) { c.MaxSeries = 100 })
	e.defineSensor()
	var sb strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&sb, "SENSOR,series=s%d temperature=1 %d\n", i%50, ms(t0)+int64(i))
	}
	a := e.post("/api/v1/write?precision=ms", "text/plain", sb.String()).must(t, 413)
	if !strings.Contains(string(a.body), "in-flight budget") {
		t.Errorf("413 does not name the budget: %s", a.body)
	}
	sb.Reset()
	for i := range 101 {
		fmt.Fprintf(&sb, "SENSOR,series=s%d temperature=1 %d\n", i, ms(t0))
	}
	a = e.post("/api/v1/write?precision=ms", "text/plain", sb.String()).must(t, 413)
	if !strings.Contains(string(a.body), "line 101: more than 100 series") {
		t.Errorf("413 does not name the series cap: %s", a.body)
	}
}

// TestKinds_MaxTags: a kind definition is the request that creates
// fields and tags; one naming more than series.MaxTags tags is refused
// 400 naming the cap (fields were capped at 1024 already).
func TestKinds_MaxTags(t *testing.T) {
	e := newEnv(t, envOptions{})
	tags := make([]string, 1025)
	for i := range tags {
		tags[i] = fmt.Sprintf("t%d", i)
	}
	a := e.postJSON("/api/v1/kinds", map[string]any{"name": "MANY", "fields": []string{"x"}, "tags": tags}).must(t, 400)
	if !strings.Contains(string(a.body), "at most 1024 tags") {
		t.Errorf("400 does not name the cap: %s", a.body)
	}
	e.postJSON("/api/v1/kinds", map[string]any{"name": "MANY", "fields": []string{"x"}, "tags": tags[:1024]}).must(t, 201)
}

// TestBudget_AnalyticsFaces: the collect endpoint, the batch of
// server-side events and the Stats API draw on the budget too: with it
// spent each is answered 503 with Retry-After, with it free each holds
// some while it is served and gives it back.
func TestBudget_AnalyticsFaces(t *testing.T) {
	const size = 4 << 20
	faces := []struct {
		what string
		send func(ce *collectEnv) answer
		ok   int
	}{
		{"hit", func(ce *collectEnv) answer {
			return ce.hit(`{"n":"pageview","u":"https://shop.example/","d":"shop.example","r":null}`)
		}, 202},
		{"batch", func(ce *collectEnv) answer {
			return ce.post("/api/v1/sites/shop/events", "application/json", `[{"name":"pageview","url":"/b","visitor_id":"v1"}]`)
		}, 200},
		{"stats", func(ce *collectEnv) answer {
			return ce.post("/api/v2/query", "application/json", `{"site_id":"shop","metrics":["visitors"],"date_range":"7d"}`)
		}, 200},
	}
	for _, f := range faces {
		b := server.NewBudget(size, -1)
		ce := newCollectEnv(t, collect.Options{}, func(c *server.Config) { c.Budget = b })
		// Half the budget held elsewhere: a peak above it is the request's.
		if err := b.Acquire(context.Background(), size/2); err != nil {
			t.Fatal(err)
		}
		if a := f.send(ce); a.status != f.ok {
			t.Errorf("%s: %d %s", f.what, a.status, a.body)
		}
		if st := b.Stats(); st.Held != size/2 || st.Peak <= size/2 {
			t.Errorf("%s: held %d after, peak %d", f.what, st.Held-size/2, st.Peak)
		}
		// The budget spent.
		if err := b.Acquire(context.Background(), size/2-1024); err != nil {
			t.Fatal(err)
		}
		if a := f.send(ce); a.status != 503 || a.header.Get("Retry-After") == "" {
			t.Errorf("%s with the budget spent: %d %s", f.what, a.status, a.body)
		}
		b.Release(size - 1024)
	}
}
