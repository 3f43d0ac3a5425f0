package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
)

func runCost(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"cost"}, args...), &out, &errb); code != 0 {
		t.Fatalf("timetable cost %q: exit %d\n%s", args, code, errb.String())
	}
	return out.String()
}

// TestCost_HandComputed checks the item-per-reading row of one workload
// against the arithmetic done by hand.
//
// 1,000 devices at 1 reading a minute, 3 fields, flushed every 5 minutes,
// kept 30 days, no dashboards and no rollups:
//
//   - Readings: 1000/60 = 16.667/s, items of 45 + 11×3 = 78 B, 1 WRU each.
//   - Latest readings: a conditional put per series and flush, 1000/300 =
//     3.333/s, items of 80 + 11×3 = 113 B, 1 WRU each.
//   - 20 WRU/s × 2,628,000 s = 52,560,000 WRU a month; × $0.625 per million
//     = $32.85 on demand. No reads.
//   - Storage: 1000/60 × 2,592,000 s = 43,200,000 items × (78 + 100) B =
//     7,689,600,000 B, and 1,000 latest items × (113 + 100) B = 213,000 B:
//     7,689,813,000 B = 7.1617 GB (2^30 B) × $0.25 = $1.7904.
//   - On demand: $32.85 + $1.7904 = $34.64.
//   - Provisioned: ⌈20 / 0.7⌉ = 29 WCU × 730 h × $0.00065 = $13.7605; 1 RCU
//     (the minimum) × 730 × $0.00013 = $0.0949; total $15.65.
func TestCost_HandComputed(t *testing.T) {
	out := runCost(t, "--devices", "1000", "--rate", "1/min", "--fields", "3", "--flush", "5m", "--retention", "30d", "--dashboards", "0", "--no-rollups")
	if want := "| item-per-reading | 52,560,000 | 0 | 7.16 | 34.64 | 15.65 |\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	for _, want := range []string{"| Layout | Write units/month |", "| chunks |", "| day-partitioned |", "| buckets |", "\nCheapest: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestCost_Layouts checks that the cheapest layout is named, and the
// detail of every layout printed (the model's own checks are series'
// TestFleet_Layouts).
func TestCost_Layouts(t *testing.T) {
	out := runCost(t, "--devices", "100", "--rate", "1/s", "--detail")
	if !strings.Contains(out, "Cheapest: chunks, ") || !strings.Contains(out, "# Capacity and cost: buckets layout") {
		t.Errorf("output:\n%s", out)
	}
}

func TestCost_BadArgs(t *testing.T) {
	for _, args := range [][]string{{"--rate", "1"}, {"--rate", "0/s"}, {"--rate", "1/fortnight"}, {"--devices", "0"}, {"--fields", "0"},
		{"--retention", "-1d"}, {"--flush", "0s"}, {"--peak", "0.5"}, {"--dashboard-refresh", "nope"}, {"extra"}} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), append([]string{"cost"}, args...), &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"help", "cost"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "Example:") {
		t.Errorf("help cost: exit %d, %q", code, out.String())
	}
}

func TestParseRate(t *testing.T) {
	f := func(s string, want float64) {
		t.Helper()
		got, err := parseRate(s)
		if want < 0 {
			if err == nil {
				t.Errorf("parseRate(%q) = %v, want an error", s, got)
			}
			return
		}
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("parseRate(%q) = %v, %v, want %v", s, got, err, want)
		}
	}
	f("1/min", 1.0/60)
	f("2/s", 2)
	f("3/h", 3.0/3600)
	f("1/d", 1.0/86400)
	f("1/30s", 1.0/30)
	f("5/2d", 5.0/(2*86400))
	f(" 0.5 / second ", 0.5)
	f("1", -1)
	f("0/s", -1)
	f("-1/s", -1)
	f("NaN/s", -1)
	f("inf/s", -1)
	f("1/0s", -1)
	f("1/-5m", -1)
	f("1/x", -1)
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"1/min", "2/s", "1/30s", "5/2d", "1/0s", "1e308/1ns", "1e-300/1000d", "", "/", "1/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRate(s)
		if err == nil && !(r > 0 && !math.IsInf(r, 0)) {
			t.Fatalf("parseRate(%q) = %v without an error", s, r)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30d", "24h", "1.5d", "0d", "-1d", "1e9d", "5m", "", "d", "NaNd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDuration(s)
		if err == nil && d <= 0 {
			t.Fatalf("parseDuration(%q) = %v without an error", s, d)
		}
	})
}
