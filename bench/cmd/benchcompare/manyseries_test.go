package main

import (
	"testing"
	"time"
)

// TestManySeriesFigures checks the direction of the ratios: above 1 when
// timetable is better (a higher rate, a shorter flush and stop, less
// memory), below 1 when it is worse.
func TestManySeriesFigures(t *testing.T) {
	better := manyRun{name: "timetable serve", readings: 1000, ingest: time.Second, flush: time.Second, peakRSS: 10 << 20, stop: time.Second}
	worse := manyRun{name: "VictoriaMetrics", readings: 1000, ingest: 2 * time.Second, flush: 3 * time.Second, peakRSS: 20 << 20, stop: 2 * time.Second}
	c := manySeriesConfig{ids: 1000, minutes: 1, batch: 10, senders: 1}
	for _, tc := range []struct {
		ours, peer manyRun
		above      bool
	}{{better, worse, true}, {worse, better, false}} {
		checkRatios(t, manySeriesFigures(c, tc.ours, tc.peer), 5, tc.above)
	}
}

// checkRatios fails t unless figs are n figures, each with a ratio above
// 1 if above, below 1 if not.
func checkRatios(t *testing.T, figs []Figure, n int, above bool) {
	t.Helper()
	if len(figs) != n {
		t.Fatalf("%d figures, want %d", len(figs), n)
	}
	for _, f := range figs {
		if f.Ratio == nil || (*f.Ratio > 1) != above || *f.Ratio == 1 {
			t.Errorf("%s: ours %v, peer %v, ratio %v; want above 1: %v", f.Name, f.Ours, *f.Peer, *f.Ratio, above)
		}
	}
}

// TestManySeries_VictoriaMetricsTiny runs the part against
// VictoriaMetrics at a tiny size (it needs the binary make bench-compare
// builds into .tools) and checks its section.
func TestManySeries_VictoriaMetricsTiny(t *testing.T) {
	runVictoriaMetricsTiny(t, "many-series",
		[]string{"-many-series-ids", "2000", "-many-series-minutes", "2", "-many-series-batch", "500"},
		[]string{"## Many devices", "| VictoriaMetrics | 4000 |", "/internal/force_flush"})
}
