package demo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

// open returns a Store on an in-memory engine, both on clk, with the
// demonstration site; its background loop aggregates every aggregateEvery
// (none if negative: Load drives the aggregation, as the demo command
// does).
func open(t *testing.T, clk *Clock, aggregateEvery time.Duration) *analytics.Store {
	t.Helper()
	ctx := context.Background()
	db := testenv.MemDB(t, &local.Options{Now: clk.Now, TTLInterval: -1})
	st, err := analytics.Open(ctx, db, &analytics.Options{Now: clk.Now, AggregateEvery: aggregateEvery})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := CreateSite(ctx, st, "demo"); err != nil {
		t.Fatal(err)
	}
	if err := CreateSite(ctx, st, "demo"); !errors.Is(err, analytics.ErrExists) {
		t.Errorf("CreateSite twice: %v, want ErrExists", err)
	}
	return st
}

// TestLoad loads 40 days, ending in the middle of the last, and checks
// that every day was aggregated from all its events (the first ten while
// their raw hits were still there), that those first days' raw hits have
// expired since, and that the clock is left at the present.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := from.AddDate(0, 0, 39).Add(14*time.Hour + 30*time.Minute)
	clk := NewClock(from)
	st := open(t, clk, -1)
	g := New(&Options{Seed: 3, VisitsPerDay: 60, End: now})
	calls := 0
	ls, err := Load(ctx, st, clk, g, &LoadOptions{From: from, Days: 45, Now: now, Batch: 100, Progress: func(int) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if !clk.Now().Equal(now) {
		t.Errorf("clock at %s after Load, want %s", clk.Now(), now)
	}
	if ls.Days != 40 || ls.Aggregated != 40 || calls == 0 {
		t.Errorf("Load = %+v with %d progress calls, want 40 days recorded and aggregated", ls, calls)
	}
	total := checkPageViews(t, st, g, from, 40, now)
	if ls.PageViews != total {
		t.Errorf("Load counted %d page views, the generator made %d", ls.PageViews, total)
	}
	if err := st.AggregateDay(ctx, "demo", from); !errors.Is(err, analytics.ErrExpired) {
		t.Errorf("AggregateDay of the first day at the end: %v, want ErrExpired", err)
	}
	// The raw hits of the first day carry a ttl that has passed.
	n := 0
	q := &table.Query{Hash: "SITE#demo", Range: table.BeginsWith("PV#2025-01-01T")}
	for it, err := range st.Table().QueryAll(ctx, q) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		var x struct {
			TTL int64 `dynamodbav:"ttl"`
		}
		if err := table.Unmarshal(it, &x); err != nil {
			t.Fatal(err)
		}
		if x.TTL == 0 || x.TTL > now.Unix() {
			t.Fatalf("a page view of the first day has ttl %d, want at most %d", x.TTL, now.Unix())
		}
	}
	if n == 0 {
		t.Fatal("no page view of the first day stored")
	}
}

// checkPageViews checks that each of the days days from from has, in its
// aggregates, the page views g made on it up to now, and returns their
// sum.
func checkPageViews(t *testing.T, st *analytics.Store, g *Generator, from time.Time, days int, now time.Time) int {
	t.Helper()
	total := 0
	for d := range days {
		day := from.AddDate(0, 0, d)
		want := 0
		for _, e := range g.Day(day) {
			if e.Name == analytics.PageView && !e.Time.After(now) {
				want++
			}
		}
		total += want
		sm, err := st.Summary(context.Background(), "demo", day, day.AddDate(0, 0, 1))
		if err != nil {
			t.Fatal(err)
		}
		if sm.PageViews != int64(want) || sm.Visits == 0 {
			t.Errorf("%s: %d page views in %d visits aggregated, want %d page views", day.Format(time.DateOnly), sm.PageViews, sm.Visits, want)
		}
	}
	return total
}

// TestLoad_BackgroundPasses loads days while the Store's background loop
// runs a pass every millisecond beside Load's own: the passes of one
// Store share its lease owner, and when they ran at once the later one
// replaced a day's aggregates with hits read before the other's (days
// short of page views). The days each pass counts vary; the figures may
// not.
func TestLoad_BackgroundPasses(t *testing.T) {
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := NewClock(from)
	st := open(t, clk, time.Millisecond)
	g := New(&Options{Seed: 3, VisitsPerDay: 60})
	ls, err := Load(context.Background(), st, clk, g, &LoadOptions{From: from, Days: 12, Batch: 20})
	if err != nil {
		t.Fatal(err)
	}
	if total := checkPageViews(t, st, g, from, 12, clk.Now()); ls.PageViews != total {
		t.Errorf("Load counted %d page views, the generator made %d", ls.PageViews, total)
	}
}

