package design

import (
	"strings"
	"time"
)

// Go time layouts of the key formats of package keys, for Attribute.Format.
const (
	LayoutYear      = "2006"                     // keys.TimeSeries(t, keys.Year)
	LayoutMonth     = "2006-01"                  // keys.TimeSeries(t, keys.Month)
	LayoutDay       = "2006-01-02"               // keys.TimeSeries(t, keys.Day)
	LayoutHour      = "2006-01-02-15"            // keys.TimeSeries(t, keys.Hour)
	LayoutMinute    = "2006-01-02-15-04"         // keys.TimeSeries(t, keys.Minute)
	LayoutTimestamp = "2006-01-02T15:04:05.000Z" // keys.Timestamp
	LayoutTimeOfDay = "15:04:05.000"             // keys.TimeOfDay
)

// layoutSamples are instants in increasing order, chosen so that a layout
// which does not sort as time does (unpadded fields, names of months or days,
// 12-hour clocks, day before month) puts two neighbours out of order.
var layoutSamples = []time.Time{
	time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2024, 1, 9, 9, 9, 9, 9000000, time.UTC),
	time.Date(2024, 1, 10, 10, 10, 10, 10000000, time.UTC),
	time.Date(2024, 1, 31, 11, 0, 0, 0, time.UTC),
	time.Date(2024, 2, 1, 13, 0, 0, 0, time.UTC),
	time.Date(2024, 8, 31, 23, 0, 0, 0, time.UTC),
	time.Date(2024, 9, 3, 1, 2, 3, 400000000, time.UTC),
	time.Date(2024, 10, 1, 1, 2, 3, 500000000, time.UTC),
	time.Date(2024, 12, 1, 14, 30, 0, 0, time.UTC),
	time.Date(2024, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
}

// daySamples are instants of one day in increasing order, for layouts of a
// time of day.
var daySamples = []time.Time{
	time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC),
	time.Date(2024, 12, 1, 1, 9, 9, 9000000, time.UTC),
	time.Date(2024, 12, 1, 9, 59, 59, 999000000, time.UTC),
	time.Date(2024, 12, 1, 10, 0, 0, 0, time.UTC),
	time.Date(2024, 12, 1, 11, 59, 0, 0, time.UTC),
	time.Date(2024, 12, 1, 12, 0, 0, 0, time.UTC),
	time.Date(2024, 12, 1, 13, 0, 0, 0, time.UTC),
	time.Date(2024, 12, 1, 23, 59, 59, 999999999, time.UTC),
}

// checkLayout reports why a time layout cannot serve in a sort key, or ""
// if its values have one width and sort by bytes as their instants do.
func checkLayout(layout string) string {
	samples := layoutSamples
	if !strings.Contains(layout, "2006") && !strings.Contains(layout, "06") {
		samples = daySamples // no year: a time of day, or a date without one
	}
	prev := samples[0].Format(layout)
	changed := false
	for _, t := range samples[1:] {
		cur := t.Format(layout)
		if len(cur) != len(prev) {
			return "its values differ in width (" + prev + ", " + cur + ")"
		}
		if cur < prev {
			return "its values do not sort in time order (" + prev + " sorts after " + cur + ")"
		}
		changed = changed || cur != prev
		prev = cur
	}
	if !changed {
		return "it is not a time layout"
	}
	return ""
}

// layoutsCompatible reports whether values of the two layouts sort
// consistently when they share a range: one layout must be a prefix of the
// other, so that a coarse value sorts just before the finer values of its
// period. It also returns the offset where they first differ.
func layoutsCompatible(a, b string) (bool, int) {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return false, i
		}
	}
	return true, n
}

// parseTimeValue reports whether v is a value of layout, or of a prefix of
// it (a coarser period).
func parseTimeValue(layout, v string) bool {
	if len(v) == 0 || len(v) > len(layout) {
		return false
	}
	_, err := time.Parse(layout[:len(v)], v)
	return err == nil
}
