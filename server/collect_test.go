package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/collect"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/internal/geoiptest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/server"
	"github.com/timetable-db/timetable/table"
)

// browserUA is a desktop Firefox's user agent.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// collectEnv is a server with web analytics on and a site "shop" with the
// domain shop.example.
type collectEnv struct {
	*env
	analytics *analytics.Store
}

func newCollectEnv(t *testing.T, o collect.Options, more ...func(*server.Config)) *collectEnv {
	t.Helper()
	ce := &collectEnv{}
	ce.env = newEnv(t, envOptions{config: func(c *server.Config) {
		a := openAnalytics(t, ce.dbOf(c))
		ce.analytics = a
		c.Analytics = a
		c.Collect = o
		for _, f := range more {
			f(c)
		}
	}})
	if err := ce.analytics.CreateSite(context.Background(), analytics.Site{ID: "shop", Domains: []string{"shop.example"}}); err != nil {
		t.Fatal(err)
	}
	return ce
}

// dbOf returns the engine under the series store the config serves.
func (ce *collectEnv) dbOf(c *server.Config) timetable.API { return c.Store.Table().API() }

// hit posts a payload to /api/event as Plausible's tracker does, from a
// browser, with more headers as name, value pairs.
func (e *env) hit(payload string, header ...string) answer {
	e.t.Helper()
	return e.do(http.MethodPost, "/api/event", "text/plain", strings.NewReader(payload), append([]string{"User-Agent", browserUA}, header...)...)
}

// stored is a hit as the analytics table holds it.
type stored struct {
	SK           string            `dynamodbav:"sk"`
	VisitorID    string            `dynamodbav:"visitorId"`
	Path         string            `dynamodbav:"path"`
	Name         string            `dynamodbav:"name"`
	Source       string            `dynamodbav:"source"`
	Referrer     string            `dynamodbav:"referrer"`
	Country      string            `dynamodbav:"country"`
	Browser      string            `dynamodbav:"browser"`
	OS           string            `dynamodbav:"os"`
	Device       string            `dynamodbav:"device"`
	Interactive  *bool             `dynamodbav:"interactive"`
	UTM          map[string]string `dynamodbav:"utm"`
	Props        map[string]string `dynamodbav:"props"`
	EngagementMs int64             `dynamodbav:"engagementMs"`
	ScrollDepth  int               `dynamodbav:"scrollDepth"`
}

// hits returns the page views and events of site, page views first, each
// in time order.
func (ce *collectEnv) hits(site string) []stored {
	ce.t.Helper()
	var out []stored
	for _, prefix := range []string{"PV#", "EVENT#"} {
		q := &table.Query{Hash: "SITE#" + site, Range: table.BeginsWith(prefix), Consistent: true}
		for it, err := range ce.analytics.Table().QueryAll(context.Background(), q) {
			if err != nil {
				ce.t.Fatal(err)
			}
			var h stored
			if err := attributevalue.UnmarshalMap(it, &h); err != nil {
				ce.t.Fatal(err)
			}
			out = append(out, h)
		}
	}
	return out
}

func TestCollect_PageViewThenEvent(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	a := ce.hit(`{"n":"pageview","v":36,"u":"https://shop.example/shoes?utm_source=newsletter&utm_medium=email&utm_campaign=spring","d":"shop.example","r":"https://www.google.com/search?q=shoes"}`)
	a.must(t, http.StatusAccepted)
	if string(a.body) != "ok" || a.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("answer %q, CORS %q", a.body, a.header.Get("Access-Control-Allow-Origin"))
	}
	ce.hit(`{"n":"Signup","u":"https://shop.example/shoes","d":"shop.example","r":null,"p":{"plan":"pro","seats":3,"trial":true,"none":null}}`).must(t, http.StatusAccepted)

	hs := ce.hits("shop")
	if len(hs) != 2 {
		t.Fatalf("%d hits stored, want 2: %+v", len(hs), hs)
	}
	pv, ev := hs[0], hs[1]
	if pv.Path != "/shoes" || pv.Source != "newsletter" || pv.UTM["medium"] != "email" || pv.UTM["campaign"] != "spring" ||
		pv.Referrer != "https://www.google.com/search" || pv.Browser != "Firefox" || pv.OS != "GNU/Linux" || pv.Device != "Desktop" {
		t.Errorf("page view stored as %+v", pv)
	}
	if ev.Name != "Signup" || ev.Path != "/shoes" || ev.Interactive == nil || !*ev.Interactive {
		t.Errorf("event stored as %+v", ev)
	}
	if want := map[string]string{"plan": "pro", "seats": "3", "trial": "true"}; !mapsEqual(ev.Props, want) {
		t.Errorf("props %v, want %v", ev.Props, want)
	}
	if pv.VisitorID == "" || pv.VisitorID != ev.VisitorID {
		t.Errorf("visitor ids %q and %q: want one", pv.VisitorID, ev.VisitorID)
	}
	if strings.Contains(pv.VisitorID, "127.0.0.1") {
		t.Errorf("the visitor id holds the address: %q", pv.VisitorID)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// metric returns the value of the sample of /metrics whose line starts
// with prefix (name and labels), -1 if there is none.
func (e *env) metric(prefix string) float64 {
	e.t.Helper()
	for line := range strings.SplitSeq(string(e.get("/metrics").must(e.t, 200).body), "\n") {
		if rest, ok := strings.CutPrefix(line, prefix+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				e.t.Fatal(err)
			}
			return v
		}
	}
	return -1
}

