package statsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/statsapi"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

// fixture is a store on the embedded engine with site "a" and its goals.
func fixture(t testing.TB, now time.Time) (*analytics.Store, *testenv.Clock) {
	t.Helper()
	clk := testenv.NewClock(now)
	db := testenv.MemDB(t, &local.Options{Now: clk.Now, CacheSize: 4 << 20})
	ctx := context.Background()
	// The tests aggregate with AggregatePending: a background pass, on
	// the real clock's ticks, would add its reads to those the tests
	// count.
	s, err := analytics.Open(ctx, db, &analytics.Options{Now: clk.Now, AggregateEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSite(ctx, analytics.Site{ID: "a", Domains: []string{"a.example"}}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []analytics.Goal{{ID: "signup", Kind: analytics.GoalPage, Match: "/signup/*"}, {ID: "purchase", Kind: analytics.GoalEvent, Match: "Purchase"}} {
		if err := s.PutGoal(ctx, "a", g); err != nil {
			t.Fatal(err)
		}
	}
	return s, clk
}

func record(t testing.TB, s *analytics.Store, clk *testenv.Clock, es []analytics.Event) {
	t.Helper()
	ctx := context.Background()
	for _, e := range es {
		e.Site = "a"
		if err := s.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(2 * time.Minute)
	if _, err := s.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
}

// randomEvents are sessions of 30 visitors over the days before now.
func randomEvents(r *rand.Rand, now time.Time, days int) []analytics.Event {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var out []analytics.Event
	start := now.Add(-time.Duration(days) * 24 * time.Hour)
	for v := range 30 {
		t := start.Add(time.Duration(r.Int64N(int64(12 * time.Hour)))).Truncate(time.Millisecond)
		for t.Before(now.Add(-time.Hour)) {
			country, ref, os := pick("FR", "DE", "US"), pick("", "https://www.google.com/", "https://news.ycombinator.com/"), pick("Linux", "iOS", "")
			var utm analytics.UTM
			if r.IntN(3) == 0 {
				utm = analytics.UTM{Source: pick("newsletter", "mastodon"), Medium: pick("email", "social"), Campaign: pick("spring", "")}
			}
			for range 1 + r.IntN(4) {
				e := analytics.Event{Time: t, VisitorID: fmt.Sprintf("v%02d", v), Path: pick("/", "/pricing", "/blog/a", "/signup/x"),
					Referrer: ref, UTM: utm, Country: country, OS: os, Browser: pick("Firefox", "Chrome"), Device: pick("desktop", "mobile"), Name: analytics.PageView}
				if r.IntN(4) == 0 {
					e.Name = pick("Purchase", "Download")
					e.Props = map[string]string{"plan": pick("free", "pro")}
				}
				out = append(out, e)
				ref, utm = "", analytics.UTM{}
				t = t.Add(time.Duration(1+r.IntN(10)) * time.Minute)
			}
			t = t.Add(time.Duration(40+r.IntN(600)) * time.Minute)
		}
	}
	return out
}

type result struct {
	Results []struct {
		Metrics    []float64
		Dimensions []string
		Comparison *struct {
			Dimensions []string
			Metrics    []float64
			Change     []float64
		}
	}
	Meta struct {
		TimeLabels          []string `json:"time_labels"`
		TotalRows           *int     `json:"total_rows"`
		ComputedFrom        string   `json:"computed_from"`
		ComparisonDateRange []string `json:"comparison_date_range"`
	}
}

// response returns the answer to query run at now, and fails t on an
// error.
func response(t *testing.T, s *analytics.Store, now time.Time, query string) *statsapi.Response {
	t.Helper()
	q, err := statsapi.Parse([]byte(query))
	if err != nil {
		t.Fatalf("Parse(%s): %v", query, err)
	}
	resp, err := q.Run(context.Background(), s, now, nil)
	if err != nil {
		t.Fatalf("Run(%s): %v", query, err)
	}
	return resp
}

func run(t *testing.T, s *analytics.Store, now time.Time, query string) result {
	t.Helper()
	b, err := json.Marshal(response(t, s, now, query))
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func rows(r result) map[string][]float64 {
	out := map[string][]float64{}
	for _, x := range r.Results {
		out[strings.Join(x.Dimensions, "|")] = x.Metrics
	}
	return out
}

// allHits is a filter every hit passes: it sends a query to the raw path
// without changing what it counts.
const allHits = `"filters":[["is_not","event:page",["/never"]]]`

// TestRun_AggregatesAgreeWithRaw: each query the aggregates answer gives
// the same figures from the raw hits (the aggregates themselves are
// checked against figures computed from the events by package analytics'
// model test, and the raw visits too).
func TestRun_AggregatesAgreeWithRaw(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	record(t, s, clk, randomEvents(rand.New(rand.NewPCG(3, 4)), now, 4))
	for _, c := range []struct{ metrics, dims, rng string }{
		{`"visitors","visits","pageviews","events","views_per_visit","bounce_rate","visit_duration"`, ``, `"7d"`},
		{`"visitors","visits","pageviews","events","bounce_rate","visit_duration"`, `"time:day"`, `"7d"`},
		{`"visits","pageviews","bounce_rate"`, `"time:hour"`, `["2024-03-18","2024-03-18"]`},
		{`"visits","percentage"`, `"visit:source"`, `"7d"`},
		{`"visits"`, `"visit:country","time:day"`, `"7d"`},
		{`"visits"`, `"visit:entry_page"`, `"7d"`},
		{`"visits"`, `"visit:exit_page"`, `"7d"`},
		{`"visits"`, `"visit:browser"`, `"7d"`},
		{`"visits"`, `"visit:device"`, `"7d"`},
		{`"visits"`, `"visit:os"`, `"7d"`},
		{`"visits"`, `"visit:utm_source"`, `"7d"`},
		{`"visits"`, `"visit:utm_medium"`, `"7d"`},
		{`"visits"`, `"visit:utm_campaign"`, `"28d"`},
		{`"events"`, `"event:name"`, `"7d"`},
		{`"visits","visitors","pageviews"`, `"time:week"`, `"28d"`},
		{`"pageviews"`, `"time:month"`, `"month"`},
		{`"pageviews"`, `"time"`, `"day"`},
		{`"pageviews","percentage"`, `"event:page"`, `"7d"`},
		{`"events"`, `"event:props:plan"`, `"7d"`},
		{`"visits","conversion_rate"`, `"event:goal"`, `"7d"`},
		{`"visits","conversion_rate"`, `"event:goal","time:day"`, `"7d"`},
	} {
		dims := `"dimensions":[` + c.dims + `],`
		q := `{"site_id":"a","metrics":[` + c.metrics + `],` + dims + `"date_range":` + c.rng
		agg := run(t, s, clk.Now(), q+`}`)
		raw := run(t, s, clk.Now(), q+`,`+allHits+`}`)
		if agg.Meta.ComputedFrom != "aggregates" || raw.Meta.ComputedFrom != "raw_hits" {
			t.Fatalf("%s: computed from %s and %s", q, agg.Meta.ComputedFrom, raw.Meta.ComputedFrom)
		}
		a, r := rows(agg), rows(raw)
		delete(r, analytics.PageView) // event:name from the raw hits has page views too
		if len(a) == 0 {
			t.Errorf("%s: no rows", q)
		}
		if len(a) != len(r) {
			t.Errorf("%s: %d rows from the aggregates, %d from the raw hits:\n%v\n%v", q, len(a), len(r), a, r)
		}
		for k, am := range a {
			rm := r[k]
			for i := range am {
				tol := 0.0
				if strings.HasPrefix(c.metrics, `"visitors"`) && i == 0 {
					tol = 1 + 0.03*rm[i] // a sketch against an exact count
				}
				if i >= len(rm) || math.Abs(am[i]-rm[i]) > tol {
					t.Errorf("%s: row %q: aggregates %v, raw %v", q, k, am, rm)
					break
				}
			}
		}
	}
}

// TestRun_Filters checks each filter against figures worked out by hand.
func TestRun_Filters(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	day := time.Date(2024, 3, 19, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return day.Add(time.Duration(m) * time.Minute) }
	pv := analytics.PageView
	record(t, s, clk, []analytics.Event{
		// v1 from FR via Google: /, /blog/a, buys (plan pro): 3 hits, no bounce.
		{VisitorID: "v1", Time: at(0), Name: pv, Path: "/", Country: "FR", Referrer: "https://www.google.com/"},
		{VisitorID: "v1", Time: at(1), Name: pv, Path: "/blog/a", Country: "FR"},
		{VisitorID: "v1", Time: at(2), Name: "Purchase", Path: "/blog/a", Country: "FR", Props: map[string]string{"plan": "pro"}},
		// v2 from DE: /signup/x only, a bounce that converts signup.
		{VisitorID: "v2", Time: at(5), Name: pv, Path: "/signup/x", Country: "DE"},
		// v3 from FR: /blog/b then /pricing.
		{VisitorID: "v3", Time: at(10), Name: pv, Path: "/blog/b", Country: "FR"},
		{VisitorID: "v3", Time: at(12), Name: pv, Path: "/pricing", Country: "FR"},
	})
	q := func(metrics, rest string) string {
		return `{"site_id":"a","metrics":[` + metrics + `],"date_range":"7d"` + rest + `}`
	}
	f := func(query string, want map[string][]float64) {
		t.Helper()
		got := rows(run(t, s, clk.Now(), query))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", query, got, want)
		}
	}
	f(q(`"visitors","visits","pageviews"`, `,"filters":[["is","visit:country",["FR"]]]`), map[string][]float64{"": {2, 2, 4}})
	f(q(`"visitors","visits","pageviews"`, `,"filters":[["is_not","visit:country",["FR"]]]`), map[string][]float64{"": {1, 1, 1}})
	f(q(`"visitors","pageviews","bounce_rate"`, `,"filters":[["contains","event:page",["/blog"]]]`), map[string][]float64{"": {2, 2, 0}})
	f(q(`"pageviews"`, `,"filters":[["contains_not","event:page",["/blog"]]]`), map[string][]float64{"": {3}})
	f(q(`"visitors"`, `,"filters":[["or",[["is","visit:country",["DE"]],["is","event:page",["/pricing"]]]]]`), map[string][]float64{"": {2}})
	f(q(`"visitors"`, `,"filters":[["not",["is","visit:country",["FR"]]]]`), map[string][]float64{"": {1}})
	f(q(`"visitors"`, `,"filters":[["and",[["is","visit:country",["FR"]],["is","visit:source",["Google"]]]]]`), map[string][]float64{"": {1}})
	f(q(`"events"`, `,"filters":[["is","event:props:plan",["pro"]]]`), map[string][]float64{"": {1}})
	f(q(`"visits","conversion_rate"`, `,"filters":[["is","event:goal",["signup"]]]`), map[string][]float64{"": {1, 33.33}})
	f(q(`"visits","conversion_rate"`, `,"dimensions":["event:goal"]`), map[string][]float64{"purchase": {1, 33.33}, "signup": {1, 33.33}})
	f(q(`"visitors","bounce_rate"`, `,"dimensions":["visit:country"],"filters":[["is_not","event:page",["/x"]]]`),
		map[string][]float64{"DE": {1, 100}, "FR": {2, 0}})
	// Two dimensions: visitors per country and page.
	f(q(`"visitors"`, `,"dimensions":["visit:country","event:page"]`), map[string][]float64{
		"DE|/signup/x": {1}, "FR|/": {1}, "FR|/blog/a": {1}, "FR|/blog/b": {1}, "FR|/pricing": {1}})
	// Visitors per page is not in the aggregates: computed from the raw hits.
	r := run(t, s, clk.Now(), q(`"visitors","percentage"`, `,"dimensions":["visit:country"]`))
	if r.Meta.ComputedFrom != "raw_hits" || fmt.Sprint(rows(r)) != fmt.Sprint(map[string][]float64{"DE": {1, 33.3}, "FR": {2, 66.7}}) {
		t.Errorf("visitors by country: %+v", r)
	}
	// Order, pagination, total rows.
	r = run(t, s, clk.Now(), q(`"pageviews"`, `,"dimensions":["event:page"],"order_by":[["event:page","desc"]],"pagination":{"limit":2,"offset":1},"include":{"total_rows":true}`))
	if len(r.Results) != 2 || r.Results[0].Dimensions[0] != "/pricing" || r.Results[1].Dimensions[0] != "/blog/b" || r.Meta.TotalRows == nil || *r.Meta.TotalRows != 5 {
		t.Errorf("ordered page: %+v", r)
	}
	// Beyond the raw retention, days without hits add nothing: 91 days
	// and 12 months count what 7 days do.
	for _, rng := range []string{`"91d"`, `"12mo"`} {
		f(`{"site_id":"a","metrics":["visitors","visits","pageviews"],"date_range":`+rng+`,"filters":[["is","visit:country",["FR"]]]}`,
			map[string][]float64{"": {2, 2, 4}})
	}
	// Beyond the hit buckets' retention (730 days), a query that needs
	// the hits is refused with the reason.
	qq, _ := statsapi.Parse([]byte(`{"site_id":"a","metrics":["visitors"],"date_range":["2021-06-01","2022-06-01"],"filters":[["is","visit:country",["FR"]]]}`))
	_, err := qq.Run(context.Background(), s, clk.Now(), nil)
	var se *statsapi.Error
	if !errorAs(err, &se) || strings.Contains(se.Message, "needs the raw hits") ||
		!strings.Contains(se.Message, "kept 730 days in its hit bucket and 30 days as raw hits, and those of 2022-03-20 are not kept, so a range computed from them must start on 2022-03-21") {
		t.Errorf("beyond the buckets with a filter: %v", err)
	}
}

func errorAs(err error, se **statsapi.Error) bool {
	e, ok := err.(*statsapi.Error)
	*se = e
	return ok
}

func TestRun_ComparisonsAndTimeLabels(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	var es []analytics.Event
	add := func(day time.Time, n int) {
		for i := range n {
			es = append(es, analytics.Event{VisitorID: fmt.Sprintf("v%d", i), Time: day.Add(time.Duration(i) * time.Minute), Name: analytics.PageView, Path: "/"})
		}
	}
	add(time.Date(2024, 3, 19, 9, 0, 0, 0, time.UTC), 4)  // yesterday
	add(time.Date(2024, 3, 19, 18, 0, 0, 0, time.UTC), 3) // yesterday, later than now's hour
	add(time.Date(2024, 3, 20, 9, 0, 0, 0, time.UTC), 6)  // today
	record(t, s, clk, es)
	// Today so far (until the end of now's hour, 13:00) against yesterday
	// until 13:00, not all of yesterday.
	r := run(t, s, clk.Now(), `{"site_id":"a","metrics":["pageviews","bounce_rate"],"date_range":"day","include":{"comparisons":{"mode":"previous_period"}}}`)
	if len(r.Results) != 1 || r.Results[0].Comparison == nil {
		t.Fatalf("comparison: %+v", r)
	}
	c := r.Results[0].Comparison
	if r.Results[0].Metrics[0] != 6 || c.Metrics[0] != 4 || c.Change[0] != 50 || c.Change[1] != 0 {
		t.Errorf("today against yesterday until the same hour: %+v %+v", r.Results[0], c)
	}
	if want := []string{"2024-03-19T00:00:00Z", "2024-03-19T12:59:59Z"}; !slices.Equal(r.Meta.ComparisonDateRange, want) {
		t.Errorf("comparison range %v, want %v", r.Meta.ComparisonDateRange, want)
	}
	// A range that has ended is compared whole.
	r = run(t, s, clk.Now(), `{"site_id":"a","metrics":["pageviews"],"date_range":["2024-03-19","2024-03-19"],"include":{"comparisons":{"mode":"previous_period"}}}`)
	if r.Results[0].Metrics[0] != 7 {
		t.Errorf("yesterday, ended: %+v", r.Results[0])
	}
	r = run(t, s, clk.Now(), `{"site_id":"a","metrics":["pageviews"],"date_range":["2024-03-19","2024-03-20"],"dimensions":["time:day"],
		"include":{"time_labels":true,"comparisons":{"mode":"previous_period"}}}`)
	if strings.Join(r.Meta.TimeLabels, " ") != "2024-03-19 2024-03-20" || len(r.Results) != 2 ||
		!slices.Equal(r.Results[1].Dimensions, []string{"2024-03-20"}) || r.Results[1].Comparison.Dimensions[0] != "2024-03-18" ||
		r.Results[1].Comparison.Change[0] != 100 {
		t.Errorf("by day with the previous period: %+v", r)
	}
	r = run(t, s, clk.Now(), `{"site_id":"a","metrics":["pageviews"],"date_range":"day","include":{"comparisons":{"mode":"year_over_year"}}}`)
	if r.Results[0].Comparison.Metrics[0] != 0 || r.Results[0].Comparison.Change[0] != 100 {
		t.Errorf("year over year: %+v", r.Results[0].Comparison)
	}
}

// TestStats_DateRangeCap checks that a query's work is bounded whatever
// its date range: the range ends at the latest at the end of next year
// (there are no hits after now), and a time dimension of more buckets
// than Options.MaxBuckets (DefaultMaxBuckets by default) is refused
// with an *Error naming the bound, before any is read.
func TestStats_DateRangeCap(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	refused := func(query string, o *statsapi.Options, want string) {
		t.Helper()
		q, err := statsapi.Parse([]byte(query))
		if err == nil {
			_, err = q.Run(context.Background(), s, clk.Now(), o)
		}
		var se *statsapi.Error
		if !errorAs(err, &se) || !strings.Contains(se.Message, want) {
			t.Errorf("%s: %v, want an *Error naming %q", query, err, want)
		}
	}
	// The query of the finding: 200 years of hours.
	refused(`{"site_id":"a","metrics":["visitors"],"date_range":["2000-01-01","2199-12-31"],"dimensions":["time:hour"]}`, nil,
		"out of bounds: dates run from 2000-01-01 to 2025-12-31")
	refused(`{"site_id":"a","metrics":["visitors"],"date_range":["2000-01-01","2025-12-31"],"dimensions":["time:hour"]}`, nil,
		"more than 10000 time buckets")
	refused(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","dimensions":["time:day"],"include":{"comparisons":{"mode":"previous_period"}}}`,
		&statsapi.Options{MaxBuckets: 6}, "#/dimensions/0: time:day over the date range makes more than 6 time buckets")
	// Within the bounds: a year of hours, and all of next year by month.
	run(t, s, clk.Now(), `{"site_id":"a","metrics":["visitors"],"date_range":"12mo","dimensions":["time:hour"]}`)
	run(t, s, clk.Now(), `{"site_id":"a","metrics":["visitors"],"date_range":["2000-01-01","2025-12-31"],"dimensions":["time:month"]}`)
	q, _ := statsapi.Parse([]byte(`{"site_id":"a","metrics":["visitors"],"date_range":"7d","dimensions":["time:day"]}`))
	if _, err := q.Run(context.Background(), s, clk.Now(), &statsapi.Options{MaxBuckets: 7}); err != nil {
		t.Errorf("7 days, at most 7 buckets: %v", err)
	}
}

// TestRun_DirectNone: a visit without a source is "Direct / None" in a
// visit:source breakdown, from the aggregates and from the raw hits, and
// a filter on that value selects it.
func TestRun_DirectNone(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	at := time.Date(2024, 3, 19, 9, 0, 0, 0, time.UTC)
	record(t, s, clk, []analytics.Event{
		{VisitorID: "v1", Time: at, Name: analytics.PageView, Path: "/"},
		{VisitorID: "v2", Time: at, Name: analytics.PageView, Path: "/", Referrer: "https://www.google.com/"},
		{VisitorID: "v3", Time: at, Name: analytics.PageView, Path: "/", UTM: analytics.UTM{Source: "google"}},
		{VisitorID: "v4", Time: at, Name: analytics.PageView, Path: "/x"},
	})
	want := "Direct / None=2 Google=2"
	for _, q := range []string{
		`{"site_id":"a","metrics":["visits"],"date_range":"7d","dimensions":["visit:source"]}`,
		`{"site_id":"a","metrics":["visits"],"date_range":"7d","dimensions":["visit:source"],"filters":[["is_not","event:page",["/nowhere"]]]}`,
	} {
		r := run(t, s, now, q)
		var got []string
		for _, x := range r.Results {
			got = append(got, fmt.Sprintf("%s=%v", x.Dimensions[0], x.Metrics[0]))
		}
		slices.Sort(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%s (%s): %v, want %s", q, r.Meta.ComputedFrom, got, want)
		}
	}
	r := run(t, s, now, `{"site_id":"a","metrics":["visits"],"date_range":"7d","filters":[["is","visit:source",["Direct / None"]]]}`)
	if r.Results[0].Metrics[0] != 2 {
		t.Errorf("filtered by Direct / None: %+v", r.Results)
	}
}
