package statsapi_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/statsapi"
)

// queries counts the Query calls that q makes on s's table.
func queries(t testing.TB, s *analytics.Store, now time.Time, query string) int64 {
	t.Helper()
	q, err := statsapi.Parse([]byte(query))
	if err != nil {
		t.Fatal(err)
	}
	s.Table().ResetStats()
	if _, err := q.Run(context.Background(), s, now, nil); err != nil {
		t.Fatalf("Run(%s): %v", query, err)
	}
	return s.Table().Stats().Ops["Query"].Calls
}

// TestRun_ReadsRangeOnce: a time series from the aggregates reads them
// once for the range, not once per time bucket: 30 days by day, broken
// down or not, costs as many queries as 7 days: at most one per tier of
// aggregates (hours, days, months). It made one per bucket or more.
func TestRun_ReadsRangeOnce(t *testing.T) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(t, now)
	record(t, s, clk, randomEvents(rand.New(rand.NewPCG(5, 6)), now, 30))
	for _, c := range []struct{ metrics, dims string }{
		{`"visitors","visits","pageviews"`, `"time:day"`},
		{`"visits"`, `"time:day","visit:source"`},
		{`"visits","conversion_rate"`, `"event:goal","time:day"`},
		{`"pageviews"`, `"time:hour","event:page"`},
		{`"visits"`, `"time:week","visit:country"`},
	} {
		q := func(rng string) string {
			return `{"site_id":"a","metrics":[` + c.metrics + `],"dimensions":[` + c.dims + `],"date_range":` + rng + `}`
		}
		week, month := queries(t, s, clk.Now(), q(`"7d"`)), queries(t, s, clk.Now(), q(`"30d"`))
		t.Logf("%s: %d queries over 7 days, %d over 30", c.dims, week, month)
		if month != week || month > 3 {
			t.Errorf("%s: %d queries over 30 days, %d over 7: want the same few", c.dims, month, week)
		}
	}
}

// BenchmarkRun_TimeSeriesBreakdown is a 30-day time series by day broken
// down by source, from the aggregates.
func BenchmarkRun_TimeSeriesBreakdown(b *testing.B) {
	now := time.Date(2024, 3, 20, 12, 0, 0, 0, time.UTC)
	s, clk := fixture(b, now)
	record(b, s, clk, randomEvents(rand.New(rand.NewPCG(5, 6)), now, 30))
	q, err := statsapi.Parse([]byte(`{"site_id":"a","metrics":["visits"],"dimensions":["time:day","visit:source"],"date_range":"30d"}`))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s.Table().ResetStats()
	b.ResetTimer()
	for range b.N {
		if _, err := q.Run(ctx, s, clk.Now(), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Table().Stats().Ops["Query"].Calls)/float64(b.N), "queries/op")
}
