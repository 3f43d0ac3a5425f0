package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/wire"
)

// dynamoRequest sends a DynamoDB request to e with any Authorization
// header (no access key exists) and more headers as name, value pairs.
func (e *env) dynamoRequest(method, op, body string, header ...string) answer {
	e.t.Helper()
	h := []string{"Authorization", "AWS4-HMAC-SHA256 Credential=any/20260301/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00"}
	if op != "" {
		h = append(h, "X-Amz-Target", "DynamoDB_20120810."+op)
	}
	return e.do(method, "/", "application/x-amz-json-1.0", strings.NewReader(body), append(h, header...)...)
}

// awsType returns the __type of a DynamoDB error answer.
func (a answer) awsType(t *testing.T) string {
	t.Helper()
	var e struct {
		Type    string `json:"__type"`
		Message string
	}
	if err := json.Unmarshal(a.body, &e); err != nil || e.Message == "" {
		t.Fatalf("answer %d %q is not DynamoDB's error JSON: %v", a.status, a.body, err)
	}
	return e.Type
}

// tableExists reports whether the series table is still there.
func (e *env) tableExists() bool {
	e.t.Helper()
	_, err := e.db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("timetable")})
	return err == nil
}

// TestDynamoDB_OtherOriginRefused: a page of another origin gets no
// Access-Control-Allow-Origin from the DynamoDB endpoint, its preflight is
// not approved, and a DeleteTable it sends anyway (as a script may, with
// any Authorization header while no access key exists) is refused and
// deletes nothing. An origin of CORSOrigins is served.
func TestDynamoDB_OtherOriginRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	pre := e.do(http.MethodOptions, "/", "", nil, "Origin", "https://evil.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type,x-amz-date,x-amz-target")
	if pre.status/100 == 2 || pre.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin approved: %d %v", pre.status, pre.header)
	}
	for _, h := range [][]string{
		{"Origin", "https://evil.example"},
		{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "cross-site"},
	} {
		a := e.dynamoRequest(http.MethodPost, "DeleteTable", `{"TableName":"timetable"}`, h...)
		if a.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%v: answer carries Access-Control-Allow-Origin %q", h, a.header.Get("Access-Control-Allow-Origin"))
		}
		if a.status != http.StatusForbidden || !strings.HasSuffix(a.awsType(t), "AccessDeniedException") {
			t.Errorf("%v: DeleteTable from another origin: %d %s", h, a.status, a.body)
		}
	}
	if !e.tableExists() {
		t.Fatal("a page of another origin deleted the series table")
	}
	// The same request without an Origin (an SDK, the CLI) is served.
	e.dynamoRequest(http.MethodPost, "ListTables", `{}`).must(t, http.StatusOK)

	// Allowed origins: the server's routes and the DynamoDB handler, each
	// told the same list.
	allowed := newEnv(t, envOptions{config: func(c *server.Config) {
		c.CORSOrigins = []string{"https://dash.example"}
		c.DynamoDB = wire.New(c.Store.Table().API(), &wire.Options{CORSOrigins: c.CORSOrigins})
	}})
	pre = allowed.do(http.MethodOptions, "/", "", nil, "Origin", "https://dash.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type,x-amz-date,x-amz-target").must(t, http.StatusOK)
	if pre.header.Get("Access-Control-Allow-Origin") != "https://dash.example" {
		t.Errorf("preflight from an allowed origin: %v", pre.header)
	}
	a := allowed.dynamoRequest(http.MethodPost, "ListTables", `{}`, "Origin", "https://dash.example", "Sec-Fetch-Site", "cross-site").must(t, http.StatusOK)
	if a.header.Get("Access-Control-Allow-Origin") != "https://dash.example" {
		t.Errorf("answer to an allowed origin: %v", a.header)
	}
	a = allowed.dynamoRequest(http.MethodPost, "DeleteTable", `{"TableName":"timetable"}`, "Origin", "https://evil.example")
	if a.status != http.StatusForbidden || a.header.Get("Access-Control-Allow-Origin") != "" || !allowed.tableExists() {
		t.Errorf("DeleteTable from an origin not listed: %d %v %s", a.status, a.header, a.body)
	}
}

