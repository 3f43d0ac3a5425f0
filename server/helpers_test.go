package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/wire"
)

// env is a server over an in-memory engine, reached over a real listener
// on 127.0.0.1.
type env struct {
	t     *testing.T
	db    *local.DB
	store *series.Store
	auth  *auth.Store
	srv   *server.Server
	http  *httptest.Server
	// analytics is set with envOptions.analytics.
	analytics *analytics.Store
	// token is sent with every request when set.
	token string
}

type envOptions struct {
	auth   bool
	config func(*server.Config)
	// analytics, if set, opens a web analytics store with this clock,
	// which is also the server's.
	analytics func() time.Time
	// budget, if set, is the server's, shared with its DynamoDB endpoint.
	budget *server.Budget
}

// openAnalytics opens a web analytics store on db, makes its table and
// creates sites in it.
func openAnalytics(t testing.TB, db timetable.API, sites ...analytics.Site) *analytics.Store {
	t.Helper()
	ctx := context.Background()
	a, err := analytics.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range sites {
		if err := a.CreateSite(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	ctx := context.Background()
	// The engine expires items by the analytics clock when there is
	// one: on the real clock its sweeper would delete the test's hits and
	// aggregates, dated in the past, while the test reads them.
	db := testenv.MemDB(t, &local.Options{Now: o.analytics})
	st := openSeries(t, db)
	e := &env{t: t, db: db, store: st}
	var err error
	cfg := server.Config{Store: st, DynamoDB: wire.New(db, nil)}
	if o.budget != nil {
		cfg.Budget, cfg.DynamoDB = o.budget, wire.New(db, &wire.Options{Budget: o.budget})
	}
	if o.auth {
		if e.auth, err = auth.Open(ctx, db, nil); err != nil {
			t.Fatal(err)
		}
		cfg.Auth = e.auth
	}
	if o.analytics != nil {
		if e.analytics, err = analytics.Open(ctx, db, &analytics.Options{Now: o.analytics}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.analytics.Close() })
		if err := e.analytics.EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
		cfg.Analytics, cfg.Now = e.analytics, o.analytics
	}
	if e.auth != nil {
		// As serve wires it: SigV4 and the keys' access checks, the
		// analytics table reached by admin keys only.
		var protected []string
		if e.analytics != nil {
			protected = append(protected, e.analytics.Table().Name())
		}
		cfg.DynamoDB = e.auth.DynamoDB(db, &auth.DynamoDBOptions{Protected: protected})
	}
	if o.config != nil {
		o.config(&cfg)
	}
	e.serve(cfg)
	return e
}

// mintToken makes a token named name with the one scope and limited to
// kinds (nil: every kind), and returns its secret.
func (e *env) mintToken(name string, scope auth.Scope, kinds []string) string {
	e.t.Helper()
	secret, _, err := e.auth.CreateToken(context.Background(), name, []auth.Scope{scope}, kinds)
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// openSeries opens a series store on db, its table made and its
// background loops off; the caller closes it.
func openSeries(t *testing.T, db *local.DB) *series.Store {
	t.Helper()
	ctx := context.Background()
	st, err := series.Open(ctx, db, &series.Options{WALDir: t.TempDir(), FlushInterval: -1, RollupInterval: -1, CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// serve makes e's server from cfg and serves it over HTTP until the test
// ends, when it closes the HTTP server and then e's store.
func (e *env) serve(cfg server.Config) {
	e.t.Helper()
	var err error
	if e.srv, err = server.New(cfg); err != nil {
		e.t.Fatal(err)
	}
	e.http = httptest.NewServer(e.srv)
	e.t.Cleanup(func() {
		e.http.Close()
		_ = e.store.Close()
	})
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("answer %d %q is not JSON: %v", a.status, a.body, err)
	}
}

// errorCode returns the "error" member of an error answer.
func (a answer) errorCode(t *testing.T) string {
	t.Helper()
	var e struct{ Error, Message string }
	a.json(t, &e)
	if e.Message == "" {
		t.Fatalf("error answer %d %s has no message", a.status, a.body)
	}
	return e.Error
}

func (e *env) do(method, path, ctype string, body io.Reader, header ...string) answer {
	e.t.Helper()
	req, err := http.NewRequest(method, e.http.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

func (e *env) get(path string) answer { return e.do(http.MethodGet, path, "", nil) }

func (e *env) postJSON(path string, v any) answer {
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.do(http.MethodPost, path, "application/json", bytes.NewReader(b))
}

func (e *env) post(path, ctype, body string) answer {
	return e.do(http.MethodPost, path, ctype, strings.NewReader(body))
}

// must fails the test unless the answer has the status.
func (a answer) must(t *testing.T, status int) answer {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	return a
}

// defineSensor defines the kind SENSOR: fields temperature, humidity; tag
// location.
func (e *env) defineSensor() {
	e.t.Helper()
	e.postJSON("/api/v1/kinds", map[string]any{"name": "SENSOR", "fields": []string{"temperature", "humidity"}, "tags": []string{"location"}}).must(e.t, http.StatusCreated)
}

// t0 is an hour two days ago: within the default retention.
var t0 = time.Now().UTC().Truncate(time.Hour).Add(-48 * time.Hour)

func ms(t time.Time) int64 { return t.UnixMilli() }
