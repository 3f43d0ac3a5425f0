package analytics

import (
	"context"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/timetable-db/timetable/table"
)

// Visit is a session formed from the hits by the aggregation's own rules
// (see the package documentation), as Visits and RawVisits give it.
type Visit struct {
	VisitorID string
	// Start is the time of its first hit, End of its last (engagement
	// events included).
	Start, End time.Time
	// EntryPage is the path of its first hit, ExitPage of its last page
	// view (of its first hit without one).
	EntryPage, ExitPage string
	// Source, UTM, Country, Browser, OS and Device are its first hit's.
	Source                       string
	UTM                          UTM
	Country, Browser, OS, Device string
	PageViews                    int64
	// Events is the number of its page views and custom events: its Hits,
	// also when they are left out (FieldHits).
	Events   int64
	Bounce   bool
	Duration time.Duration
	// Goals are the ids of the goals it converted, sorted.
	Goals []string
	// Hits are its page views and custom events in order (engagement
	// events left out).
	Hits []Hit
}

// Hit is a page view or a custom event of a Visit.
type Hit struct {
	Time time.Time
	// Name is PageView or a custom event's name.
	Name  string
	Path  string
	Props map[string]string
	// Goals are the ids of the goals the hit matches, in the site's order.
	Goals []string
}

// RawStart returns the start of the first UTC day whose raw hits are all
// still kept (Retention.Raw after its start is in the future); the zero
// time when raw hits are kept forever. Earlier days are read from their
// hit buckets (BucketStart).
func (s *Store) RawStart() time.Time {
	if s.o.Retention.Raw <= 0 {
		return time.Time{}
	}
	return Day.next(Day.start(s.now().Add(-s.o.Retention.Raw)))
}

// BucketStart returns the start of the first UTC day whose hit bucket is
// still kept (Retention.Buckets after its end is in the future); the zero
// time when buckets are kept forever.
func (s *Store) BucketStart() time.Time {
	if s.o.Retention.Buckets < 0 {
		return time.Time{}
	}
	return Day.start(s.now().Add(-s.o.Retention.Buckets))
}

// ExpiredError is the error of a read of hits that are no longer kept:
// neither as raw hits nor in a hit bucket (older than the buckets'
// retention, or aggregated before buckets were written). It matches
// ErrExpired.
type ExpiredError struct {
	// Start is the start of the day after the last day of the range whose
	// hits are not kept: a range that starts there or later can be read.
	Start time.Time
	msg   string
}

func (e *ExpiredError) Error() string        { return ErrExpired.Error() + ": " + e.msg }
func (e *ExpiredError) Is(target error) bool { return target == ErrExpired }

// dayPlan says where the hits of one day of a read come from.
type dayPlan struct {
	day time.Time
	// bucket is the day's hit bucket, to read; nil: read the raw hits.
	bucket *bucket
}

