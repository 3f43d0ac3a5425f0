package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/browsertest"
)

// The dashboard's tests: the server of env serves it at /, without
// authentication (every caller may manage every site).

func newDashboardEnv(t *testing.T) *env {
	return newEnv(t, func(*env) http.Handler { return http.NotFoundHandler() })
}

// seed creates site id (time zone tz) and records, for each of ago, a
// visit that long before now (see visit), then aggregates.
func (e *env) seed(id, tz string, ago ...time.Duration) {
	e.t.Helper()
	ctx := context.Background()
	if err := e.analytics.CreateSite(ctx, analytics.Site{ID: id, Name: id, Domains: []string{id}, TimeZone: tz}); err != nil {
		e.t.Fatal(err)
	}
	now := time.Now()
	for i, d := range ago {
		e.visit(e.analytics, id, i, now.Add(-d))
	}
	if _, err := e.analytics.AggregatePending(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// visit records the i-th visit of site id at t through st: a page view
// of / and one of /pricing, from a source named three ways (utm_source
// google, Google, and Google's referrer) or none.
func (e *env) visit(st *analytics.Store, id string, i int, t time.Time) {
	e.t.Helper()
	ctx := context.Background()
	ev := analytics.Event{Site: id, Name: analytics.PageView, VisitorID: fmt.Sprintf("v%d", i), Path: "/", Time: t,
		Browser: "chrome", OS: "Linux", Device: "desktop", Country: "DE"}
	switch i % 4 {
	case 0:
		ev.UTM.Source = "google"
	case 1:
		ev.UTM.Source = "Google"
	case 2:
		ev.Referrer = "https://www.google.com/"
	}
	if err := st.Record(ctx, ev); err != nil {
		e.t.Fatal(err)
	}
	ev.Path, ev.Time, ev.UTM, ev.Referrer = "/pricing", ev.Time.Add(time.Minute), analytics.UTM{}, ""
	if err := st.Record(ctx, ev); err != nil {
		e.t.Fatal(err)
	}
}

// seedPast records, for each of ago, a visit that long before now to
// site id (which exists), as a server would have then: through a Store
// whose clock stands at the visit, aggregated once the visit's day is
// over, so that the days are kept in hit buckets only (their raw hits
// long expired by now).
func (e *env) seedPast(id string, ago ...time.Duration) {
	e.t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var clock time.Time
	past, err := analytics.Open(ctx, e.db, &analytics.Options{AggregateEvery: -1, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer past.Close()
	set := func(t time.Time) {
		mu.Lock()
		defer mu.Unlock()
		clock = t
	}
	now := time.Now()
	for i, d := range ago {
		set(now.Add(-d))
		e.visit(past, id, 100+i, now.Add(-d))
		set(now.Add(-d).AddDate(0, 0, 1).Add(time.Hour))
		if _, err := past.AggregatePending(ctx); err != nil {
			e.t.Fatal(err)
		}
	}
}

// call sends a request to the server's API and decodes its JSON answer
// into out (when not nil); it returns the status.
func (e *env) call(method, path string, body, out any) int {
	e.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.api+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			e.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

// dashboard opens a tab on the dashboard at path (with query), watching
// its console, at the viewport's width w.
func (e *env) dashboard(path string, w int64, ready ...chromedp.Action[chromedp.Void]) (context.Context, *console) {
	e.t.Helper()
	tab := e.browser.Tab(e.t)
	c := e.watch(tab)
	steps := append([]chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(w, 900), chromedp.Navigate(e.api + path)}, ready...)
	e.browser.Do(e.t, tab, "open "+path, steps...)
	return tab, c
}

// noErrors fails the test if the pages of c threw.
func noErrors(t *testing.T, c *console) {
	t.Helper()
	if errs := c.errors(); len(errs) > 0 {
		t.Errorf("the dashboard's scripts threw: %v", errs)
	}
}

// chartRead is what the test reads of the chart.
type chartRead struct {
	Last          string
	Drawn, Points int
	Rows          int
	Partial       bool
}

const readChart = `(() => {
  const svg = document.querySelector("svg.chart");
  return {Last: svg.dataset.last, Drawn: +svg.dataset.drawn, Points: +svg.dataset.points,
    Rows: document.querySelectorAll("details.table tbody tr").length, Partial: !!svg.querySelector("path.partial")};
})()`

// zonedKey is the key in the chart of the bucket of grain ("hour", "day"
// or "month") that now is in, in the IANA zone tz: "2006-01-02 15" for
// an hour, the first day's date otherwise.
func zonedKey(t *testing.T, tz, grain string) string {
	t.Helper()
	loc, err := time.LoadLocation(tz)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().In(loc)
	switch grain {
	case "hour":
		return now.Format("2006-01-02 15")
	case "month":
		return now.Format("2006-01") + "-01"
	}
	return now.Format(time.DateOnly)
}

// TestDashboard_NoFutureBuckets: the chart of a range that runs past now
// ("Today", "This month", "Last 12 months") stops at now in the site's
// time zone (not the browser's, nor UTC's): its last point is the hour,
// day or month now is in, read before and after the page, drawn dashed
// (partial); the buckets after it are neither drawn nor in the chart's
// table.
func TestDashboard_NoFutureBuckets(t *testing.T) {
	e := newDashboardEnv(t)
	const tz = "Pacific/Kiritimati" // UTC+14: its day is not UTC's most of the time
	e.seed("tz.test", tz, 2*time.Hour, 30*time.Minute, 50*time.Hour)
	for _, c := range []struct{ period, grain string }{{"day", "hour"}, {"month", "day"}, {"12mo", "month"}} {
		before := zonedKey(t, tz, c.grain)
		tab, con := e.dashboard("/?site=tz.test&period="+c.period, 1280, chromedp.WaitVisible(chromedp.CSS("svg.chart[data-last]")))
		got := browsertest.Run(t, e.browser, tab, "read the chart", chromedp.Evaluate[chartRead](readChart))
		after := zonedKey(t, tz, c.grain)
		if got.Last < before || got.Last > after {
			t.Errorf("%s: the chart's last point is %q, want the %s now is in, in %s (%s to %s)", c.period, got.Last, c.grain, tz, before, after)
		}
		if got.Drawn > got.Points || got.Rows != got.Drawn || got.Drawn > 1 && !got.Partial {
			t.Errorf("%s: %d points drawn of %d, %d in the table, the last partial: %v", c.period, got.Drawn, got.Points, got.Rows, got.Partial)
		}
		e.browser.Screenshot(t, tab, c.period)
		noErrors(t, con)
	}
}

// TestDashboard_EmptyPreviousPeriod: against a previous period without
// visits every figure reads "new", never a percentage or points of
// change (nor red), the note and the legend say why, and the previous
// period is not drawn; a site with visits in both periods shows its
// percentages (the control). The realtime panel, empty, says when the
// latest page view was. A source tagged google, Google and Google's
// referrer is one row, "Google".
func TestDashboard_EmptyPreviousPeriod(t *testing.T) {
	e := newDashboardEnv(t)
	e.seed("new.test", "", 26*time.Hour, 27*time.Hour, 28*time.Hour)
	e.seed("old.test", "", 26*time.Hour, 27*time.Hour, 9*24*time.Hour)
	type figures struct {
		Changes   []string
		Red       int
		Note      string
		Legend    string
		CmpPath   bool
		Sources   []string
		LiveEmpty string
	}
	const read = `(() => ({
	  Changes: [...document.querySelectorAll("#figures .change")].map((c) => c.textContent),
	  Red: document.querySelectorAll("#figures .change.down").length,
	  Note: document.querySelector(".note").textContent,
	  Legend: document.getElementById("legend-cmp").textContent,
	  CmpPath: !!document.querySelector("svg.chart path.cmp"),
	  Sources: [...document.querySelectorAll("#panel-sources-list .row .k")].map((r) => r.textContent),
	  LiveEmpty: (document.getElementById("live-empty") || {}).textContent || "",
	}))()`
	ready := []chromedp.Action[chromedp.Void]{
		chromedp.WaitVisible(chromedp.CSS("#figures .change")),
		chromedp.WaitVisible(chromedp.CSS("svg.chart")),
		chromedp.WaitVisible(chromedp.CSS("#panel-sources-list .row")),
		chromedp.WaitVisible(chromedp.CSS("#live-empty")),
	}
	tab, con := e.dashboard("/?site=new.test&period=7d", 1280, ready...)
	got := browsertest.Run(t, e.browser, tab, "read the figures", chromedp.Evaluate[figures](read))
	e.browser.Screenshot(t, tab, "new")
	if len(got.Changes) != 6 {
		t.Fatalf("changes %q, want 6", got.Changes)
	}
	for _, c := range got.Changes {
		if c != "new" && c != "—" {
			t.Errorf("a figure's change against an empty period reads %q, want new", c)
		}
	}
	if got.Red != 0 || !strings.Contains(got.Note, "no visits") || got.Legend != "Previous period: no data" || got.CmpPath {
		t.Errorf("against an empty period: %+v", got)
	}
	if len(got.Sources) != 1 || got.Sources[0] != "Google" {
		t.Errorf("sources %q, want Google alone", got.Sources)
	}
	if !strings.Contains(got.LiveEmpty, "The latest page view was") {
		t.Errorf("the empty realtime panel says %q, not when the latest page view was", got.LiveEmpty)
	}
	noErrors(t, con)

	tab, con = e.dashboard("/?site=old.test&period=7d", 1280, ready[:3]...)
	got = browsertest.Run(t, e.browser, tab, "read the control", chromedp.Evaluate[figures](read))
	if !strings.Contains(strings.Join(got.Changes, " "), "%") || got.Legend != "Previous period" || !got.CmpPath {
		t.Errorf("a site with a previous period: %+v, want percentages and its line", got)
	}
	e.browser.Screenshot(t, tab, "control")
	noErrors(t, con)
}

// fieldError is the selector of the shown error of a form's field.
func fieldError(form, name string) string {
	return fmt.Sprintf(`#%s .field[data-field="%s"] .field-error:not([hidden])`, form, name)
}

// TestDashboard_Manage: the management flow of an admin, in the
// dashboard only: the goals panel's empty state opens the settings at the
// goal form; a goal refused by the API shows the API's message next to
// its field; the goal accepted is listed, as are a second goal and a
// funnel of both (a goal of an id taken is refused, not replaced); a
// shared link shows its URL; the dashboard's goals
// panel then knows the goals. A site added from the site list (a bad
// domain first, its message next to the domains) opens its dashboard,
// which shows its script tag.
func TestDashboard_Manage(t *testing.T) {
	e := newDashboardEnv(t)
	e.seed("shop.test", "", 3*time.Hour)
	b := e.browser
	tab, con := e.dashboard("/?site=shop.test", 1280, chromedp.WaitVisible(chromedp.CSS("#add-goals")))
	b.Do(t, tab, "open the goal form from the empty state",
		chromedp.Click(chromedp.CSS("#add-goals")),
		chromedp.WaitVisible(chromedp.CSS("#new-goal")),
	)
	if focus := browsertest.Run(t, b, tab, "read the focus", chromedp.Evaluate[string](`document.activeElement.id`)); focus != "goal-name" {
		t.Errorf("the goal form opens with the focus on %q", focus)
	}
	b.Do(t, tab, "a goal with a bad page path",
		chromedp.SetValue(chromedp.CSS("#goal-kind"), "pageview"),
		chromedp.SendKeys(chromedp.CSS("#goal-name"), "Thanks"),
		chromedp.SendKeys(chromedp.CSS("#goal-match"), "thanks"),
		chromedp.Click(chromedp.CSS(`#new-goal button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(fieldError("new-goal", "match"))),
	)
	msg := browsertest.Run(t, b, tab, "read the message", chromedp.Text(chromedp.CSS(fieldError("new-goal", "match"))))
	if !strings.Contains(msg, "starts with '/'") {
		t.Errorf("the path's message is %q, want the API's", msg)
	}
	b.Screenshot(t, tab, "goal-refused")
	b.Do(t, tab, "the path fixed",
		chromedp.SetValue(chromedp.CSS("#goal-match"), "/thanks"),
		chromedp.Click(chromedp.CSS(`#new-goal button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#settings-goals .manage li`)),
	)
	b.Do(t, tab, "a second goal",
		chromedp.SendKeys(chromedp.CSS("#goal-name"), "Signup"),
		chromedp.Click(chromedp.CSS(`#new-goal button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#settings-goals .manage li:nth-child(2)`)),
		chromedp.WaitVisible(chromedp.CSS(`#new-funnel`)),
	)
	b.Do(t, tab, "the second goal again",
		chromedp.SendKeys(chromedp.CSS("#goal-name"), "Signup"),
		chromedp.Click(chromedp.CSS(`#new-goal button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(fieldError("new-goal", "id"))),
	)
	b.Do(t, tab, "a funnel",
		chromedp.SendKeys(chromedp.CSS("#funnel-name"), "Thanks then signup"),
		chromedp.Click(chromedp.CSS(`#new-funnel button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#settings-funnels .manage li`)),
	)
	b.Do(t, tab, "a shared link",
		chromedp.SendKeys(chromedp.CSS("#link-name"), "wiki"),
		chromedp.Click(chromedp.CSS(`#settings-links button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#link-url`)),
	)
	type listed struct{ Goals, Funnels, Links []string }
	got := browsertest.Run(t, b, tab, "read the lists", chromedp.Evaluate[listed](`({
	  Goals: [...document.querySelectorAll("#settings-goals .manage li .grow")].map((x) => x.textContent),
	  Funnels: [...document.querySelectorAll("#settings-funnels .manage li .grow")].map((x) => x.textContent),
	  Links: [...document.querySelectorAll("#settings-links .manage li .grow, #link-url")].map((x) => x.textContent),
	})`))
	b.Screenshot(t, tab, "settings")
	// Goals are listed by id; a funnel's steps are the first goals until changed.
	if strings.Join(got.Goals, "|") != "Signup event Signup|Thanks visit of /thanks" || strings.Join(got.Funnels, "|") != "Thanks then signup Signup → Thanks" ||
		len(got.Links) != 2 || !strings.Contains(got.Links[1], "/share/shop.test?auth=") {
		t.Errorf("listed %+v", got)
	}
	// What the API holds.
	var goals struct {
		Goals []struct{ ID, Name, Kind, Match string }
	}
	e.call(http.MethodGet, "/api/v1/sites/shop.test/goals", nil, &goals)
	if len(goals.Goals) != 2 || goals.Goals[1].ID != "thanks" || goals.Goals[1].Match != "/thanks" || goals.Goals[0].Kind != "event" {
		t.Errorf("goals stored: %+v", goals)
	}
	b.Do(t, tab, "back to the dashboard",
		chromedp.Click(chromedp.CSS(".settings-head .back")),
		chromedp.WaitVisible(chromedp.CSS("#goals-list .empty")),
		chromedp.WaitVisible(chromedp.CSS("#funnel-steps")),
	)
	if txt := browsertest.Run(t, b, tab, "read the goals panel", chromedp.Text(chromedp.CSS("#goals-list"))); !strings.Contains(txt, "No conversions in this range") {
		t.Errorf("the goals panel with goals says %q", txt)
	}

	b.Do(t, tab, "the site list",
		chromedp.Click(chromedp.CSS("#all-sites")),
		chromedp.WaitVisible(chromedp.CSS("#new-site")),
		chromedp.SendKeys(chromedp.CSS("#site-domains"), "https://blog.test/"),
		chromedp.SetValue(chromedp.CSS("#site-id"), "blog.test"),
		chromedp.Click(chromedp.CSS(`#new-site button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(fieldError("new-site", "domains"))),
	)
	b.Screenshot(t, tab, "site-refused")
	b.Do(t, tab, "the domain fixed",
		chromedp.SetValue(chromedp.CSS("#site-domains"), "blog.test"),
		chromedp.Click(chromedp.CSS(`#new-site button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#snippet")),
	)
	loc := browsertest.Run(t, b, tab, "read the URL", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("site") != "blog.test" {
		t.Errorf("after adding a site the page is %s", loc)
	}
	b.Screenshot(t, tab, "new-site")
	noErrors(t, con)
}

// TestDashboard_Phone: at 390 px wide the dashboard and the settings fit
// the width: nothing runs past the viewport's right edge, so nothing
// scrolls sideways or is cut.
func TestDashboard_Phone(t *testing.T) {
	e := newDashboardEnv(t)
	e.seed("phone.test", "", time.Hour, 5*time.Hour, 30*time.Hour)
	const overflow = `(() => {
	  const w = document.documentElement.clientWidth;
	  const out = [...document.querySelectorAll("main *")].filter((el) => {
	    const r = el.getBoundingClientRect();
	    return r.width > 0 && r.right > w + 0.5 && !el.closest("svg");
	  }).map((el) => el.tagName + "." + el.className + "#" + el.id);
	  return {Scroll: document.documentElement.scrollWidth, Width: w, Out: out.slice(0, 10)};
	})()`
	type fit struct {
		Scroll, Width int
		Out           []string
	}
	for _, page := range []struct{ name, path, ready string }{
		{"dashboard", "/?site=phone.test&period=7d", "#panel-sources-list .row"},
		{"settings", "/?site=phone.test&view=settings", "#new-goal"},
		{"sites", "/?view=sites", "#new-site"},
	} {
		tab, con := e.dashboard(page.path, 390, chromedp.WaitVisible(chromedp.CSS(page.ready)), chromedp.WaitVisible(chromedp.CSS("main")))
		if page.name == "dashboard" {
			e.browser.Do(t, tab, "wait for the chart", chromedp.WaitVisible(chromedp.CSS("svg.chart")))
		}
		got := browsertest.Run(t, e.browser, tab, "measure "+page.name, chromedp.Evaluate[fit](overflow))
		if got.Scroll > got.Width || len(got.Out) > 0 {
			t.Errorf("%s at 390 px: scroll width %d of %d, past the edge: %v", page.name, got.Scroll, got.Width, got.Out)
		}
		e.browser.Screenshot(t, tab, page.name)
		noErrors(t, con)
	}
}

// TestDashboard_FilterOnDefaultRange: on the default range (the last 30
// days), a click on the top source filters the view: a chip, the filter
// in the URL, and figures that are the Stats API's answer to the
// filtered query; the same filter over the last 12 months, which reach
// past the raw hits' retention (read from the days' hit buckets), shows
// the Stats API's answer too, hits of 200 days ago counted.
func TestDashboard_FilterOnDefaultRange(t *testing.T) {
	e := newDashboardEnv(t)
	e.seed("filter.test", "", 26*time.Hour, 50*time.Hour, 74*time.Hour, 10*24*time.Hour)
	e.seedPast("filter.test", 200*24*time.Hour, 201*24*time.Hour, 202*24*time.Hour, 203*24*time.Hour)
	tab, con := e.dashboard("/?site=filter.test", 1280, chromedp.WaitVisible(chromedp.CSS("#panel-sources-list .row")), chromedp.WaitVisible(chromedp.CSS(`#figures [data-metric="visitors"]`)))
	b := e.browser
	src := browsertest.Run(t, b, tab, "read the top source", chromedp.Evaluate[string](`document.querySelector("#panel-sources-list .row").dataset.key`))
	b.Do(t, tab, "filter by it", chromedp.Click(chromedp.CSS("#panel-sources-list .row")), chromedp.WaitVisible(chromedp.CSS(".chip")))
	loc := browsertest.Run(t, b, tab, "read the URL", chromedp.Location())
	if u, err := url.Parse(loc); err != nil || u.Query().Get("f") != "is,visit:source,"+src {
		t.Errorf("the URL %s does not hold the filter on source %s", loc, src)
	}
	visitors := func(dateRange string) string {
		t.Helper()
		var answer struct {
			Results []struct{ Metrics []float64 }
			Error   string
		}
		status := e.call(http.MethodPost, "/api/v2/query", map[string]any{"site_id": "filter.test", "date_range": dateRange, "metrics": []string{"visitors"},
			"filters": [][]any{{"is", "visit:source", []string{src}}}}, &answer)
		if status != http.StatusOK || len(answer.Results) != 1 {
			t.Fatalf("the filtered query over %s: status %d: %s", dateRange, status, answer.Error)
		}
		return fmt.Sprint(answer.Results[0].Metrics[0])
	}
	want := visitors("30d")
	b.Do(t, tab, "wait for the filtered figures", chromedp.WaitVisible(chromedp.CSS(`#figures [data-metric="visitors"][data-value="`+want+`"]`)))
	b.Screenshot(t, tab, "filtered")
	noErrors(t, con)

	year := visitors("12mo")
	if year == want {
		t.Errorf("the filtered visitors of 12 months (%s) are those of 30 days: the hits of 200 days ago are not counted", year)
	}
	tab, con = e.dashboard("/?site=filter.test&period=12mo&f="+url.QueryEscape("is,visit:source,"+src), 1280,
		chromedp.WaitVisible(chromedp.CSS(".chip")),
		chromedp.WaitVisible(chromedp.CSS(`#figures [data-metric="visitors"][data-value="`+year+`"]`)),
		chromedp.WaitVisible(chromedp.CSS("svg.chart[data-last]")))
	if n := browsertest.Run(t, b, tab, "count the error notices", chromedp.Evaluate[int](`document.querySelectorAll(".notice.error").length`)); n != 0 {
		t.Errorf("%d error notices on the filtered 12 months", n)
	}
	b.Screenshot(t, tab, "filtered-12mo")
	noErrors(t, con)
}

// TestDashboard_Exclusions: an admin sets a site's excluded addresses
// and pages in its settings: a bad CIDR range is refused with the API's
// message next to its field; the fixed ranges and patterns are saved
// (normalised by the API), shown again when the settings reopen, and the
// collect endpoint drops a hit of an excluded page at once. The "exclude
// my visits" card links to each domain's page with the switch.
func TestDashboard_Exclusions(t *testing.T) {
	e := newDashboardEnv(t)
	e.seed("shop.test", "", time.Hour)
	b := e.browser
	tab, con := e.dashboard("/?site=shop.test&view=settings", 1280, chromedp.WaitVisible(chromedp.CSS("#site-excluded-ips")))
	b.Do(t, tab, "a bad CIDR range",
		chromedp.SetValue(chromedp.CSS("#site-excluded-ips"), "127.0.0.1\n127.0.0.0/33"),
		chromedp.Click(chromedp.CSS(`#site-settings button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(fieldError("site-settings", "excluded_ips"))),
	)
	msg := browsertest.Run(t, b, tab, "read the message", chromedp.Text(chromedp.CSS(fieldError("site-settings", "excluded_ips"))))
	if !strings.Contains(msg, `IP range "127.0.0.0/33"`) || !strings.Contains(msg, "CIDR") {
		t.Errorf("the range's message is %q, want the API's", msg)
	}
	b.Screenshot(t, tab, "exclusions-refused")
	b.Do(t, tab, "the range fixed",
		chromedp.SetValue(chromedp.CSS("#site-excluded-ips"), "127.0.0.9/8, 2001:db8::5/32"),
		chromedp.SetValue(chromedp.CSS("#site-excluded-paths"), "/admin/**\n/preview/*"),
		chromedp.Click(chromedp.CSS(`#site-settings button[type="submit"]`)),
	)
	browsertest.Run(t, b, tab, "wait for the save", chromedp.Poll[bool](`document.querySelector(".settings-head [role=status]").textContent == "Saved."`))
	var st struct {
		ExcludedIPs   []string `json:"excluded_ips"`
		ExcludedPaths []string `json:"excluded_paths"`
	}
	e.call(http.MethodGet, "/api/v1/sites/shop.test", nil, &st)
	if strings.Join(st.ExcludedIPs, " ") != "127.0.0.0/8 2001:db8::/32" || strings.Join(st.ExcludedPaths, " ") != "/admin/** /preview/*" {
		t.Errorf("stored %+v", st)
	}
	req, err := http.NewRequest(http.MethodPost, e.api+"/api/event", strings.NewReader(`{"n":"pageview","u":"http://shop.test/preview/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The test's client, 127.0.0.1, is excluded too: its reason comes first.
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("X-Timetable-Dropped") != "excluded_ip" {
		t.Errorf("a hit after the save: %s, dropped %q", resp.Status, resp.Header.Get("X-Timetable-Dropped"))
	}

	b.Do(t, tab, "reopen the settings",
		chromedp.Navigate(e.api+"/?site=shop.test&view=settings"),
		chromedp.WaitVisible(chromedp.CSS("#ignore-links")),
	)
	type form struct{ IPs, Paths, On, Off string }
	got := browsertest.Run(t, b, tab, "read the form", chromedp.Evaluate[form](`({
	  IPs: document.getElementById("site-excluded-ips").value, Paths: document.getElementById("site-excluded-paths").value,
	  On: document.querySelector('#ignore-links a[data-switch="on"]').href, Off: document.querySelector('#ignore-links a[data-switch="off"]').href})`))
	if got.IPs != "127.0.0.0/8\n2001:db8::/32" || got.Paths != "/admin/**\n/preview/*" ||
		got.On != "https://shop.test/#timetable-ignore=on" || got.Off != "https://shop.test/#timetable-ignore=off" {
		t.Errorf("the settings show %+v", got)
	}
	b.Screenshot(t, tab, "exclusions")
	noErrors(t, con)
}
