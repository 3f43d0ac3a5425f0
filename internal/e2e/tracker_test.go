package e2e

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/browsertest"
)

// trackerPage is a test page with our script. Signal is "dnt" or "gpc" to
// turn on that privacy signal before the script runs; Attrs are extra
// attributes of the script tag.
var trackerPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
{{if eq .Signal "dnt"}}<script>Object.defineProperty(Navigator.prototype, "doNotTrack", {get: () => "1"})</script>{{end}}
{{if eq .Signal "gpc"}}<script>Object.defineProperty(Navigator.prototype, "globalPrivacyControl", {get: () => true})</script>{{end}}
<script>window.timetable = window.timetable || function () { (timetable.q = timetable.q || []).push(arguments) }</script>
<script>timetable("Queued", {props: {early: "yes"}})</script>
<script defer {{with .Domain}}data-domain="{{.}}" {{end}}{{.Attrs}} src="{{.API}}/js/script.js"></script>
</head>
<body style="font: 16px sans-serif; margin: 2rem">
<h1 id="title">{{.Title}}</h1>
<p>A single-page app: <span id="where"></span></p>
<p><a id="out" href="{{.Outbound}}">an outbound link</a></p>
<p><a id="dl" href="/files/report.pdf">a report (PDF)</a></p>
<div style="height: 1500px"></div>
<script>
document.getElementById("dl").addEventListener("click", e => e.preventDefault())
const where = () => document.getElementById("where").textContent = location.pathname
addEventListener("popstate", where)
where()
</script>
</body></html>
`))

type pageData struct {
	Title, Domain, API, Outbound, Signal string
	Attrs                                template.HTMLAttr
}

// trackerPages answers the test pages: any path on a *.test host (or on
// 127.0.0.1) is the app page, configured by the query: signal=dnt|gpc,
// and the attributes data-outbound, data-downloads, data-allow-headless
// (the browser is an automated one: left out with automated=1),
// data-respect-dnt=false (optout=1), data-allow-local (local=1), data-hash
// (hash=1), data-404 (notfound=1) and data-debug (debug=1); /landing is a
// page without the script, where the outbound link goes.
func (e *env) trackerPages(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Path == "/landing" {
		fmt.Fprint(w, `<!doctype html><title>landing</title><h1 id="landed">elsewhere</h1>`)
		return
	}
	q := r.URL.Query()
	d := pageData{Title: r.URL.Path, Domain: q.Get("domain"), API: e.api, Outbound: e.pageURL("elsewhere.test", "/landing"), Signal: q.Get("signal")}
	attrs := []string{"data-outbound", "data-downloads"}
	if q.Get("automated") != "1" {
		attrs = append(attrs, "data-allow-headless")
	}
	if q.Get("debug") == "1" {
		attrs = append(attrs, "data-debug")
	}
	if q.Get("optout") == "1" {
		attrs = append(attrs, `data-respect-dnt="false"`)
	}
	if q.Get("local") == "1" {
		attrs = append(attrs, "data-allow-local")
	}
	if q.Get("hash") == "1" {
		attrs = append(attrs, "data-hash")
	}
	if q.Get("notfound") == "1" {
		attrs = append(attrs, "data-404")
	}
	d.Attrs = template.HTMLAttr(strings.Join(attrs, " "))
	if err := trackerPage.Execute(w, d); err != nil {
		e.t.Error(err)
	}
}

// newTrackerEnv is an env whose pages are trackerPages.
func newTrackerEnv(t *testing.T) *env {
	return newEnv(t, func(e *env) http.Handler { return http.HandlerFunc(e.trackerPages) })
}

// js evaluates expression in tab for its effect.
func (e *env) js(tab context.Context, what, expression string) {
	e.t.Helper()
	browsertest.Run(e.t, e.browser, tab, what, chromedp.Evaluate[bool](expression+"; true"))
}

// hitsOf turns payloads into the hits they should be recorded as.
func (e *env) hitsOf(ps []payload) []hit {
	e.t.Helper()
	hs := make([]hit, len(ps))
	for i, p := range ps {
		u, err := url.Parse(p.URL)
		if err != nil {
			e.t.Fatalf("payload url %q: %v", p.URL, err)
		}
		hs[i] = hit{Name: p.Name, Path: u.Path}
		if p.Hash == 1 && u.Fragment != "" {
			hs[i].Path += "#" + u.Fragment
		}
		if len(p.Props) > 0 {
			hs[i].Props = map[string]string{}
			for k, v := range p.Props {
				hs[i].Props[k] = fmt.Sprint(v)
			}
		}
	}
	return hs
}

// checkRecorded fails the test unless the payloads for domain are want
// (in any order), and the store holds them as hits of the site domain.
func (e *env) checkRecorded(domain string, ps []payload, want []hit) {
	e.t.Helper()
	if got := e.hitsOf(ps); !sameHits(got, want) {
		e.t.Fatalf("sent for %s:\n%+v\nwant\n%+v", domain, got, want)
	}
	// Record runs before the answer, and the answer may come after the
	// payload was seen: wait for the store too.
	var got []hit
	for range 100 {
		if got = e.hits(domain); sameHits(got, want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("recorded for %s:\n%+v\nwant\n%+v", domain, got, want)
}

func pageview(path string) hit { return hit{Name: analytics.PageView, Path: path} }

// queued is the event the test page queues before the script loads.
func queued(path string) hit {
	return hit{Name: "Queued", Path: path, Props: map[string]string{"early": "yes"}}
}

func engagement(path string) hit { return hit{Name: analytics.Engagement, Path: path} }

// TestTracker_SinglePageApp: our script on a page of another origin, with
// data-domain defaulting to the page's host: a page view on load, one per
// pushState and popstate (not for a replaceState that keeps the path), the
// event queued before the script loaded, a custom event with a prop, a file
// download and an outbound click, and the engagement of each page left
// (time visible, deepest scroll); nothing stored in the browser.
func TestTracker_SinglePageApp(t *testing.T) {
	e := newTrackerEnv(t)
	const domain = "spa.test"
	e.createSite(domain)
	b, tab := e.browser, e.browser.Tab(t)

	b.Do(t, tab, "load the app", chromedp.Navigate(e.pageURL(domain, "/app")))
	e.waitSent(domain, 2) // the page view and the queued event
	e.js(tab, "pushState", `history.pushState({}, "", "/app/a")`)
	e.js(tab, "pushState", `history.pushState({}, "", "/app/b")`)
	e.js(tab, "replaceState, same path", `history.replaceState({n: 1}, "", "/app/b?tab=2")`)
	browsertest.Run(t, b, tab, "scroll to the end", chromedp.Evaluate[bool](
		`scrollTo(0, document.body.scrollHeight); new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`,
		chromedp.EvalAwaitPromise))
	e.js(tab, "back", `history.back()`)
	browsertest.Run(t, b, tab, "wait for popstate", chromedp.Poll[bool](`document.getElementById("where").textContent == "/app/a"`))
	e.js(tab, "custom event", `timetable.track("Signup", {props: {plan: "pro"}})`)
	b.Do(t, tab, "click a download", chromedp.Click(chromedp.CSS("#dl")))
	if ok := browsertest.Run(t, b, tab, "read storage", chromedp.Evaluate[bool](
		`document.cookie === "" && localStorage.length === 0 && sessionStorage.length === 0`)); !ok {
		t.Error("the page has cookies or storage")
	}
	b.Screenshot(t, tab, "app")
	b.Do(t, tab, "click the outbound link", chromedp.Click(chromedp.CSS("#out")), chromedp.WaitVisible(chromedp.CSS("#landed")))

	want := []hit{
		pageview("/app"), pageview("/app/a"), pageview("/app/b"), pageview("/app/a"),
		queued("/app"),
		{Name: "Signup", Path: "/app/a", Props: map[string]string{"plan": "pro"}},
		{Name: "File Download", Path: "/app/a", Props: map[string]string{"url": e.pageURL(domain, "/files/report.pdf")}},
		{Name: "Outbound Link: Click", Path: "/app/a", Props: map[string]string{"url": e.pageURL("elsewhere.test", "/landing")}},
		engagement("/app"), engagement("/app/a"), engagement("/app/b"), engagement("/app/a"),
	}
	ps := e.waitSent(domain, len(want))
	for _, p := range ps {
		if !strings.HasPrefix(p.contentType, "text/plain") || p.cookie != "" || p.Hash != 0 || p.Referrer != nil {
			t.Errorf("payload %v: want text/plain, no cookie, no h, r null", p)
		}
		if p.Name != analytics.Engagement {
			if p.Engaged != nil || p.Scroll != nil {
				t.Errorf("%s has engagement fields: %v", p.Name, p)
			}
			continue
		}
		if p.Engaged == nil || *p.Engaged < 0 || p.Scroll == nil || *p.Scroll < 1 || *p.Scroll > 100 {
			t.Errorf("engagement %v: want e >= 0 and sd in 1..100", p)
			continue
		}
		// The end of /app/b was scrolled to; /app was not scrolled.
		switch path := strings.TrimPrefix(p.URL, e.pageURL(domain, "")); path {
		case "/app/b":
			if *p.Scroll != 100 {
				t.Errorf("engagement of %s: sd %v, want 100", path, *p.Scroll)
			}
		case "/app":
			if *p.Scroll == 100 {
				t.Errorf("engagement of %s: sd 100 without a scroll", path)
			}
		}
	}
	e.checkRecorded(domain, ps, want)
}

// TestTracker_PrivacySignals: with Do-Not-Track or Global Privacy Control
// on, or on a 127.0.0.1 page, the script sends nothing; each case ends on
// a page that opts in (data-respect-dnt="false", data-allow-local), whose
// page view and queued event must be the only hits: the positive control of the silence.
func TestTracker_PrivacySignals(t *testing.T) {
	e := newTrackerEnv(t)
	cases := []struct {
		name, host, domain, query, optIn string
	}{
		{"Do-Not-Track", "dnt.test", "dnt.test", "signal=dnt", "optout=1"},
		{"Global Privacy Control", "gpc.test", "gpc.test", "signal=gpc", "optout=1"},
		{"localhost", "127.0.0.1", "local.test", "domain=local.test", "local=1"},
	}
	for _, c := range cases {
		if c.host == c.domain {
			e.createSite(c.domain)
		} else {
			e.createSite(c.domain, c.host) // the page's host must be one of the site's
		}
		tab := e.browser.Tab(t)
		e.browser.Do(t, tab, c.name+": load", chromedp.Navigate(e.pageURL(c.host, "/app?"+c.query)))
		e.js(tab, c.name+": pushState", `history.pushState({}, "", "/app/a?`+c.query+`")`)
		e.js(tab, c.name+": custom event", `timetable("Signup", {props: {plan: "pro"}})`)
		e.browser.Do(t, tab, c.name+": click a download", chromedp.Click(chromedp.CSS("#dl")))
		e.browser.Do(t, tab, c.name+": load the opt-in page", chromedp.Navigate(e.pageURL(c.host, "/optin?"+c.query+"&"+c.optIn)))
		ps := e.waitSent(c.domain, 2)
		e.checkRecorded(c.domain, ps, []hit{pageview("/optin"), queued("/optin")})
	}
	// Later, still nothing else.
	for _, c := range cases {
		if ps := e.sent(c.domain); len(ps) != 2 {
			t.Errorf("%s: %d payloads, want the opt-in page's two only: %v", c.name, len(ps), ps)
		}
	}
}

// TestTracker_HashRoutingAnd404: with data-hash, a change of the fragment
// is a page view and pushState is not; the payloads carry h=1 and the
// stored paths their fragment. With data-404 the page sends "404" {path}.
func TestTracker_HashRoutingAnd404(t *testing.T) {
	e := newTrackerEnv(t)
	const domain = "hash.test"
	e.createSite(domain)
	b, tab := e.browser, e.browser.Tab(t)

	b.Do(t, tab, "load the app", chromedp.Navigate(e.pageURL(domain, "/app?hash=1#/home")))
	e.waitSent(domain, 2)
	e.js(tab, "change the fragment", `location.hash = "#/settings"`)
	e.waitSent(domain, 4) // the engagement of #/home, the page view of #/settings
	e.js(tab, "pushState", `history.pushState({}, "", "/app/elsewhere?hash=1")`)
	b.Do(t, tab, "load a missing page", chromedp.Navigate(e.pageURL(domain, "/missing?notfound=1")))

	want := []hit{
		pageview("/app#/home"), queued("/app#/home"), engagement("/app#/home"),
		pageview("/app#/settings"), engagement("/app#/settings"),
		pageview("/missing"), queued("/missing"), {Name: "404", Path: "/missing", Props: map[string]string{"path": "/missing"}},
	}
	ps := e.waitSent(domain, len(want))
	for _, p := range ps {
		if hashed := !strings.Contains(p.URL, "/missing"); (p.Hash == 1) != hashed {
			t.Errorf("payload %v: h=%d", p, p.Hash)
		}
	}
	e.checkRecorded(domain, ps, want)
}

// TestTracker_DebugConsole: in debug mode (data-debug, or any local
// page) the script says on the console, for each hit it does not send or
// the server does not record, why: a local page, Do-Not-Track, an
// opted-out browser, an automated browser, a page of a host that is none
// of the site's domains (the 403, with the server's message), a name no
// site has (the 404), the server's bot filter; and that a hit was
// recorded. A domain added to the site through the API is accepted by the
// next hit.
func TestTracker_DebugConsole(t *testing.T) {
	e := newTrackerEnv(t)
	e.createSite("dbg.test")
	b := e.browser
	open := func(what, url string, more ...chromedp.Action[chromedp.Void]) *console {
		t.Helper()
		tab := b.Tab(t)
		c := e.watch(tab)
		b.Do(t, tab, what, append(more, chromedp.Navigate(url))...)
		return c
	}
	hit := func(path string) string { return "pageview of " + e.pageURL("dbg.test", path) }

	c := open("a recorded hit", e.pageURL("dbg.test", "/ok?debug=1"))
	c.wait(t, "info: timetable: ", hit("/ok?debug=1"), "recorded")

	c = open("a local page", e.pageURL("127.0.0.1", "/local?domain=dbg.test"))
	c.wait(t, "warning: timetable: pageview of http://127.0.0.1:", "not sent: this page is local (127.0.0.1); add data-allow-local")
	c.wait(t, "warning: timetable: Queued of http://127.0.0.1:", "not sent")

	c = open("Do-Not-Track", e.pageURL("dbg.test", "/dnt?signal=dnt&debug=1"))
	c.wait(t, hit("/dnt?signal=dnt&debug=1"), "not sent: Do-Not-Track or Global Privacy Control is on")

	c = open("an automated browser", e.pageURL("dbg.test", "/auto?automated=1&debug=1"))
	c.wait(t, hit("/auto?automated=1&debug=1"), "not sent: this is an automated browser (navigator.webdriver); add data-allow-headless")

	tab := b.Tab(t)
	c = e.watch(tab)
	b.Do(t, tab, "opt out", chromedp.Navigate(e.pageURL("dbg.test", "/landing")))
	e.js(tab, "set the opt-out", `localStorage.timetable_ignore = "true"`)
	b.Do(t, tab, "load a page opted out", chromedp.Navigate(e.pageURL("dbg.test", "/optedout?debug=1")))
	c.wait(t, hit("/optedout?debug=1"), "not sent: this browser opted out (localStorage.timetable_ignore)")
	e.js(tab, "opt in again", `localStorage.removeItem("timetable_ignore")`) // the tabs share the browser's storage

	c = open("a headless user agent", e.pageURL("dbg.test", "/ua?debug=1"), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{
			UserAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36"})
		return err
	}))
	c.wait(t, hit("/ua?debug=1"), "dropped by the server: headless")

	c = open("an unknown site", e.pageURL("dbg.test", "/nosite?domain=nosuch.test&debug=1"))
	c.wait(t, "refused by the server (404)", "nosuch.test", "no site has that id or domain")

	// A page of new.test, not yet a domain of the site: the 403 and its
	// reason; then the domain added through the API, and the next hit
	// recorded, at once.
	page := e.pageURL("new.test", "/grow?domain=dbg.test&debug=1")
	tab = b.Tab(t)
	c = e.watch(tab)
	b.Do(t, tab, "a foreign domain", chromedp.Navigate(page))
	c.wait(t, "warning: timetable: pageview of "+page, "refused by the server (403)", `"new.test" is not one of the domains of site "dbg.test"`)
	req, err := http.NewRequest(http.MethodPut, e.api+"/api/v1/sites/dbg.test", strings.NewReader(`{"domains":["dbg.test","new.test"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT the site's domains: %s", resp.Status)
	}
	b.Do(t, tab, "the same page again", chromedp.Navigate(page+"&again=1"))
	c.wait(t, "info: timetable: pageview of "+page+"&again=1", "recorded")
	b.Screenshot(t, tab, "recorded")
}
