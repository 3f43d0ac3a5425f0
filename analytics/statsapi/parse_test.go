package statsapi

import (
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

func TestParse_Errors(t *testing.T) {
	f := func(body, want string) {
		t.Helper()
		_, err := Parse([]byte(body))
		if err == nil {
			t.Fatalf("Parse(%s): no error, want %q", body, want)
		}
		if _, ok := err.(*Error); !ok || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an *Error with %q", body, err, want)
		}
	}
	f(`{}`, "#/site_id")
	f(`{"site_id":"a","date_range":"7d"}`, "#/metrics")
	f(`{"site_id":"a","metrics":["visitors"]}`, "#/date_range")
	f(`{"site_id":"a","metrics":["nope"],"date_range":"7d"}`, `#/metrics/0: Invalid metric "nope"`)
	f(`{"site_id":"a","metrics":["visitors","visitors"],"date_range":"7d"}`, "multiple times")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"8d"}`, `Invalid date range "8d"`)
	f(`{"site_id":"a","metrics":["visitors"],"date_range":["2024-02-01","2024-01-01"]}`, "before the start")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":["2024-02-01","x"]}`, "Invalid date range")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","dimensions":["visit:city"]}`, `#/dimensions/0: Invalid dimension "visit:city"`)
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","dimensions":["time:day","time:hour"]}`, "one time dimension")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","filters":[["equals","event:page",["/"]]]}`, "unknown operator")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","filters":[["is","time:day",["/"]]]}`, "Invalid filter dimension")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","filters":[["is","event:page",[]]]}`, "Invalid filter")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","filters":[["and",[]]]}`, "non-empty list")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","order_by":[["pageviews","desc"]]}`, "not a queried metric or dimension")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","order_by":[["visitors","up"]]}`, "#/order_by/0")
	f(`{"site_id":"a","metrics":["percentage"],"date_range":"7d"}`, "`percentage` can only be queried with a dimension")
	f(`{"site_id":"a","metrics":["conversion_rate"],"date_range":"7d","dimensions":["event:page"]}`, "`conversion_rate` can only be queried with event:goal")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","include":{"comparisons":{"mode":"custom"}}}`, "Invalid comparison")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","include":{"time_labels":true}}`, "requires a time dimension")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","pagination":{"limit":0}}`, "#/pagination/limit")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","extra":1}`, "Invalid query")
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d"} {}`, "more than one JSON value")
	f(`[`, "Invalid query")
	deep := `["is","event:page",["/"]]`
	for range 10 {
		deep = `["not",` + deep + `]`
	}
	f(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","filters":[`+deep+`]}`, "nested more than")
}

func TestParse_Good(t *testing.T) {
	q, err := Parse([]byte(`{"site_id":"a","metrics":["visitors","conversion_rate"],"date_range":["2024-01-01","2024-01-31"],
		"dimensions":["event:goal","time:day"],"filters":[["or",[["is","visit:country",["FR","DE"]],["not",["contains","event:page",["/blog"]]]]]],
		"order_by":[["visitors","asc"]],"include":{"comparisons":{"mode":"year_over_year"},"time_labels":true,"total_rows":true},
		"pagination":{"limit":5,"offset":10}}`))
	if err != nil {
		t.Fatal(err)
	}
	if q.SiteID != "a" || len(q.Filters) != 1 || q.Filters[0].Op != "or" || len(q.Filters[0].Children) != 2 ||
		q.Filters[0].Children[1].Children[0].Op != "contains" || q.Include.Comparison != "year_over_year" || q.Limit != 5 || q.Offset != 10 ||
		q.OrderBy[0] != (Order{Key: "visitors"}) || q.DateRange.From != "2024-01-01" {
		t.Errorf("Parse = %+v", q)
	}
}

