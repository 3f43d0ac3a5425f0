package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/internal/clock"
)

// Clock is a settable clock (internal/clock.Settable): give its Now to
// analytics.Options.Now (and to the embedded engine's local.Options.Now,
// whose TTL sweeper then expires items on the same clock). It is safe for
// concurrent use.
type Clock = clock.Settable

// NewClock returns a Clock that reads t.
func NewClock(t time.Time) *Clock { return clock.New(t) }

// CreateSite creates the demonstration site id (domain Domain, time zone
// UTC), its Goals and the funnel FunnelID of FunnelSteps. It fails with analytics.ErrExists if the site
// exists.
func CreateSite(ctx context.Context, st *analytics.Store, id string) error {
	if err := st.CreateSite(ctx, analytics.Site{ID: id, Name: "Demo", Domains: []string{Domain}}); err != nil {
		return err
	}
	for _, g := range Goals {
		if err := st.PutGoal(ctx, id, g); err != nil {
			return err
		}
	}
	return st.PutFunnel(ctx, id, analytics.Funnel{ID: FunnelID, Name: "Pricing to signup", Steps: FunnelSteps})
}

// LoadOptions say what Load records. The zero value of each field is its
// default.
type LoadOptions struct {
	// From is the first day (UTC) to record. Required.
	From time.Time
	// Days is the number of days to record. Default 1.
	Days int
	// Now is the present: days after it are not recorded and its own day
	// only up to it. Default: the end of the last day.
	Now time.Time
	// Batch is the number of events per Store.RecordMany call; 1 records
	// each with Store.Record, its clock at the event's time, as a live
	// collector does. Default 500.
	Batch int
	// Progress, if set, is called after each call that records events,
	// with the number of events recorded so far.
	Progress func(events int)
	// Bulk records each day whose raw hits have all expired by Now with
	// Store.RecordDay, first and with the clock at Now, which writes what
	// recording and aggregating the day and the expiry of its raw hits
	// leave, at a fraction of the work; the other days as without it.
	Bulk bool
}

// LoadStats says what Load did.
type LoadStats struct {
	// Events is the number of events recorded, PageViews the page views
	// among them.
	Events, PageViews int
	// Days is the number of days recorded, Aggregated the days that
	// AggregatePending aggregated.
	Days, Aggregated int
}

// Load records the traffic of g for the days of o on st, through
// st.RecordMany (or st.Record) and st.AggregatePending, with clk (which st
// must read as its Options.Now) moved through the days: while a day is
// recorded the clock is at the time of its latest event recorded; once the
// day is recorded, it is one minute past the day's end (or at o.Now) and
// the day is aggregated. When Load returns the clock reads o.Now. Days
// older than the raw retention at o.Now are aggregated while they were
// recent, and their raw hits have expired since, as in real life. The
// site g's options name must exist (CreateSite). Load stops at the first
// error, with what it did so far. Open st with its background loop off
// (analytics.Options.AggregateEvery negative): its passes, on the real
// clock's ticks, would aggregate days beside Load's own calls, and
// LoadStats.Aggregated would not count them.
func Load(ctx context.Context, st *analytics.Store, clk *Clock, g *Generator, o *LoadOptions) (LoadStats, error) {
	var ls LoadStats
	if o == nil || o.From.IsZero() {
		return ls, errors.New("demo: Load needs LoadOptions.From")
	}
	days, batch, now := max(o.Days, 1), o.Batch, o.Now
	if batch <= 0 {
		batch = 500
	}
	from := o.From.UTC().Truncate(24 * time.Hour)
	if now.IsZero() {
		now = from.AddDate(0, 0, days)
	}
	first := 0
	if o.Bulk {
		clk.Set(now)
		// The days before the first whose raw hits are partly kept.
		var bulkEnd time.Time
		if rs := st.RawStart(); !rs.IsZero() {
			bulkEnd = rs.AddDate(0, 0, -1)
		}
		for ; first < days && from.AddDate(0, 0, first).Before(bulkEnd); first++ {
			start := from.AddDate(0, 0, first)
			ls.Days++
			evs := g.Day(start)
			if len(evs) == 0 {
				continue // a day without hits is not aggregated
			}
			if err := st.RecordDay(ctx, g.o.Site, start, evs); err != nil {
				return ls, fmt.Errorf("demo: %s: %w", start.Format(time.DateOnly), err)
			}
			ls.count(evs)
			ls.Aggregated++
			if o.Progress != nil {
				o.Progress(ls.Events)
			}
		}
	}
	for d := first; d < days; d++ {
		start := from.AddDate(0, 0, d)
		if start.After(now) {
			break
		}
		evs := g.Day(start)
		n := len(evs)
		for n > 0 && evs[n-1].Time.After(now) {
			n--
		}
		evs = evs[:n]
		for i := 0; i < len(evs); i += batch {
			b := evs[i:min(i+batch, len(evs))]
			if batch == 1 {
				clk.Set(b[0].Time)
				if err := st.Record(ctx, b[0]); err != nil {
					return ls, fmt.Errorf("demo: %s: %w", b[0].Time.Format(time.RFC3339), err)
				}
			} else {
				clk.Set(b[len(b)-1].Time)
				if err := st.RecordMany(ctx, b); err != nil {
					return ls, fmt.Errorf("demo: %s: %w", start.Format(time.DateOnly), err)
				}
			}
			ls.count(b)
			if o.Progress != nil {
				o.Progress(ls.Events)
			}
		}
		ls.Days++
		end := start.AddDate(0, 0, 1).Add(time.Minute)
		if end.After(now) {
			end = now
		}
		clk.Set(end)
		k, err := st.AggregatePending(ctx)
		ls.Aggregated += k
		if err != nil {
			return ls, fmt.Errorf("demo: cannot aggregate %s: %w", start.Format(time.DateOnly), err)
		}
	}
	clk.Set(now)
	// The last minutes' realtime counters are gathered in memory; a
	// process that ends after Load must find them written.
	if err := st.Flush(ctx); err != nil {
		return ls, fmt.Errorf("demo: cannot write the realtime counters: %w", err)
	}
	return ls, nil
}

// count counts the events evs, recorded.
func (ls *LoadStats) count(evs []analytics.Event) {
	ls.Events += len(evs)
	for i := range evs {
		if evs[i].Name == analytics.PageView {
			ls.PageViews++
		}
	}
}