// TestLoad_RecordAndRecordMany loads two days event by event with Record
// and in batches with RecordMany: the aggregates are the same.
func TestLoad_RecordAndRecordMany(t *testing.T) {
	ctx := context.Background()
	from := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	g := New(&Options{Seed: 5, VisitsPerDay: 80})
	var sums []analytics.Summary
	for _, batch := range []int{1, 1000} {
		clk := NewClock(from)
		st := open(t, clk, -1)
		if _, err := Load(ctx, st, clk, g, &LoadOptions{From: from, Days: 2, Batch: batch}); err != nil {
			t.Fatal(err)
		}
		sm, err := st.Summary(ctx, "demo", from, from.AddDate(0, 0, 2))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sm)
	}
	if sums[0] != sums[1] || sums[0].PageViews == 0 {
		t.Errorf("Record: %+v\nRecordMany: %+v", sums[0], sums[1])
	}
}

// TestLoad_BulkSameAsRecorded loads 40 days of one generator twice, day
// by day (each day recorded and aggregated as a live site would, then the
// clock moved on past the raw hits of the first days) and with Bulk (those
// days written at once with Store.RecordDay): the tables hold the same
// unexpired items, but for what is random by design (the ids of raw hits
// and of the sets of hit bucket parts, the time a bucket was written), and
// the Stats API reads the same from both.
func TestLoad_BulkSameAsRecorded(t *testing.T) {
	ctx := context.Background()
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := from.AddDate(0, 0, 39).Add(14*time.Hour + 30*time.Minute)
	g := New(&Options{Seed: 7, VisitsPerDay: 40, End: now})
	var tables [2]map[string]string
	var stores [2]*analytics.Store
	for i, bulk := range []bool{false, true} {
		clk := NewClock(from)
		st := open(t, clk, -1)
		ls, err := Load(ctx, st, clk, g, &LoadOptions{From: from, Days: 40, Now: now, Batch: 100, Bulk: bulk})
		if err != nil {
			t.Fatal(err)
		}
		if ls.Days != 40 || ls.Aggregated != 40 {
			t.Errorf("Load (bulk %v) = %+v, want 40 days recorded and aggregated", bulk, ls)
		}
		tables[i], stores[i] = unexpiredItems(t, st, now), st
	}
	hitBuckets := 0
	for k, want := range tables[0] {
		if strings.Contains(k, "HITPART#") {
			hitBuckets++
		}
		if got, ok := tables[1][k]; !ok {
			t.Errorf("bulk load lacks %s", want)
		} else if got != want {
			t.Errorf("bulk load has\n%s\nwant\n%s", got, want)
		}
	}
	for k, got := range tables[1] {
		if _, ok := tables[0][k]; !ok {
			t.Errorf("bulk load has %s, the day by day load not", got)
		}
	}
	// The days of the bulk, and the 30 of the raw hits: 39 finished days.
	if hitBuckets < 39 {
		t.Errorf("%d hit bucket parts compared, want one a day at least", hitBuckets)
	}
	// A filtered query over the whole range, from the buckets and the raw
	// hits.
	var answers [2][]analytics.Visit
	for i, st := range stores {
		for v, err := range st.Visits(ctx, "demo", from, now, nil) {
			if err != nil {
				t.Fatal(err)
			}
			// The Visit and its slices are valid until the next one.
			c := *v
			c.Goals = slices.Clone(v.Goals)
			c.Hits = slices.Clone(v.Hits)
			for j := range c.Hits {
				c.Hits[j].Goals = slices.Clone(c.Hits[j].Goals)
				c.Hits[j].Props = maps.Clone(c.Hits[j].Props)
			}
			answers[i] = append(answers[i], c)
		}
	}
	if len(answers[0]) == 0 || !reflect.DeepEqual(answers[0], answers[1]) {
		t.Errorf("Visits: %d from the day by day load, %d from the bulk load, or they differ", len(answers[0]), len(answers[1]))

	}
}

// unexpiredItems returns the items of st's table unexpired at now, each
// written as text, by its keys, with what is random by design replaced:
// the id of a raw hit, and the set of a hit bucket's parts (the time and
// random suffix of "written").
func unexpiredItems(t *testing.T, st *analytics.Store, now time.Time) map[string]string {
	t.Helper()
	out := map[string]string{}
	written := regexp.MustCompile(`[0-9]{13}[0-9a-f]{4}`)
	for it, err := range st.Table().ScanAll(context.Background(), &table.Scan{Consistent: true}) {
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := table.Unmarshal(it, &m); err != nil {
			t.Fatal(err)
		}
		if ttl, ok := m["ttl"].(float64); ok && int64(ttl) <= now.Unix() {
			continue
		}
		anon := func(s string) string {
			if id, ok := m["id"].(string); ok && id != "" {
				s = strings.ReplaceAll(s, id, "<id>")
			}
			return written.ReplaceAllString(s, "<written>")
		}
		out[anon(fmt.Sprint(m["pk"], " ", m["sk"]))] = anon(fmt.Sprint(m))
	}
	return out
}