// FuzzParse: Parse never panics, and a query it accepts resolves its
// date range without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"site_id":"a","metrics":["visitors"],"date_range":"7d"}`,
		`{"site_id":"a","metrics":["visitors","percentage"],"date_range":["2024-01-01","2024-01-31"],"dimensions":["event:props:plan"]}`,
		`{"site_id":"a","metrics":["events"],"date_range":["2024-01-01T10:00:00+02:00","2024-01-01T12:00:00+02:00"],"filters":[["not",["is","event:goal",["x"]]]]}`,
		`{"site_id":"a","metrics":["visits"],"date_range":"all","include":{"comparisons":{"mode":"previous_period"}},"order_by":[["visits","asc"]]}`,
		`{"site_id":"a","metrics":["visitors"],"date_range":"day","filters":[["and",[["is","visit:os",["Linux"]],["or",[["contains_not","event:page",["/a"]]]]]]]}`,
		`[]`, `null`, `{"site_id":null}`,
	} {
		f.Add([]byte(s))
	}
	site := &analytics.Site{ID: "a", TimeZone: "Asia/Kolkata", CreatedAt: time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC)}
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := Parse(b)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse error %T %v is no *Error", err, err)
			}
			return
		}
		st := siteTime{loc: site.Location(), created: site.CreatedAt}
		from, to, err := q.DateRange.resolve(st, time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC))
		if err == nil && !from.Before(to) {
			t.Fatalf("range [%s, %s) is empty", from, to)
		}
	})
}

func TestRange_Presets(t *testing.T) {
	now := time.Date(2024, 3, 20, 22, 30, 0, 0, time.UTC) // 2024-03-20T23:30 in Paris
	utc := &analytics.Site{ID: "a", CreatedAt: time.Date(2023, 5, 4, 10, 0, 0, 0, time.UTC)}
	paris := &analytics.Site{ID: "p", TimeZone: "Europe/Paris", CreatedAt: utc.CreatedAt}
	f := func(site *analytics.Site, spec, wantFrom, wantTo string) {
		t.Helper()
		from, to, err := Range(site, spec, now)
		if err != nil {
			t.Fatalf("Range(%s): %v", spec, err)
		}
		if got := from.Format(time.RFC3339) + " " + to.Format(time.RFC3339); got != wantFrom+" "+wantTo {
			t.Errorf("Range(%s, %s) = %s, want %s %s", site.ID, spec, got, wantFrom, wantTo)
		}
	}
	f(utc, "day", "2024-03-20T00:00:00Z", "2024-03-21T00:00:00Z")
	f(utc, "7d", "2024-03-13T00:00:00Z", "2024-03-20T00:00:00Z")
	f(utc, "28d", "2024-02-21T00:00:00Z", "2024-03-20T00:00:00Z")
	f(utc, "30d", "2024-02-19T00:00:00Z", "2024-03-20T00:00:00Z")
	f(utc, "91d", "2023-12-20T00:00:00Z", "2024-03-20T00:00:00Z")
	f(utc, "month", "2024-03-01T00:00:00Z", "2024-04-01T00:00:00Z")
	f(utc, "6mo", "2023-10-01T00:00:00Z", "2024-04-01T00:00:00Z")
	f(utc, "12mo", "2023-04-01T00:00:00Z", "2024-04-01T00:00:00Z")
	f(utc, "year", "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z")
	f(utc, "all", "2023-05-04T00:00:00Z", "2024-03-21T00:00:00Z")
	f(utc, "2024-01-01,2024-01-31", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z")
	f(utc, "2024-01-01T10:00:00Z,2024-01-01T11:59:59Z", "2024-01-01T10:00:00Z", "2024-01-01T12:00:00Z")
	// In Paris it is already the 20th at 23:30; DST begins on the 31st.
	f(paris, "day", "2024-03-20T00:00:00+01:00", "2024-03-21T00:00:00+01:00")
	f(paris, "month", "2024-03-01T00:00:00+01:00", "2024-04-01T00:00:00+02:00")
	f(paris, "2024-01-01,2024-01-01", "2024-01-01T00:00:00+01:00", "2024-01-02T00:00:00+01:00")
	if _, _, err := Range(utc, "8d", now); err == nil {
		t.Error("Range(8d): no error")
	}
}

func TestBuckets(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	from := time.Date(2024, 3, 30, 0, 0, 0, 0, paris)
	bs, ok := buckets(byHour, from, from.AddDate(0, 0, 2), paris, 47)
	if len(bs) != 47 || !ok { // the night of the 31st has 23 hours
		t.Errorf("%d hours over the change to summer time, want 47", len(bs))
	}
	if bs, ok := buckets(byHour, from, from.AddDate(0, 0, 2), paris, 46); len(bs) != 46 || ok {
		t.Errorf("at most 46 hours: %d, %v", len(bs), ok)
	}
	ws, _ := buckets(byWeek, time.Date(2024, 3, 6, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC), time.UTC, 10)
	var labels []string
	for _, b := range ws {
		labels = append(labels, b.label)
	}
	if strings.Join(labels, " ") != "2024-03-06 2024-03-11 2024-03-18" {
		t.Errorf("week labels %v", labels)
	}
}