// planHits returns the goals of site and where to read the hits of each
// UTC day that [from, to) touches, up to the day of now plus
// Options.MaxFuture (later days have no hits): a day marked pending (hits arrived
// since its bucket was written) and whose raw hits are all kept from them;
// else a day with a hit bucket from it; else a day whose raw hits are all
// kept from them (today, a day whose bucket is not written yet, a day
// without hits). A day of none of these has lost its hits if its daily
// stats count some (a day without stats had no hits): then, or when a day
// is older than both retentions, it fails with an *ExpiredError.
func (s *Store) planHits(ctx context.Context, site string, from, to time.Time) ([]Goal, []dayPlan, error) {
	if !from.Before(to) {
		return nil, nil, fmt.Errorf("%w range [%s, %s): empty", ErrInvalid, timestamp(from), timestamp(to))
	}
	first, last := Day.start(from), Day.start(to.Add(-time.Nanosecond))
	// Days that start after the latest hit Record accepts have none.
	if latest := Day.start(s.now().Add(s.o.MaxFuture)); last.After(latest) {
		last = latest
	}
	if last.Before(first) {
		return s.goalsOnly(ctx, site)
	}
	rawStart, bucketStart := s.RawStart(), s.BucketStart()
	rawKept := func(d time.Time) bool { return !d.Before(rawStart) }
	var lost []time.Time // days whose hits are not kept
	readFrom := first
	if !bucketStart.IsZero() && first.Before(bucketStart) {
		for d := first; !d.After(last) && d.Before(bucketStart); d = Day.next(d) {
			if !rawKept(d) {
				lost = append(lost, d)
			}
		}
		readFrom = bucketStart
	}
	goals, err := s.Goals(ctx, site)
	if err != nil {
		return nil, nil, err
	}
	pending, err := s.pendingDays(ctx, site)
	if err != nil {
		return nil, nil, err
	}
	var buckets map[time.Time]bucket
	if !readFrom.After(last) {
		if buckets, err = s.readBuckets(ctx, site, readFrom, last); err != nil {
			return nil, nil, err
		}
	}
	var plan []dayPlan
	var missing []time.Time
	for d := first; !d.After(last); d = Day.next(d) {
		b, ok := buckets[d]
		switch {
		case pending[d] && rawKept(d), !ok && rawKept(d):
			plan = append(plan, dayPlan{day: d})
		case ok:
			plan = append(plan, dayPlan{day: d, bucket: &b})
		case !d.Before(readFrom):
			missing = append(missing, d)
		}
	}
	more, err := s.daysWithHits(ctx, site, missing)
	if err != nil {
		return nil, nil, err
	}
	if lost = append(lost, more...); len(lost) > 0 {
		l := slices.MaxFunc(lost, time.Time.Compare)
		e := &ExpiredError{Start: Day.next(l)}
		// A range that reaches back past both retentions can start no
		// earlier than the first day either keeps.
		if kept := bucketStart; first.Before(bucketStart) && first.Before(rawStart) {
			if rawStart.Before(kept) {
				kept = rawStart
			}
			if e.Start.Before(kept) {
				e.Start, l = kept, kept.AddDate(0, 0, -1)
			}
		}
		e.msg = fmt.Sprintf("the hits of a day are kept %s in its hit bucket and %s as raw hits, and those of %s are not kept, "+
			"so a range computed from them must start on %s (UTC) or later; this one starts on %s",
			retentionText(s.o.Retention.Buckets), retentionText(s.o.Retention.Raw), dayOf(l), dayOf(e.Start), dayOf(first))
		return nil, nil, e
	}
	return goals, plan, nil
}

// goalsOnly is planHits of a range without a day to read.
func (s *Store) goalsOnly(ctx context.Context, site string) ([]Goal, []dayPlan, error) {
	goals, err := s.Goals(ctx, site)
	return goals, nil, err
}

// retentionText writes a retention: in days when it is a whole number of
// them, "forever" when negative.
func retentionText(d time.Duration) string {
	switch {
	case d < 0:
		return "forever"
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%d days", d/(24*time.Hour))
	}
	return d.String()
}

// pendingDays returns the days of site whose Pending mark says hits came
// since they were last aggregated.
func (s *Store) pendingDays(ctx context.Context, site string) (map[time.Time]bool, error) {
	marks, err := s.pendingMarks(ctx, site)
	if err != nil {
		return nil, err
	}
	out := map[time.Time]bool{}
	for _, m := range marks {
		if !needsAggregation(m) {
			continue
		}
		d, err := time.Parse(layoutDay, getS(m, "date"))
		if err != nil {
			return nil, fmt.Errorf("analytics: pending item %s: %w", getS(m, attrSK), err)
		}
		out[d] = true
	}
	return out, nil
}

