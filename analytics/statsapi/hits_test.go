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
)

// randomQuery returns a query of site "a" that the aggregates cannot
// answer: one filter or two, zero to two dimensions, over a range of
// [lo, hi) in whole days or to the second.
func randomQuery(r *rand.Rand, lo, hi time.Time) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	filters := []string{
		`["is","visit:country",["FR"]]`, `["is_not","visit:country",["DE","US"]]`, `["is","visit:source",["Google"]]`,
		`["contains","visit:source",["o"]]`, `["is","event:page",["/pricing","/blog/a"]]`, `["contains_not","event:page",["/blog"]]`,
		`["is","event:goal",["signup"]]`, `["is","event:props:plan",["pro"]]`, `["is","visit:os",["(none)"]]`,
		`["or",[["is","visit:country",["DE"]],["is","event:name",["Purchase"]]]]`, `["not",["is","visit:device",["mobile"]]]`,
		`["and",[["is","visit:browser",["Firefox"]],["contains","visit:utm_medium",["e"]]]]`,
	}
	fs := []string{pick(filters...)}
	if r.IntN(3) == 0 {
		fs = append(fs, pick(filters...))
	}
	metrics := []string{`"visitors"`, `"visits","pageviews","bounce_rate","visit_duration"`, `"events","views_per_visit"`, `"visitors","percentage"`}
	m := pick(metrics...)
	var dims []string
	for range r.IntN(3) {
		d := pick(`"visit:country"`, `"visit:source"`, `"event:page"`, `"time:day"`, `"time:hour"`, `"event:props:plan"`, `"visit:entry_page"`, `"event:goal"`)
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
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(8, 9))
	for _, e := range randomEvents(r, now, 10) {
		e.Site = "a"
		if err := s.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	lo, hi := now.AddDate(0, 0, -11), now.Add(12*time.Hour)
	queries := make([]string, 60)
	want := make([]string, len(queries))
	nonEmpty := 0
	for i := range queries {
		queries[i] = randomQuery(r, lo, hi)
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
	if _, err := s.AggregatePending(ctx); err != nil {
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
	clk.Set(now.AddDate(0, 0, 1).Add(time.Minute)) // today is over: bucketed
	if _, err := s.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Set(now.AddDate(0, 0, 45))
	check("from the buckets alone", nil)
}

// randomVisitQuery returns a query of site "a" whose filters are on
// visit: dimensions alone, with visit: and time dimensions, over a range
// of [lo, hi) in whole days or to the second: the queries whose visits
// may count whole, without their hits.
func randomVisitQuery(r *rand.Rand, lo, hi time.Time) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	filters := []string{
		`["is","visit:country",["FR"]]`, `["is_not","visit:country",["DE","US"]]`, `["is","visit:source",["Google"]]`,
		`["contains","visit:source",["o"]]`, `["is","visit:os",["(none)"]]`, `["not",["is","visit:device",["mobile"]]]`,
		`["and",[["is","visit:browser",["Firefox"]],["contains","visit:utm_medium",["e"]]]]`, `["contains","visit:entry_page",["/blog"]]`,
		`["or",[["is","visit:country",["DE"]],["is","visit:exit_page",["/pricing"]]]]`,
	}
	fs := []string{pick(filters...)}
	if r.IntN(3) == 0 {
		fs = append(fs, pick(filters...))
	}
	m := pick(`"visitors"`, `"visits","pageviews","bounce_rate","visit_duration"`, `"events","views_per_visit"`, `"visitors","percentage"`,
		`"visitors","visits","pageviews","events"`)
	var dims []string
	for range r.IntN(3) {
		d := pick(`"visit:country"`, `"visit:source"`, `"time:day"`, `"time:hour"`, `"time:month"`, `"visit:entry_page"`, `"visit:exit_page"`, `"visit:device"`)
		if !strings.Contains(strings.Join(dims, ","), d) && !(strings.HasPrefix(d, `"time`) && strings.Contains(strings.Join(dims, ","), `"time`)) {
			dims = append(dims, d)
		}
	}
	if strings.Contains(m, "percentage") && !slices.ContainsFunc(dims, func(d string) bool { return !strings.HasPrefix(d, `"time`) }) {
		dims = append(dims, `"visit:country"`)
	}
	a := lo.Add(time.Duration(r.Int64N(int64(hi.Sub(lo)))))
	b := a.Add(time.Duration(r.Int64N(int64(hi.Sub(a)))))
	rng := fmt.Sprintf(`[%q,%q]`, a.Format(time.DateOnly), b.Format(time.DateOnly))
	if r.IntN(4) == 0 {
		rng = fmt.Sprintf(`[%q,%q]`, a.Format(time.RFC3339), b.Format(time.RFC3339))
	}
	return `{"site_id":"a","metrics":[` + m + `],"dimensions":[` + strings.Join(dims, ",") + `],"filters":[` + strings.Join(fs, ",") +
		`],"date_range":` + rng + `,"include":{"total_rows":true}}`
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
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(10, 11))
	for _, e := range randomEvents(r, now, 10) {
		e.Site = "a"
		if err := s.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	lo, hi := now.AddDate(0, 0, -11), now.Add(12*time.Hour)
	queries := make([]string, 80)
	for i := range queries {
		queries[i] = randomVisitQuery(r, lo, hi)
	}
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
	clk.Set(now.AddDate(0, 0, 1).Add(time.Minute)) // today is over: bucketed
	if _, err := s.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
	clk.Set(now.AddDate(0, 0, 45))
	check("from the buckets alone", false)
}
