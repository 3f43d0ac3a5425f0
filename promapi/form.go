package promapi

import (
	"context"
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/prometheus/common/model"
)

// The bounds of a lookup without start or end, as Prometheus has them.
var (
	minTime = time.Unix(math.MinInt64/1000+62135596801, 0).UTC()
	maxTime = time.Unix(math.MaxInt64/1000-62135596801, 999999999).UTC()
)

// form is the parameters of a request: its query string and, for a form
// POST, its body.
type form struct{ v url.Values }

func (f form) get(name string) (string, bool) {
	vs, ok := f.v[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

func (f form) all(name string) []string { return f.v[name] }

func (f form) required(name string) (string, error) {
	s, ok := f.get(name)
	if !ok || s == "" {
		return "", badDataf("missing parameter %s", name)
	}
	return s, nil
}

// time parses parameter name as ParseTime does, def when absent.
func (f form) time(name string, def time.Time) (time.Time, error) {
	s, ok := f.get(name)
	if !ok || s == "" {
		return def, nil
	}
	t, err := ParseTime(s)
	if err != nil {
		return time.Time{}, badDataf("invalid parameter %s: %v", name, err)
	}
	return t, nil
}

// rangeOf parses start and end: both required for a range query, else
// the widest range by default. end before start is an error.
func (f form) rangeOf(required bool) (time.Time, time.Time, error) {
	if required {
		for _, p := range []string{"start", "end"} {
			if _, err := f.required(p); err != nil {
				return time.Time{}, time.Time{}, err
			}
		}
	}
	start, err := f.time("start", minTime)
	if err != nil {
		return start, start, err
	}
	end, err := f.time("end", maxTime)
	if err != nil {
		return start, end, err
	}
	if end.Before(start) {
		return start, end, badDataf("invalid parameter end: end timestamp must not be before start time")
	}
	return start, end, nil
}

// duration parses parameter name as ParseDuration does.
func (f form) duration(name string) (time.Duration, error) {
	s, _ := f.get(name)
	d, err := ParseDuration(s)
	if err != nil {
		return 0, badDataf("invalid parameter %s: %v", name, err)
	}
	return d, nil
}

// timeout returns ctx bounded by the parameter timeout, if given.
func (f form) timeout(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if _, ok := f.get("timeout"); !ok {
		return ctx, func() {}, nil
	}
	d, err := f.duration("timeout")
	if err != nil {
		return ctx, nil, err
	}
	if d <= 0 {
		return ctx, nil, badDataf("invalid parameter timeout: must be positive")
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, nil
}

// intParam parses a non-negative integer parameter, 0 when absent.
func (f form) intParam(name string) (int, error) {
	s, ok := f.get(name)
	if !ok || s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, badDataf("invalid parameter %s: %q is not a non-negative integer", name, s)
	}
	return n, nil
}

func (f form) limit() (int, error) { return f.intParam("limit") }

// ParseTime parses a time as Prometheus' API takes it: Unix seconds with
// a fraction ("1700000000.5") or RFC 3339 ("2023-11-14T22:13:20.5Z"),
// within what an int64 of milliseconds holds.
func ParseTime(s string) (time.Time, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) || v > float64(math.MaxInt64)/1e3 || v < float64(math.MinInt64)/1e3 {
			return time.Time{}, badDataf("cannot parse %q to a valid timestamp", s)
		}
		// As Prometheus does: the fraction rounded to the millisecond
		// (1796450401.751 is held as .75099...: truncated, it would be
		// a millisecond early).
		sec, frac := math.Modf(v)
		frac = math.Round(frac*1000) / 1000
		return time.Unix(int64(sec), int64(frac*float64(time.Second))).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if t.Before(minTime) || t.After(maxTime) {
			return time.Time{}, badDataf("cannot parse %q to a valid timestamp", s)
		}
		return t, nil
	}
	switch s {
	case minTime.Format(time.RFC3339Nano):
		return minTime, nil
	case maxTime.Format(time.RFC3339Nano):
		return maxTime, nil
	}
	return time.Time{}, badDataf("cannot parse %q to a valid timestamp", s)
}

// ParseDuration parses a duration as Prometheus' API takes it: seconds
// with a fraction ("15", "0.5") or a Prometheus duration ("1m30s", "5m").
func ParseDuration(s string) (time.Duration, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		ns := v * float64(time.Second)
		if math.IsNaN(ns) || ns >= float64(math.MaxInt64) || ns <= float64(math.MinInt64) {
			return 0, badDataf("cannot parse %q to a valid duration. It overflows int64", s)
		}
		return time.Duration(ns), nil
	}
	if d, err := model.ParseDuration(s); err == nil {
		return time.Duration(d), nil
	}
	return 0, badDataf("cannot parse %q to a valid duration", s)
}
