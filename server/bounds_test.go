package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/server"
)

// message returns the "message" of an error answer.
func (a answer) message(t *testing.T) string {
	t.Helper()
	var e struct{ Error, Message string }
	a.json(t, &e)
	return e.Message
}

// TestAggregate_HugeRangeRefused: the aggregate of the finding (years
// 0001-9999 at the hourly tier, on a series that does not exist) is
// refused 400 naming the bound on periods, as is a step of months that
// overflowed; a range within the bound answers.
func TestAggregate_HugeRangeRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	a := e.get("/api/v1/kinds/SENSOR/series/nope/aggregate?from=0001-01-02T00:00:00Z&to=9999-12-31T00:00:00Z&tier=hour")
	if a.status != http.StatusBadRequest || !strings.Contains(a.message(t), "more than the 10000 one aggregate may produce") {
		t.Errorf("years 0001-9999 by month: %d %s", a.status, a.body)
	}
	e.get("/api/v1/kinds/SENSOR/series/nope/aggregate?from=0001-01-02T00:00:00Z&to=9999-12-31T00:00:00Z&step=12mo&tier=hour").must(t, http.StatusOK)
	if a := e.get("/api/v1/kinds/SENSOR/series/nope/aggregate?from=2024-01-01T00:00:00Z&step=99999999999mo").must(t, http.StatusBadRequest); !strings.Contains(a.message(t), "months from 1 to 120000") {
		t.Errorf("a step of 99999999999 months: %s", a.body)
	}
	small := newEnv(t, envOptions{config: func(c *server.Config) { c.MaxPeriods = 24 }})
	small.defineSensor()
	small.get("/api/v1/kinds/SENSOR/series/s/aggregate?from=2024-01-01T00:00:00Z&to=2024-01-02T00:00:00Z&step=1h").must(t, http.StatusOK)
	if a := small.get("/api/v1/kinds/SENSOR/series/s/aggregate?from=2024-01-01T00:00:00Z&to=2024-01-02T01:00:00Z&step=1h").must(t, http.StatusBadRequest); !strings.Contains(a.message(t), "25 periods of 1h0m0s, more than the 24") {
		t.Errorf("25 hours, at most 24 periods: %s", a.body)
	}
}

// oneReadingEnv returns a server with kind SENSOR and one reading, of
// series s1 at t0.
func oneReadingEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, envOptions{})
	e.defineSensor()
	e.postJSON("/api/v1/kinds/SENSOR/readings", map[string]any{"readings": []map[string]any{
		{"series": "s1", "time": t0.Format(time.RFC3339), "values": map[string]float64{"temperature": 20}},
	}}).must(t, http.StatusNoContent)
	return e
}

// TestParseTime_ZeroTime: 0001-01-01T00:00:00Z, Go's zero time, is a real
// bound when a client gives it, not a missing one.
func TestParseTime_ZeroTime(t *testing.T) {
	e := oneReadingEnv(t)
	for _, zero := range []string{"0001-01-01T00:00:00Z", "-62135596800000"} {
		var agg struct{ Periods []struct{ Count int } }
		e.get("/api/v1/kinds/SENSOR/series/s1/aggregate?step=12mo&from="+url.QueryEscape(zero)).must(t, http.StatusOK).json(t, &agg)
		if len(agg.Periods) != 1 || agg.Periods[0].Count != 1 {
			t.Errorf("aggregate from %s: %+v", zero, agg)
		}
		var page struct{ Readings []any }
		e.get("/api/v1/kinds/SENSOR/series/s1/readings?from="+url.QueryEscape(zero)).must(t, http.StatusOK).json(t, &page)
		if len(page.Readings) != 1 {
			t.Errorf("readings from %s: %+v", zero, page)
		}
		// As an upper bound it excludes everything after it.
		e.get("/api/v1/kinds/SENSOR/series/s1/readings?to="+url.QueryEscape(zero)).must(t, http.StatusOK).json(t, &page)
		if len(page.Readings) != 0 {
			t.Errorf("readings to %s: %+v", zero, page)
		}
	}
}

// TestWrite_FarFutureRefused: a reading more than MaxFuture (an hour)
// ahead of the clock is refused 400 naming the bound, in every format,
// and the series' latest reading stays the real one.
func TestWrite_FarFutureRefused(t *testing.T) {
	e := oneReadingEnv(t)
	for _, far := range []time.Time{time.Now().Add(2 * time.Hour), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)} {
		for name, a := range map[string]answer{
			"JSON": e.postJSON("/api/v1/kinds/SENSOR/readings", map[string]any{"readings": []map[string]any{
				{"series": "s1", "time": far.Format(time.RFC3339), "values": map[string]float64{"temperature": 99}},
			}}),
			"CSV":           e.post("/api/v1/kinds/SENSOR/readings", "text/csv", fmt.Sprintf("series,time,temperature\ns1,%d,99\n", ms(far))),
			"line protocol": e.post("/api/v1/write?precision=ms", "text/plain", fmt.Sprintf("SENSOR,series=s1 temperature=99 %d\n", ms(far))),
		} {
			if a.status != http.StatusBadRequest || !strings.Contains(a.message(t), "more than 1h0m0s ahead of the clock") {
				t.Errorf("%s at %v: %d %s, want 400 naming the bound", name, far, a.status, a.body)
			}
		}
	}
	var latest struct{ Time string }
	e.get("/api/v1/kinds/SENSOR/series/s1/latest").must(t, http.StatusOK).json(t, &latest)
	if latest.Time != t0.Format("2006-01-02T15:04:05.000Z07:00") {
		t.Errorf("latest %s, want %s", latest.Time, t0)
	}
}

