package statsapi

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// presets are the named date ranges.
var presets = []string{"day", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all"}

// siteTime is what resolving a date range needs of a site.
type siteTime struct {
	loc     *time.Location
	created time.Time
}

// earliest bounds the dates of a range: before it there is nothing.
var earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// For checking a range's dates while parsing, before the site and the
// clock are known: a now late enough that only the fixed bounds apply
// (dataEnd(fixedNow) is earliest plus 200 years).
var (
	utcSite  = siteTime{loc: time.UTC}
	fixedNow = earliest.AddDate(198, 0, 0)
)

// dataEnd is the end of the dates a range may reach at now, in loc: the
// end of next year. Hits are stamped with the server's clock, so there is
// nothing after now; next year's end leaves room for the presets that end
// in the future ("year", "month") and for a range chosen a little ahead.
func dataEnd(now time.Time, loc *time.Location) time.Time {
	return time.Date(now.In(loc).Year()+2, 1, 1, 0, 0, 0, 0, loc)
}

// resolve returns the range [from, to) that dr names for a site at now.
func (dr DateRange) resolve(st siteTime, now time.Time) (from, to time.Time, err error) {
	now = now.In(st.loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, st.loc)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, st.loc)
	switch dr.Preset {
	case "day":
		return today, today.AddDate(0, 0, 1), nil
	case "7d", "28d", "30d", "91d":
		n, _ := strconv.Atoi(strings.TrimSuffix(dr.Preset, "d"))
		return today.AddDate(0, 0, -n), today, nil
	case "month":
		return month, month.AddDate(0, 1, 0), nil
	case "6mo", "12mo":
		n, _ := strconv.Atoi(strings.TrimSuffix(dr.Preset, "mo"))
		return month.AddDate(0, 1-n, 0), month.AddDate(0, 1, 0), nil
	case "year":
		y := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, st.loc)
		return y, y.AddDate(1, 0, 0), nil
	case "all":
		c := st.created.In(st.loc)
		return time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, st.loc), today.AddDate(0, 0, 1), nil
	}
	// Two dates (whole days, both in) or two date-times (both in, to the
	// second).
	if d1, e1 := time.ParseInLocation(time.DateOnly, dr.From, st.loc); e1 == nil {
		d2, e2 := time.ParseInLocation(time.DateOnly, dr.To, st.loc)
		if e2 != nil {
			return from, to, errorf("#/date_range: Invalid date range [%q, %q]: give two dates or two date-times", dr.From, dr.To)
		}
		from, to = d1, d2.AddDate(0, 0, 1)
	} else {
		t1, e1 := parseDateTime(dr.From, st.loc)
		t2, e2 := parseDateTime(dr.To, st.loc)
		if e1 != nil || e2 != nil {
			return from, to, errorf("#/date_range: Invalid date range [%q, %q]: want YYYY-MM-DD or RFC 3339 date-times", dr.From, dr.To)
		}
		from, to = t1, t2.Truncate(time.Second).Add(time.Second)
	}
	if !from.Before(to) {
		return from, to, errorf("#/date_range: Invalid date range [%q, %q]: the end is before the start", dr.From, dr.To)
	}
	end := dataEnd(now, st.loc)
	if last := earliest.AddDate(200, 0, 0); end.After(last) {
		end = last
	}
	if from.Before(earliest) || to.After(end) {
		return from, to, errorf("#/date_range: Invalid date range [%q, %q]: out of bounds: dates run from %s to %s (the end of next year)",
			dr.From, dr.To, earliest.Format(time.DateOnly), end.AddDate(0, 0, -1).Format(time.DateOnly))
	}
	return from, to, nil
}

// parseDateTime reads an RFC 3339 date-time, or one without offset
// ("2024-01-01T12:00:00" or "2024-01-01 12:00:00") in loc.
func parseDateTime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc); err == nil {
		return t, nil
	}
	return time.ParseInLocation(time.DateTime, s, loc)
}

// granularity is the bucket of a time dimension.
type granularity string

const (
	byHour  granularity = "hour"
	byDay   granularity = "day"
	byWeek  granularity = "week"
	byMonth granularity = "month"
)

// granularityOf returns the bucket of time dimension d over [from, to):
// "time" picks hours for up to two days, days for up to 40, else months.
func granularityOf(d string, from, to time.Time) granularity {
	switch d {
	case "time:hour":
		return byHour
	case "time:day":
		return byDay
	case "time:week":
		return byWeek
	case "time:month":
		return byMonth
	}
	switch span := to.Sub(from); {
	case span <= 49*time.Hour:
		return byHour
	case span <= 41*24*time.Hour:
		return byDay
	}
	return byMonth
}

// bucket is one time bucket of a query, in the site's time zone.
type bucket struct {
	start, end time.Time
	label      string
}

// buckets cuts [from, to) into buckets of g in loc; the first and last
// are cut to the range (a week or month that starts before from is
// labelled by from, as Plausible does). It stops after max+1 buckets:
// ok is false when [from, to) makes more than max.
func buckets(g granularity, from, to time.Time, loc *time.Location, max int) (out []bucket, ok bool) {
	from, to = from.In(loc), to.In(loc)
	start := from
	for start.Before(to) {
		if len(out) == max {
			return out, false
		}
		var next time.Time
		switch g {
		case byHour:
			next = time.Date(start.Year(), start.Month(), start.Day(), start.Hour()+1, 0, 0, 0, loc)
		case byDay:
			next = time.Date(start.Year(), start.Month(), start.Day()+1, 0, 0, 0, 0, loc)
		case byWeek:
			wd := (int(start.Weekday()) + 6) % 7 // days since Monday
			next = time.Date(start.Year(), start.Month(), start.Day()-wd+7, 0, 0, 0, 0, loc)
		default:
			next = time.Date(start.Year(), start.Month()+1, 1, 0, 0, 0, 0, loc)
		}
		if next.After(to) {
			next = to
		}
		label := start.Format(time.DateOnly)
		if g == byHour {
			label = start.Format(time.DateTime)
		}
		out = append(out, bucket{start: start, end: next, label: label})
		start = next
	}
	return out, true
}

// Range returns the range [from, to) that spec names for site at now, as
// a query's date_range would: a preset ("7d", "month", ...) or two dates
// or date-times joined by a comma ("2024-01-01,2024-01-31"). A bad spec is
// an *Error.
func Range(site *analytics.Site, spec string, now time.Time) (from, to time.Time, err error) {
	dr := DateRange{Preset: spec}
	if a, b, ok := strings.Cut(spec, ","); ok {
		dr = DateRange{From: strings.TrimSpace(a), To: strings.TrimSpace(b)}
	} else if !slices.Contains(presets, spec) {
		return from, to, errorf("date_range %q: want a preset (%s) or two dates joined by a comma", spec, strings.Join(presets, ", "))
	}
	return dr.resolve(siteTime{loc: site.Location(), created: site.CreatedAt}, now)
}
