package statsapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/testenv"
)

// queryParts are what random queries are made of: filters, metrics and
// dimensions, each picked at random.
type queryParts struct{ filters, metrics, dims []string }

// anyParts make queries that the aggregates cannot answer.
var anyParts = queryParts{
	filters: []string{
		`["is","visit:country",["FR"]]`, `["is_not","visit:country",["DE","US"]]`, `["is","visit:source",["Google"]]`,
		`["contains","visit:source",["o"]]`, `["is","event:page",["/pricing","/blog/a"]]`, `["contains_not","event:page",["/blog"]]`,
		`["is","event:goal",["signup"]]`, `["is","event:props:plan",["pro"]]`, `["is","visit:os",["(none)"]]`,
		`["or",[["is","visit:country",["DE"]],["is","event:name",["Purchase"]]]]`, `["not",["is","visit:device",["mobile"]]]`,
		`["and",[["is","visit:browser",["Firefox"]],["contains","visit:utm_medium",["e"]]]]`,
	},
	metrics: []string{`"visitors"`, `"visits","pageviews","bounce_rate","visit_duration"`, `"events","views_per_visit"`, `"visitors","percentage"`},
	dims:    []string{`"visit:country"`, `"visit:source"`, `"event:page"`, `"time:day"`, `"time:hour"`, `"event:props:plan"`, `"visit:entry_page"`, `"event:goal"`},
}

// visitParts make queries whose filters are on visit: dimensions alone,
// with visit: and time dimensions: those whose visits may count whole,
// without their hits.
var visitParts = queryParts{
	filters: []string{
		`["is","visit:country",["FR"]]`, `["is_not","visit:country",["DE","US"]]`, `["is","visit:source",["Google"]]`,
		`["contains","visit:source",["o"]]`, `["is","visit:os",["(none)"]]`, `["not",["is","visit:device",["mobile"]]]`,
		`["and",[["is","visit:browser",["Firefox"]],["contains","visit:utm_medium",["e"]]]]`, `["contains","visit:entry_page",["/blog"]]`,
		`["or",[["is","visit:country",["DE"]],["is","visit:exit_page",["/pricing"]]]]`,
	},
	metrics: []string{`"visitors"`, `"visits","pageviews","bounce_rate","visit_duration"`, `"events","views_per_visit"`, `"visitors","percentage"`,
		`"visitors","visits","pageviews","events"`},
	dims: []string{`"visit:country"`, `"visit:source"`, `"time:day"`, `"time:hour"`, `"time:month"`, `"visit:entry_page"`, `"visit:exit_page"`, `"visit:device"`},
}

// randomQuery returns a query of site "a" made of p: one filter or two,
// zero to two dimensions, over a range of [lo, hi) in whole days or to
// the second.
func randomQuery(r *rand.Rand, lo, hi time.Time, p queryParts) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	fs := []string{pick(p.filters...)}
	if r.IntN(3) == 0 {
		fs = append(fs, pick(p.filters...))
	}
	m := pick(p.metrics...)
	var dims []string
	for range r.IntN(3) {
		d := pick(p.dims...)
		if !strings.Contains(strings.Join(dims, ","), d) && !(strings.HasPrefix(d, `"time`) && strings.Contains(strings.Join(dims, ","), `"time`)) {
			dims = append(dims, d)
		}
	}
	if strings.Contains(strings.Join(dims, ","), "event:goal") && r.IntN(2) == 0 {
		m += `,"conversion_rate"`
	}
	if strings.Contains(m, "percentage") && !slices.ContainsFunc(dims, func(d string) bool { return !strings.HasPrefix(d, `"time`) }) {
		dims = append(dims, `"visit:country"`)
	}
	a := lo.Add(time.Duration(r.Int64N(int64(hi.Sub(lo)))))
	b := a.Add(time.Duration(r.Int64N(int64(hi.Sub(a)))))
	rng := fmt.Sprintf(`[%q,%q]`, a.Format(time.DateOnly), b.Format(time.DateOnly))
	if r.IntN(3) == 0 {
		rng = fmt.Sprintf(`[%q,%q]`, a.Format(time.RFC3339), b.Format(time.RFC3339))
	}
	return `{"site_id":"a","metrics":[` + m + `],"dimensions":[` + strings.Join(dims, ",") + `],"filters":[` + strings.Join(fs, ",") +
		`],"date_range":` + rng + `,"include":{"total_rows":true}}`
}

