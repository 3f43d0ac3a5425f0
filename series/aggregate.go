package series

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/timetable-db/timetable/keys"
)

// AggregateQuery selects the periods of an Aggregate.
type AggregateQuery struct {
	// From and To bound the readings aggregated: [From, To), rounded up
	// to the millisecond as Query's. From is required; a zero To has no
	// upper bound (the newest reading is the last).
	From, To time.Time
	// Step is the width of each period, aligned on the Unix epoch in UTC
	// (so 1h periods are hours and 24h periods UTC days). 0 picks one from
	// the range's length (to the newest reading if To is zero): up to 6
	// hours, 1 minute; up to 8 days, 1 hour; up to 400 days, 1 day;
	// beyond, calendar months.
	Step time.Duration
	// Months, if positive, makes each period that many calendar months
	// (UTC), aligned on year 0; it overrides Step.
	Months int
	// Tier, if not Raw, is the rollup tier to read (Hourly, Daily or
	// Monthly): its rollups where they are up to date, finer data
	// elsewhere. The kind must keep it and it must divide the step, or
	// Aggregate returns ErrInvalidQuery (whether the range holds readings
	// or not). Raw (the zero value) picks the
	// coarsest tier kept that divides the step. Every tier gives the same
	// figures; a coarser one reads less.
	Tier Tier
	// MaxPeriods bounds the periods of the range: Aggregate refuses with
	// ErrInvalidQuery, before reading its periods, a range that spans more
	// periods of its step than this (from From to To, or to the
	// series' newest reading when To is zero), whether they hold
	// readings or not. 0 takes DefaultMaxPeriods; a negative value
	// sets no bound.
	MaxPeriods int
}

// DefaultMaxPeriods is the default of AggregateQuery.MaxPeriods: a year of
// hours (8,784) fits.
const DefaultMaxPeriods = 10_000

// MaxMonths is the widest step of months an AggregateQuery may have: the
// years 0000-9999.
const MaxMonths = 12 * 10_000

// Aggregation is the result of Aggregate.
type Aggregation struct {
	// Tier is the tier the aggregation read, where its rollups were up to
	// date; periods not rolled up yet are read from finer tiers or the raw
	// readings.
	Tier Tier
	// Step and Months are the period width used.
	Step   time.Duration
	Months int
	// Periods are the periods that hold readings, in time order.
	Periods []Period
}

