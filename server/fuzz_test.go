package server

import (
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/series"
)

// FuzzParams: the query parameter parsers never panic, and what they accept
// is what they were given.
func FuzzParams(f *testing.F) {
	for _, s := range []string{"temperature>20", "location=lab", "location^=la", "humidity?", "humidity!", "t<=-1e3", "x", "=", ">=1",
		"2024-12-01T14:30:00.123Z", "1733063400123", "-62135596800000", "30d", "1d12h", "90s", "d", "99999999999d"} {
		f.Add(s)
	}
	sc := &series.Schema{Name: "K", Fields: []string{"temperature", "humidity", "t"}, Tags: []string{"location"}}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := parseFilter(sc, s); err == nil && !strings.ContainsAny(s, "=<>?!") {
			t.Fatalf("filter %q without an operator accepted", s)
		}
		if tm, err := parseTime(s); err == nil && (tm.Year() < 1 || tm.Year() > 9999) && tm.Location() != time.UTC {
			t.Fatalf("time %q: %v", s, tm)
		}
		if d, err := parseDuration(s); err == nil && d < 0 {
			t.Fatalf("duration %q parsed to %v", s, d)
		}
	})
}