// TestCrossOriginWrites: with tokens off, a browser's POST from another
// origin (a form or a text/plain fetch, which needs no preflight) is
// refused and writes nothing; the same from the server's own origin, from
// an origin of CORSOrigins or from a client that is not a browser is
// served; POST /api/event takes hits from any origin.
func TestCrossOriginWrites(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{}, func(c *server.Config) { c.CORSOrigins = []string{"https://Dash.Example/"} })
	e := ce.env
	e.defineSensor()
	line := func(v string, header ...string) answer {
		return e.do(http.MethodPost, "/api/v1/write", "text/plain", strings.NewReader("SENSOR,series=s1 temperature="+v+"\n"), header...)
	}
	for _, h := range [][]string{
		{"Origin", "https://evil.example"},
		{"Origin", "null"},
		{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", e.http.URL, "Sec-Fetch-Site", "cross-site"},
	} {
		a := line("1", h...)
		if a.status != http.StatusForbidden || a.errorCode(t) != "permission_denied" || a.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%v: cross-origin write: %d %v %s", h, a.status, a.header, a.body)
		}
	}
	a := e.do(http.MethodPost, "/api/v1/kinds", "text/plain", strings.NewReader(`{"name":"EVIL","fields":["x"]}`), "Origin", "https://evil.example")
	if a.status != http.StatusForbidden {
		t.Errorf("cross-origin kind creation: %d %s", a.status, a.body)
	}
	e.get("/api/v1/kinds/SENSOR/series/s1/latest").must(t, http.StatusNotFound)

	line("2", "Origin", e.http.URL).must(t, http.StatusNoContent)
	line("3", "Origin", e.http.URL, "Sec-Fetch-Site", "same-origin").must(t, http.StatusNoContent)
	line("4", "Origin", "https://dash.example", "Sec-Fetch-Site", "cross-site").must(t, http.StatusNoContent)
	line("5").must(t, http.StatusNoContent)
	// Reading from another origin is not refused, but not shared either.
	a = e.do(http.MethodGet, "/api/v1/kinds", "", nil, "Origin", "https://evil.example").must(t, http.StatusOK)
	if a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a read from another origin is shared: %v", a.header)
	}

	// The tracker posts hits from the sites' own origins.
	a = e.hit(`{"n":"pageview","u":"https://shop.example/","d":"shop.example"}`, "Origin", "https://shop.example", "Sec-Fetch-Site", "cross-site").must(t, http.StatusAccepted)
	if a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("hit answer CORS %v", a.header)
	}
	e.do(http.MethodOptions, "/api/event", "", nil, "Origin", "https://shop.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type").must(t, http.StatusNoContent)
	a = e.get("/js/script.js")
	if a.status != http.StatusOK || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("tracker script: %d %v", a.status, a.header)
	}
}

