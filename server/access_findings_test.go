package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/timetable-db/timetable/auth"
)

// findingsEnv is an analytics server with an unlimited admin token, the
// kinds SENSOR and OTHER with a series, and the private sites blog and
// shop with a goal and a funnel each.
func findingsEnv(t *testing.T) (e *env, admin, adminID string) {
	t.Helper()
	e, _ = analyticsEnv(t)
	admin = e.token
	p, err := e.auth.Authenticate(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	e.defineSensor()
	e.as(admin, "POST", "/api/v1/kinds", `{"name":"OTHER","fields":["x"]}`).must(t, 201)
	ns := time.Now().Add(-time.Hour).UnixNano() // the server's clock is the analytics', in 2024
	e.as(admin, "POST", "/api/v1/write", fmt.Sprintf("SENSOR,series=s1 temperature=1 %d\nOTHER,series=s1 x=1 %d\n", ns, ns)).must(t, 204)
	for _, site := range []string{"blog", "shop"} {
		e.as(admin, "POST", "/api/v1/sites", `{"id":"`+site+`","domains":["`+site+`.example"]}`).must(t, 201)
		e.as(admin, "POST", "/api/v1/sites/"+site+"/goals", `{"id":"signup","kind":"pageview","match":"/signup"}`).must(t, 201)
		e.as(admin, "POST", "/api/v1/sites/"+site+"/goals", `{"id":"buy","kind":"event","match":"Buy"}`).must(t, 201)
		e.as(admin, "POST", "/api/v1/sites/"+site+"/funnels", `{"id":"f","steps":["signup","buy"]}`).must(t, 201)
	}
	return e, admin, p.ID()
}

// TestAccess_SiteLimitedAdminAdministersOnlyItsSites (issue 21, finding
// 2): an admin token limited to the site blog listed every token, revoked
// the global admin, created and changed kinds, and minted tokens and
// DynamoDB access keys reaching beyond blog. Token, key and kind
// administration needs an unlimited admin; a limited admin administers
// its sites only.
func TestAccess_SiteLimitedAdminAdministersOnlyItsSites(t *testing.T) {
	e, admin, adminID := findingsEnv(t)
	blogAdmin := e.mint([]auth.Scope{auth.ScopeAdmin}, []string{"blog"})

	e.as(blogAdmin, "GET", "/api/v1/tokens", "").must(t, http.StatusForbidden)
	e.as(blogAdmin, "DELETE", "/api/v1/tokens/"+adminID, "").must(t, http.StatusForbidden)
	e.as(admin, "GET", "/api/v1/tokens", "").must(t, http.StatusOK) // the global admin still works
	e.as(blogAdmin, "POST", "/api/v1/tokens", `{"name":"x","scopes":["read"]}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "POST", "/api/v1/tokens", `{"name":"x","scopes":["admin"],"sites":["blog"]}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "GET", "/api/v1/access-keys", "").must(t, http.StatusForbidden)
	e.as(blogAdmin, "POST", "/api/v1/access-keys", `{"name":"x"}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "POST", "/api/v1/access-keys", `{"name":"x","scopes":["read"]}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "POST", "/api/v1/kinds", `{"name":"MINE","fields":["x"]}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "PUT", "/api/v1/kinds/SENSOR", `{"name":"SENSOR","fields":["temperature","humidity","more"],"tags":["location"]}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "GET", "/api/v1/kinds/SENSOR/series/s1/latest", "").must(t, http.StatusForbidden)

	// Inside its site, it administers.
	e.as(blogAdmin, "PUT", "/api/v1/sites/blog", `{"name":"Blog"}`).must(t, http.StatusOK)
	e.as(blogAdmin, "POST", "/api/v1/sites/blog/shared-links", `{"name":"wiki"}`).must(t, http.StatusCreated)
	e.as(blogAdmin, "PUT", "/api/v1/sites/shop", `{"public":true}`).must(t, http.StatusForbidden)
	e.as(blogAdmin, "POST", "/api/v1/sites/shop/shared-links", `{"name":"wiki"}`).must(t, http.StatusForbidden)
}

// TestAccess_SiteLimitedTokensReachNoKind (issue 21, finding 2): read and
// write tokens limited to the site blog read, wrote and deleted every
// kind's series.
func TestAccess_SiteLimitedTokensReachNoKind(t *testing.T) {
	e, _, _ := findingsEnv(t)
	blogRead := e.mint([]auth.Scope{auth.ScopeRead}, []string{"blog"})
	blogWrite := e.mint([]auth.Scope{auth.ScopeWrite}, []string{"blog"})

	e.as(blogRead, "GET", "/api/v1/kinds/SENSOR/series/s1/latest", "").must(t, http.StatusForbidden)
	e.as(blogRead, "GET", "/api/v1/kinds/OTHER/series", "").must(t, http.StatusForbidden)
	e.as(blogRead, "GET", "/api/v1/kinds", "").must(t, http.StatusForbidden)
	e.as(blogWrite, "POST", "/api/v1/write", "SENSOR,series=s1 temperature=2\n").must(t, http.StatusForbidden)
	e.as(blogWrite, "POST", "/api/v1/kinds/SENSOR/readings", `{"readings":[]}`).must(t, http.StatusForbidden)
	e.as(blogWrite, "DELETE", "/api/v1/kinds/SENSOR/series/s1", "").must(t, http.StatusForbidden)
	e.as(blogWrite, "DELETE", "/api/v1/kinds/OTHER/series/s1", "").must(t, http.StatusForbidden)
	// Their site they reach.
	e.as(blogRead, "GET", "/api/v1/sites/blog/goals", "").must(t, http.StatusOK)
	e.as(blogWrite, "POST", "/api/v1/sites/blog/events", `[{"time":"2024-03-20T11:00:00Z","name":"pageview","url":"/a","visitor_id":"v1"}]`).must(t, http.StatusOK)
}

// TestAccess_KindLimitedTokensReachNoSite (issue 21, finding 3): the
// README's device token (write, limited to SENSOR) posted server-side
// events to any site, and a read token limited to SENSOR read every
// site's settings, goals, funnels and stats.
func TestAccess_KindLimitedTokensReachNoSite(t *testing.T) {
	e, _, _ := findingsEnv(t)
	device := e.mintToken("devices", auth.ScopeWrite, []string{"SENSOR"})
	reader := e.mintToken("sensor dashboards", auth.ScopeRead, []string{"SENSOR"})
	for _, site := range []string{"blog", "shop"} {
		e.as(device, "POST", "/api/v1/sites/"+site+"/events", `[{"time":"2024-03-20T11:00:00Z","name":"pageview","url":"/a","visitor_id":"v1"}]`).must(t, http.StatusForbidden)
		e.as(reader, "GET", "/api/v1/sites/"+site, "").must(t, http.StatusForbidden)
		e.as(reader, "GET", "/api/v1/sites/"+site+"/goals", "").must(t, http.StatusForbidden)
		e.as(reader, "GET", "/api/v1/sites/"+site+"/funnels", "").must(t, http.StatusForbidden)
		e.as(reader, "GET", "/api/v1/sites/"+site+"/funnels/f/steps", "").must(t, http.StatusForbidden)
		e.as(reader, "GET", "/api/v1/sites/"+site+"/realtime", "").must(t, http.StatusForbidden)
		e.as(reader, "POST", "/api/v2/query", `{"site_id":"`+site+`","metrics":["visitors"],"date_range":"7d"}`).must(t, http.StatusForbidden)
	}
	e.as(reader, "GET", "/api/v1/sites", "").must(t, http.StatusForbidden)
	// Their kind they reach.
	e.as(device, "POST", "/api/v1/write", fmt.Sprintf("SENSOR,series=s1 temperature=3 %d\n", time.Now().UnixNano())).must(t, http.StatusNoContent)
	e.as(reader, "GET", "/api/v1/kinds/SENSOR/series/s1/latest", "").must(t, http.StatusOK)
}
