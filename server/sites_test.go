package server_test

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
)

// analyticsEnv is a server with authentication and web analytics at a
// fixed clock, and an admin token.
func analyticsEnv(t *testing.T) (*env, time.Time) {
	t.Helper()
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, envOptions{auth: true, analytics: func() time.Time { return now }})
	e.token = e.mint([]auth.Scope{auth.ScopeAdmin}, nil)
	return e, now
}

// mint returns a new token's secret.
func (e *env) mint(scopes []auth.Scope, sites []string) string {
	e.t.Helper()
	secret, _, err := e.auth.CreateTokenForSites(context.Background(), "t", scopes, nil, sites)
	if err != nil {
		e.t.Fatal(err)
	}
	return secret
}

func (e *env) as(token string, method, path, body string, header ...string) answer {
	e.t.Helper()
	old := e.token
	e.token = token
	defer func() { e.token = old }()
	var ctype string
	if body != "" {
		ctype = "application/json"
	}
	return e.do(method, path, ctype, strings.NewReader(body), header...)
}

func TestSites_CRUDAndAccess(t *testing.T) {
	e, _ := analyticsEnv(t)
	admin := e.token
	e.as(admin, "POST", "/api/v1/sites", `{"id":"a","name":"A","domains":["a.example"],"time_zone":"Europe/Paris"}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites", `{"id":"b","public":true}`).must(t, 201)
	if c := e.as(admin, "POST", "/api/v1/sites", `{"id":"a"}`).must(t, 409).errorCode(t); c != "conflict" {
		t.Errorf("second create: %s", c)
	}
	e.as(admin, "POST", "/api/v1/sites", `{"id":"Bad Id"}`).must(t, 400)
	e.as(admin, "POST", "/api/v1/sites", `{"id":"c","time_zone":"Mars/Base"}`).must(t, 400)
	e.as(admin, "POST", "/api/v1/sites", `{"id":"c","bogus":1}`).must(t, 400)
	var st struct {
		ID       string
		TimeZone string `json:"time_zone"`
	}
	e.as(admin, "PUT", "/api/v1/sites/a", `{"name":"A2","time_zone":"Europe/Paris"}`).must(t, 200).json(t, &st)
	if st.TimeZone != "Europe/Paris" {
		t.Errorf("PUT answered %+v", st)
	}
	e.as(admin, "PUT", "/api/v1/sites/a", `{"id":"b"}`).must(t, 400)
	e.as(admin, "PUT", "/api/v1/sites/zz", `{}`).must(t, 404)

	// Site-scoped tokens.
	readA := e.mint([]auth.Scope{auth.ScopeRead}, []string{"a"})
	var list struct{ Sites []struct{ ID string } }
	e.as(readA, "GET", "/api/v1/sites", "").must(t, 200).json(t, &list)
	if len(list.Sites) != 1 || list.Sites[0].ID != "a" {
		t.Errorf("a token of site a lists %+v", list.Sites)
	}
	e.as(readA, "GET", "/api/v1/sites/a", "").must(t, 200)
	e.as(readA, "GET", "/api/v1/sites/b", "").must(t, 403) // public, but the token is not b's
	e.as(readA, "PUT", "/api/v1/sites/a", `{}`).must(t, 403)
	adminA := e.mint([]auth.Scope{auth.ScopeAdmin}, []string{"a"})
	e.as(adminA, "PUT", "/api/v1/sites/a", `{"name":"A3"}`).must(t, 200)
	e.as(adminA, "DELETE", "/api/v1/sites/b", "").must(t, 403)
	e.as(adminA, "POST", "/api/v1/sites", `{"id":"d"}`).must(t, 403)
	e.as(adminA, "POST", "/api/v1/tokens", `{"name":"x","scopes":["read"],"sites":["b"]}`).must(t, 403)
	// Tokens are administered by an unlimited admin only (finding 2).
	e.as(adminA, "POST", "/api/v1/tokens", `{"name":"x","scopes":["read"],"sites":["a"]}`).must(t, 403)

	// Without a token: public sites only, or a shared link.
	e.as("", "GET", "/api/v1/sites/a", "").must(t, 401)
	e.as("", "GET", "/api/v1/sites/b", "").must(t, 200)
	var link struct{ ID, Slug, URL string }
	e.as(admin, "POST", "/api/v1/sites/a/shared-links", `{"name":"wiki"}`).must(t, 201).json(t, &link)
	if link.Slug == "" || !strings.Contains(link.URL, link.Slug) {
		t.Fatalf("shared link %+v", link)
	}
	e.as("", "GET", "/api/v1/sites/a?auth="+link.Slug, "").must(t, 200)
	e.as("", "GET", "/api/v1/sites/a/goals", "", "X-Timetable-Share", link.Slug).must(t, 200)
	e.as("", "GET", "/api/v1/sites/b/goals?auth="+link.Slug, "").must(t, 200) // b is public anyway
	e.as(admin, "PUT", "/api/v1/sites/b", `{"public":false}`).must(t, 200)
	e.as("", "GET", "/api/v1/sites/b?auth="+link.Slug, "").must(t, 401)   // a's link, b's data
	e.as("", "PUT", "/api/v1/sites/a?auth="+link.Slug, `{}`).must(t, 401) // read-only
	var links struct {
		SharedLinks []struct{ ID, Slug string } `json:"shared_links"`
	}
	e.as(admin, "GET", "/api/v1/sites/a/shared-links", "").must(t, 200).json(t, &links)
	if len(links.SharedLinks) != 1 || links.SharedLinks[0].ID != link.ID || links.SharedLinks[0].Slug != "" {
		t.Errorf("shared links %+v", links)
	}
	e.as(admin, "DELETE", "/api/v1/sites/a/shared-links/"+link.ID, "").must(t, 204)
	e.as("", "GET", "/api/v1/sites/a?auth="+link.Slug, "").must(t, 401)

	// Goals and funnels.
	e.as(admin, "POST", "/api/v1/sites/a/goals", `{"id":"signup","kind":"pageview","match":"/signup/*"}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites/a/goals", `{"id":"buy","kind":"event","match":"Purchase"}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites/a/goals", `{"id":"x","kind":"other","match":"y"}`).must(t, 400)
	e.as(admin, "POST", "/api/v1/sites/a/funnels", `{"id":"f","name":"Buy","steps":["signup","buy"]}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites/a/funnels", `{"id":"g","steps":["signup","nope"]}`).must(t, 400)
	var goals struct{ Goals []struct{ ID string } }
	e.as(readA, "GET", "/api/v1/sites/a/goals", "").must(t, 200).json(t, &goals)
	if len(goals.Goals) != 2 {
		t.Errorf("goals %+v", goals)
	}
	var funnels struct{ Funnels []struct{ Steps []string } }
	e.as(readA, "GET", "/api/v1/sites/a/funnels", "").must(t, 200).json(t, &funnels)
	if len(funnels.Funnels) != 1 || len(funnels.Funnels[0].Steps) != 2 {
		t.Errorf("funnels %+v", funnels)
	}
	e.as(admin, "DELETE", "/api/v1/sites/a/funnels/f", "").must(t, 204)
	e.as(admin, "DELETE", "/api/v1/sites/a/goals/buy", "").must(t, 204)
	e.as(admin, "DELETE", "/api/v1/sites/a/goals/buy", "").must(t, 404)
	e.as(admin, "DELETE", "/api/v1/sites/a", "").must(t, 204)
	e.as(admin, "GET", "/api/v1/sites/a", "").must(t, 404)
}

func TestSites_NoAnalytics(t *testing.T) {
	e := newEnv(t, envOptions{})
	if c := e.get("/api/v1/sites").must(t, 404).errorCode(t); c != "not_found" {
		t.Errorf("code %s", c)
	}
}

func TestStats_QueryRealtimeFunnel(t *testing.T) {
	e, now := analyticsEnv(t)
	admin := e.token
	ctx := context.Background()
	e.as(admin, "POST", "/api/v1/sites", `{"id":"a"}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites/a/goals", `{"id":"signup","kind":"pageview","match":"/signup"}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites/a/goals", `{"id":"buy","kind":"event","match":"Purchase"}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites/a/funnels", `{"id":"f","steps":["signup","buy"]}`).must(t, 201)
	rec := func(ago time.Duration, visitor, name, path string) {
		t.Helper()
		if err := e.analytics.Record(ctx, analytics.Event{Site: "a", Time: now.Add(-ago), VisitorID: visitor, Name: name, Path: path, Country: "FR"}); err != nil {
			t.Fatal(err)
		}
	}
	rec(26*time.Hour, "v1", analytics.PageView, "/")
	rec(26*time.Hour-time.Minute, "v1", analytics.PageView, "/signup")
	rec(26*time.Hour-2*time.Minute, "v1", "Purchase", "/signup")
	rec(25*time.Hour, "v2", analytics.PageView, "/signup")
	rec(time.Minute, "v3", analytics.PageView, "/now")
	if _, err := e.analytics.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Results []struct {
			Metrics    []float64
			Dimensions []string
		}
		Meta struct {
			ComputedFrom string `json:"computed_from"`
		}
		Query struct {
			DateRange []string `json:"date_range"`
		} `json:"query"`
	}
	e.as(admin, "POST", "/api/v2/query", `{"site_id":"a","metrics":["visitors","pageviews","visits"],"date_range":"7d"}`).must(t, 200).json(t, &res)
	if len(res.Results) != 1 || res.Results[0].Metrics[0] != 2 || res.Results[0].Metrics[1] != 3 || res.Results[0].Metrics[2] != 2 ||
		res.Meta.ComputedFrom != "aggregates" || res.Query.DateRange[0] != "2024-03-13T00:00:00Z" {
		t.Errorf("7d summary: %+v", res)
	}
	e.as(admin, "POST", "/api/v2/query", `{"site_id":"a","metrics":["visitors"],"date_range":"7d","filters":[["is","event:page",["/signup"]]]}`).must(t, 200).json(t, &res)
	if len(res.Results) != 1 || res.Results[0].Metrics[0] != 2 || res.Meta.ComputedFrom != "raw_hits" {
		t.Errorf("filtered: %+v", res)
	}
	// Errors in Plausible's shape.
	var perr struct{ Error string }
	e.as(admin, "POST", "/api/v2/query", `{"site_id":"a","metrics":["nope"],"date_range":"7d"}`).must(t, 400).json(t, &perr)
	if !strings.Contains(perr.Error, `Invalid metric "nope"`) {
		t.Errorf("error %q", perr.Error)
	}
	// Beyond the raw retention, a query that needs the hits reads the hit
	// buckets (here none: those days had no hits); beyond the buckets'
	// retention (2 years) it is refused with the reason.
	e.as(admin, "POST", "/api/v2/query", `{"site_id":"a","metrics":["visitors"],"date_range":"91d","filters":[["is","visit:country",["FR"]]]}`).must(t, 200).json(t, &res)
	if len(res.Results) != 1 || res.Results[0].Metrics[0] != 2 {
		t.Errorf("91 days, filtered: %+v", res)
	}
	e.as(admin, "POST", "/api/v2/query", `{"site_id":"a","metrics":["visitors"],"date_range":["2021-06-01","2022-06-01"],"filters":[["is","visit:country",["FR"]]]}`).must(t, 400).json(t, &perr)
	if !strings.Contains(perr.Error, "must start on 2022-03-21 (UTC) or later") || strings.Contains(perr.Error, "needs the raw hits") {
		t.Errorf("beyond the buckets' retention: %q", perr.Error)
	}
	e.as(admin, "POST", "/api/v2/query", `{"site_id":"zz","metrics":["visitors"],"date_range":"7d"}`).must(t, 404)
	e.as("", "POST", "/api/v2/query", `{"site_id":"a","metrics":["visitors"],"date_range":"7d"}`).must(t, 401)
	e.as(e.mint([]auth.Scope{auth.ScopeRead}, []string{"b"}), "POST", "/api/v2/query", `{"site_id":"a","metrics":["visitors"],"date_range":"7d"}`).must(t, 403)

	var live struct {
		Visitors  int
		PageViews int `json:"pageviews"`
		Pages     []struct {
			Page     string
			Visitors int
		}
		Events []struct{ Name, Page, Country string }
	}
	e.as(admin, "GET", "/api/v1/sites/a/realtime", "").must(t, 200).json(t, &live)
	if live.Visitors != 1 || live.PageViews != 1 || len(live.Pages) != 1 || live.Pages[0].Page != "/now" || len(live.Events) != 1 || live.Events[0].Country != "FR" {
		t.Errorf("realtime %+v", live)
	}
	var steps struct {
		Steps []struct {
			Goal     string
			Visitors int
			DropOff  int `json:"drop_off"`
		}
	}
	e.as(admin, "GET", "/api/v1/sites/a/funnels/f/steps?date_range=7d", "").must(t, 200).json(t, &steps)
	if len(steps.Steps) != 2 || steps.Steps[0].Visitors != 2 || steps.Steps[1].Visitors != 1 || steps.Steps[1].DropOff != 1 {
		t.Errorf("funnel steps %+v", steps)
	}
	// A range reaching past the hits kept starts on the first day they
	// are kept, and says so; one within them is as asked.
	var clamped struct {
		DateRange [2]string `json:"date_range"`
		Warning   string
		Steps     []struct{ Visitors int }
	}
	e.as(admin, "GET", "/api/v1/sites/a/funnels/f/steps?date_range=91d", "").must(t, 200).json(t, &clamped)
	if clamped.Warning != "" || len(clamped.Steps) != 2 || clamped.Steps[0].Visitors != 2 {
		t.Errorf("a 91-day funnel: %+v, want its steps and no warning", clamped)
	}
	e.as(admin, "GET", "/api/v1/sites/a/funnels/f/steps?date_range=2022-01-01,2024-03-20", "").must(t, 200).json(t, &clamped)
	if clamped.Warning == "" || clamped.DateRange[0] != "2022-03-21T00:00:00Z" || len(clamped.Steps) != 2 || clamped.Steps[0].Visitors != 2 {
		t.Errorf("a funnel from 2022: %+v, want its start moved to 2022-03-21 with a warning", clamped)
	}
	e.as(admin, "GET", "/api/v1/sites/a/funnels/f/steps?date_range=bogus", "").must(t, 400)
	e.as(admin, "GET", "/api/v1/sites/a/funnels/nope/steps", "").must(t, 404)
}

// TestSites_Management: what the dashboard's management controls rely
// on: each site says whether the caller may manage it and the list
// whether it may create sites (an admin yes, a reader or another site's
// admin no); a refused value names its field; the property names of a
// site's custom events; an empty realtime window says when the latest
// page view was.
func TestSites_Management(t *testing.T) {
	e, now := analyticsEnv(t)
	admin := e.token
	e.as(admin, "POST", "/api/v1/sites", `{"id":"a","domains":["a.example"]}`).must(t, 201)
	e.as(admin, "POST", "/api/v1/sites", `{"id":"b"}`).must(t, 201)
	readA := e.mint([]auth.Scope{auth.ScopeRead}, []string{"a", "b"})
	adminA := e.mint([]auth.Scope{auth.ScopeAdmin}, []string{"a"})
	type site struct {
		ID        string
		CanManage bool `json:"can_manage"`
	}
	var list struct {
		Sites     []site
		CanCreate bool `json:"can_create"`
	}
	for _, c := range []struct {
		name, token string
		create      bool
		manage      map[string]bool
	}{
		{"admin", admin, true, map[string]bool{"a": true, "b": true}},
		{"reader", readA, false, map[string]bool{"a": false, "b": false}},
		{"admin of a", adminA, false, map[string]bool{"a": true}},
	} {
		list.Sites, list.CanCreate = nil, false
		e.as(c.token, "GET", "/api/v1/sites", "").must(t, 200).json(t, &list)
		got := map[string]bool{}
		for _, s := range list.Sites {
			got[s.ID] = s.CanManage
		}
		if list.CanCreate != c.create || !maps.Equal(got, c.manage) {
			t.Errorf("%s: can_create %v, can_manage %v; want %v, %v", c.name, list.CanCreate, got, c.create, c.manage)
		}
		var one site
		e.as(c.token, "GET", "/api/v1/sites/a", "").must(t, 200).json(t, &one)
		if one.CanManage != c.manage["a"] {
			t.Errorf("%s: GET site a: can_manage %v", c.name, one.CanManage)
		}
	}
	if e.as(admin, "PUT", "/api/v1/sites/a", `{"can_manage":true}`).must(t, 400).errorCode(t) != "invalid_argument" {
		t.Error("can_manage taken in a request")
	}

	// Each refused value names its field.
	field := func(method, path, body, want string) {
		t.Helper()
		var eb struct{ Error, Message, Field string }
		e.as(admin, method, path, body).must(t, 400).json(t, &eb)
		if eb.Field != want || eb.Message == "" {
			t.Errorf("%s %s %s: field %q (%s), want %q", method, path, body, eb.Field, eb.Message, want)
		}
	}
	field("POST", "/api/v1/sites", `{"id":"Bad Id"}`, "id")
	field("POST", "/api/v1/sites", `{"id":"c","domains":["https://c.example/"]}`, "domains")
	field("POST", "/api/v1/sites", `{"id":"c","time_zone":"Mars/Base"}`, "time_zone")
	field("PUT", "/api/v1/sites/a", `{"name":"`+strings.Repeat("n", 201)+`"}`, "name")
	field("POST", "/api/v1/sites/a/goals", `{"id":"","kind":"event","match":"x"}`, "id")
	field("POST", "/api/v1/sites/a/goals", `{"id":"g","kind":"click","match":"x"}`, "kind")
	field("POST", "/api/v1/sites/a/goals", `{"id":"g","kind":"pageview","match":"thanks"}`, "match")
	e.as(admin, "POST", "/api/v1/sites/a/goals", `{"id":"g","name":"Signup","kind":"event","match":"Signup"}`).must(t, 201)
	field("POST", "/api/v1/sites/a/funnels", `{"id":"f","steps":["g"]}`, "steps")
	field("POST", "/api/v1/sites/a/funnels", `{"id":"f","steps":["g","nope"]}`, "steps")
	field("POST", "/api/v1/sites/a/shared-links", `{"name":"`+strings.Repeat("n", 201)+`"}`, "name")
	// Not one value's: no field.
	var eb struct{ Field string }
	e.as(admin, "POST", "/api/v1/sites", `{"id":"a"}`).must(t, 409).json(t, &eb)
	if eb.Field != "" {
		t.Errorf("a conflict names field %q", eb.Field)
	}

	// Property names, over the default 30 days (to yesterday).
	ctx := context.Background()
	for i, props := range []map[string]string{{"plan": "pro"}, {"plan": "free", "seats": "3"}} {
		if err := e.analytics.Record(ctx, analytics.Event{Site: "a", Time: now.Add(-time.Duration(i+25) * time.Hour), VisitorID: "v", Name: "Signup", Path: "/", Props: props}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.analytics.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
	var props struct {
		Properties []struct {
			Name   string
			Events int
		}
	}
	e.as(readA, "GET", "/api/v1/sites/a/properties", "").must(t, 200).json(t, &props)
	if len(props.Properties) != 2 || props.Properties[0].Name != "plan" || props.Properties[0].Events != 2 || props.Properties[1].Name != "seats" {
		t.Errorf("properties %+v", props)
	}
	e.as(readA, "GET", "/api/v1/sites/a/properties?date_range=nope", "").must(t, 400)

	// The realtime window is empty: the latest page view's time says why.
	if err := e.analytics.Record(ctx, analytics.Event{Site: "a", Time: now.Add(-2 * time.Hour), VisitorID: "v", Name: analytics.PageView, Path: "/"}); err != nil {
		t.Fatal(err)
	}
	var live struct {
		Visitors int
		Latest   string `json:"latest_pageview"`
	}
	e.as(readA, "GET", "/api/v1/sites/a/realtime", "").must(t, 200).json(t, &live)
	if want := now.Add(-2 * time.Hour).Format("2006-01-02T15:04:05.000Z"); live.Visitors != 0 || live.Latest != want {
		t.Errorf("realtime %+v, want no visitors and latest_pageview %s", live, want)
	}
}

// TestSites_Exclusions: a site's excluded address ranges and path
// patterns are taken by PUT, answered normalised to its admins only, and
// refused with the field at fault when bad; a PUT without them clears
// them.
func TestSites_Exclusions(t *testing.T) {
	e, _ := analyticsEnv(t)
	admin := e.token
	e.as(admin, "POST", "/api/v1/sites", `{"id":"a","domains":["a.example"]}`).must(t, 201)
	var st struct {
		ExcludedIPs   []string `json:"excluded_ips"`
		ExcludedPaths []string `json:"excluded_paths"`
	}
	e.as(admin, "PUT", "/api/v1/sites/a", `{"domains":["a.example"],"excluded_ips":["2001:db8::5/32","127.0.0.1"],"excluded_paths":["/admin/**"]}`).must(t, 200).json(t, &st)
	if strings.Join(st.ExcludedIPs, " ") != "127.0.0.1 2001:db8::/32" || strings.Join(st.ExcludedPaths, " ") != "/admin/**" {
		t.Errorf("PUT answered %+v", st)
	}

	readA := e.mint([]auth.Scope{auth.ScopeRead}, []string{"a"})
	var seen map[string]any
	e.as(readA, "GET", "/api/v1/sites/a", "").must(t, 200).json(t, &seen)
	if _, ok := seen["excluded_paths"]; ok || seen["id"] != "a" {
		t.Errorf("a reader sees %v", seen)
	}
	seen = nil
	e.as(admin, "GET", "/api/v1/sites/a", "").must(t, 200).json(t, &seen)
	if _, ok := seen["excluded_ips"]; !ok {
		t.Errorf("an admin sees %v", seen)
	}

	for _, c := range []struct{ body, field string }{
		{`{"excluded_ips":["127.0.0.0/33"]}`, "excluded_ips"},
		{`{"excluded_ips":["example.com"]}`, "excluded_ips"},
		{`{"excluded_paths":["admin"]}`, "excluded_paths"},
		{`{"excluded_paths":["/a***"]}`, "excluded_paths"},
		{`{"excluded_ips":[` + strings.Repeat(`"127.0.0.1",`, analytics.MaxExcludedIPs) + `"127.0.0.2"]}`, "excluded_ips"},
	} {
		var ae struct{ Error, Message, Field string }
		e.as(admin, "PUT", "/api/v1/sites/a", c.body).must(t, 400).json(t, &ae)
		if ae.Field != c.field || ae.Message == "" {
			t.Errorf("PUT %.60s: %+v, want the field %s", c.body, ae, c.field)
		}
	}
	seen = nil // json merges into a map
	e.as(admin, "PUT", "/api/v1/sites/a", `{"domains":["a.example"]}`).must(t, 200).json(t, &seen)
	if _, ok := seen["excluded_ips"]; ok {
		t.Errorf("after a PUT without exclusions: %v", seen)
	}
}