// daysWithHits returns those of days (sorted) whose daily stats count a
// page view, an event or a visit: one query, newest first, per run of
// consecutive days, stopped at the first such day (the latest of the
// run).
func (s *Store) daysWithHits(ctx context.Context, site string, days []time.Time) ([]time.Time, error) {
	var out []time.Time
	hasHits := table.Or(table.Attr("pageViews").Gt(0), table.Attr("events").Gt(0), table.Attr("visits").Gt(0))
	for i := 0; i < len(days); {
		j := i + 1
		for j < len(days) && days[j].Equal(Day.next(days[j-1])) {
			j++
		}
		vals := func(t time.Time) map[string]string {
			return map[string]string{"siteId": site, "period": string(Day), "periodStart": t.Format(layoutDay)}
		}
		lo, _ := primaryKey(entStats, vals(days[i]))
		hi, _ := primaryKey(entStats, vals(days[j-1]))
		q := &table.Query{Hash: lo.Hash, Range: table.Between(lo.Range, hi.Range), Filter: hasHits, Reverse: true, Limit: 1, PageSize: 100,
			Projection: []string{attrSK, "periodStart"}}
		for it, err := range s.t.QueryAll(ctx, q) {
			if err != nil {
				return nil, fmt.Errorf("analytics: cannot read the daily stats of site %q: %w", site, err)
			}
			d, err := time.Parse(layoutDay, getS(it, "periodStart"))
			if err != nil {
				return nil, fmt.Errorf("analytics: stats item %s: %w", getS(it, attrSK), err)
			}
			out = append(out, d)
		}
		i = j
	}
	return out, nil
}

// Field is a field of a Visit, or of its Hits, that a read may leave
// empty when its caller does not need it (VisitOptions.Skip).
type Field uint16

// The fields Visits may leave empty.
const (
	FieldSource    Field = 1 << iota // Visit.Source
	FieldUTM                         // Visit.UTM
	FieldCountry                     // Visit.Country
	FieldBrowser                     // Visit.Browser
	FieldOS                          // Visit.OS
	FieldDevice                      // Visit.Device
	FieldProps                       // Hit.Props
	FieldGoals                       // Visit.Goals and Hit.Goals
	FieldVisitorID                   // Visit.VisitorID
	FieldPages                       // Visit.EntryPage and Visit.ExitPage
	FieldHits                        // Visit.Hits (Visit.Events still counts them)
)

// columns returns the columns of a hit block that the fields but skip
// need.
func (skip Field) columns() colSet {
	s := cols(colTime, colRuns, colName, colFlags)
	// Paths are the pages', the hits' and those of the goals of page
	// views.
	if skip&FieldPages == 0 || skip&FieldHits == 0 || skip&FieldGoals == 0 {
		s |= cols(colPath)
	}
	for f, cs := range map[Field][]int{
		FieldVisitorID: {colVisitor},
		FieldSource:    {colSource}, FieldUTM: {colUTMSource, colUTMMedium, colUTMCampaign, colUTMTerm, colUTMContent},
		FieldCountry: {colCountry}, FieldBrowser: {colBrowser}, FieldOS: {colOS}, FieldDevice: {colDevice}, FieldProps: {colProps},
	} {
		if skip&f == 0 {
			s |= cols(cs...)
		}
	}
	return s
}

// VisitOptions are the options of Visits. A nil *VisitOptions and the
// zero value are valid.
type VisitOptions struct {
	// Keep, if not nil, is called with each visit before its times,
	// figures, goals and hits are set: it sees the visit's VisitorID,
	// EntryPage, ExitPage, Source, UTM, Country, Browser, OS and Device
	// (the fields of its first hit), the others being zero. The visits it
	// refuses are skipped. It is called from several goroutines at once,
	// and must not keep the Visit.
	Keep func(*Visit) bool
	// Skip are fields left empty (and the columns of hit buckets that
	// hold them not decoded). Default none.
	Skip Field
}

// visitWorkers is how many days Visits forms at once, besides the one it
// yields.
func visitWorkers() int { return min(max(runtime.GOMAXPROCS(0), 2), 8) }