// Aggregate returns the count, sum, min, max, first and last of each field
// of series id over each step of [From, To), over the readings Range
// returns (the duplicate rule applied). It reads the coarsest data that
// answers exactly: the monthly, daily or hourly rollups when the step
// is a multiple of their period and the raw readings otherwise, and falls
// back to finer tiers (down to the raw readings) for the periods whose
// rollups are not computed yet or were marked stale by late readings, and
// for the ends of a range not aligned on the tier. Expired data is never
// used: periods older than the retention of the tier read come back empty,
// so old ranges need a step their tier still keeps (a daily step beyond 90
// days, by default).
//
// Aggregate counts the Store's buffered readings, as Range returns them:
// the periods that hold some are read from the raw readings (with the
// buffered ones), since their rollups do not hold them yet. Of readings at
// one instant, First and Last are those Range returns first and last.
func (k *Kind) Aggregate(ctx context.Context, id string, q AggregateQuery) (*Aggregation, error) {
	k = k.current()
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	if q.From.IsZero() {
		return nil, fmt.Errorf("%w: Aggregate needs From", ErrUnbounded)
	}
	// The tier and an explicit step are checked before the range, so
	// that an invalid query fails whether the range is empty or not.
	step, months := q.Step, q.Months
	if months > MaxMonths {
		return nil, fmt.Errorf("%w: a step of %d months, at most %d (the years 0000-9999)", ErrInvalidQuery, months, MaxMonths)
	}
	if months > 0 {
		step = 0
	} else if step > 0 && step%time.Millisecond != 0 {
		return nil, fmt.Errorf("%w: step %v is not a whole number of milliseconds", ErrInvalidQuery, step)
	}
	var g keys.Granularity
	if q.Tier != Raw {
		g = granOf(q.Tier)
		switch {
		case g == 0:
			return nil, fmt.Errorf("%w: unknown tier %v", ErrInvalidQuery, q.Tier)
		case !k.s.hasTier(g):
			return nil, fmt.Errorf("%w: kind %s keeps no %s rollups", ErrInvalidQuery, k.s.Name, q.Tier)
		case (step > 0 || months > 0) && !divides(g, step, months):
			return nil, fmt.Errorf("%w: the %s tier does not divide the step", ErrInvalidQuery, q.Tier)
		}
	}
	pending := k.st.buf.pending(k, id)
	lo, hi := span(q.From, q.To)
	if q.To.IsZero() {
		newest, err := k.newest(ctx, id, pending)
		if err != nil {
			return nil, err
		}
		hi = min(hi, newest+1)
	}
	if lo >= hi {
		return &Aggregation{}, nil
	}
	if months <= 0 && step <= 0 {
		// The step picked from the range's length.
		switch span := time.Duration(hi-lo) * time.Millisecond; {
		case span <= 6*time.Hour:
			step = time.Minute
		case span <= 8*24*time.Hour:
			step = time.Hour
		case span <= 400*24*time.Hour:
			step = 24 * time.Hour
		default:
			step, months = 0, 1
		}
		if q.Tier != Raw && !divides(g, step, months) {
			return nil, fmt.Errorf("%w: the %s tier does not divide the step picked, %v", ErrInvalidQuery, q.Tier, step)
		}
	}
	var bucket, bucketEnd func(int64) int64
	var index func(int64) int64 // the period holding a time, numbered
	if months > 0 {
		index = func(ms int64) int64 {
			t := msTime(ms)
			idx := int64(t.Year())*12 + int64(t.Month()) - 1
			return (idx - floorMod(idx, int64(months))) / int64(months)
		}
		bucket = func(ms int64) int64 {
			idx := index(ms) * int64(months)
			return timeMs(time.Date(int(idx/12), time.Month(idx%12+1), 1, 0, 0, 0, 0, time.UTC))
		}
		bucketEnd = func(start int64) int64 { return timeMs(msTime(start).AddDate(0, months, 0)) }
	} else {
		sm := step.Milliseconds()
		index = func(ms int64) int64 { return (ms - floorMod(ms, sm)) / sm }
		bucket = func(ms int64) int64 { return ms - floorMod(ms, sm) }
		bucketEnd = func(start int64) int64 { return start + sm }
	}
	if maxP := cmp.Or(q.MaxPeriods, DefaultMaxPeriods); maxP > 0 {
		if n := index(hi-1) - index(lo) + 1; n > int64(maxP) {
			return nil, fmt.Errorf("%w: the range spans %d periods of %s, more than the %d one aggregate may produce (MaxPeriods): narrow the range or widen the step",
				ErrInvalidQuery, n, stepName(step, months), maxP)
		}
	}
	if q.Tier == Raw {
		// The coarsest tier kept that divides the step.
		for _, r := range k.s.Rollups {
			if divides(r, step, months) {
				g = r
			}
		}
	}
	units := map[int64]*unit{}
	c := &collector{k: k, id: id, bucket: bucket, pending: pending, fn: func(start int64, u unit) {
		p := units[start]
		if p == nil {
			nu := newUnit(len(k.s.Fields))
			p = &nu
			units[start] = p
		}
		p.merge(u)
	}}
	if err := c.collect(ctx, g, lo, hi); err != nil {
		return nil, err
	}
	starts := make([]int64, 0, len(units))
	for st, u := range units {
		if u.n > 0 {
			starts = append(starts, st)
		}
	}
	slices.Sort(starts)
	out := &Aggregation{Tier: tierOf(g), Step: step, Months: months, Periods: make([]Period, len(starts))}
	for i, st := range starts {
		out.Periods[i] = units[st].period(msTime(st), msTime(bucketEnd(st)))
	}
	return out, nil
}

