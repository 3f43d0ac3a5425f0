package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/server"
)

var updateMatrix = flag.Bool("update", false, "rewrite the expected statuses of testdata/access/*.txt with those observed")

// The access matrix: every route of the server and every DynamoDB
// operation, sent by every kind of principal, against the status kept as
// data in testdata/access/routes.txt and dynamodb.txt. A route without a
// row fails the test, so a new route states who may call it.

// routeColumns are the principals of routes.txt, in its columns' order:
// no credential, a malformed and a revoked token, read, write and admin
// tokens unlimited, limited to the kind SENSOR and limited to the site
// blog, and a shared link of blog.
var routeColumns = []string{"none", "malformed", "revoked", "read", "write", "admin",
	"read-kind", "write-kind", "admin-kind", "read-site", "write-site", "admin-site", "link"}

// dynamoColumns are the principals of dynamodb.txt: no Authorization, a
// key the server does not know (what DynamoDB Local's clients send), an
// API token, a revoked key, read, write and admin keys unlimited and
// limited to the table app.
var dynamoColumns = []string{"none", "unknown-key", "token", "revoked-key", "read", "write", "admin",
	"read-app", "write-app", "admin-app"}

// matrixEnv is a server with a fixture every request of the matrix can
// act on: kinds SENSOR and OTHER with a series s1, the private sites blog
// and shop with goals and a funnel, a shared link of blog, a token and an
// access key to revoke, the table app, and a credential per column.
type matrixEnv struct {
	*env
	header map[string][]string // column: header name and value pairs
	keys   map[string]auth.AccessKey
	vars   map[string]string // {name} in a request
}

