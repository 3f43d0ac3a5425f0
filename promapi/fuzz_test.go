package promapi_test

import (
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/timetable-db/timetable/promapi"
)

// FuzzIDLabels: any id gives labels without a panic; an id that parses
// as a label set is the one FormatLabelSet writes for it.
func FuzzIDLabels(f *testing.F) {
	for _, s := range []string{"_", "123", "host=a", "a=1,b=2", `a=x\,y\=z\\,b=2`, "b=1,a=2", "a=", "=a", `a=\`, "__name__=x", "a=1,a=2", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ls := promapi.IDLabels(id)
		if ls.IsEmpty() != (id == "_") {
			t.Fatalf("%q: labels %v", id, ls)
		}
		if ls.Has(model.MetricNameLabel) {
			t.Fatalf("%q: a __name__ label", id)
		}
		if ls.Get("series") == id && ls.Len() == 1 {
			return
		}
		if back := promapi.FormatLabelSet(ls); back != id {
			t.Fatalf("%q: labels %v written back as %q", id, ls, back)
		}
	})
}

// FuzzParams: times and durations of any text parse or are refused,
// without a panic; a parsed time of the years 0000-9999 (what RFC 3339
// writes) is formatted back to the same instant.
func FuzzParams(f *testing.F) {
	for _, s := range []string{"0", "1700000000.5", "-1", "1e300", "NaN", "Inf", "2025-03-01T00:00:00Z", "2025-03-01T00:00:00.123456789+02:00", "5m", "1h30m", "0.001", "", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ts, err := promapi.ParseTime(s); err == nil && ts.Year() >= 0 && ts.Year() <= 9999 {
			back, err := promapi.ParseTime(ts.Format(time.RFC3339Nano))
			if err != nil || !back.Equal(ts) {
				t.Fatalf("%q: %v read back as %v, %v", s, ts, back, err)
			}
		}
		_, _ = promapi.ParseDuration(s)
	})
}