func TestCollect_PlausiblePayloads(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	// As Plausible's tracker sends them: hash routing, props as a JSON
	// string (older scripts), a non-interactive event, an engagement event.
	for _, p := range []string{
		`{"n":"pageview","v":36,"u":"https://shop.example/app#/cart?x=1","d":"shop.example","r":"https://l.facebook.com/","h":1}`,
		`{"n":"pageview","u":"https://www.shop.example/blog/?gclid=abc","d":"shop.example","r":null,"w":1440,"h":0,"p":"{\"author\":\"ann\"}"}`,
		`{"n":"Scrolled","v":36,"u":"https://shop.example/blog/","d":"shop.example","r":null,"i":false}`,
		`{"n":"engagement","sd":73,"d":"shop.example","u":"https://shop.example/blog/","p":{"author":"ann"},"e":5210,"v":36}`,
	} {
		ce.hit(p).must(t, http.StatusAccepted)
	}
	hs := ce.hits("shop")
	if len(hs) != 4 {
		t.Fatalf("%d hits stored: %+v", len(hs), hs)
	}
	// The two page views may share a millisecond, and then their order is
	// their random ids': find each by its path.
	views := map[string]stored{}
	for _, h := range hs[:2] {
		views[h.Path] = h
	}
	if h, ok := views["/app#/cart?x=1"]; !ok || h.Source != "Facebook" {
		t.Errorf("hash-mode page view stored as %+v (page views: %+v)", h, hs[:2])
	}
	if h, ok := views["/blog/"]; !ok || h.Source != "Google Ads" || h.Props["author"] != "ann" {
		t.Errorf("page view with a click id stored as %+v (page views: %+v)", h, hs[:2])
	}
	var scrolled, engaged stored
	for _, h := range hs[2:] {
		switch h.Name {
		case "Scrolled":
			scrolled = h
		case "engagement":
			engaged = h
		}
	}
	if scrolled.Interactive == nil || *scrolled.Interactive {
		t.Errorf("i:false stored as %+v", scrolled)
	}
	if engaged.EngagementMs != 5210 || engaged.ScrollDepth != 73 {
		t.Errorf("engagement stored as %+v", engaged)
	}
	if n := ce.metric("timetable_analytics_events_accepted_total"); n != 4 {
		t.Errorf("accepted %v, want 4", n)
	}
}

func TestCollect_SiteFromHostAndSubdomain(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	// No d: the site is the page's host's, or its parent domain's.
	ce.hit(`{"n":"pageview","u":"https://shop.example/a"}`).must(t, http.StatusAccepted)
	ce.hit(`{"n":"pageview","u":"https://blog.shop.example/b"}`).must(t, http.StatusAccepted)
	// d as the site id and as the domain.
	ce.hit(`{"n":"pageview","u":"https://shop.example/c","d":"shop"}`).must(t, http.StatusAccepted)
	if hs := ce.hits("shop"); len(hs) != 3 {
		t.Fatalf("%d hits stored, want 3", len(hs))
	}
}

