package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/server"
)

func TestTokens(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	admin := e.mintToken("admin", auth.ScopeAdmin, nil)
	// No token, a malformed one, an unknown one: 401.
	if c := e.get("/api/v1/kinds").must(t, 401).errorCode(t); c != "unauthenticated" {
		t.Fatal(c)
	}
	e.token = "tt_nope_nope"
	e.get("/api/v1/kinds").must(t, 401)
	// Public routes need none.
	e.token = ""
	e.get("/healthz").must(t, 200)
	e.get("/openapi.json").must(t, 200)
	e.get("/metrics").must(t, 401)

	e.token = admin
	e.defineSensor()
	e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"x"}}).must(t, 201)
	var made struct{ ID, Token string }
	e.postJSON("/api/v1/tokens", map[string]any{"name": "devices", "scopes": []string{"write"}, "kinds": []string{"SENSOR"}}).must(t, 201).json(t, &made)
	if !strings.HasPrefix(made.Token, "tt_") {
		t.Fatalf("token: %+v", made)
	}
	var reader struct{ Token string }
	e.postJSON("/api/v1/tokens", map[string]any{"name": "dash", "scopes": []string{"read"}}).must(t, 201).json(t, &reader)

	// A write token limited to SENSOR writes there, not elsewhere, and
	// neither reads nor defines kinds.
	e.token = made.Token
	e.post("/api/v1/write", "text/plain", "SENSOR,series=a temperature=1\n").must(t, 204)
	if c := e.post("/api/v1/write", "text/plain", "OTHER,series=a x=1\n").must(t, 403).errorCode(t); c != "permission_denied" {
		t.Fatal(c)
	}
	e.post("/api/v1/kinds/OTHER/readings", "application/json", `{"readings":[]}`).must(t, 403)
	e.get("/api/v1/kinds/SENSOR/series/a/latest").must(t, 403)
	e.postJSON("/api/v1/kinds", map[string]any{"name": "MINE", "fields": []string{"x"}}).must(t, 403)

	// A read token reads every kind and lists them, and writes nothing.
	e.token = reader.Token
	e.get("/api/v1/kinds/SENSOR/series/a/latest").must(t, 200)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=a temperature=2\n").must(t, 403)
	e.get("/metrics").must(t, 200)
	e.get("/api/v1/tokens").must(t, 403)

	// InfluxDB clients send "Token X", v1 clients ?p=X.
	e.token = ""
	e.do("POST", "/write?db=x", "text/plain", strings.NewReader("SENSOR,series=a temperature=3\n"), "Authorization", "Token "+made.Token).must(t, 204)
	e.post("/write?db=x&u=me&p="+made.Token, "text/plain", "SENSOR,series=a temperature=4\n").must(t, 204)

	// Revoked: 401 at once.
	e.token = admin
	e.do("DELETE", "/api/v1/tokens/"+made.ID, "", nil).must(t, 204)
	e.token = made.Token
	e.post("/api/v1/write", "text/plain", "SENSOR,series=a temperature=5\n").must(t, 401)

	e.token = admin
	var list struct{ Tokens []struct{ Name string } }
	e.get("/api/v1/tokens").must(t, 200).json(t, &list)
	var names []string
	for _, tk := range list.Tokens {
		names = append(names, tk.Name)
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"admin", "dash"}) {
		t.Fatalf("tokens after revoke: %v", names)
	}
}

func TestRateLimit(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, config: func(c *server.Config) { c.Limiter = auth.NewLimiter(0.001, 3) }})
	tok := e.mintToken("r", auth.ScopeRead, nil)
	e.token = tok
	for range 3 {
		e.get("/api/v1/kinds").must(t, 200)
	}
	a := e.get("/api/v1/kinds").must(t, 429)
	if a.errorCode(t) != "rate_limited" || a.header.Get("Retry-After") == "" {
		t.Fatalf("429: %v %s", a.header, a.body)
	}
}

// TestDynamoDBOnTheSamePort: the SDK's requests (X-Amz-Target) reach the
// DynamoDB endpoint, and the series API's tables are there.
func TestDynamoDBOnTheSamePort(t *testing.T) {
	e := newEnv(t, envOptions{})
	client := dynamotest.NewClient(e.http.URL)
	out, err := client.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(out.TableNames, "timetable") {
		t.Fatalf("tables: %v", out.TableNames)
	}
	_, err = client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String("timetable")})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenAPIMatchesRoutes: every route is in /openapi.json with its
// method, and the document names no route the server lacks.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	e := newEnv(t, envOptions{})
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	e.get("/openapi.json").must(t, 200).json(t, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	served := server.Routes()
	sort.Strings(documented)
	sort.Strings(served)
	if !slices.Equal(documented, served) {
		t.Fatalf("the OpenAPI document and the routes differ:\ndocumented %v\nserved     %v", documented, served)
	}
	// And every documented route answers something other than 404 for its
	// method (paths with parameters filled in).
	for _, r := range served {
		method, path, _ := strings.Cut(r, " ")
		path = strings.NewReplacer("{kind}", "K", "{id}", "i", "{field}", "f", "{site}", "s").Replace(path)
		req, _ := http.NewRequest(method, e.http.URL+path, nil)
		resp, err := e.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 405 {
			t.Errorf("%s answers 405", r)
		}
	}
}

// TestTokens_BadRequests: a credential asked for with a bad name, scopes
// or limits is refused with 400 and the reason, never a 500.
func TestTokens_BadRequests(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	admin := e.mintToken("admin", auth.ScopeAdmin, nil)
	for _, c := range []struct{ path, body, reason string }{
		{"/api/v1/tokens", `{"scopes":["read"]}`, "a name must be"},
		{"/api/v1/tokens", `{"name":"x"}`, "at least one of read"},
		{"/api/v1/tokens", `{"name":"x","scopes":["root"]}`, "root"},
		{"/api/v1/tokens", `{"name":"x","scopes":["read"],"kinds":[""]}`, "a kind must be"},
		{"/api/v1/access-keys", `{"scopes":["read"]}`, "a name must be"},
	} {
		a := e.as(admin, "POST", c.path, c.body)
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), c.reason) {
			t.Errorf("POST %s %s: %d %s, want 400 saying %q", c.path, c.body, a.status, a.body, c.reason)
		}
	}
}
