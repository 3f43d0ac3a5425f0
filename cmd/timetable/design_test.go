package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/timetable-db/timetable/series"
)

func TestDesign_SeriesValid(t *testing.T) {
	for _, l := range series.Layouts() {
		for _, metric := range []bool{false, true} {
			d, err := series.Design(series.Schema{Name: "SENSOR", Fields: []string{"temperature"}, Tags: []string{"location"}, Layout: l, MetricIndex: metric})
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Validate(); err != nil {
				t.Errorf("%s (metric index %v): %v", l, metric, err)
			}
		}
	}
}

func TestDesign_Series(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"design", "series"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	md := out.String()
	for _, want := range []string{"# Time series: chunks layout", "# Time series: item-per-reading layout", "# Time series: day-partitioned layout",
		"# Time series: buckets layout", "SENSOR#{id}#L", "SENSOR#123#2024-12-01", "2024-12-01T14:00:00.000Z#000000000000002a", "~DIRTY#SENSOR"} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	out.Reset()
	if code := run(context.Background(), []string{"design", "series", "-layout", "buckets", "-kind", "HEART"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if md := out.String(); !strings.Contains(md, "HEART#{id}") || strings.Contains(md, "chunks layout") {
		t.Errorf("one layout, kind HEART: %s", md)
	}
}

func TestDesign_BadArgs(t *testing.T) {
	for _, args := range [][]string{{"design"}, {"design", "nope"}, {"design", "series", "-layout", "nope"}, {"design", "series", "extra"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"design", "analytics"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Web analytics") {
		t.Errorf("design analytics: exit %d, %s", code, errb.String())
	}
}
