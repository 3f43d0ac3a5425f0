package wire_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// serveFast starts a wire.Server (what timetable serve runs) with a Handler
// over api on a free port of 127.0.0.1 and returns its address.
func serveFast(t testing.TB, api timetable.API) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &wire.Server{Handler: wire.New(api, nil)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-done; err != http.ErrServerClosed {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return ln.Addr().String()
}

// TestConformance_WireServer runs the conformance cases through
// aws-sdk-go-v2 against wire.Server's fast path over the embedded engine.
func TestConformance_WireServer(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	conformance.Run(t, sdkClient("http://"+serveFast(t, db)))
}

// rawExchange sends raw, a whole HTTP request, on a new connection to addr
// and returns the response.
func rawExchange(t *testing.T, addr, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the response to %q: %v", raw, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// TestServer_SameAnswers sends the same raw requests, of the fast path's
// shape and of every shape it hands over to net/http, to wire.Server and to
// the Handler under net/http, and compares the answers: status, headers
// (but Date and the request id) and body.
func TestServer_SameAnswers(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	db2, err := local.Open("", &local.Options{InMemory: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db2.Close() })
	opts := &wire.Options{MaxBodyBytes: 4 << 10}
	std := httptest.NewServer(wire.New(db, opts))
	t.Cleanup(std.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fast := &wire.Server{Handler: wire.New(db2, opts)}
	go fast.Serve(ln)
	t.Cleanup(func() { fast.Close() })

	create := `{"TableName":"same","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`
	post := func(op, body string, extra ...string) string {
		return "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810." + op + "\r\nAuthorization: AWS4-HMAC-SHA256 x\r\nContent-Type: application/x-amz-json-1.0\r\n" +
			strings.Join(extra, "") + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	put := `{"TableName":"same","Item":{"pk":{"S":"a"},"v":{"N":"1"}}}`
	chunked := "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nAuthorization: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(put), put)
	cases := []struct{ name, raw string }{
		{"create", post("CreateTable", create)},
		{"put", post("PutItem", put)},
		{"get", post("GetItem", `{"TableName":"same","Key":{"pk":{"S":"a"}}}`)},
		{"lower-case headers", strings.ToLower(post("GetItem", `{"TableName":"same","Key":{"pk":{"S":"a"}}}`)[:4]) + post("GetItem", `{"TableName":"same","Key":{"pk":{"S":"a"}}}`)[4:]},
		{"validation error", post("GetItem", `{"TableName":"same","Key":{"pk":{"N":"1"}}}`)},
		{"bad json", post("GetItem", `{"TableName":`)},
		{"empty body", post("GetItem", ``)},
		{"no such table", post("GetItem", `{"TableName":"nope","Key":{"pk":{"S":"a"}}}`)},
		{"unknown operation", post("Frobnicate", `{}`)},
		{"no target", "POST / HTTP/1.1\r\nHost: x\r\nAuthorization: a\r\nContent-Length: 2\r\n\r\n{}"},
		{"no authorization", "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}"},
		{"empty authorization", "POST / HTTP/1.1\r\nHost: x\r\nAuthorization:\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 2\r\n\r\n{}"},
		{"too large", post("PutItem", strings.Repeat(" ", 5<<10))},
		{"too large to skip", post("PutItem", strings.Repeat(" ", 300<<10))},
		{"connection close", post("ListTables", `{}`, "Connection: close\r\n")},
		{"other path", strings.Replace(post("ListTables", `{}`), "POST / ", "POST /some/path?x=1 ", 1)},
		{"health check", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"get with target", "GET / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: a\r\n\r\n"},
		{"chunked", chunked},
		{"http/1.0", strings.Replace(post("ListTables", `{}`), "HTTP/1.1", "HTTP/1.0", 1)},
		{"expect", post("ListTables", `{}`, "Expect: 100-continue\r\n")},
		{"no host", strings.Replace(post("ListTables", `{}`), "Host: x\r\n", "", 1)},
		{"two hosts", post("ListTables", `{}`, "Host: y\r\n")},
		{"bad content length", strings.Replace(post("ListTables", `{}`), "Content-Length: 2", "Content-Length: +2", 1)},
		{"space before colon", post("ListTables", `{}`, "X-Foo : 1\r\n")},
		{"bad request line", "POST /\r\nHost: x\r\n\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, wantBody := rawExchange(t, strings.TrimPrefix(std.URL, "http://"), tc.raw)
			got, gotBody := rawExchange(t, ln.Addr().String(), tc.raw)
			for _, r := range []struct {
				resp *http.Response
				body string
			}{{got, gotBody}, {want, wantBody}} {
				if crc := r.resp.Header.Get("X-Amz-Crc32"); crc != "" && crc != fmt.Sprint(crc32.ChecksumIEEE([]byte(r.body))) {
					t.Errorf("X-Amz-Crc32 %s does not match the body %s", crc, r.body)
				}
				r.resp.Header.Del("X-Amz-Crc32") // maps are written in any order
				r.resp.Header.Del("Date")
				if id := r.resp.Header.Get("X-Amzn-Requestid"); id != "" {
					r.resp.Header.Set("X-Amzn-Requestid", "<id>")
				}
			}
			if tc.name == "create" { // the creation time differs
				gotBody, wantBody = "", ""
				got.Header.Del("Content-Length")
				want.Header.Del("Content-Length")
			}
			if got.StatusCode != want.StatusCode || !sameJSONText(gotBody, wantBody) {
				t.Errorf("fast path: %d %s\nnet/http: %d %s", got.StatusCode, gotBody, want.StatusCode, wantBody)
			}
			if fmt.Sprint(got.Header) != fmt.Sprint(want.Header) || got.Close != want.Close {
				t.Errorf("fast path headers %v (close %v)\nnet/http headers %v (close %v)", got.Header, got.Close, want.Header, want.Close)
			}
		})
	}
}

// sameJSONText is sameJSON for texts that may not be JSON (then compared
// as they are).
func sameJSONText(a, b string) bool {
	if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) {
		return a == b
	}
	return sameJSON([]byte(a), b)
}

// TestServer_KeepAliveAndPipelining sends several requests on one
// connection, some written together, and reads every answer in order.
func TestServer_KeepAliveAndPipelining(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	addr := serveFast(t, db)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: a\r\nContent-Length: 2\r\n\r\n{}"
	br := bufio.NewReader(c)
	for _, n := range []int{1, 3, 1, 5} {
		if _, err := io.WriteString(c, strings.Repeat(req, n)); err != nil {
			t.Fatal(err)
		}
		for range n {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || string(body) != `{"TableNames":[]}` {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		}
	}
	// A request the fast path hands over, then fast-path-shaped ones: the
	// rest of the connection is net/http's, and answers the same.
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"+req); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"healthy: timetable\n", `{"TableNames":[]}`} {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != want {
			t.Fatalf("got %q, want %q", body, want)
		}
	}
}

// TestServer_Shutdown checks that Shutdown closes idle connections, lets a
// request whose header has arrived finish, and makes Serve return.
func TestServer_Shutdown(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &wire.Server{Handler: wire.New(db, nil)}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	busy, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// The busy connection sends its header and half of its body.
	body := `{"Limit":5}`
	if _, err := fmt.Fprintf(busy, "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: a\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:5]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the server start reading it
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- srv.Shutdown(ctx)
	}()
	// The idle connection is closed.
	_ = idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("idle connection: read %d, %v; want it closed", n, err)
	}
	// The busy one finishes its request and gets its answer.
	time.Sleep(100 * time.Millisecond)
	if _, err := io.WriteString(busy, body[5:]); err != nil {
		t.Fatal(err)
	}
	_ = busy.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(got), "TableNames") {
		t.Fatalf("busy connection: %d %s", resp.StatusCode, got)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-done; err != http.ErrServerClosed {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Fatal("the listener still accepts")
	}
}

// TestServer_Timeouts checks that a connection whose header stalls, or
// that stays idle, is closed after its timeout.
func TestServer_Timeouts(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &wire.Server{Handler: wire.New(db, nil), IdleTimeout: 300 * time.Millisecond, ReadHeaderTimeout: 100 * time.Millisecond}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	for name, send := range map[string]string{"stalled header": "POST / HTTP/1.1\r\nHo", "idle": ""} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			t.Errorf("%s: read %d, %v; want the server to close the connection", name, n, err)
		}
		c.Close()
	}
}
