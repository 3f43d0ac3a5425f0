package analytics

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/table"
)

// DayFigures is the figures of one UTC day of a site in the shape both imports
// and exports take: totals and, for each Dimension, counts by value.
//
// As Plausible's imported data does, Visitors is the day's own count:
// days are summed, not merged (the visitors of a range of imported days
// is the sum of its days'). Breakdowns count what the collected
// breakdowns count: page views by page, custom events by name, visits by
// any other dimension.
type DayFigures struct {
	// Date is the day's start, UTC midnight.
	Date                                 time.Time
	Visitors, Visits, PageViews, Bounces int64
	// Events are the custom events (page views not included).
	Events int64
	// DurationMs sums the durations of the visits, in milliseconds.
	DurationMs int64
	// Breakdowns holds, by dimension, the count of each value; a value
	// without a name is None.
	Breakdowns map[Dimension]map[string]int64
}

// MaxImportDays bounds the days of one Store.Import: ten years.
const MaxImportDays = 3660

// Import stores days as the imported figures of site, apart from the
// collected ones (items IMPORTED#{date}): a day imported again replaces
// the earlier import of that day; the collected aggregates are never
// changed, and reads add imported figures only when asked
// (ImportedDays). Every day is checked before anything is written (a
// date that is not a UTC midnight or comes twice, a negative count, an
// invalid dimension, more than MaxImportDays days, a day whose
// breakdowns encode to more than an item holds: ErrInvalid), so a refused
// import writes nothing; a storage error during the writes may leave
// some of its days written, which importing the same days again
// replaces. The site must exist (an error matching timetable.ErrNotFound
// otherwise).
func (s *Store) Import(ctx context.Context, site string, days []DayFigures) error {
	if _, err := s.Site(ctx, site); err != nil {
		return err
	}
	if len(days) > MaxImportDays {
		return fmt.Errorf("%w import: %d days, more than %d", ErrInvalid, len(days), MaxImportDays)
	}
	seen := map[time.Time]bool{}
	items := make([]table.Item, 0, len(days))
	for i := range days {
		d := &days[i]
		if !d.Date.Equal(Day.start(d.Date)) {
			return fmt.Errorf("%w import: date %s is not a UTC midnight", ErrInvalid, d.Date)
		}
		if seen[d.Date.UTC()] {
			return fmt.Errorf("%w import: day %s comes twice", ErrInvalid, d.Date.UTC().Format(layoutDay))
		}
		seen[d.Date.UTC()] = true
		it, err := importedItem(site, d)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if err := s.t.BatchPut(ctx, items); err != nil {
		return fmt.Errorf("analytics: cannot write the imported days of site %q: %w", site, err)
	}
	return nil
}

func importedItem(site string, d *DayFigures) (table.Item, error) {
	day := d.Date.UTC().Format(layoutDay)
	for _, n := range []int64{d.Visitors, d.Visits, d.PageViews, d.Bounces, d.Events, d.DurationMs} {
		if n < 0 {
			return nil, fmt.Errorf("%w import: day %s has a negative count", ErrInvalid, day)
		}
	}
	it, err := keyItem(entImported, map[string]string{"siteId": site, "date": day})
	if err != nil {
		return nil, err
	}
	it["siteId"] = sAttr(site)
	it["date"] = sAttr(day)
	it["visitors"] = nAttr(d.Visitors)
	it["visits"] = nAttr(d.Visits)
	it["pageViews"] = nAttr(d.PageViews)
	it["bounces"] = nAttr(d.Bounces)
	it["events"] = nAttr(d.Events)
	it["durationSum"] = nAttr(d.DurationMs)
	n := 0
	for dim, m := range d.Breakdowns {
		if !dim.valid() || dim == DimGoal {
			return nil, fmt.Errorf("%w import: day %s: dimension %q cannot be imported", ErrInvalid, day, dim)
		}
		for v, c := range m {
			if c < 0 {
				return nil, fmt.Errorf("%w import: day %s: %s %q has a negative count", ErrInvalid, day, dim, v)
			}
		}
		if len(m) == 0 {
			continue
		}
		b, err := gzipJSON(m)
		if err != nil {
			return nil, err
		}
		n += len(b)
		it[topAttr(dim)] = &types.AttributeValueMemberB{Value: b}
	}
	if n > maxTopBytes {
		return nil, fmt.Errorf("%w import: day %s: its breakdowns take %d bytes gzipped, more than the %d an item holds", ErrInvalid, day, n, maxTopBytes)
	}
	return it, nil
}

// ImportedDays returns the imported days of site that start in
// [from, to), in date order, with the breakdowns dims (all of them for
// nil dims is none: only the totals are read).
func (s *Store) ImportedDays(ctx context.Context, site string, from, to time.Time, dims []Dimension) ([]DayFigures, error) {
	first := firstStart(Day, from)
	if !first.Before(to) {
		return nil, nil
	}
	last := first
	for t := first; t.Before(to); t = Day.next(t) {
		last = t
	}
	lo, err := primaryKey(entImported, map[string]string{"siteId": site, "date": first.Format(layoutDay)})
	if err != nil {
		return nil, err
	}
	hi, _ := primaryKey(entImported, map[string]string{"siteId": site, "date": last.Format(layoutDay)})
	proj := []string{attrSK, "date", "visitors", "visits", "pageViews", "bounces", "events", "durationSum"}
	for _, d := range dims {
		if !d.valid() {
			return nil, fmt.Errorf("%w dimension %q", ErrInvalid, d)
		}
		proj = append(proj, topAttr(d))
	}
	var out []DayFigures
	q := &table.Query{Hash: lo.Hash, Range: table.Between(lo.Range, hi.Range), Projection: proj}
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("analytics: cannot read the imported days of site %q: %w", site, err)
		}
		d, err := importedDay(it)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func importedDay(it table.Item) (DayFigures, error) {
	date, err := time.Parse(layoutDay, getS(it, "date"))
	if err != nil {
		return DayFigures{}, fmt.Errorf("analytics: imported item %s: %w", getS(it, attrSK), err)
	}
	d := DayFigures{Date: date, Visitors: getN(it, "visitors"), Visits: getN(it, "visits"), PageViews: getN(it, "pageViews"),
		Bounces: getN(it, "bounces"), Events: getN(it, "events"), DurationMs: getN(it, "durationSum"),
		Breakdowns: map[Dimension]map[string]int64{}}
	for name, av := range it {
		b, ok := av.(*types.AttributeValueMemberB)
		if !ok || len(name) <= len(topPrefix) || name[:len(topPrefix)] != topPrefix {
			continue
		}
		var m map[string]int64
		if err := gunzipJSON(b.Value, &m); err != nil {
			return DayFigures{}, fmt.Errorf("analytics: cannot decode the %s breakdown of %s: %w", name, getS(it, attrSK), err)
		}
		d.Breakdowns[Dimension(name[len(topPrefix):])] = m
	}
	return d, nil
}

// DeleteImported deletes every imported day of site; the collected
// figures are left as they are.
func (s *Store) DeleteImported(ctx context.Context, site string) error {
	var ks []table.Key
	q := &table.Query{Hash: sitePK(site), Range: table.BeginsWith(skPrefix(entImported)), Projection: []string{attrPK, attrSK}}
	for it, err := range s.t.QueryAll(ctx, q) {
		if err != nil {
			return fmt.Errorf("analytics: cannot list the imported days of site %q: %w", site, err)
		}
		ks = append(ks, table.K(getS(it, attrPK), getS(it, attrSK)))
	}
	if err := s.t.BatchDelete(ctx, ks); err != nil {
		return fmt.Errorf("analytics: cannot delete the imported days of site %q: %w", site, err)
	}
	return nil
}

// CollectedDays returns the collected figures of site for each UTC day
// starting in [from, to) that has any, from the daily aggregates (every
// breakdown but goals and custom event properties), in date order: what
// an export writes. Visitors is each day's own estimate.
func (s *Store) CollectedDays(ctx context.Context, site string, from, to time.Time) ([]DayFigures, error) {
	dims := slices.DeleteFunc(slices.Clone(Dimensions), func(d Dimension) bool { return d == DimGoal })
	var r AggregateReads
	r.Periods(Day, from, to)
	for _, d := range dims {
		r.Dimension(d)
	}
	a, err := s.ReadAggregates(ctx, site, &r)
	if err != nil {
		return nil, err
	}
	var out []DayFigures
	err = a.each(Day, firstStart(Day, from), to, func(t time.Time, st *stats) error {
		if st == nil || st.pageViews == 0 && st.visits == 0 && st.events == 0 {
			return nil
		}
		d := DayFigures{Date: t, Visitors: int64(st.visitors.Clone().Estimate()), Visits: st.visits, PageViews: st.pageViews, Bounces: st.bounces,
			Events: st.events, DurationMs: st.durationMs, Breakdowns: map[Dimension]map[string]int64{}}
		for _, dim := range dims {
			if m := st.top[dim]; len(m) > 0 {
				d.Breakdowns[dim] = maps.Clone(m)
			}
		}
		out = append(out, d)
		return nil
	})
	return out, err
}

// AddDays returns the days of a and b (each in date order) in date
// order, those of one date summed: counts and breakdowns added, visitors
// summed as imported visitors are.
func AddDays(a, b []DayFigures) []DayFigures {
	byDate := map[time.Time]*DayFigures{}
	for _, ds := range [][]DayFigures{a, b} {
		for i := range ds {
			d := &ds[i]
			x := byDate[d.Date]
			if x == nil {
				x = &DayFigures{Date: d.Date, Breakdowns: map[Dimension]map[string]int64{}}
				byDate[d.Date] = x
			}
			x.Visitors += d.Visitors
			x.Visits += d.Visits
			x.PageViews += d.PageViews
			x.Bounces += d.Bounces
			x.Events += d.Events
			x.DurationMs += d.DurationMs
			for dim, m := range d.Breakdowns {
				if x.Breakdowns[dim] == nil {
					x.Breakdowns[dim] = map[string]int64{}
				}
				for v, n := range m {
					x.Breakdowns[dim][v] += n
				}
			}
		}
	}
	out := make([]DayFigures, 0, len(byDate))
	for _, x := range byDate {
		out = append(out, *x)
	}
	slices.SortFunc(out, func(x, y DayFigures) int { return x.Date.Compare(y.Date) })
	return out
}
