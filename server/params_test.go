package server

import (
	"strings"
	"testing"
	"time"
)

// TestParseStep_Overflow: steps that do not fit are refused with the
// bound, never wrapped into a negative duration or a date beyond the
// years 0000-9999.
func TestParseStep_Overflow(t *testing.T) {
	for _, v := range []string{"99999999999mo", "120001mo", "0mo", "-1mo", "106752d", "1000000d", "99999999999d", "106751d24h",
		"9223372036854775807d", "2562048h", "0s", "-1h", "x", "1.5d"} {
		if step, months, err := parseStep(v); err == nil {
			t.Errorf("parseStep(%q) = %v, %d months, want an error", v, step, months)
		}
	}
	for v, want := range map[string]time.Duration{"1m": time.Minute, "1d12h": 36 * time.Hour, "106751d": 106751 * 24 * time.Hour, "2562047h": 2562047 * time.Hour} {
		if step, months, err := parseStep(v); err != nil || step != want || months != 0 {
			t.Errorf("parseStep(%q) = %v, %d, %v, want %v", v, step, months, err, want)
		}
	}
	if _, months, err := parseStep("120000mo"); err != nil || months != 120000 {
		t.Errorf("parseStep(120000mo) = %d, %v", months, err)
	}
	if _, _, err := parseStep("99999999999mo"); err == nil || !strings.Contains(err.Error(), "from 1 to 120000") {
		t.Errorf("parseStep(99999999999mo): %v, want the bound named", err)
	}
}

// TestParseTime_ZeroTimeIsGiven: the zero time, given, is a bound that
// package series does not read as missing, at the same millisecond.
func TestParseTime_ZeroTimeIsGiven(t *testing.T) {
	for _, v := range []string{"0001-01-01T00:00:00Z", "-62135596800000"} {
		tm, err := parseTime(v)
		if err != nil || !tm.IsZero() {
			t.Fatalf("parseTime(%q) = %v, %v", v, tm, err)
		}
		g := given(tm)
		if g.IsZero() || g.Add(time.Millisecond).Truncate(time.Millisecond) != tm {
			t.Errorf("given(%v) = %v, want a non-zero time rounding up to it", tm, g)
		}
	}
}

// FuzzParseStep: parseStep never panics, and what it accepts is one
// positive step of months within the years 0000-9999 or one positive
// duration.
func FuzzParseStep(f *testing.F) {
	for _, s := range []string{"1m", "1h", "1d", "3mo", "99999999999mo", "106751d", "106752d", "1d-25h", "mo", "d", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		step, months, err := parseStep(s)
		if err != nil {
			return
		}
		if (step > 0) == (months > 0) || step < 0 || months < 0 || months > maxStepMonths {
			t.Fatalf("parseStep(%q) = %v, %d months", s, step, months)
		}
	})
}

// FuzzParseTime: parseTime never panics, what it accepts is within the
// years 0000-9999, in UTC, and given never makes it the zero time.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-12-01T14:30:00.123Z", "1733063400123", "-62135596800000", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z", "253402300799999", "9999-12-31T23:59:59-23:59", "-9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := parseTime(s)
		if err != nil {
			return
		}
		if tm.Location() != time.UTC || tm.Year() < 0 || tm.Year() > 10000 {
			t.Fatalf("parseTime(%q) = %v", s, tm)
		}
		if given(tm).IsZero() || given(tm).Add(time.Millisecond).Before(tm) {
			t.Fatalf("given(%v) = %v", tm, given(tm))
		}
	})
}
