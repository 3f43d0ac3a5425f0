package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/auth"
)

// TestQueryToken_OnlyOnInfluxV1Write: a token in the query parameter p is
// taken by POST /write (InfluxDB 1.x clients send it so) and refused with
// 401 and the reason on every other route, whatever the token may do.
func TestQueryToken_OnlyOnInfluxV1Write(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	admin := e.mintToken("admin", auth.ScopeAdmin, nil)
	e.token = admin
	e.defineSensor()
	e.token = ""
	line := "SENSOR,series=a temperature=1\n"
	e.post("/write?db=x&u=me&p="+admin, "text/plain", line).must(t, http.StatusNoContent)
	e.post("/write?p="+admin, "text/plain", line).must(t, http.StatusNoContent)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v1/kinds?p=" + admin, ""},
		{"GET", "/api/v1/kinds/SENSOR/series/a/latest?u=me&p=" + admin, ""},
		{"GET", "/api/v1/tokens?p=" + admin, ""},
		{"POST", "/api/v2/write?org=o&bucket=b&p=" + admin, line},
		{"POST", "/api/v1/write?p=" + admin, line},
		{"POST", "/api/v1/kinds?p=" + admin, `{"name":"VIA_URL","fields":["x"]}`},
		{"GET", "/metrics?p=" + admin, ""},
		{"GET", "/healthz?p=" + admin, ""},
		{"GET", "/write?p=" + admin, ""},
	} {
		a := e.do(c.method, c.path, "text/plain", strings.NewReader(c.body))
		if a.status != http.StatusUnauthorized || a.errorCode(t) != "unauthenticated" || !strings.Contains(string(a.body), "Authorization header") {
			t.Errorf("%s %s: %d %s, want 401 naming the Authorization header", c.method, c.path, a.status, a.body)
		}
	}
	e.token = admin
	e.get("/api/v1/kinds/VIA_URL").must(t, http.StatusNotFound)
	// The header still works everywhere, with or without a p in the query.
	e.get("/api/v1/kinds").must(t, http.StatusOK)
	e.post("/write?p=tt_other", "text/plain", line).must(t, http.StatusNoContent)

	// Without tokens the query is nobody's business.
	open := newEnv(t, envOptions{})
	open.get("/api/v1/kinds?p=x").must(t, http.StatusOK)
}