// TestHost_Loopback: a server listening on a loopback address answers
// requests for its IP addresses, localhost and the allowed hosts, on every
// face, and refuses any other Host with the reason.
func TestHost_Loopback(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) {
		c.Addr = "127.0.0.1:8000"
		c.AllowedHosts = []string{"tt.example", "Other.Example:9"}
	}})
	withHost := func(host, method, path string, header ...string) answer {
		t.Helper()
		req, err := http.NewRequest(method, e.http.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := e.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header, b}
	}
	_, port, _ := net.SplitHostPort(e.http.Listener.Addr().String())
	for _, host := range []string{"", "127.0.0.1:" + port, "127.0.0.1", "localhost:" + port, "LOCALHOST.", "[::1]:" + port, "app.localhost:" + port,
		"127.0.0.2:1", "192.0.2.7:" + port, "tt.example:" + port, "other.example"} {
		withHost(host, http.MethodGet, "/healthz").must(t, http.StatusOK)
	}
	for _, host := range []string{"evil.example:" + port, "evil.example", "localhost.evil.example", "tt.example.evil.example"} {
		a := withHost(host, http.MethodGet, "/api/v1/kinds").must(t, http.StatusForbidden)
		if a.errorCode(t) != "permission_denied" || !strings.Contains(string(a.body), "DNS rebinding") || !strings.Contains(string(a.body), "--allowed-hosts") {
			t.Errorf("Host %s: %s", host, a.body)
		}
		a = withHost(host, http.MethodPost, "/", "X-Amz-Target", "DynamoDB_20120810.ListTables", "Authorization", "x").must(t, http.StatusForbidden)
		if !strings.HasSuffix(a.awsType(t), "AccessDeniedException") {
			t.Errorf("Host %s, DynamoDB: %s", host, a.body)
		}
	}

	// Listening on another address: no check unless hosts are listed.
	open := newEnv(t, envOptions{config: func(c *server.Config) { c.Addr = "192.0.2.1:8000" }})
	req, _ := http.NewRequest(http.MethodGet, open.http.URL+"/healthz", nil)
	req.Host = "stats.example"
	if resp, err := open.http.Client().Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("a public server refused its name: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	listed := newEnv(t, envOptions{config: func(c *server.Config) { c.Addr = "[::]:8000"; c.AllowedHosts = []string{"stats.example"} }})
	for host, want := range map[string]int{"stats.example": 200, "evil.example": 403, "localhost": 200} {
		req, _ := http.NewRequest(http.MethodGet, listed.http.URL+"/healthz", nil)
		req.Host = host
		resp, err := listed.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("listening on [::] with --allowed-hosts stats.example, Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	if _, err := server.New(server.Config{Store: e.store, AllowedHosts: []string{"a b"}}); err == nil {
		t.Error("an allowed host with a space was accepted")
	}
	if _, err := server.New(server.Config{Store: e.store, CORSOrigins: []string{"dash.example/app"}}); err == nil {
		t.Error("a CORS origin that is not scheme://host was accepted")
	}
}

// TestHost_DNSRebinding simulates a DNS-rebinding attack on a server
// listening on 127.0.0.1: a page of http://rebind.example:PORT, whose name
// the attacker then points at 127.0.0.1, calls the server as its own
// origin (same-origin for the browser, so no CORS check applies). Its
// requests name rebind.example and are refused on every face; nothing is
// read or changed.
func TestHost_DNSRebinding(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.Addr = "127.0.0.1:0" }})
	_, port, _ := net.SplitHostPort(e.http.Listener.Addr().String())
	page := "http://rebind.example:" + port
	// The browser: every connection goes to where the name now resolves.
	browser := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, e.http.Listener.Addr().String())
	}}}
	send := func(method, path, body string, header ...string) *http.Response {
		req, err := http.NewRequest(method, page+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", page)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for name, resp := range map[string]*http.Response{
		"read kinds":  send(http.MethodGet, "/api/v1/kinds", ""),
		"create kind": send(http.MethodPost, "/api/v1/kinds", `{"name":"EVIL","fields":["x"]}`, "Content-Type", "application/json"),
		"ListTables":  send(http.MethodPost, "/", `{}`, "X-Amz-Target", "DynamoDB_20120810.ListTables", "Authorization", "x"),
		"DeleteTable": send(http.MethodPost, "/", `{"TableName":"timetable"}`, "X-Amz-Target", "DynamoDB_20120810.DeleteTable", "Authorization", "x"),
		"metrics":     send(http.MethodGet, "/metrics", ""),
	} {
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s through a rebound name: %d, want 403", name, resp.StatusCode)
		}
	}
	if !e.tableExists() {
		t.Fatal("the rebinding page deleted the series table")
	}
	e.get("/api/v1/kinds/EVIL").must(t, http.StatusNotFound)
}
