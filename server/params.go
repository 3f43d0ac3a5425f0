package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/series"
)

// parseTime reads an RFC 3339 time (any fraction of a second) or an
// integer of milliseconds since the Unix epoch.
func parseTime(v string) (time.Time, error) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		if ms < -62135596800000 || ms > 253402300799999 {
			return time.Time{}, fmt.Errorf("%d milliseconds is outside the years 0001-9999", ms)
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time (2024-12-01T14:30:00Z) nor milliseconds since the epoch", v)
	}
	return t.UTC(), nil
}

// parseDuration reads a Go duration, with "d" for days of 24 hours
// ("30d", "1d12h"). It refuses a duration that does not fit a
// time.Duration (about 292 years), rather than letting it wrap.
func parseDuration(v string) (time.Duration, error) {
	days, rest := int64(0), v
	if i := strings.IndexByte(v, 'd'); i > 0 {
		n, err := strconv.ParseInt(v[:i], 10, 64)
		if err != nil || n < 0 || n > maxDays {
			return 0, fmt.Errorf("%q is not a duration of at most %d days", v, maxDays)
		}
		days, rest = n, v[i+1:]
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			return 0, fmt.Errorf("%q is not a duration", v)
		}
	}
	sum := time.Duration(days) * 24 * time.Hour
	if d > 0 && sum > math.MaxInt64-d || d < 0 && sum < math.MinInt64-d {
		return 0, fmt.Errorf("%q is not a duration of at most %d days", v, maxDays)
	}
	return sum + d, nil
}

// maxDays is the most days a time.Duration holds.
const maxDays = int64(math.MaxInt64 / (24 * time.Hour))

// maxStepMonths is the widest step of months: the years 0000-9999.
const maxStepMonths = 12 * 10_000

// parseStep reads the step of an aggregate: a positive number of months
// ("3mo", at most maxStepMonths) or a positive duration (parseDuration:
// "1m", "1h", "1d"). Exactly one of step and months is positive when err
// is nil.
func parseStep(v string) (step time.Duration, months int, err error) {
	if ms, ok := strings.CutSuffix(v, "mo"); ok {
		n, err := strconv.Atoi(ms)
		if err != nil || n <= 0 || n > maxStepMonths {
			return 0, 0, fmt.Errorf("%q is not a number of months from 1 to %d (3mo)", v, maxStepMonths)
		}
		return 0, n, nil
	}
	if step, err = parseDuration(v); err != nil || step <= 0 {
		return 0, 0, fmt.Errorf("%q is not a positive duration of at most %d days (1m, 1h, 1d) or a number of months (1mo)", v, maxDays)
	}
	return step, 0, nil
}

// filterOps are the operators of a filter parameter, longest first so
// that "<=" is not read as "<".
var filterOps = []string{"^=", "!=", "<=", ">=", "=", "<", ">"}

// parseFilter reads one filter parameter: "temperature>20",
// "location=lab", "location^=la" (prefix), "humidity?" (present),
// "humidity!" (absent), with = != < <= > >= on fields and = != ^= on tags.
func parseFilter(sc *series.Schema, v string) (series.Filter, error) {
	if name, ok := strings.CutSuffix(v, "?"); ok {
		return presence(sc, name, v, true)
	}
	if name, ok := strings.CutSuffix(v, "!"); ok {
		return presence(sc, name, v, false)
	}
	for _, op := range filterOps {
		i := strings.Index(v, op)
		if i <= 0 {
			continue
		}
		name, arg := v[:i], v[i+len(op):]
		if fi := sc.FieldIndex(name); fi >= 0 {
			x, err := strconv.ParseFloat(arg, 64)
			if err != nil || math.IsNaN(x) {
				return series.Filter{}, invalid("filter %q: %q is not a number", v, arg)
			}
			f := series.Field(name)
			switch op {
			case "=":
				return f.Eq(x), nil
			case "!=":
				return f.Ne(x), nil
			case "<":
				return f.Lt(x), nil
			case "<=":
				return f.Lte(x), nil
			case ">":
				return f.Gt(x), nil
			case ">=":
				return f.Gte(x), nil
			}
			return series.Filter{}, invalid("filter %q: %s does not apply to a field", v, op)
		}
		if sc.TagIndex(name) >= 0 {
			t := series.Tag(name)
			switch op {
			case "=":
				return t.Eq(arg), nil
			case "!=":
				return t.Ne(arg), nil
			case "^=":
				return t.Prefix(arg), nil
			}
			return series.Filter{}, invalid("filter %q: %s does not apply to a tag", v, op)
		}
		return series.Filter{}, invalid("filter %q: %q is neither a field nor a tag of kind %s", v, name, sc.Name)
	}
	return series.Filter{}, invalid("filter %q: expected name, operator (= != < <= > >= ^=) and value, or name? / name!", v)
}

func presence(sc *series.Schema, name, v string, present bool) (series.Filter, error) {
	switch {
	case sc.FieldIndex(name) >= 0 && present:
		return series.Field(name).Exists(), nil
	case sc.FieldIndex(name) >= 0:
		return series.Field(name).Absent(), nil
	case sc.TagIndex(name) >= 0 && present:
		return series.Tag(name).Exists(), nil
	case sc.TagIndex(name) >= 0:
		return series.Tag(name).Eq(""), nil
	}
	return series.Filter{}, invalid("filter %q: %q is neither a field nor a tag of kind %s", v, name, sc.Name)
}
