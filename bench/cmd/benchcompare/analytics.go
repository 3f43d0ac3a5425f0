package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/demo"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

// analyticsConfig sizes the analytics part.
type analyticsConfig struct {
	pageViews int // page views over the days, about
	days      int
	runs      int // timed dashboard reads of each path (the median is reported)
}

// runAnalytics measures the web analytics (issue 11): a demo site of
// about pageViews page views over days loaded into the embedded engine on
// disk through RecordMany and AggregatePending (the load rate), then the
// dashboard of the last 30 days (summary, top pages, top sources) from
// the aggregates against the same computed from the raw hits, and the
// capacity units of recording, aggregating and a dashboard view.
func runAnalytics(ctx context.Context, e *env) ([]Figure, section, error) {
	c := e.cfg.analytics
	var sb strings.Builder
	d, err := loadDemo(ctx, e, "analytics", c.pageViews, c.days, 0, false)
	if err != nil {
		return nil, section{}, err
	}
	defer d.close()
	st, now, ls, took, loadUnits, rate := d.st, d.now, d.stats, d.took, d.units, d.rate()

	// The dashboard of the last 30 days, both ways.
	dFrom, dTo := now.AddDate(0, 0, -30), now
	dims := []analytics.Dimension{analytics.DimPage, analytics.DimSource}
	var fromAgg, fromRaw []time.Duration
	var aggView, rawView table.Stats
	var aggPages, rawPages []analytics.Count
	for i := range c.runs {
		before := st.Table().Stats()
		t0 := time.Now()
		if _, err := st.Summary(ctx, "demo", dFrom, dTo); err != nil {
			return nil, section{}, err
		}
		for _, d := range dims {
			cs, err := st.Breakdown(ctx, "demo", d, dFrom, dTo, 10)
			if err != nil {
				return nil, section{}, err
			}
			if d == analytics.DimPage {
				aggPages = cs
			}
		}
		fromAgg = append(fromAgg, time.Since(t0))
		mid := st.Table().Stats()
		t0 = time.Now()
		_, top, err := st.RawStats(ctx, "demo", dFrom, dTo, dims, 10)
		if err != nil {
			return nil, section{}, err
		}
		fromRaw = append(fromRaw, time.Since(t0))
		rawPages = top[analytics.DimPage]
		if i == 0 {
			aggView, rawView = diff(mid, before), diff(st.Table().Stats(), mid)
		}
	}
	agg, raw := median(fromAgg), median(fromRaw)

	figs := []Figure{
		{Name: "analytics: load of the demo site (RecordMany + AggregatePending, engine on disk)", Ours: round(rate, 0), Unit: "events/s"},
		{Name: "analytics: dashboard of 30 days (summary, top pages, top sources) from the aggregates", Ours: round(ms(agg), 2), Peer: ptr(round(ms(raw), 1)),
			Unit: "ms", Ratio: ptr(round(ms(raw)/ms(agg), 1)), peerName: "the same from the raw hits", target: "< 100 ms", met: check(ms(agg) < 100)},
		{Name: "analytics: write units per recorded event (load, aggregation included)", Ours: round(loadUnits.WriteUnits/float64(ls.Events), 3), Unit: "WU"},
		{Name: "analytics: read units of a 30-day dashboard view from the aggregates", Ours: round(aggView.ReadUnits, 1), Peer: ptr(round(rawView.ReadUnits, 1)),
			Unit: "RU", Ratio: ptr(round(rawView.ReadUnits/math.Max(aggView.ReadUnits, 0.5), 1)), peerName: "from the raw hits"},
	}
	fmt.Fprintf(&sb, "A demo site (package analytics/demo, seed 0) of %d days: %d events, %d of them page views, loaded into the embedded engine on disk in %v (%.0f events/s), each day recorded with RecordMany and aggregated with AggregatePending on a clock moved through the days, as `timetable demo` does.\n\n",
		ls.Days, ls.Events, ls.PageViews, took.Round(time.Second), rate)
	if want := 10_000_000; c.pageViews < want {
		fmt.Fprintf(&sb, "This run is smaller than the target's 10 million page views (-analytics-page-views %d). At this rate 10 million page views (about %.0f events) would load in about %v; the dashboard read from the aggregates does not grow with the traffic (it reads the same number of stats items), the raw computation grows linearly.\n\n",
			c.pageViews, float64(want)*float64(ls.Events)/float64(ls.PageViews), (time.Duration(float64(want)*float64(ls.Events)/float64(ls.PageViews)/rate) * time.Second).Round(time.Minute))
	}
	fmt.Fprintf(&sb, "| dashboard of the last 30 days | median of %d | read units | top page |\n|---|---:|---:|---|\n", c.runs)
	top := func(cs []analytics.Count) string {
		if len(cs) == 0 {
			return ""
		}
		return fmt.Sprintf("%s (%d)", cs[0].Value, cs[0].Count)
	}
	fmt.Fprintf(&sb, "| from the aggregates (Summary, Breakdown page, Breakdown source) | %.2f ms | %.1f | %s |\n", ms(agg), aggView.ReadUnits, top(aggPages))
	fmt.Fprintf(&sb, "| from the raw hits (RawStats: read, sessionize, aggregate) | %.1f ms | %.1f | %s |\n\n", ms(raw), rawView.ReadUnits, top(rawPages))
	fmt.Fprintf(&sb, "Units of the load (as DynamoDB bills them, from the engine's consumed capacity): %.0f write units and %.0f read units for %d events: %.3f write units and %.3f read units per event, recording and aggregation together. `timetable cost analytics` turns such units into a monthly bill at 10k, 100k and 1M events a day beside the seed's estimates.\n",
		loadUnits.WriteUnits, loadUnits.ReadUnits, ls.Events, loadUnits.WriteUnits/float64(ls.Events), loadUnits.ReadUnits/float64(ls.Events))
	return figs, section{title: "Web analytics", body: sb.String()}, nil
}