// answer returns the JSON of q's results and meta run at now.
func answer(t *testing.T, s *analytics.Store, now time.Time, query string) string {
	t.Helper()
	resp := response(t, s, now, query)
	b, err := json.Marshal(struct {
		R any
		M any
	}{resp.Results, resp.Meta.TotalRows})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRun_BucketsAgreeWithRaw: random filtered queries over ten days of
// random visits give the same answers from the raw hits (before the
// aggregation, every day is read from them), from the hit buckets of the
// days that are over (after it), and from the buckets alone once every
// raw hit has expired. A planted difference is caught.
func TestRun_BucketsAgreeWithRaw(t *testing.T) {
	s, clk, now, queries := randomDays(t, 8, 60, anyParts)
	want := make([]string, len(queries))
	nonEmpty := 0
	for i := range queries {
		want[i] = answer(t, s, clk.Now(), queries[i])
		if !strings.HasPrefix(want[i], `{"R":[]`) {
			nonEmpty++
		}
	}
	t.Logf("%d of %d queries have rows", nonEmpty, len(queries))
	if nonEmpty < len(queries)/2 {
		t.Fatalf("%d of %d queries have rows: the test checks too little", nonEmpty, len(queries))
	}
	check := func(phase string, plant func(i int, got string) string) int {
		t.Helper()
		diffs := 0
		for i, q := range queries {
			got := answer(t, s, clk.Now(), q)
			if plant != nil {
				got = plant(i, got)
			}
			if got != want[i] {
				diffs++
				if plant == nil {
					t.Errorf("%s: %s:\n got %s\nwant %s", phase, q, got, want[i])
				}
			}
		}
		return diffs
	}
	clk.Advance(2 * time.Minute)
	if _, err := s.AggregatePending(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("from the buckets", nil)
	// Positive control: one row changed is caught.
	if check("control", func(i int, got string) string {
		if i == 0 {
			return strings.Replace(got, `"metrics":[`, `"metrics":[1,`, 1)
		}
		return got
	}) != 1 {
		t.Fatal("positive control: a planted difference is not caught")
	}
	bucketAll(t, s, clk, now)
	check("from the buckets alone", nil)
}

// randomDays records ten days of random visits (randomEvents, seeded
// with seed) on site "a" of a new fixture, not aggregated (the raw hits
// alone hold them), and returns n random queries of parts over them.
func randomDays(t *testing.T, seed uint64, n int, parts queryParts) (*analytics.Store, *testenv.Clock, time.Time, []string) {
	t.Helper()
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, e := range randomEvents(r, now, 10) {
		e.Site = "a"
		if err := s.Record(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	lo, hi := now.AddDate(0, 0, -11), now.Add(12*time.Hour)
	queries := make([]string, n)
	for i := range queries {
		queries[i] = randomQuery(r, lo, hi, parts)
	}
	return s, clk, now, queries
}

// bucketAll aggregates every day up to that of now, once it is over, and
// moves clk on past the raw hits' retention: the days are read from their
// hit buckets alone.
func bucketAll(t *testing.T, s *analytics.Store, clk *testenv.Clock, now time.Time) {
	t.Helper()
	clk.Set(now.AddDate(0, 0, 1).Add(time.Minute)) // today is over: bucketed
	if _, err := s.AggregatePending(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.Set(now.AddDate(0, 0, 45))
}

// selectsAll is a filter on hits that every hit passes: a query with it
// is computed hit by hit, never from whole visits.
const selectsAll = `["is_not","event:page",["/no such page"]]`

// TestRun_WholeVisitsAgreeWithHits: random queries whose filters are on
// visits alone, which count each visit whole from its figures when their
// range and time buckets are whole UTC days, give the answers of the same
// queries computed hit by hit (a filter that every hit passes added),
// from the raw hits and from the hit buckets. A planted difference is
// caught.
func TestRun_WholeVisitsAgreeWithHits(t *testing.T) {
	s, clk, now, queries := randomDays(t, 10, 80, visitParts)
	check := func(phase string, plant bool) (diffs, nonEmpty int) {
		t.Helper()
		for i, q := range queries {
			got := answer(t, s, clk.Now(), q)
			want := answer(t, s, clk.Now(), strings.Replace(q, `"filters":[`, `"filters":[`+selectsAll+`,`, 1))
			if plant && i == 0 {
				got = strings.Replace(got, `"metrics":[`, `"metrics":[1,`, 1)
			}
			if !strings.HasPrefix(want, `{"R":[]`) {
				nonEmpty++
			}
			if got != want {
				diffs++
				if !plant {
					t.Errorf("%s: %s:\n got %s\nwant %s", phase, q, got, want)
				}
			}
		}
		return diffs, nonEmpty
	}
	_, nonEmpty := check("from the raw hits", false)
	t.Logf("%d of %d queries have rows", nonEmpty, len(queries))
	if nonEmpty < len(queries)/2 {
		t.Fatalf("%d of %d queries have rows: the test checks too little", nonEmpty, len(queries))
	}
	if d, _ := check("control", true); d != 1 {
		t.Fatal("positive control: a planted difference is not caught")
	}
	bucketAll(t, s, clk, now)
	check("from the buckets alone", false)
}