// stepName names a step for an error: "1h0m0s" or "3 months".
func stepName(step time.Duration, months int) string {
	switch {
	case months == 1:
		return "1 month"
	case months > 1:
		return fmt.Sprintf("%d months", months)
	}
	return step.String()
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// divides reports whether periods of granularity g nest in the steps.
func divides(g keys.Granularity, step time.Duration, months int) bool {
	if months > 0 {
		return g == keys.Month || g == keys.Day || g == keys.Hour
	}
	switch g {
	case keys.Hour:
		return step%time.Hour == 0
	case keys.Day:
		return step%(24*time.Hour) == 0
	}
	return false
}

// collector gathers the aggregates of one series over a range from the
// best source: rollups of a tier where they are up to date, finer data
// elsewhere.
type collector struct {
	k           *Kind
	id          string
	markers     []marker
	haveMarkers bool
	bucket      func(int64) int64         // step of a time
	fn          func(start int64, u unit) // receives units keyed by step
	// pending are the Store's buffered readings of the series (Aggregate):
	// counted with the raw readings, and the periods holding them read
	// from the raw readings, as their rollups do not hold them yet.
	pending []rec
}

// collect feeds the data of [lo, hi) at tier g (0: raw readings) to fn.
func (c *collector) collect(ctx context.Context, g keys.Granularity, lo, hi int64) error {
	if lo >= hi {
		return nil
	}
	k := c.k
	if g == 0 {
		return k.rawUnits(ctx, c.id, lo, hi, c.pending, c.bucket, c.fn)
	}
	finer := k.s.finer(g)
	// Only whole periods come from tier g; the ends from finer data.
	innerLo, innerHi := periodStart(lo, g), periodStart(hi, g)
	if innerLo < lo {
		innerLo = periodEnd(lo, g)
	}
	if innerLo >= innerHi {
		return c.collect(ctx, finer, lo, hi)
	}
	if err := c.collect(ctx, finer, lo, innerLo); err != nil {
		return err
	}
	// Periods expired at tier g hold nothing: those that end at or
	// before now - ret. The first that may not is the one holding that
	// instant, skipped to at once (walking the periods of a range that
	// starts in year 1 would take millions of steps).
	if ret := k.s.retentionOf(g); ret != Forever {
		if first := periodStart(timeMs(k.st.now().Add(-ret)), g); first > innerLo {
			innerLo = min(first, innerHi)
		}
		for innerLo < innerHi && !msTime(periodEnd(innerLo, g)).Add(ret).After(k.st.now()) {
			innerLo = periodEnd(innerLo, g)
		}
	}
	if !c.haveMarkers {
		ms, err := k.markers(ctx, c.id)
		if err != nil {
			return err
		}
		for i := range c.pending {
			if f := k.finest(); f != 0 {
				s := periodStart(c.pending[i].t, f)
				ms = append(ms, marker{id: c.id, g: f, start: s, end: periodEnd(s, f)})
			}
		}
		c.markers, c.haveMarkers = ms, true
	}
	// Stale periods: marked at tier g or finer, or not rolled up yet
	// (within LateWindow of their end).
	stale := map[int64]bool{}
	for _, m := range c.markers {
		if m.g >= g {
			if p := periodStart(m.start, g); p >= innerLo && p < innerHi {
				stale[p] = true
			}
		}
	}
	// Periods from fresh on are not rolled up yet: those that end after
	// now - LateWindow, from the one holding that instant on.
	now := timeMs(k.st.now())
	late := k.st.opts.LateWindow.Milliseconds()
	fresh := min(innerHi, max(innerLo, periodStart(now-late, g)))
	err := k.readRollups(ctx, c.id, g, innerLo, fresh, func(start int64, u unit) {
		if !stale[start] {
			c.fn(c.bucket(start), u)
		}
	})
	if err != nil {
		return err
	}
	// Stale periods, merged into runs, from finer data.
	var runs [][2]int64
	for p := range stale {
		if p < fresh {
			runs = append(runs, [2]int64{p, periodEnd(p, g)})
		}
	}
	if fresh < innerHi {
		runs = append(runs, [2]int64{fresh, innerHi})
	}
	for _, r := range mergeIntervals(runs) {
		if err := c.collect(ctx, finer, r[0], r[1]); err != nil {
			return err
		}
	}
	return c.collect(ctx, finer, innerHi, hi)
}
