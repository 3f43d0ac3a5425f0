package statsapi

import (
	"context"
	"slices"
	"time"

	"github.com/timetable-db/timetable/analytics"
)

// addImported adds to t the imported days of q's site that start in
// [from, to): their totals to the range's and to the row of the time
// bucket holding the day, and, for a breakdown, each value's count to its
// row. An imported day is a date of the site's time zone loc (as
// Plausible's export dates its rows): it starts at that date's midnight
// in loc. Goals and custom event properties are never imported.
func (q *Query) addImported(ctx context.Context, s *analytics.Store, t *table, bs []bucket, loc *time.Location, from, to time.Time) error {
	nt := q.nonTime()
	var dim analytics.Dimension
	var dims []analytics.Dimension
	if len(nt) > 0 {
		dim = aggDimension(nt[0])
		if _, prop := dim.PropName(); prop || dim == analytics.DimGoal {
			return nil
		}
		dims = []analytics.Dimension{dim}
	}
	first, end := importedDates(loc, from, to)
	days, err := s.ImportedDays(ctx, q.SiteID, first, end, dims)
	if err != nil {
		return err
	}
	days = slices.DeleteFunc(days, func(d analytics.DayFigures) bool {
		start := localMidnight(d.Date, loc)
		return start.Before(from) || !start.Before(to)
	})
	t.imported = len(days) > 0
	ti := q.timeIndex()
	if ti < 0 {
		bs = []bucket{{start: from, end: to}}
	}
	for i := range days {
		d := &days[i]
		addDay(&t.total, d)
		b := bucketOf(bs, localMidnight(d.Date, loc))
		if b == nil {
			continue
		}
		row := make([]string, len(q.Dimensions))
		if ti >= 0 {
			row[ti] = b.label
		}
		if len(nt) == 0 {
			addDay(t.row(row), d)
			continue
		}
		di := slices.Index(q.Dimensions, nt[0])
		for v, c := range d.Breakdowns[dim] {
			r := append([]string(nil), row...)
			r[di] = v
			if v == analytics.None {
				r[di] = noValue(nt[0])
			}
			f := t.row(r)
			f.count += c
			f.converted += c
			switch aggCount(nt[0]) {
			case "pageviews":
				f.pageviews += c
			case "events":
				f.events += c
			default:
				f.visits += c
			}
			t.total.count += c
		}
	}
	return nil
}

// row returns the figures of the row dims, added if it is new.
func (t *table) row(dims []string) *figures {
	k := key(dims)
	f := t.rows[k]
	if f == nil {
		f = &figures{dims: dims}
		t.rows[k] = f
	}
	return f
}

// addDay adds the totals of an imported day to f, as setSummary sets
// them: events count page views and custom events.
func addDay(f *figures, d *analytics.DayFigures) {
	f.visitors += uint64(d.Visitors)
	f.visits += d.Visits
	f.bounces += d.Bounces
	f.pageviews += d.PageViews
	f.events += d.PageViews + d.Events
	f.durMs += d.DurationMs
}

// bucketOf returns the bucket of bs holding t, or nil.
func bucketOf(bs []bucket, t time.Time) *bucket {
	for i := range bs {
		if !t.Before(bs[i].start) && t.Before(bs[i].end) {
			return &bs[i]
		}
	}
	return nil
}

// importedDates returns the imported days (UTC midnights) that may start
// in [from, to) in loc: first, and the day after the last.
func importedDates(loc *time.Location, from, to time.Time) (first, end time.Time) {
	date := func(t time.Time) time.Time {
		y, m, d := t.In(loc).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return date(from), date(to.Add(-time.Nanosecond)).AddDate(0, 0, 1)
}

// localMidnight returns the start in loc of the date of the UTC midnight d.
func localMidnight(d time.Time, loc *time.Location) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
}