func TestCollect_Refused(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	for _, c := range []struct {
		payload string
		status  int
		code    string
		msg     string
	}{
		{`{"n":"pageview","u":"https://elsewhere.example/","d":"shop.example"}`, 403, "permission_denied", "not one of the domains of site \"shop\""},
		{`{"n":"pageview","u":"https://notshop.example/","d":"shop.example"}`, 403, "permission_denied", "not one of the domains"},
		{`{"n":"pageview","u":"https://shop.example/","d":"nosuch.example"}`, 404, "not_found", "unknown site \"nosuch.example\""},
		{`{"n":"pageview","u":"https://nosuch.example/"}`, 404, "not_found", "no site has the domain"},
		{`{"n":"pageview","u":"/relative","d":"shop.example"}`, 400, "invalid_argument", "want an http or https URL"},
		{`{"n":"pageview"`, 400, "invalid_argument", "payload"},
		{`{"n":"pageview","u":"https://shop.example/","p":{"k":"` + strings.Repeat("v", 600) + `"}}`, 400, "invalid_argument", "property k"},
		{`{"n":"pageview","u":"https://shop.example/","p":"` + strings.Repeat("v", 20000) + `"}`, 413, "too_large", "limit"},
	} {
		a := ce.hit(c.payload).must(t, c.status)
		var e struct{ Error, Message string }
		a.json(t, &e)
		if e.Error != c.code || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%.60s: %s %q, want %s mentioning %q", c.payload, e.Error, e.Message, c.code, c.msg)
		}
		if a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%.60s: the error has no CORS header: a browser could not read it", c.payload)
		}
	}
	if hs := ce.hits("shop"); len(hs) != 0 {
		t.Errorf("refused hits stored: %+v", hs)
	}
	if n := ce.metric(`timetable_analytics_events_refused_total{reason="foreign_domain"}`); n != 2 {
		t.Errorf("refused for a foreign domain: %v, want 2", n)
	}
	if n := ce.metric(`timetable_analytics_events_refused_total{reason="unknown_site"}`); n != 2 {
		t.Errorf("refused for an unknown site: %v, want 2", n)
	}
}

func TestCollect_BotsAndSpamDropped(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{BotRanges: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, SpamReferrers: []string{"spam.example"}})
	pv := `{"n":"pageview","u":"https://shop.example/","d":"shop.example"}`
	// Every client here is 127.0.0.1, in the bot ranges.
	ce.hit(pv).must(t, http.StatusAccepted)
	if n := ce.metric(`timetable_analytics_events_dropped_total{reason="bot_ip"}`); n != 1 {
		t.Errorf("dropped for the address: %v, want 1", n)
	}

	ce = newCollectEnv(t, collect.Options{SpamReferrers: []string{"spam.example"}})
	for _, c := range []struct{ ua, referrer, reason string }{
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "", "headless"},
		{"Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0)", "", "bot"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", "", "headless"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Playwright/1.49", "", "headless"},
		{"", "", "no_agent"},
		{browserUA, "https://semalt.com/x", "spam"},
		{browserUA, "https://www.sub.spam.example/", "spam"},
	} {
		p := `{"n":"pageview","u":"https://shop.example/","d":"shop.example","r":"` + c.referrer + `"}`
		a := ce.do(http.MethodPost, "/api/event", "text/plain", strings.NewReader(p), "User-Agent", c.ua).must(t, http.StatusAccepted)
		// The answer says why, in a header a page's script may read.
		if got := a.header.Get("X-Timetable-Dropped"); got != c.reason || a.header.Get("Access-Control-Expose-Headers") != "X-Timetable-Dropped" {
			t.Errorf("user agent %q, referrer %q: X-Timetable-Dropped %q (exposed: %q), want %q", c.ua, c.referrer, got,
				a.header.Get("Access-Control-Expose-Headers"), c.reason)
		}
	}
	if hs := ce.hits("shop"); len(hs) != 0 {
		t.Errorf("bots' hits stored: %+v", hs)
	}
	for reason, want := range map[string]float64{"headless": 3, "bot": 1, "no_agent": 1, "spam": 2, "bot_ip": 0} {
		if n := ce.metric(`timetable_analytics_events_dropped_total{reason="` + reason + `"}`); n != want {
			t.Errorf("dropped as %s: %v, want %v", reason, n, want)
		}
	}
	// Positive control: a person's hit with a real referrer is recorded.
	a := ce.hit(`{"n":"pageview","u":"https://shop.example/","d":"shop.example","r":"https://duckduckgo.com/"}`).must(t, http.StatusAccepted)
	if got := a.header.Get("X-Timetable-Dropped"); got != "" {
		t.Errorf("a hit recorded says it was dropped: %q", got)
	}
	if hs := ce.hits("shop"); len(hs) != 1 || hs[0].Source != "DuckDuckGo" {
		t.Errorf("a person's hit stored as %+v", hs)
	}
}

