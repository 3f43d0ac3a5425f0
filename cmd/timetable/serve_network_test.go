package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveInProcess runs ServeCommand with args (and --addr-file) until the
// test ends, and returns the address it listens on.
func serveInProcess(t *testing.T, cmd *ServeCommand, args ...string) string {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if cmd.Stdout == nil {
		cmd.Stdout = io.Discard
	}
	go func() { done <- cmd.Run(ctx, append(args, "--addr-file", addrFile)) }()
	t.Cleanup(func() { cancel(); <-done })
	addr, err := waitForAddr(addrFile, done, 30*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return addr
}

// rawDynamoDB sends a DynamoDB request exactly as the SDKs do, so that it
// takes the listener's fast path, with the Host given, and returns the
// answer's status.
func rawDynamoDB(t *testing.T, addr, host, op string) int {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{}`
	req := "POST / HTTP/1.1\r\nHost: " + host + "\r\nX-Amz-Target: DynamoDB_20120810." + op +
		"\r\nContent-Type: application/x-amz-json-1.0\r\nAuthorization: AWS4-HMAC-SHA256 Credential=x/20260301/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// fastRequests returns timetable_http_fast_requests_total.
func fastRequests(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "timetable_http_fast_requests_total "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	t.Fatalf("no timetable_http_fast_requests_total in /metrics")
	return 0
}

// TestServe_BrowsersAndHosts: serve --no-auth on 127.0.0.1 with port 0
// refuses requests for other host names, on the fast path of the DynamoDB
// requests too, answers its IP, localhost and --allowed-hosts, approves
// browsers' requests from --cors-origins only, and refuses a page's
// cross-origin writes.
func TestServe_BrowsersAndHosts(t *testing.T) {
	addr := serveInProcess(t, &ServeCommand{}, "--in-memory", "--no-auth", "--addr", "127.0.0.1:0",
		"--cors-origins", "https://dash.example", "--allowed-hosts", "tt.example, proxy.example")
	_, port, _ := net.SplitHostPort(addr)

	before := fastRequests(t, addr)
	if got := rawDynamoDB(t, addr, "evil.example:"+port, "DeleteTable"); got != http.StatusForbidden {
		t.Errorf("fast path, Host evil.example: %d, want 403", got)
	}
	for _, host := range []string{addr, "localhost:" + port, "tt.example:" + port, "proxy.example"} {
		if got := rawDynamoDB(t, addr, host, "ListTables"); got != http.StatusOK {
			t.Errorf("fast path, Host %s: %d, want 200", host, got)
		}
	}
	if n := fastRequests(t, addr) - before; n != 5 {
		t.Errorf("%d requests took the fast path, want 5: the checks above did not test it", n)
	}

	do := func(method, path, body string, header ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			if header[i] == "Host" {
				req.Host = header[i+1]
			} else {
				req.Header.Set(header[i], header[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if r := do("GET", "/api/v1/kinds", "", "Host", "evil.example:"+port); r.StatusCode != http.StatusForbidden {
		t.Errorf("series API, Host evil.example: %d", r.StatusCode)
	}
	preflight := []string{"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type,x-amz-date,x-amz-target"}
	if r := do("OPTIONS", "/", "", append([]string{"Origin", "https://evil.example"}, preflight...)...); r.StatusCode/100 == 2 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("DynamoDB preflight from evil.example: %d %v", r.StatusCode, r.Header)
	}
	if r := do("OPTIONS", "/", "", append([]string{"Origin", "https://dash.example"}, preflight...)...); r.StatusCode != 200 || r.Header.Get("Access-Control-Allow-Origin") != "https://dash.example" {
		t.Errorf("DynamoDB preflight from --cors-origins: %d %v", r.StatusCode, r.Header)
	}
	if r := do("POST", "/api/v1/kinds", `{"name":"EVIL","fields":["x"]}`, "Content-Type", "text/plain", "Origin", "https://evil.example"); r.StatusCode != http.StatusForbidden {
		t.Errorf("a page's cross-origin POST: %d", r.StatusCode)
	}
	if r := do("POST", "/api/v1/kinds", `{"name":"MINE","fields":["x"]}`, "Content-Type", "application/json"); r.StatusCode != http.StatusCreated {
		t.Errorf("a client's POST: %d", r.StatusCode)
	}
}
