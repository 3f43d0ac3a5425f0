package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestAnalyticsUnits_Estimate checks the arithmetic on a case computed by
// hand, at $0.625 per million write units, $0.125 per million read units
// and $0.25 per GB-month, a month of 730 hours (30.4167 days):
//
//	writes a day: 10,000 × 2 (record) + 24 runs × 100 + 10,000 × 0.5 = 27,400
//	reads a day:  24 × 10 + (24+1)/2 × 10,000 × 0.1 (aggregation)
//	              + 100 views × 30 days × 5 = 27,740
//	writes:  27,400 × 30.4167 = 833,416.7 units, $0.520885
//	reads:   27,740 × 30.4167 = 843,758.3 units, $0.105470
//	storage: 300,000 items × (200 + 100) B × 2 (one index copy)
//	         = 180,000,000 B = 0.167638 GB, $0.041910
//	total:   $0.668265
func TestAnalyticsUnits_Estimate(t *testing.T) {
	u := &analyticsUnits{RecordWrite: 2, AggReadRun: 10, AggReadEvent: 0.1, AggWriteRun: 100, AggWriteEvent: 0.5, ViewReadDay: 5,
		Tiers: []storedTier{{name: "hits", raw: true, perEvent: 1, bytes: 200, gsis: 1, retention: 30 * day}}}
	e, err := u.estimate(analyticsLoad{EventsPerDay: 1e4, AggregateEvery: time.Hour, ViewsPerDay: 100, ViewDays: 30})
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.6f, want %.6f", what, got, want)
		}
	}
	const month = 730 * 3600
	near("write units a month", e.WriteUnits*month, 833416.6667)
	near("read units a month", e.ReadUnits*month, 843758.3333)
	near("storage bytes", e.StorageBytes, 180e6)
	near("writes $", e.OnDemand.Writes, 0.520885)
	near("reads $", e.OnDemand.Reads, 0.105470)
	near("storage $", e.OnDemand.Storage, 0.041910)
	near("total $", e.OnDemand.Total, 0.668265)

	for _, bad := range []analyticsLoad{{EventsPerDay: 0, AggregateEvery: time.Hour, ViewDays: 1}, {EventsPerDay: 1, AggregateEvery: 0, ViewDays: 1},
		{EventsPerDay: 1, AggregateEvery: 48 * time.Hour, ViewDays: 1}, {EventsPerDay: math.NaN(), AggregateEvery: time.Hour, ViewDays: 1}} {
		if _, err := u.estimate(bad); err == nil {
			t.Errorf("estimate(%+v) did not fail", bad)
		}
	}
}

// TestCLI_CostAnalytics runs the command: three sizes beside the seed's
// estimates, bills that grow with the traffic.
func TestCLI_CostAnalytics(t *testing.T) {
	out := mustCLI(t, "cost", "analytics", "--measure-visits", "40")
	for _, want := range []string{"| 10,000 |", "| 100,000 |", "| 1,000,000 |", "~5 |", "~500 |", "Measured per event"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := runCLI(t, "cost", "analytics", "--aggregate-every", "0s"); code != 2 || !strings.Contains(errs, "aggregate-every") {
		t.Errorf("--aggregate-every 0s: exit %d, %s; want 2 and the reason", code, errs)
	}
}