func TestCollect_RateLimit(t *testing.T) {
	clk := testenv.NewClock(time.Now())
	ce := newCollectEnv(t, collect.Options{RateLimit: 1, RateBurst: 2, Now: clk.Now})
	pv := `{"n":"pageview","u":"https://shop.example/","d":"shop.example"}`
	ce.hit(pv).must(t, http.StatusAccepted)
	ce.hit(pv).must(t, http.StatusAccepted)
	a := ce.hit(pv).must(t, http.StatusTooManyRequests)
	if a.errorCode(t) != "rate_limited" || a.header.Get("Retry-After") != "1" {
		t.Errorf("429 with %s, Retry-After %q", a.body, a.header.Get("Retry-After"))
	}
	clk.Advance(time.Second)
	ce.hit(pv).must(t, http.StatusAccepted)
	if hs := ce.hits("shop"); len(hs) != 3 {
		t.Errorf("%d hits stored, want 3", len(hs))
	}
}

func TestCollect_Country(t *testing.T) {
	db, err := collect.OpenGeoIP(geoiptest.Write(t, map[string]geoiptest.Record{"127.0.0.0/16": {Country: "DE"}, "127.1.0.0/16": {Registered: "FR"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ce := newCollectEnv(t, collect.Options{CountryHeader: "CF-IPCountry", GeoIP: db,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	for _, c := range []struct{ header, forwarded, want string }{
		{"jp", "", "JP"},          // the CDN's header first
		{"XX", "", "DE"},          // unknown to the CDN: the database's
		{"", "", "DE"},            // 127.0.0.1
		{"", "127.1.2.3", "FR"},   // the forwarded address's, registered country
		{"", "127.200.0.1", ""},   // not in the database
		{"T1", "127.200.0.1", ""}, // Tor
	} {
		h := []string{}
		if c.header != "" {
			h = append(h, "CF-IPCountry", c.header)
		}
		if c.forwarded != "" {
			h = append(h, "X-Forwarded-For", c.forwarded)
		}
		ce.hit(`{"n":"`+c.want+`x","u":"https://shop.example/","d":"shop.example"}`, h...).must(t, http.StatusAccepted)
	}
	for _, h := range ce.hits("shop") {
		if want := strings.TrimSuffix(h.Name, "x"); h.Country != want {
			t.Errorf("country %q, want %q", h.Country, want)
		}
	}
}

func TestCollect_TrustedProxies(t *testing.T) {
	ctx := context.Background()
	pv := `{"n":"pageview","u":"https://shop.example/","d":"shop.example"}`
	visitor := func(ce *collectEnv, ip string) string {
		v, err := ce.analytics.VisitorID(ctx, "shop", ip, browserUA)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Trusted: the visitor is the forwarded address.
	ce := newCollectEnv(t, collect.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	ce.hit(pv, "X-Forwarded-For", "127.9.9.9, 127.0.0.5").must(t, http.StatusAccepted)
	ce.hit(pv, "X-Real-IP", "127.8.8.8").must(t, http.StatusAccepted)
	hs := ce.hits("shop")
	if len(hs) != 2 || hs[0].VisitorID == hs[1].VisitorID {
		t.Fatalf("hits %+v", hs)
	}
	got := map[string]bool{hs[0].VisitorID: true, hs[1].VisitorID: true}
	if !got[visitor(ce, "127.9.9.9")] || !got[visitor(ce, "127.8.8.8")] {
		t.Errorf("visitors %v are not 127.9.9.9's and 127.8.8.8's", got)
	}
	// Not trusted: the headers are ignored, the visitor is the peer.
	ce = newCollectEnv(t, collect.Options{})
	ce.hit(pv, "X-Forwarded-For", "127.9.9.9").must(t, http.StatusAccepted)
	if hs := ce.hits("shop"); len(hs) != 1 || hs[0].VisitorID != visitor(ce, "127.0.0.1") {
		t.Errorf("untrusted X-Forwarded-For believed: %+v", hs)
	}
}

func TestCollect_CORSAndOff(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	a := ce.do(http.MethodOptions, "/api/event", "", nil, "Origin", "https://shop.example", "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "content-type").must(t, http.StatusNoContent)
	if a.header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(a.header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(a.header.Get("Access-Control-Allow-Headers")), "content-type") {
		t.Errorf("preflight headers %v", a.header)
	}
	// Without an analytics store: 404 with the reason.
	e := newEnv(t, envOptions{})
	for _, a := range []answer{
		e.hit(`{"n":"pageview","u":"https://shop.example/"}`),
		e.post("/api/v1/sites/shop/events", "application/json", `[]`),
	} {
		a.must(t, http.StatusNotFound)
		var b struct{ Error, Message string }
		a.json(t, &b)
		if b.Message != "web analytics are off" {
			t.Errorf("answer %s", a.body)
		}
	}
}

func TestCollect_Batch(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	now := time.Now().UTC()
	batch := fmt.Sprintf(`[
	 {"time":%q,"name":"pageview","url":"https://shop.example/a?utm_source=mail","ip":"127.0.0.7","user_agent":%q},
	 {"time":%q,"name":"Signup","url":"/a","ip":"127.0.0.7","user_agent":%q,"props":{"plan":"pro"}},
	 {"name":"pageview","url":"/b","visitor_id":"server-visitor-1","country":"nl"}
	]`, now.Add(-time.Hour).Format(time.RFC3339), browserUA, now.Add(-59*time.Minute).Format(time.RFC3339), browserUA)
	a := ce.post("/api/v1/sites/shop/events", "application/json", batch).must(t, http.StatusOK)
	var got struct{ Recorded int }
	a.json(t, &got)
	if got.Recorded != 3 {
		t.Fatalf("recorded %d", got.Recorded)
	}
	hs := ce.hits("shop")
	if len(hs) != 3 {
		t.Fatalf("%d hits stored", len(hs))
	}
	v, _ := ce.analytics.VisitorID(context.Background(), "shop", "127.0.0.7", browserUA)
	if hs[0].Path != "/a" || hs[0].Source != "mail" || hs[0].VisitorID != v || hs[0].Browser != "Firefox" ||
		hs[2].Props["plan"] != "pro" || hs[1].VisitorID != "server-visitor-1" || hs[1].Country != "NL" {
		t.Errorf("stored %+v", hs)
	}
	// JSON lines.
	lines := "{\"name\":\"pageview\",\"url\":\"/c\",\"visitor_id\":\"v2\"}\n{\"name\":\"pageview\",\"url\":\"/d\",\"visitor_id\":\"v2\"}\n"
	ce.post("/api/v1/sites/shop/events", "application/x-ndjson", lines).must(t, http.StatusOK)
	if hs := ce.hits("shop"); len(hs) != 5 {
		t.Fatalf("%d hits stored after the lines, want 5", len(hs))
	}
	// All or nothing: the bad event is named and nothing is stored.
	for _, c := range []struct{ body, msg string }{
		{`[{"name":"pageview","url":"/e","visitor_id":"v"},{"name":"pageview","url":"/f"}]`, "event 1: "},
		{`[{"name":"pageview","url":"/e","visitor_id":"v"},{"name":"pageview","url":"/f","visitor_id":"v","time":"2001-01-01T00:00:00Z"}]`, "event 1: "},
		{`[{"name":"pageview","url":"/e","visitor_id":"v"},{"name":"pageview","url":"/f","visitor_id":"v","shape":1}]`, "event 1: "},
		{`[{"name":"pageview","url":"nope","visitor_id":"v"}]`, "event 0: "},
		{`[{"name":"pageview","url":"/e","visitor_id":"v","country":"Narnia"}]`, "event 0: "},
	} {
		a := ce.post("/api/v1/sites/shop/events", "application/json", c.body).must(t, http.StatusBadRequest)
		var e struct{ Error, Message string }
		a.json(t, &e)
		if !strings.HasPrefix(e.Message, c.msg) {
			t.Errorf("%s: %q, want it to start with %q", c.body, e.Message, c.msg)
		}
	}
	if hs := ce.hits("shop"); len(hs) != 5 {
		t.Errorf("%d hits stored after refused batches, want 5", len(hs))
	}
	ce.post("/api/v1/sites/nosuch/events", "application/json", `[{"name":"pageview","url":"/","visitor_id":"v"}]`).must(t, http.StatusNotFound)
}

func TestCollect_BatchNeedsWriteScope(t *testing.T) {
	ce := &collectEnv{}
	ce.env = newEnv(t, envOptions{auth: true, config: func(c *server.Config) {
		a := openAnalytics(t, ce.dbOf(c))
		ce.analytics, c.Analytics = a, a
	}})
	if err := ce.analytics.CreateSite(context.Background(), analytics.Site{ID: "shop", Domains: []string{"shop.example"}}); err != nil {
		t.Fatal(err)
	}
	body := `[{"name":"pageview","url":"/","visitor_id":"v"}]`
	ce.post("/api/v1/sites/shop/events", "application/json", body).must(t, http.StatusUnauthorized)
	for scope, status := range map[auth.Scope]int{auth.ScopeRead: http.StatusForbidden, auth.ScopeWrite: http.StatusOK} {
		secret, _, err := ce.auth.CreateToken(context.Background(), string(scope), []auth.Scope{scope}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ce.token = secret
		ce.post("/api/v1/sites/shop/events", "application/json", body).must(t, status)
	}
	// A write token limited to other sites may not send this one's events;
	// one limited to it may.
	for sites, status := range map[string]int{"blog": http.StatusForbidden, "shop": http.StatusOK} {
		secret, _, err := ce.auth.CreateTokenForSites(context.Background(), "site "+sites, []auth.Scope{auth.ScopeWrite}, nil, []string{sites})
		if err != nil {
			t.Fatal(err)
		}
		ce.token = secret
		ce.post("/api/v1/sites/shop/events", "application/json", body).must(t, status)
	}
	// The browser's route needs no token.
	ce.token = ""
	ce.hit(`{"n":"pageview","u":"https://shop.example/"}`).must(t, http.StatusAccepted)
}

// TestCollect_SiteExclusions: a site's exclusions changed through the
// sites API drop the server's next hit they exclude, answered 202 with
// the reason in X-Timetable-Dropped and counted in the dropped metric.
func TestCollect_SiteExclusions(t *testing.T) {
	ce := newCollectEnv(t, collect.Options{})
	view := func(path string) string {
		t.Helper()
		return ce.hit(`{"n":"pageview","u":"https://shop.example`+path+`"}`).must(t, http.StatusAccepted).header.Get("X-Timetable-Dropped")
	}
	put := func(body string) {
		t.Helper()
		ce.do(http.MethodPut, "/api/v1/sites/shop", "application/json", strings.NewReader(body)).must(t, http.StatusOK)
	}
	if got := view("/admin/x"); got != "" {
		t.Fatalf("before the exclusions: dropped %q", got)
	}
	put(`{"domains":["shop.example"],"excluded_ips":["127.0.0.0/8"]}`) // the test's client is 127.0.0.1
	if got := view("/admin/x"); got != "excluded_ip" {
		t.Errorf("a hit from an excluded address: dropped %q, want excluded_ip", got)
	}
	put(`{"domains":["shop.example"],"excluded_ips":["::1"],"excluded_paths":["/admin/**"]}`)
	if got := view("/admin/x"); got != "excluded_path" {
		t.Errorf("a hit of an excluded path: dropped %q, want excluded_path", got)
	}
	if got := view("/pricing"); got != "" {
		t.Errorf("a hit of another path: dropped %q", got)
	}
	for reason, want := range map[string]float64{"excluded_ip": 1, "excluded_path": 1} {
		if n := ce.metric(`timetable_analytics_events_dropped_total{reason="` + reason + `"}`); n != want {
			t.Errorf("dropped as %s: %v, want %v", reason, n, want)
		}
	}
	// Two hits of one millisecond are stored in the order of their
	// random ids: compare the paths, not their order.
	if hs := ce.hits("shop"); len(hs) != 2 || !slices.ContainsFunc(hs, func(h stored) bool { return h.Path == "/admin/x" }) ||
		!slices.ContainsFunc(hs, func(h stored) bool { return h.Path == "/pricing" }) {
		t.Errorf("stored %+v, want the hits before the exclusions and the one not excluded", hs)
	}
}