func diff(a, b table.Stats) table.Stats {
	return table.Stats{ReadUnits: a.ReadUnits - b.ReadUnits, WriteUnits: a.WriteUnits - b.WriteUnits}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// demoSite is a demo site loaded into the embedded engine on disk.
type demoSite struct {
	dir   string
	db    *local.DB
	st    *analytics.Store
	clk   *demo.Clock
	now   time.Time // the end of the load: the clock's time
	stats demo.LoadStats
	took  time.Duration // the load's time
	units table.Stats   // the load's capacity units
	close func()        // closes the store and the engine, removes dir
}

func (d *demoSite) rate() float64 { return float64(d.stats.Events) / d.took.Seconds() }

// loadDemo loads a demo site (package analytics/demo, seed 0, site "demo")
// of about pageViews page views over days days ending now (to the hour)
// into the embedded engine on disk, through RecordMany and
// AggregatePending on a clock moved through the days, as `timetable demo`
// does; part names it in the log. ttl is the engine's TTLInterval (0: its
// default; negative: no sweeper, the caller sweeps). With bulk, the days
// whose raw hits have all expired by now are written at once with
// analytics.Store.RecordDay (demo.LoadOptions.Bulk): the same items,
// written in a fraction of the time.
func loadDemo(ctx context.Context, e *env, part string, pageViews, days int, ttl time.Duration, bulk bool) (*demoSite, error) {
	dir, err := os.MkdirTemp(e.work, part+"-")
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC().Truncate(time.Hour)
	from := now.Truncate(24*time.Hour).AddDate(0, 0, 1-days)
	clk := demo.NewClock(from)
	// Loading is not durable write by write (NoSync, one Sync at the end),
	// as timetable demo loads: the figure is the store's, not the disk's.
	db, err := local.Open(dir, &local.Options{Now: clk.Now, NoSync: true, TTLInterval: ttl})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	d := &demoSite{dir: dir, db: db, clk: clk, now: now}
	d.close = func() {
		if d.st != nil {
			d.st.Close()
		}
		db.Close()
		os.RemoveAll(dir)
	}
	fail := func(err error) (*demoSite, error) {
		d.close()
		return nil, err
	}
	if d.st, err = analytics.Open(ctx, db, &analytics.Options{Now: clk.Now, AggregateEvery: -1}); err != nil {
		return fail(err)
	}
	if err := d.st.EnsureTable(ctx); err != nil {
		return fail(err)
	}
	if err := demo.CreateSite(ctx, d.st, "demo"); err != nil {
		return fail(err)
	}
	// Visits a day for about pageViews page views: page views per visit
	// from a sample day, and the trend's mean over the range.
	sample := demo.New(&demo.Options{VisitsPerDay: 1000}).Day(from)
	pv := 0
	for _, ev := range sample {
		if ev.Name == analytics.PageView {
			pv++
		}
	}
	trend := 0.0
	for i := range days {
		trend += math.Pow(1.08, float64(i-days+1)/30) / float64(days)
	}
	visits := float64(pageViews) / float64(days) / (float64(pv) / 1000) / trend
	g := demo.New(&demo.Options{VisitsPerDay: visits, End: now})

	e.logf("%s: loading %d days of about %d page views (%.0f visits a day at the end)", part, days, pageViews, visits)
	started := time.Now()
	last := started
	d.stats, err = demo.Load(ctx, d.st, clk, g, &demo.LoadOptions{From: from, Days: days, Now: now, Bulk: bulk, Progress: func(n int) {
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			e.logf("%s: %d events in %v", part, n, time.Since(started).Round(time.Second))
		}
	}})
	if err != nil {
		return fail(err)
	}
	if err := db.Sync(ctx); err != nil {
		return fail(err)
	}
	d.took = time.Since(started)
	d.units = d.st.Table().Stats()
	e.logf("%s: %d events (%d page views) in %v", part, d.stats.Events, d.stats.PageViews, d.took.Round(time.Second))
	return d, nil
}
