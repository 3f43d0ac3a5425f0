package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestAnalyticsRangeTiny runs the analytics-range part on a tiny demo
// site (40 days) and checks its report: the filtered queries are computed
// from the hits, the unfiltered ones from the aggregates.
func TestAnalyticsRangeTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a demo site")
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	if err := run([]string{"-only", "analytics-range", "-out", out, "-analytics-range-page-views", "20000", "-analytics-range-days", "40",
		"-analytics-range-runs", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Web analytics: any query over any range", "| raw_hits |", "| aggregates |", "Hit buckets: 39 parts", "| p50 | p90 |",
		"`filtered: {\"site_id\":\"demo\",\"metrics\":[\"visitors\",\"visits\",\"pageviews\"],\"dimensions\":[\"visit:country\",\"time:month\"]",
		`visit:source is Google`} {
		if !bytes.Contains(md, []byte(w)) {
			t.Errorf("report lacks %q:\n%s", w, md)
		}
	}
}
