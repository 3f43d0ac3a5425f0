package analytics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestAggregates_AsStore: the Summary, Summaries and Breakdown of an
// Aggregates read once for many ranges (ranges on the half hour, as the
// days of a zone off UTC by half an hour are) equal the Store's own, read
// range by range.
func TestAggregates_AsStore(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	clk := newClock(now)
	s := openStore(t, backends()[0], clk, nil)
	ctx := context.Background()
	if err := s.CreateSite(ctx, Site{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	start := now.Add(-6 * 24 * time.Hour)
	for i := range 400 {
		at := start.Add(time.Duration(r.Int64N(int64(6*24*time.Hour - time.Hour)))).Truncate(time.Millisecond)
		rec(t, s, Event{Site: "a", Time: at, VisitorID: fmt.Sprintf("v%d", r.IntN(40)), Name: PageView,
			Path: []string{"/", "/a", "/b"}[i%3], Referrer: []string{"", "https://www.google.com/"}[r.IntN(2)]})
	}
	clk.Set(now.Add(2 * time.Minute))
	if _, err := s.AggregatePending(ctx); err != nil {
		t.Fatal(err)
	}
	type rng struct{ from, to time.Time }
	var rs []rng
	var reads AggregateReads
	reads.Dimension(DimSource)
	for range 40 {
		from := start.Add(time.Duration(r.IntN(6*48)) * 30 * time.Minute)
		to := from.Add(time.Duration(1+r.IntN(4*48)) * 30 * time.Minute)
		rs = append(rs, rng{from, to})
		reads.Range(from, to)
	}
	reads.Periods(Hour, start.Add(30*time.Minute), now)
	a, err := s.ReadAggregates(ctx, "a", &reads)
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, x := range rs {
		want, err := s.Summary(ctx, "a", x.from, x.to)
		if err != nil {
			t.Fatal(err)
		}
		if want.Visits > 0 {
			counted++
		}
		got, err := a.Summary(x.from, x.to)
		if err != nil || got != want {
			t.Errorf("Summary [%s, %s): %+v, %v; the Store's %+v", x.from, x.to, got, err, want)
		}
		wantB, err := s.Breakdown(ctx, "a", DimSource, x.from, x.to, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		gotB, err := a.Breakdown(DimSource, x.from, x.to)
		if err != nil || !reflect.DeepEqual(gotB, wantB) {
			t.Errorf("Breakdown [%s, %s): %v, %v; the Store's %v", x.from, x.to, gotB, err, wantB)
		}
	}
	if counted < len(rs)/2 {
		t.Errorf("%d of %d ranges have visits", counted, len(rs))
	}
	want, err := s.Summaries(ctx, "a", Hour, start.Add(30*time.Minute), now)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Summaries(Hour, start.Add(30*time.Minute), now); !reflect.DeepEqual(got, want) {
		t.Errorf("Summaries: %v; the Store's %v", got, want)
	}
}

// TestAggregateReads_Runs: the segments of many ranges are read as few
// runs: per tier, runs that touch, overlap or are one period apart are
// one. The 30 days of a zone 5 hours off UTC (all hours) and their range
// (hours, days, hours) are two queries.
func TestAggregateReads_Runs(t *testing.T) {
	d := func(day, hour int) time.Time { return time.Date(2024, 3, day, hour, 0, 0, 0, time.UTC) }
	var r AggregateReads
	r.Range(d(1, 5), d(31, 5)) // the whole range
	for day := 1; day < 31; day++ {
		r.Range(d(day, 5), d(day+1, 5)) // the days of a zone 5 hours off UTC
	}
	got := fmt.Sprint(runs(r.segs))
	want := fmt.Sprint([]segment{{Day, d(2, 0), d(31, 0)}, {Hour, d(1, 5), d(31, 5)}})
	if got != want {
		t.Errorf("runs: %s, want %s", got, want)
	}
}
