package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/browsertest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/table"
)

// hostPattern is the host names of the test pages: Chromium resolves them
// to 127.0.0.1.
const hostPattern = "*.test"

// env is a timetable server with web analytics, a server of test pages on
// another origin, and a browser.
type env struct {
	t         *testing.T
	analytics *analytics.Store
	db        timetable.API // the table of analytics
	api       string        // the timetable server's URL: http://127.0.0.1:PORT
	pagePort  string        // the port of the test pages, at http://NAME.test:PORT
	browser   *browsertest.Browser

	mu       sync.Mutex
	payloads []payload // every body posted to /api/event, in arrival order
}

// payload is a body posted to /api/event, decoded, with its request's
// Content-Type and Cookie header.
type payload struct {
	Name        string         `json:"n"`
	URL         string         `json:"u"`
	Domain      string         `json:"d"`
	Referrer    *string        `json:"r"`
	Props       map[string]any `json:"p"`
	Hash        int            `json:"h"`
	Interactive *bool          `json:"i"`
	Engaged     *float64       `json:"e"`
	Scroll      *float64       `json:"sd"`

	contentType, cookie string
}

// String gives p's members with the numbers and nulls they hold.
func (p payload) String() string {
	num := func(f *float64) string {
		if f == nil {
			return "-"
		}
		return fmt.Sprint(*f)
	}
	ref := "null"
	if p.Referrer != nil {
		ref = *p.Referrer
	}
	return fmt.Sprintf("{n=%q u=%s d=%s r=%s p=%v h=%d e=%s sd=%s type=%q cookie=%q}",
		p.Name, p.URL, p.Domain, ref, p.Props, p.Hash, num(p.Engaged), num(p.Scroll), p.contentType, p.cookie)
}

// newEnv starts the servers and the browser; pages returns the handler
// of the test pages (on every *.test host; r.Host says which), given the
// env with its api and pagePort set.
func newEnv(t *testing.T, pages func(*env) http.Handler) *env {
	t.Helper()
	b := browsertest.Start(t, &browsertest.Options{Hosts: []string{hostPattern}})
	ctx := context.Background()
	db := testenv.MemDB(t, nil)
	st, err := series.Open(ctx, db, &series.Options{WALDir: t.TempDir(), FlushInterval: -1, RollupInterval: -1, CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	an, err := analytics.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := an.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Store: st, Analytics: an})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, analytics: an, db: db, browser: b}
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/event" {
			e.capture(r)
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		api.Close()
		_ = st.Close()
	})
	e.api = api.URL
	site := httptest.NewUnstartedServer(nil)
	_, e.pagePort, _ = net.SplitHostPort(site.Listener.Addr().String())
	site.Config.Handler = pages(e)
	site.Start()
	t.Cleanup(site.Close)
	return e
}

// capture records the body of r and gives r a copy to read.
func (e *env) capture(r *http.Request) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	p := payload{contentType: r.Header.Get("Content-Type"), cookie: r.Header.Get("Cookie")}
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil {
		e.t.Errorf("a body posted to /api/event is not a payload: %v: %q", err, b)
		return
	}
	e.mu.Lock()
	e.payloads = append(e.payloads, p)
	e.mu.Unlock()
}

// pageURL is the URL of a test page on host (a name under .test).
func (e *env) pageURL(host, path string) string {
	return "http://" + host + ":" + e.pagePort + path
}

// createSite creates a site whose id and first domain are domain.
func (e *env) createSite(domain string, more ...string) {
	e.t.Helper()
	site := analytics.Site{ID: domain, Name: domain, Domains: append([]string{domain}, more...)}
	if err := e.analytics.CreateSite(context.Background(), site); err != nil {
		e.t.Fatal(err)
	}
}

// sent returns the payloads received so far for domain.
func (e *env) sent(domain string) []payload {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ps []payload
	for _, p := range e.payloads {
		if p.Domain == domain {
			ps = append(ps, p)
		}
	}
	return ps
}

// waitSent waits until n payloads for domain have arrived and returns
// them, or fails the test with what did arrive after a deadline (a bound
// on a wait, not an assertion on timing).
func (e *env) waitSent(domain string, n int) []payload {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ps := e.sent(domain)
		if len(ps) >= n || time.Now().After(deadline) {
			if len(ps) < n {
				e.t.Fatalf("%d payloads for %s arrived, want %d: %v", len(ps), domain, n, ps)
			}
			return ps
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hit is a recorded page view or event, as the analytics store holds it.
type hit struct {
	Name  string // analytics.PageView for a page view
	Path  string
	Props map[string]string
}

// hits returns the page views and events the store holds for site, page
// views first, each in time order.
func (e *env) hits(site string) []hit {
	e.t.Helper()
	var hs []hit
	for _, prefix := range []string{"PV#", "EVENT#"} {
		q := &table.Query{Hash: "SITE#" + site, Range: table.BeginsWith(prefix), Consistent: true}
		for it, err := range e.analytics.Table().QueryAll(context.Background(), q) {
			if err != nil {
				e.t.Fatal(err)
			}
			h := hit{Name: analytics.PageView, Path: str(it, "path")}
			if prefix == "EVENT#" {
				h.Name = str(it, "name")
			}
			if m, ok := it["props"].(*types.AttributeValueMemberM); ok {
				h.Props = map[string]string{}
				for k, v := range m.Value {
					if s, ok := v.(*types.AttributeValueMemberS); ok {
						h.Props[k] = s.Value
					}
				}
			}
			hs = append(hs, h)
		}
	}
	return hs
}

func str(it table.Item, name string) string {
	if s, ok := it[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// sameHits reports whether got and want hold the same hits, in any order.
func sameHits(got, want []hit) bool {
	key := func(h hit) string {
		ks := slices.Sorted(maps.Keys(h.Props))
		s := h.Name + "\x00" + h.Path
		for _, k := range ks {
			s += "\x00" + k + "=" + h.Props[k]
		}
		return s
	}
	g, w := make([]string, len(got)), make([]string, len(want))
	for i, h := range got {
		g[i] = key(h)
	}
	for i, h := range want {
		w[i] = key(h)
	}
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}