func newMatrixEnv(t *testing.T) *matrixEnv {
	t.Helper()
	ctx := context.Background()
	e := newEnv(t, envOptions{auth: true, analytics: time.Now})
	m := &matrixEnv{env: e, header: map[string][]string{}, keys: map[string]auth.AccessKey{}, vars: map[string]string{}}
	token := func(scopes []auth.Scope, kinds, sites []string) string {
		secret, _, err := e.auth.CreateTokenForSites(ctx, "matrix", scopes, kinds, sites)
		if err != nil {
			t.Fatal(err)
		}
		return secret
	}
	bearer := func(secret string) []string { return []string{"Authorization", "Bearer " + secret} }
	admin := token([]auth.Scope{auth.ScopeAdmin}, nil, nil)
	e.token = admin
	e.defineSensor()
	e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"x"}}).must(t, 201)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=s1 temperature=1\nOTHER,series=s1 x=1\n").must(t, 204)
	for _, site := range []string{"blog", "shop"} {
		e.postJSON("/api/v1/sites", map[string]any{"id": site, "domains": []string{site + ".example"}}).must(t, 201)
		e.postJSON("/api/v1/sites/"+site+"/goals", map[string]any{"id": "signup", "kind": "pageview", "match": "/signup"}).must(t, 201)
		e.postJSON("/api/v1/sites/"+site+"/goals", map[string]any{"id": "buy", "kind": "event", "match": "Buy"}).must(t, 201)
		e.postJSON("/api/v1/sites/"+site+"/funnels", map[string]any{"id": "f", "steps": []string{"signup", "buy"}}).must(t, 201)
	}
	var link struct{ ID, Slug string }
	e.postJSON("/api/v1/sites/blog/shared-links", map[string]any{"name": "wiki"}).must(t, 201).json(t, &link)
	m.vars["link"], m.vars["slug"] = link.ID, link.Slug
	e.token = ""

	_, victim, err := e.auth.CreateToken(ctx, "victim", []auth.Scope{auth.ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.vars["token"] = victim.ID
	revoked := token([]auth.Scope{auth.ScopeAdmin}, nil, nil)
	p, err := e.auth.Authenticate(ctx, revoked)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.auth.RevokeToken(ctx, p.ID()); err != nil {
		t.Fatal(err)
	}
	m.vars["from"] = strconv.FormatInt(ms(time.Now().Add(-time.Hour)), 10)
	m.vars["to"] = strconv.FormatInt(ms(time.Now().Add(time.Hour)), 10)

	sensor, blog := []string{"SENSOR"}, []string{"blog"}
	r, w, a := []auth.Scope{auth.ScopeRead}, []auth.Scope{auth.ScopeWrite}, []auth.Scope{auth.ScopeAdmin}
	m.header["none"] = nil
	m.header["malformed"] = bearer("tt_malformed")
	m.header["revoked"] = bearer(revoked)
	m.header["read"] = bearer(token(r, nil, nil))
	m.header["write"] = bearer(token(w, nil, nil))
	m.header["admin"] = bearer(admin)
	m.header["read-kind"] = bearer(token(r, sensor, nil))
	m.header["write-kind"] = bearer(token(w, sensor, nil))
	m.header["admin-kind"] = bearer(token(a, sensor, nil))
	m.header["read-site"] = bearer(token(r, nil, blog))
	m.header["write-site"] = bearer(token(w, nil, blog))
	m.header["admin-site"] = bearer(token(a, nil, blog))
	m.header["link"] = []string{"X-Timetable-Share", link.Slug}

	// The DynamoDB side: the table app, and keys.
	if _, err := e.db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("app"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	key := func(scopes []auth.Scope, tables []string) auth.AccessKey {
		k, err := e.auth.CreateAccessKey(ctx, "matrix", scopes, tables)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	app := []string{"app"}
	m.keys["unknown-key"] = auth.AccessKey{ID: "local", Secret: "local"}
	gone := key(a, nil)
	if err := e.auth.RevokeAccessKey(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	m.keys["revoked-key"] = gone
	m.keys["read"], m.keys["write"], m.keys["admin"] = key(r, nil), key(w, nil), key(a, nil)
	m.keys["read-app"], m.keys["write-app"], m.keys["admin-app"] = key(r, app), key(w, app), key(a, app)
	m.vars["key"] = key(r, nil).ID
	return m
}

// expand replaces each {name} of s by the fixture's value.
func (m *matrixEnv) expand(s string) string {
	for k, v := range m.vars {
		s = strings.ReplaceAll(s, "{"+k+"}", v)
	}
	return s
}

// send sends a row's request ("METHOD /path body...") as column sends it,
// and returns the status.
func (m *matrixEnv) send(request, column string) int {
	m.t.Helper()
	method, rest, _ := strings.Cut(m.expand(request), " ")
	path, body, _ := strings.Cut(rest, " ")
	ctype := "text/plain"
	if strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") {
		ctype = "application/json"
	}
	header := append([]string{"User-Agent", browserUA}, m.header[column]...)
	return m.do(method, path, ctype, strings.NewReader(body), header...).status
}

// sendDynamoDB sends a DynamoDB operation with its JSON body as column
// does, and returns "200" or the error's code without "Exception".
func (m *matrixEnv) sendDynamoDB(op, body, column string) string {
	m.t.Helper()
	target := "DynamoDB_20120810." + op
	if name, ok := strings.CutPrefix(op, "Streams."); ok {
		target = "DynamoDBStreams_20120810." + name
	}
	req, err := http.NewRequest(http.MethodPost, m.http.URL+"/", strings.NewReader(m.expand(body)))
	if err != nil {
		m.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", target)
	switch k, ok := m.keys[column]; {
	case ok:
		signRequest(m.t, req, k)
	case column == "token":
		req.Header.Set("Authorization", m.header["admin"][1])
	}
	resp, err := m.http.Client().Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return "200"
	}
	var e struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(b, &e)
	_, code, _ := strings.Cut(e.Type, "#")
	if code == "" {
		return strconv.Itoa(resp.StatusCode)
	}
	return strings.TrimSuffix(code, "Exception")
}

// signRequest signs r with k as the AWS SDKs do.
func signRequest(t testing.TB, r *http.Request, k auth.AccessKey) {
	t.Helper()
	testenv.SignV4(t, r, k.ID, k.Secret, "us-east-1", time.Now())
}

// matrixRow is a row of a matrix file: what it names, the request, and
// the expected cell of each column.
type matrixRow struct {
	line    int
	name    string // a route's pattern, or a DynamoDB operation
	request string
	want    []string
}

// readMatrix reads a matrix file: comment lines (#), one "# columns:"
// line that must name columns, and rows "name | request | cells".
func readMatrix(t *testing.T, path string, columns []string) (head []string, rows []matrixRow) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sawColumns := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			if cols, ok := strings.CutPrefix(line, "# columns:"); ok {
				if got := strings.Fields(cols); !slices.Equal(got, columns) {
					t.Fatalf("%s:%d: columns %q, want %q", path, n, got, columns)
				}
				sawColumns = true
			}
			head = append(head, line)
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 {
			t.Fatalf("%s:%d: want name | request | cells, got %q", path, n, line)
		}
		want := strings.Fields(parts[2])
		if len(want) != len(columns) {
			t.Fatalf("%s:%d: %d cells, want %d", path, n, len(want), len(columns))
		}
		rows = append(rows, matrixRow{line: n, name: strings.TrimSpace(parts[0]), request: strings.TrimSpace(parts[1]), want: want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !sawColumns {
		t.Fatalf("%s: no # columns: line", path)
	}
	return head, rows
}

// writeMatrix rewrites a matrix file with the cells observed (-update).
func writeMatrix(t *testing.T, path string, head []string, rows []matrixRow, got [][]string) {
	t.Helper()
	var b strings.Builder
	for _, h := range head {
		b.WriteString(h + "\n")
	}
	for i, r := range rows {
		fmt.Fprintf(&b, "%s | %s | %s\n", r.name, r.request, strings.Join(got[i], " "))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAccessMatrix_Routes sends each row's request as each principal and
// checks the status. A request that changes state (not GET) runs on a
// fresh server for each principal, so each sees the fixture whole.
func TestAccessMatrix_Routes(t *testing.T) {
	const path = "testdata/access/routes.txt"
	head, rows := readMatrix(t, path, routeColumns)
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.name] = true
	}
	patterns := server.RoutePatterns()
	for _, p := range patterns {
		if !covered[p] {
			t.Errorf("route %q has no row in %s: add one stating who may call it", p, path)
		}
	}
	for _, r := range rows {
		if !slices.Contains(patterns, r.name) {
			t.Errorf("%s:%d: %q is not a route", path, r.line, r.name)
		}
	}
	if t.Failed() {
		return
	}
	shared := newMatrixEnv(t)
	got := make([][]string, len(rows))
	for i, r := range rows {
		got[i] = make([]string, len(routeColumns))
		for j, col := range routeColumns {
			m := shared
			if !strings.HasPrefix(r.request, "GET ") {
				m = newMatrixEnv(t)
			}
			got[i][j] = strconv.Itoa(m.send(r.request, col))
			if got[i][j] != r.want[j] && !*updateMatrix {
				t.Errorf("%s:%d: %s as %s: %s, want %s", path, r.line, r.request, col, got[i][j], r.want[j])
			}
		}
	}
	if *updateMatrix {
		writeMatrix(t, path, head, rows, got)
	}
}

// TestAccessMatrix_DynamoDB sends each row's DynamoDB operation as each
// principal and checks the answer: 200 or DynamoDB's error code.
func TestAccessMatrix_DynamoDB(t *testing.T) {
	const path = "testdata/access/dynamodb.txt"
	head, rows := readMatrix(t, path, dynamoColumns)
	shared := newMatrixEnv(t)
	got := make([][]string, len(rows))
	for i, r := range rows {
		got[i] = make([]string, len(dynamoColumns))
		for j, col := range dynamoColumns {
			m := shared
			if !dynamoReadOnly(r.name) {
				m = newMatrixEnv(t)
			}
			got[i][j] = m.sendDynamoDB(r.name, r.request, col)
			if got[i][j] != r.want[j] && !*updateMatrix {
				t.Errorf("%s:%d: %s %s as %s: %s, want %s", path, r.line, r.name, r.request, col, got[i][j], r.want[j])
			}
		}
	}
	if *updateMatrix {
		writeMatrix(t, path, head, rows, got)
	}
}

// dynamoReadOnly reports whether a DynamoDB operation of the matrix
// leaves the fixture as it was.
func dynamoReadOnly(op string) bool {
	switch op {
	case "GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems", "DescribeTable", "ListTables",
		"DescribeTimeToLive", "Streams.ListStreams":
		return true
	}
	return false
}
