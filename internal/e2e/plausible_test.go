package e2e

import (
	"html/template"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/timetable-db/timetable/internal/browsertest"
)

// PlausibleTrackerEnv names the folder of the npm package
// @plausible-analytics/tracker (its plausible.js), which scripts/e2e.sh
// installs.
const PlausibleTrackerEnv = "TIMETABLE_PLAUSIBLE_TRACKER"

var plausiblePage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plausible's tracker</title></head>
<body style="font: 16px sans-serif; margin: 2rem">
<h1>A shop with Plausible's own tracker</h1>
<p>Purchase sent: <span id="status">not yet</span></p>
<script type="module">
import { init, track } from "/plausible/plausible.js"
window.__plausible = true // the tracker ignores automated browsers without it
init({ domain: "plausible.test", endpoint: "{{.}}/api/event" })
track("Purchase", { props: { tier: "pro" }, callback: r => {
  document.getElementById("status").textContent = !r ? "ignored" : r.status ? r.status : "error: " + r.error
} })
</script>
</body></html>
`))

// TestPlausibleTracker: Plausible's tracker from npm, unchanged, posts a
// page view and a custom event with a prop; the endpoint answers 202 with
// CORS headers the tracker can read, and records both.
func TestPlausibleTracker(t *testing.T) {
	dir := os.Getenv(PlausibleTrackerEnv)
	_, err := os.Stat(filepath.Join(dir, "plausible.js"))
	browsertest.Need(t, dir != "" && err == nil, "no Plausible tracker: set %s to the folder of npm's @plausible-analytics/tracker", PlausibleTrackerEnv)
	e := newEnv(t, func(e *env) http.Handler {
		mux := http.NewServeMux()
		mux.Handle("GET /plausible/", http.StripPrefix("/plausible/", http.FileServer(http.Dir(dir))))
		mux.HandleFunc("GET /shop", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if err := plausiblePage.Execute(w, e.api); err != nil {
				t.Error(err)
			}
		})
		return mux
	})
	const domain = "plausible.test"
	e.createSite(domain)
	b, tab := e.browser, e.browser.Tab(t)
	b.Do(t, tab, "load the shop", chromedp.Navigate(e.pageURL(domain, "/shop")))
	status := browsertest.Run(t, b, tab, "wait for the answer", chromedp.Poll[string](
		`document.getElementById("status").textContent != "not yet" && document.getElementById("status").textContent`))
	b.Screenshot(t, tab, "shop")
	if status != "202" {
		t.Errorf("the tracker saw status %q, want 202", status)
	}
	want := []hit{pageview("/shop"), {Name: "Purchase", Path: "/shop", Props: map[string]string{"tier": "pro"}}}
	e.checkRecorded(domain, e.waitSent(domain, len(want)), want)
}