// Visits returns the visits of site formed from the hits of every UTC
// day that [from, to) touches: day by day in time order, in order of
// visitor and start within a day, with the site's current goals.
// Sessions end at midnight UTC, so these are the visits the aggregation
// forms: a figure of [from, to) counts the hits whose Time is in it and
// the visits whose Start is, as the aggregates do. A day's hits come from
// its raw hits while they are all kept (30 days by default) and it has
// no hit bucket, or hits came since its bucket was written; else from its
// hit bucket (kept 2 years by default): the answers are the same.
//
// It yields an error and stops with ErrInvalid when from is not before
// to or a day holds more than Options.MaxRawHits hits, and with an
// *ExpiredError (matching ErrExpired), before any visit, when a day's
// hits are no longer kept. The Visit it yields, and its slices and maps,
// are valid until the next iteration and must not be changed; several
// days are formed at once, a few more than GOMAXPROCS at most.
func (s *Store) Visits(ctx context.Context, site string, from, to time.Time, o *VisitOptions) iter.Seq2[*Visit, error] {
	var opts VisitOptions
	if o != nil {
		opts = *o
	}
	return func(yield func(*Visit, error) bool) {
		goals, plan, err := s.planHits(ctx, site, from, to)
		if err != nil {
			yield(nil, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		type result struct {
			d   *dayVisits
			err error
		}
		done := make([]chan result, len(plan))
		for i := range done {
			done[i] = make(chan result, 1)
		}
		// A slot is taken before a day is formed and given back once the
		// day is yielded: at most len(slots) days are held at once, the
		// one yielded and visitWorkers being formed; and the last day,
		// when it is read from its raw hits (today's, most often, whose
		// reading takes longest), formed first, beside them, in a slot of
		// its own.
		order := make([]int, 0, len(plan))
		extra := 0
		if n := len(plan); n > 1 && plan[n-1].bucket == nil {
			order, extra = append(order, n-1), 1
		}
		for i := range len(plan) - extra {
			order = append(order, i)
		}
		slots := make(chan struct{}, visitWorkers()+1+extra)
		var wg sync.WaitGroup
		defer func() {
			cancel()
			wg.Wait()
		}()
		wg.Go(func() {
			for _, i := range order {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				wg.Go(func() {
					d := dayVisitsPool.Get().(*dayVisits)
					err := s.formDay(ctx, site, plan[i], goals, &opts, d)
					done[i] <- result{d, err}
				})
			}
		})
		for i := range plan {
			var r result
			select {
			case r = <-done[i]:
			case <-ctx.Done():
				yield(nil, fmt.Errorf("analytics: visits of site %q: %w", site, context.Cause(ctx)))
				return
			}
			if r.err != nil {
				yield(nil, r.err)
				return
			}
			for j := range r.d.visits {
				if !yield(&r.d.visits[j], nil) {
					return
				}
			}
			r.d.reset()
			dayVisitsPool.Put(r.d)
			<-slots
		}
	}
}

// dayVisits are the visits of one day, their hits and goals in slices of
// their own, reused from day to day.
type dayVisits struct {
	visits []Visit
	hits   []Hit
	goals  []string
}

func (d *dayVisits) reset() {
	clear(d.visits)
	clear(d.hits)
	d.visits, d.hits, d.goals = d.visits[:0], d.hits[:0], d.goals[:0]
}

var dayVisitsPool = sync.Pool{New: func() any { return new(dayVisits) }}

// formDay forms the visits of the day of p into d.
func (s *Store) formDay(ctx context.Context, site string, p dayPlan, goals []Goal, o *VisitOptions, d *dayVisits) error {
	if o.Skip&FieldGoals != 0 {
		goals = nil
	}
	tooMany := func(n int) error {
		return fmt.Errorf("%w range: %s holds %d hits, more than %d (Options.MaxRawHits)", ErrInvalid, dayOf(p.day), n, s.o.MaxRawHits)
	}
	var blocks []*block
	if p.bucket != nil {
		if p.bucket.hits > s.o.MaxRawHits {
			return tooMany(p.bucket.hits)
		}
		if s.wholeVisits(p.bucket, o) {
			vbs, err := s.bucketVisitBlocks(ctx, site, p.day, *p.bucket, o.Skip.visitColumns())
			if err != nil {
				return err
			}
			if vbs != nil {
				for _, vb := range vbs {
					keepVisits(d, vb, o)
				}
				return nil
			}
		}
		var err error
		want := o.Skip.columns()
		if p.bucket.parts > 1 {
			want |= cols(colVisitor) // to tell whether a visitor's hits span two parts
		}
		if blocks, err = s.bucketBlocks(ctx, site, p.day, *p.bucket, want); err != nil {
			return err
		}
	}
	if blocks == nil {
		// The raw hits; also a day whose bucket was deleted since the plan
		// was made (its hits then are all raw again).
		hits, err := s.loadHits(ctx, site, p.day, Day.next(p.day))
		if err != nil {
			return err
		}
		if len(hits) > s.o.MaxRawHits {
			return tooMany(len(hits))
		}
		formVisits(d, rawHits{h: hits, gi: newGoalIndex(goals)}, s.o.SessionTimeout, o)
		return nil
	}
	defer releaseAll(blocks)
	// Parts are cut at visitor boundaries, so each forms its own visits;
	// a visitor whose hits alone filled more than a part is the exception,
	// formed from the hits of all the parts together.
	for i := 1; i < len(blocks); i++ {
		a, b := blocks[i-1], blocks[i]
		if a.n > 0 && b.n > 0 && a.visitorID(a.n-1) == b.visitorID(0) {
			all, err := s.bucketBlocks(ctx, site, p.day, *p.bucket, allCols)
			if err != nil {
				return err
			}
			var hits []hit
			for _, bl := range all {
				hits = append(hits, bl.hits()...)
			}
			releaseAll(all)
			formVisits(d, rawHits{h: hits, gi: newGoalIndex(goals)}, s.o.SessionTimeout, o)
			return nil
		}
	}
	for _, bl := range blocks {
		formVisits(d, newBlockHits(bl, goals), s.o.SessionTimeout, o)
	}
	return nil
}

// wholeVisits reports whether the visits of bucket b can be read from
// its visit parts for a read with options o: it has them, formed with
// the Store's session timeout, and o asks neither hits nor goals (which
// are the site's current ones, not those of the time b was written).
func (s *Store) wholeVisits(b *bucket, o *VisitOptions) bool {
	const need = FieldHits | FieldGoals
	return b.hasVisits && b.visitTimeout == s.o.SessionTimeout.Milliseconds() && o.Skip&need == need
}

// keepVisits appends the visits of vb that o.Keep accepts (all if nil)
// to d, with the fields of vb's columns.
func keepVisits(d *dayVisits, vb *visitBlock, o *VisitOptions) {
	for i := range vb.n {
		d.visits = append(d.visits, Visit{})
		vis := &d.visits[len(d.visits)-1]
		vb.visit(i, vis, false)
		if o.Keep != nil && !o.Keep(vis) {
			d.visits = d.visits[:len(d.visits)-1]
			continue
		}
		vb.figures(i, vis)
	}
}

// formVisits appends the visits of v that o.Keep accepts (all if nil) to
// d, without the fields o.Skip.
func formVisits[V hitView](d *dayVisits, v V, timeout time.Duration, o *VisitOptions) {
	formSessions(v, timeout, func(sp *span) bool {
		d.visits = append(d.visits, Visit{})
		vis := &d.visits[len(d.visits)-1]
		fillVisit(v, sp, vis, o.Skip)
		if o.Keep != nil && !o.Keep(vis) {
			d.visits = d.visits[:len(d.visits)-1]
			return true
		}
		d.goals = fillFigures(sp, vis, d.goals)
		if o.Skip&FieldHits == 0 {
			d.hits = appendHits(v, sp, vis, d.hits, o.Skip)
		}
		return true
	}, nil)
}

// RawVisits returns the visits of site over [from, to) as Visits forms
// them, in its order, for callers that keep them: the Visits and their
// slices are the caller's. It fails as Visits does, and with ErrInvalid
// when the days hold more than Options.MaxRawHits hits in all.
func (s *Store) RawVisits(ctx context.Context, site string, from, to time.Time) ([]Visit, error) {
	var out []Visit
	n := 0
	for v, err := range s.Visits(ctx, site, from, to, nil) {
		if err != nil {
			return nil, err
		}
		if n += len(v.Hits); n > s.o.MaxRawHits {
			return nil, fmt.Errorf("%w range: its days hold more than %d hits (Options.MaxRawHits); ask for a shorter one", ErrInvalid, s.o.MaxRawHits)
		}
		c := *v
		c.Goals = slices.Clone(v.Goals)
		c.Hits = slices.Clone(v.Hits)
		for i := range c.Hits {
			c.Hits[i].Goals = slices.Clone(c.Hits[i].Goals)
		}
		out = append(out, c)
	}
	return out, nil
}
