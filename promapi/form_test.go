package promapi_test

import (
	"testing"
	"time"

	"github.com/timetable-db/timetable/promapi"
)

// TestParseTime_RoundsToTheMillisecond: a fraction a float64 holds just
// below its decimal value reads as that millisecond, as in Prometheus.
func TestParseTime_RoundsToTheMillisecond(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1796450401.751":  time.UnixMilli(1796450401751),
		"1796450401.7509": time.UnixMilli(1796450401751),
		"1796450401.7504": time.UnixMilli(1796450401750),
		"1.5":             time.UnixMilli(1500),
		"-1.25":           time.UnixMilli(-1250),
		"1796450401":      time.UnixMilli(1796450401000),
	} {
		got, err := promapi.ParseTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got.UnixNano(), err, want.UnixNano())
		}
	}
}
