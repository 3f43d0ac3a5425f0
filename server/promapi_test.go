package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/auth"
)

// TestPrometheusAPI_Access: serve's Prometheus query API answers under
// the read scope, in Prometheus' error format, and a token limited to
// kinds sees the metrics of those kinds only. SENSOR_humidity is absent:
// series s1 gets its location from its readings, read for the lookup,
// and none has a humidity.
func TestPrometheusAPI_Access(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	e.token = e.mintToken("admin", auth.ScopeAdmin, nil)
	e.defineSensor()
	e.postJSON("/api/v1/kinds", map[string]any{"name": "OTHER", "fields": []string{"value"}}).must(t, 201)
	e.post("/api/v1/write", "text/plain", "SENSOR,series=s1 temperature=21.5\nOTHER,host=a value=1\n").must(t, 204)

	type promAnswer struct {
		Status, ErrorType, Error string
		Data                     []string
	}
	var a promAnswer
	e.token = ""
	e.get("/api/v1/label/__name__/values").must(t, http.StatusUnauthorized).json(t, &a)
	if a.Status != "error" || a.ErrorType == "" || a.Error == "" {
		t.Errorf("401 not in Prometheus' format: %+v", a)
	}
	e.token = e.mintToken("writer", auth.ScopeWrite, nil)
	e.get("/api/v1/labels").must(t, http.StatusForbidden).json(t, &a)
	if a.Status != "error" || !strings.Contains(a.Error, "read") {
		t.Errorf("403 %+v", a)
	}

	e.token = e.mintToken("reader", auth.ScopeRead, nil)
	a = promAnswer{}
	e.get("/api/v1/label/__name__/values").must(t, 200).json(t, &a)
	if strings.Join(a.Data, " ") != "OTHER SENSOR_temperature" {
		t.Errorf("every kind: %v", a.Data)
	}
	e.token = e.mintToken("sensors", auth.ScopeRead, []string{"SENSOR"})
	a = promAnswer{}
	e.get("/api/v1/label/__name__/values").must(t, 200).json(t, &a)
	if strings.Join(a.Data, " ") != "SENSOR_temperature" {
		t.Errorf("a token limited to SENSOR: %v", a.Data)
	}
	body := e.post("/api/v1/query", "application/x-www-form-urlencoded", "query=count(OTHER)%20or%20vector(0)").must(t, 200).body
	if !strings.Contains(string(body), `"resultType":"vector"`) || !strings.Contains(string(body), `"0"]`) {
		t.Errorf("a token limited to SENSOR counts OTHER: %s", body)
	}
}