// TestWrite_InvalidUTF8SameEverywhere: a series id or tag that is not
// UTF-8 is refused 400 naming it, from JSON (whose decoder would store
// U+FFFD in its place), JSON lines, CSV and line protocol alike, and
// nothing is stored.
func TestWrite_InvalidUTF8SameEverywhere(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.defineSensor()
	bad := "s\xff1"
	tm := ms(t0)
	for _, c := range []struct {
		name, path, ctype, body, want string
	}{
		{"JSON id", "/api/v1/kinds/SENSOR/readings", "application/json", fmt.Sprintf(`[{"series":"%s","time":%d,"values":{"temperature":1}}]`, bad, tm), "series id is not UTF-8"},
		{"JSON tag", "/api/v1/kinds/SENSOR/readings", "application/json", fmt.Sprintf(`[{"series":"s1","time":%d,"tags":{"location":"%s"}}]`, tm, bad), `tag "location" is not UTF-8`},
		{"JSON key", "/api/v1/kinds/SENSOR/readings", "application/json", fmt.Sprintf(`[{"series":"s1","time":%d,"tags":{"%s":"x"}}]`, tm, bad), "not UTF-8"},
		{"JSON lines id", "/api/v1/kinds/SENSOR/readings", "application/x-ndjson", fmt.Sprintf(`{"series":"%s","time":%d}`, bad, tm), "series id is not UTF-8"},
		{"JSON lines tag", "/api/v1/kinds/SENSOR/readings", "application/x-ndjson", fmt.Sprintf(`{"series":"s1","time":%d,"tags":{"location":"%s"}}`, tm, bad), `tag "location" is not UTF-8`},
		{"CSV id", "/api/v1/kinds/SENSOR/readings", "text/csv", fmt.Sprintf("series,time,temperature\n%s,%d,1\n", bad, tm), "not UTF-8"},
		{"CSV tag", "/api/v1/kinds/SENSOR/readings", "text/csv", fmt.Sprintf("series,time,location\ns1,%d,%s\n", tm, bad), "not UTF-8"},
		{"line protocol id", "/api/v1/write?precision=ms", "text/plain", fmt.Sprintf("SENSOR,series=%s temperature=1 %d\n", bad, tm), "tag is not UTF-8"},
		{"line protocol tag", "/api/v1/write?precision=ms", "text/plain", fmt.Sprintf("SENSOR,series=s1,location=%s temperature=1 %d\n", bad, tm), "not UTF-8"},
		{"line protocol kind", "/api/v1/write?precision=ms", "text/plain", fmt.Sprintf("SENS\xffOR,series=s1 temperature=1 %d\n", tm), "kind is not UTF-8"},
	} {
		a := e.post(c.path, c.ctype, c.body)
		if a.status != http.StatusBadRequest || !strings.Contains(a.message(t), c.want) {
			t.Errorf("%s: %d %s, want 400 naming %q", c.name, a.status, a.body, c.want)
		}
	}
	var list struct{ Series []string }
	e.get("/api/v1/kinds/SENSOR/series").must(t, http.StatusOK).json(t, &list)
	if len(list.Series) != 0 {
		t.Errorf("stored series %q, want none", list.Series)
	}
}

// TestRequestTimeout: a read that runs past Config.RequestTimeout stops
// at the next check of its context and is answered 504 naming the limit
// (a limit of a nanosecond has passed by the first check).
func TestRequestTimeout(t *testing.T) {
	e := newEnv(t, envOptions{config: func(c *server.Config) { c.RequestTimeout = time.Nanosecond }})
	e.defineSensor()
	var b strings.Builder
	b.WriteString("series,time,temperature\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "s1,%d,%d\n", ms(t0)+int64(i)*1000, i)
	}
	e.post("/api/v1/kinds/SENSOR/readings", "text/csv", b.String()).must(t, http.StatusNoContent)
	a := e.get("/api/v1/kinds/SENSOR/series/s1/aggregate?step=1m&from=" + url.QueryEscape(t0.Format(time.RFC3339)))
	if a.status != http.StatusGatewayTimeout || !strings.Contains(a.message(t), "took longer than 1ns") {
		t.Errorf("aggregate past the limit: %d %s", a.status, a.body)
	}
	// A range read: its table pages check the context.
	a = e.get("/api/v1/kinds/SENSOR/series/s1/readings?limit=10")
	if a.status != http.StatusGatewayTimeout || !strings.Contains(a.message(t), "took longer than 1ns") {
		t.Errorf("readings past the limit: %d %s", a.status, a.body)
	}
	// The analytics' reads and the Stats API.
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	ae := newEnv(t, envOptions{analytics: func() time.Time { return now }, config: func(c *server.Config) { c.RequestTimeout = time.Nanosecond }})
	ae.post("/api/v1/sites", "application/json", `{"id":"blog","public":true}`).must(t, http.StatusCreated)
	for name, a := range map[string]answer{
		"realtime":  ae.get("/api/v1/sites/blog/realtime"),
		"Stats API": ae.post("/api/v2/query", "application/json", `{"site_id":"blog","metrics":["visitors"],"date_range":"7d","dimensions":["time:day"]}`),
	} {
		if a.status != http.StatusGatewayTimeout || !strings.Contains(a.message(t), "took longer than 1ns") {
			t.Errorf("%s past the limit: %d %s", name, a.status, a.body)
		}
	}
}
