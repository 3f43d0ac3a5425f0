package server_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/browsertest"
)

// seedDashboard records a week of visits to site "demo" (pages, sources,
// a goal), aggregates them, and records a few hits of the last minute for
// the realtime counter.
func seedDashboard(t *testing.T, st *analytics.Store) {
	t.Helper()
	ctx := context.Background()
	if err := st.PutGoal(ctx, "demo", analytics.Goal{ID: "signup", Name: "Signup", Kind: analytics.GoalEvent, Match: "Signup"}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutGoal(ctx, "demo", analytics.Goal{ID: "pricing", Name: "Visit /pricing", Kind: analytics.GoalPage, Match: "/pricing"}); err != nil {
		t.Fatal(err)
	}
	if err := st.PutFunnel(ctx, "demo", analytics.Funnel{ID: "buy", Name: "Pricing to signup", Steps: []string{"pricing", "signup"}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	today := now.Truncate(24 * time.Hour)
	referrers := []string{"https://www.google.com/search?q=timetable", "https://news.ycombinator.com/item?id=1", "", "https://www.google.com/"}
	record := func(e analytics.Event) {
		t.Helper()
		if err := st.Record(ctx, e); err != nil {
			t.Fatalf("record %+v: %v", e, err)
		}
	}
	for day := 1; day <= 6; day++ {
		for v := 0; v < 4+day; v++ {
			at := today.AddDate(0, 0, -day).Add(time.Duration(9+v) * time.Hour)
			visitor := fmt.Sprintf("v%d-%d", day, v)
			base := analytics.Event{Site: "demo", VisitorID: visitor, Country: []string{"DE", "US", "FR"}[v%3],
				Browser: []string{"Firefox", "Chrome"}[v%2], OS: "Linux", Device: "Desktop", Referrer: referrers[v%len(referrers)]}
			pv := base
			pv.Name, pv.Path, pv.Time = analytics.PageView, "/", at
			record(pv)
			if v%2 == 0 {
				pv.Path, pv.Time, pv.Referrer = "/pricing", at.Add(time.Minute), ""
				record(pv)
			}
			if v%3 == 0 {
				ev := base
				ev.Name, ev.Path, ev.Time, ev.Referrer = "Signup", "/pricing", at.Add(2*time.Minute), ""
				ev.Props = map[string]string{"plan": []string{"pro", "free"}[v%2]}
				record(ev)
			}
		}
	}
	if _, err := st.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 3; v++ {
		record(analytics.Event{Site: "demo", Name: analytics.PageView, VisitorID: fmt.Sprintf("live%d", v), Path: "/docs",
			Time: now.Add(-30 * time.Second), Country: "DE", Browser: "Firefox"})
	}
}

// statsAnswer is what the test reads of a Stats API answer.
type statsAnswer struct {
	Results []struct {
		Metrics    []float64 `json:"metrics"`
		Dimensions []string  `json:"dimensions"`
	} `json:"results"`
}

// rendered is what the test reads off the dashboard.
type rendered struct {
	Visitors, VisitorsText string
	TopPage, TopPageViews  string
	Source, SourceVisits   string
	Goals                  []struct{ Key, Value, Text string }
	Realtime               string
	SitePicker, ReadOnly   bool
	Chips                  []string
	Focus                  string
}

const readDashboard = `(() => {
  const q = (s) => document.querySelector(s);
  const fig = q('#figures [data-metric="visitors"]');
  const page = q('#panel-pages-list .row');
  const src = q('#panel-sources-list .row');
  return {
    Visitors: fig.dataset.value, VisitorsText: fig.querySelector('.value').textContent,
    TopPage: page.dataset.key, TopPageViews: page.dataset.value,
    Source: src.dataset.key, SourceVisits: src.dataset.value,
    Goals: [...document.querySelectorAll('#goals-list .row')].map((r) => ({Key: r.dataset.key, Value: r.dataset.value, Text: r.querySelector('.v').textContent})),
    Realtime: q('#realtime-count').dataset.value,
    SitePicker: !!q('#site'), ReadOnly: !!q('.readonly'),
    Chips: [...document.querySelectorAll('.chip > span')].map((c) => c.textContent),
    Focus: document.activeElement ? document.activeElement.className : "",
  };
})()`

// loaded waits until every figure the test reads is on the page.
var loaded = chromedp.Steps(
	chromedp.WaitVisible(chromedp.CSS(`#figures [data-metric="visitors"]`)),
	chromedp.WaitVisible(chromedp.CSS(`#panel-pages-list .row`)),
	chromedp.WaitVisible(chromedp.CSS(`#panel-sources-list .row`)),
	chromedp.WaitVisible(chromedp.CSS(`#goals-list .row`)),
	chromedp.WaitVisible(chromedp.CSS(`#funnel-steps`)),
	chromedp.WaitVisible(chromedp.CSS(`#realtime-count[data-value]:not([data-value=""])`)),
)

// TestDashboard_Browser serves the dashboard with analytics and auth over
// the embedded engine, signs in with a token in headless Chromium, and
// checks that what the page shows is what the Stats API answers; then a
// click on a source filters the view; a site without data shows its
// script tag; a shared link shows the site read-only and a wrong slug is
// refused. Screenshots (desktop and phone)
// go to the harness's folder.
func TestDashboard_Browser(t *testing.T) {
	b := browsertest.Start(t, nil)
	st := newAnalytics(t)
	seedDashboard(t, st)
	e := newEnv(t, envOptions{auth: true, config: withAnalytics(t, st)})
	secret := e.mintToken("dashboard", auth.ScopeRead, nil)
	slug, _, err := st.CreateSharedLink(context.Background(), "demo", "browser test")
	if err != nil {
		t.Fatal(err)
	}
	e.token = secret

	// The Stats API's answers, asked as the dashboard asks them.
	askOver := func(period string, q map[string]any) statsAnswer {
		t.Helper()
		q["site_id"] = "demo"
		q["date_range"] = period
		var a statsAnswer
		e.postJSON("/api/v2/query", q).must(t, 200).json(t, &a)
		return a
	}
	ask := func(q map[string]any) statsAnswer { t.Helper(); return askOver("7d", q) }
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	total := ask(map[string]any{"metrics": []string{"visitors"}})
	pages := ask(map[string]any{"metrics": []string{"pageviews"}, "dimensions": []string{"event:page"}, "order_by": [][]string{{"pageviews", "desc"}}})
	sources := ask(map[string]any{"metrics": []string{"visits"}, "dimensions": []string{"visit:source"}, "order_by": [][]string{{"visits", "desc"}}})
	goals := ask(map[string]any{"metrics": []string{"visits", "conversion_rate"}, "dimensions": []string{"event:goal"}})
	var live struct{ Visitors float64 }
	e.get("/api/v1/sites/demo/realtime").must(t, 200).json(t, &live)
	if total.Results[0].Metrics[0] == 0 || len(goals.Results) == 0 || live.Visitors != 3 {
		t.Fatalf("the seed did not take: visitors %v, goals %v, realtime %v", total, goals, live)
	}

	tab := b.Tab(t)
	var (
		mu              sync.Mutex
		foreign, thrown []string
	)
	listen := func(tab context.Context) {
		err := chromedp.Listen(tab, func(ev any) {
			mu.Lock()
			defer mu.Unlock()
			switch ev := ev.(type) {
			case *network.EventRequestWillBeSent:
				u, err := url.Parse(ev.Request.URL)
				if err != nil || u.Scheme != "data" && u.Hostname() != "127.0.0.1" {
					foreign = append(foreign, ev.Request.URL)
				}
			case *runtime.EventExceptionThrown:
				d := ev.ExceptionDetails
				msg := d.Text
				if d.Exception != nil {
					msg += " " + d.Exception.Description
				}
				thrown = append(thrown, msg)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	listen(tab)
	base := e.http.URL
	b.Do(t, tab, "open the sign-in page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	hint := browsertest.Run(t, b, tab, "read the token hint", chromedp.Text(chromedp.CSS("#token-hint")))
	if !strings.Contains(hint, "timetable token create --scopes read") {
		t.Errorf("the sign-in hint %q does not give the flag --scopes", hint)
	}
	// The token typed and Enter pressed, as a person signs in: the only
	// site opens.
	b.Do(t, tab, "sign in", chromedp.SendKeys(chromedp.CSS("#token"), secret+"\r"), loaded)
	if loc := browsertest.Run(t, b, tab, "read the URL", chromedp.Location()); !strings.Contains(loc, "site=demo") {
		t.Errorf("after sign-in the page is %s, not the only site's dashboard", loc)
	}
	b.Do(t, tab, "open the site", chromedp.Navigate(base+"/?site=demo&period=7d"), loaded)
	got := browsertest.Run(t, b, tab, "read the dashboard", chromedp.Evaluate[rendered](readDashboard))
	want := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s: the page shows %q, the Stats API says %q", what, got, want)
		}
	}
	v := total.Results[0].Metrics[0]
	want("visitors", got.Visitors, num(v))
	want("visitors text", got.VisitorsText, num(v))
	want("top page", got.TopPage, pages.Results[0].Dimensions[0])
	want("top page's views", got.TopPageViews, num(pages.Results[0].Metrics[0]))
	want("top source", got.Source, sources.Results[0].Dimensions[0])
	want("top source's visits", got.SourceVisits, num(sources.Results[0].Metrics[0]))
	want("realtime visitors", got.Realtime, num(live.Visitors))
	if len(got.Goals) != len(goals.Results) {
		t.Fatalf("goals: the page shows %v, the Stats API says %v", got.Goals, goals.Results)
	}
	for i, g := range goals.Results {
		want("goal", got.Goals[i].Key, g.Dimensions[0])
		want("goal conversions", got.Goals[i].Value, num(g.Metrics[0]))
		if cr := fmt.Sprintf("%.1f%%", g.Metrics[1]); !strings.HasSuffix(got.Goals[i].Text, cr) {
			t.Errorf("goal %s: the page shows %q, want the rate %s", g.Dimensions[0], got.Goals[i].Text, cr)
		}
	}
	if !got.SitePicker && got.ReadOnly {
		t.Errorf("the signed-in view is read-only: %+v", got)
	}
	// A read token sees no management control.
	if n := browsertest.Run(t, b, tab, "look for management controls", chromedp.Evaluate[int](
		`document.querySelectorAll("#settings-link, #add-goals, #add-funnels, #new-site").length`)); n != 0 {
		t.Errorf("a read token sees %d management controls", n)
	}
	b.Screenshot(t, tab, "desktop")

	// The keyboard reaches the skip link first, then the controls.
	b.Do(t, tab, "press tab", chromedp.KeyEvent("\t"))
	got = browsertest.Run(t, b, tab, "read the focus", chromedp.Evaluate[rendered](readDashboard))
	want("first focus", got.Focus, "skip")

	// A click on a source filters the dashboard by it, in the URL too.
	b.Do(t, tab, "filter by the top source",
		chromedp.Click(chromedp.CSS(`#panel-sources-list .row`)),
		chromedp.WaitVisible(chromedp.CSS(`.chip`)),
		loaded,
	)
	loc := browsertest.Run(t, b, tab, "read the URL", chromedp.Location())
	src := sources.Results[0].Dimensions[0]
	if !strings.Contains(loc, "f="+url.QueryEscape("is,visit:source,"+src)) {
		t.Errorf("the URL %s does not hold the filter on source %s", loc, src)
	}
	filtered := ask(map[string]any{"metrics": []string{"visitors"}, "filters": [][]any{{"is", "visit:source", []string{src}}}})
	b.Do(t, tab, "wait for the filtered figures", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#figures [data-metric="visitors"][data-value="%s"]`, num(filtered.Results[0].Metrics[0])))))
	b.Screenshot(t, tab, "filtered")

	// Filtered, the default range (last 30 days) and the last 12 months
	// reach past the raw hits' 30 days: they are computed from the hits
	// all the same, and show data, not a refusal.
	for _, period := range []string{"30d", "12mo"} {
		filtered := askOver(period, map[string]any{"metrics": []string{"visitors"}, "filters": [][]any{{"is", "visit:source", []string{src}}}})
		if len(filtered.Results) == 0 || filtered.Results[0].Metrics[0] == 0 {
			t.Fatalf("%s filtered by source %s: %+v, want visitors", period, src, filtered)
		}
		b.Do(t, tab, "filter "+period,
			chromedp.Navigate(base+"/?site=demo&period="+period+"&f="+url.QueryEscape("is,visit:source,"+src)),
			chromedp.WaitVisible(chromedp.CSS(`.chip`)),
			loaded,
			chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#figures [data-metric="visitors"][data-value="%s"]`, num(filtered.Results[0].Metrics[0])))),
		)
		notices := browsertest.Run(t, b, tab, "read the notices "+period, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('.notice.error:not([hidden]), [role="alert"]:not([hidden])')].map((n) => n.textContent).filter((s) => s)`))
		if len(notices) > 0 {
			t.Errorf("%s filtered by source: the page shows %q", period, notices)
		}
	}

	// A site without data shows how to add its script.
	if err := st.CreateSite(context.Background(), analytics.Site{ID: "empty", Domains: []string{"empty.test"}}); err != nil {
		t.Fatal(err)
	}
	b.Do(t, tab, "open a site without data", chromedp.Navigate(base+"/?site=empty"), chromedp.WaitVisible(chromedp.CSS("#snippet")))
	snippet := browsertest.Run(t, b, tab, "read the snippet", chromedp.Text(chromedp.CSS("#snippet")))
	if w := `<script defer data-domain="empty.test" src="` + base + `/js/script.js"></script>`; snippet != w {
		t.Errorf("the empty site's snippet is %q, want %q", snippet, w)
	}
	b.Screenshot(t, tab, "empty")

	b.Do(t, tab, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Navigate(base+"/?site=demo&period=7d"), loaded)
	b.Screenshot(t, tab, "phone")

	// A shared link: the site, read-only, without a token (a new tab has
	// its own session storage).
	share := b.Tab(t)
	listen(share)
	b.Do(t, share, "open the shared link", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/share/demo?auth="+url.QueryEscape(slug)+"&period=7d"), loaded)
	got = browsertest.Run(t, b, share, "read the shared view", chromedp.Evaluate[rendered](readDashboard))
	want("shared visitors", got.Visitors, num(v))
	if got.SitePicker || !got.ReadOnly {
		t.Errorf("the shared view is not read-only: %+v", got)
	}
	b.Screenshot(t, share, "shared")
	b.Do(t, share, "open a wrong shared link",
		chromedp.Navigate(base+"/share/demo?auth=0_0"),
		chromedp.WaitVisible(chromedp.CSS(`[role="alert"]`)),
	)
	refused := browsertest.Run(t, b, share, "read the refusal", chromedp.Text(chromedp.CSS(`[role="alert"]`)))
	if !strings.Contains(refused, "not valid") {
		t.Errorf("a wrong slug shows %q", refused)
	}
	// An admin token: the site list offers to add a site, the dashboard
	// links to the site's settings (a new tab: its own session storage).
	admin := b.Tab(t)
	listen(admin)
	b.Do(t, admin, "sign in as an admin", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), e.mintToken("admin", auth.ScopeAdmin, nil)+"\r"),
		chromedp.WaitVisible(chromedp.CSS("#new-site")), // two sites now: the list
		chromedp.Navigate(base+"/?site=demo"),
		chromedp.WaitVisible(chromedp.CSS("#settings-link")),
	)
	mu.Lock()
	defer mu.Unlock()
	if len(foreign) > 0 {
		t.Errorf("the dashboard made requests off the machine: %v", foreign)
	}
	if len(thrown) > 0 {
		t.Errorf("the dashboard's scripts threw: %v", thrown)
	}
}
