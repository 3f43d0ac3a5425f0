package statsapi_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/timetable-db/timetable/analytics/demo"
	"github.com/timetable-db/timetable/analytics/statsapi"
)

// BenchmarkRun_FilteredRange runs the filtered queries of the
// analytics-range benchmark over the demo site's days, all read from
// their hit buckets: BENCH_RANGE_DAYS days (default 3) of
// BENCH_RANGE_VISITS visits a day (default 25,000; the year of 10
// million page views of that benchmark averages about 10,000), loaded
// with demo.Load's Bulk.
func BenchmarkRun_FilteredRange(b *testing.B) {
	days, visits := envInt(b, "BENCH_RANGE_DAYS", 3), envInt(b, "BENCH_RANGE_VISITS", 25000)
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := from.AddDate(0, 0, days+40)
	st, clk := fixture(b, now)
	ctx := context.Background()
	if err := demo.CreateSite(ctx, st, "demo"); err != nil {
		b.Fatal(err)
	}
	g := demo.New(&demo.Options{VisitsPerDay: float64(visits), GrowthPerMonth: -1})
	if _, err := demo.Load(ctx, st, clk, g, &demo.LoadOptions{From: from, Days: days, Now: now, Bulk: true}); err != nil {
		b.Fatal(err)
	}
	rng := `["` + from.Format(time.DateOnly) + `","` + from.AddDate(0, 0, days-1).Format(time.DateOnly) + `"]`
	filter := `"filters":[["is","visit:source",["Google"]]]`
	for _, c := range []struct{ name, metrics, dims string }{
		{"country-month", `"visitors","visits","pageviews"`, `"visit:country","time:month"`},
		{"country", `"visits"`, `"visit:country"`},
		{"month", `"visitors","pageviews"`, `"time:month"`},
	} {
		b.Run(c.name, func(b *testing.B) {
			q, err := statsapi.Parse([]byte(`{"site_id":"demo","metrics":[` + c.metrics + `],"dimensions":[` + c.dims + `],"date_range":` + rng + `,` + filter + `}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := q.Run(ctx, st, now, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// envInt returns the integer of the environment variable name, def if
// it is not set.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}
