package server_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/web"
)

// newAnalytics returns a web analytics store on an engine of its own,
// with a site "demo".
func newAnalytics(t *testing.T) *analytics.Store {
	t.Helper()
	return openAnalytics(t, testenv.MemDB(t, nil), analytics.Site{ID: "demo", Domains: []string{"demo.test"}})
}

// withAnalytics returns a Config hook that gives the server st, or a new
// store when st is nil.
func withAnalytics(t *testing.T, st *analytics.Store) func(*server.Config) {
	if st == nil {
		st = newAnalytics(t)
	}
	return func(c *server.Config) { c.Analytics = st }
}

// pageSettings returns the JSON settings the app page gives its script.
func pageSettings(t *testing.T, a answer) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="settings">(.*?)</script>`).FindSubmatch(a.body)
	if m == nil {
		t.Fatalf("no settings in the page: %s", a.body)
	}
	var v map[string]any
	if err := json.Unmarshal(m[1], &v); err != nil {
		t.Fatalf("settings %s: %v", m[1], err)
	}
	return v
}

func TestDashboard_WithoutAnalytics(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, p := range []string{"/", "/about"} {
		a := e.get(p).must(t, 200)
		if !strings.Contains(string(a.body), "/api/v1/") || strings.Contains(string(a.body), `id="settings"`) {
			t.Fatalf("%s: want the index page, got %s", p, a.body)
		}
	}
	if c := e.get("/share/demo?auth=x").must(t, 404).errorCode(t); c != "not_found" {
		t.Fatal(c)
	}
}

func TestDashboard_App(t *testing.T) {
	for _, tc := range []struct {
		name     string
		o        envOptions
		wantAuth bool
	}{
		{"no auth", envOptions{}, false},
		{"auth", envOptions{auth: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newAnalytics(t)
			tc.o.config = withAnalytics(t, st)
			e := newEnv(t, tc.o)
			a := e.get("/").must(t, 200)
			if got := a.header.Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'none'") || !strings.Contains(got, "connect-src 'self'") {
				t.Fatalf("CSP %q", got)
			}
			s := pageSettings(t, a)
			if s["auth"] != tc.wantAuth || s["share"] != nil {
				t.Fatalf("settings %v, want auth %v and no share", s, tc.wantAuth)
			}
			// The old index stays reachable, without a token.
			if a := e.get("/about").must(t, 200); !strings.Contains(string(a.body), "/api/v1/") {
				t.Fatalf("about: %s", a.body)
			}
			// A shared link's page: 200 for a live slug of the site, the
			// same page with 404 for any other.
			slug, _, err := st.CreateSharedLink(context.Background(), "demo", "")
			if err != nil {
				t.Fatal(err)
			}
			s = pageSettings(t, e.get("/share/demo?auth="+slug).must(t, 200))
			if s["share"] != "demo" {
				t.Fatalf("share settings %v", s)
			}
			wrong := slug[:len(slug)-1] + map[bool]string{true: "1", false: "0"}[strings.HasSuffix(slug, "0")]
			for _, p := range []string{"/share/demo?auth=" + wrong, "/share/demo", "/share/other?auth=" + slug} {
				if s := pageSettings(t, e.get(p).must(t, 404)); s["share"] == nil {
					t.Fatalf("%s: settings %v", p, s)
				}
			}
		})
	}
}

func TestDashboard_Assets(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, config: withAnalytics(t, nil)})
	a := e.get("/ui/app.js").must(t, 200)
	etag := a.header.Get("ETag")
	if etag == "" || !strings.HasPrefix(a.header.Get("Content-Type"), "text/javascript") || !strings.Contains(a.header.Get("Cache-Control"), "max-age=0") {
		t.Fatalf("headers %v", a.header)
	}
	e.do("GET", "/ui/app.js", "", nil, "If-None-Match", etag).must(t, http.StatusNotModified)
	e.do("GET", "/ui/app.js", "", nil, "If-None-Match", `"other"`).must(t, 200)
	if b := e.get("/ui/app.css").must(t, 200); b.header.Get("ETag") == etag {
		t.Fatal("two files share an ETag")
	}
	for _, p := range []string{"/ui/nope.js", "/ui/index.html", "/ui/", "/ui/..%2fweb.go"} {
		if a := e.get(p); a.status != 404 {
			t.Errorf("%s: %d %s", p, a.status, a.body)
		}
	}
}

// TestDashboard_AssetsComplete: every file the page and the scripts load
// is served, and none is loaded from another host.
func TestDashboard_AssetsComplete(t *testing.T) {
	e := newEnv(t, envOptions{config: withAnalytics(t, nil)})
	page := string(e.get("/").must(t, 200).body)
	var wanted []string
	for _, m := range regexp.MustCompile(`(?:src|href)="(/ui/[^"]+)"`).FindAllStringSubmatch(page, -1) {
		wanted = append(wanted, m[1])
	}
	imports := regexp.MustCompile(`(?m)^import .* from "\./([^"]+)";`)
	external := regexp.MustCompile(`(?i)(?:src|href)\s*=\s*["']?(?:https?:)?//|@import|url\(\s*["']?(?:https?:)?//|fetch\(\s*["']https?:`)
	seen := map[string]bool{}
	for len(wanted) > 0 {
		p := wanted[0]
		wanted = wanted[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		body := e.get(p).must(t, 200).body
		if m := external.Find(body); m != nil {
			t.Errorf("%s loads from another host: %s", p, m)
		}
		for _, m := range imports.FindAllSubmatch(body, -1) {
			wanted = append(wanted, "/ui/"+string(m[1]))
		}
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("the page loads from another host: %s", m)
	}
	// And every embedded file is reached (none is dead weight).
	fs.WalkDir(web.Dashboard, "dashboard", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != "dashboard/index.html" && !seen["/ui/"+strings.TrimPrefix(p, "dashboard/")] {
			t.Errorf("%s is embedded but nothing loads it", p)
		}
		return err
	})
}
