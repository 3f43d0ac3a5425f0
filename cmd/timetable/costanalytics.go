package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/demo"
	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

const costAnalyticsUsage = `Usage: timetable cost analytics [flags]

Prices the web analytics of one site on Amazon DynamoDB on demand, for 10k,
100k and 1M events a day, from units measured here: it records demo traffic
(package analytics/demo) in memory, event by event as the collector does,
at two sizes, aggregates it as timetable serve does, opens a dashboard, and
reads the capacity units the embedded engine reports (DynamoDB's rules).

From the two sizes it fits, for an aggregation run, units fixed per run
plus units per event of the day (each run re-reads the day so far), and
scales: per day, records N events, runs the aggregation every
--aggregate-every (reading on average half the day), and serves
--dashboard-views views of --dashboard-days days. Storage: raw hits and
sessions 30 days, hourly stats 90 days, daily 2 years, monthly kept
(priced at one year), with their index copies. The seed's estimates (about
$5, $50 and $500 a month) are shown beside; it gives no assumptions.

Example: hourly aggregation, 200 dashboard views a day.

  timetable cost analytics --aggregate-every 1h --dashboard-views 200

Flags:
`

// analyticsLoad is a site's web-analytics workload.
type analyticsLoad struct {
	EventsPerDay   float64
	AggregateEvery time.Duration
	ViewsPerDay    float64 // dashboard views
	ViewDays       float64 // days each view covers
}

// analyticsUnits are the units and bytes of a site's analytics, measured
// on a demo run, per operation.
type analyticsUnits struct {
	// RecordWrite is the write units of recording one event (its item,
	// realtime counters, pending marks).
	RecordWrite float64
	// AggReadRun and AggReadEvent are the read units of one aggregation
	// run: fixed, and per event of the day it reads; AggWriteRun and
	// AggWriteEvent the same for write units.
	AggReadRun, AggReadEvent, AggWriteRun, AggWriteEvent float64
	// ViewReadDay is the read units of a dashboard view per day it covers.
	ViewReadDay float64
	// Tiers are the stored items: per event (raw) or per day (stats).
	Tiers []storedTier
}

// storedTier is a kind of stored item.
type storedTier struct {
	name      string
	raw       bool    // raw hits and sessions, counted per event
	perEvent  float64 // items per event (raw), or
	perDay    float64 // items per day
	bytes     float64 // mean item size
	gsis      int     // index copies
	retention time.Duration
}

// seedEstimates are the seed's published monthly costs by events a day.
var seedEstimates = map[float64]float64{1e4: 5, 1e5: 50, 1e6: 500}

// check reports a load that cannot be priced.
func (l analyticsLoad) check() error {
	if !(l.EventsPerDay > 0) || l.AggregateEvery <= 0 || l.AggregateEvery > day || !(l.ViewsPerDay >= 0) || !(l.ViewDays > 0) || math.IsInf(l.EventsPerDay+l.ViewsPerDay+l.ViewDays, 0) {
		return errors.New("events a day must be positive, --aggregate-every in (0, 24h], --dashboard-views at least 0, --dashboard-days positive")
	}
	return nil
}

// estimate prices l with the measured units u.
func (u *analyticsUnits) estimate(l analyticsLoad) (*design.Estimate, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	n := l.EventsPerDay
	runs := math.Ceil(float64(day) / float64(l.AggregateEvery))
	perDay := map[string]design.Units{
		"record":    {Write: n * u.RecordWrite},
		"aggregate": {Read: runs*u.AggReadRun + (runs+1)/2*n*u.AggReadEvent, Write: runs*u.AggWriteRun + n*u.AggWriteEvent},
		"dashboard": {Read: l.ViewsPerDay * l.ViewDays * u.ViewReadDay},
	}
	w := &design.Workload{Name: fmt.Sprintf("web analytics, %s events a day", num(n)),
		Measured: &design.Usage{Duration: day, Ops: perDay}}
	for _, t := range u.Tiers {
		rate := (t.perEvent*n + t.perDay) / day.Seconds()
		w.Storage = append(w.Storage, design.Tier{Name: t.name, ItemsPerSecond: rate, ItemBytes: int(math.Ceil(t.bytes)), GSIs: t.gsis, Retention: t.retention})
	}
	return w.Estimate()
}

// runCostAnalytics is `timetable cost analytics`.
func (c *CostCommand) runCostAnalytics(ctx context.Context, args []string) error {
	fs := newFlagSet("cost analytics", costAnalyticsUsage, c.Stderr)
	l := analyticsLoad{AggregateEvery: time.Hour, ViewsPerDay: 100, ViewDays: 30}
	durationFlag(fs, &l.AggregateEvery, "aggregate-every", "how often the aggregates are brought up to date: serve's --aggregate-every (default 1h; serve's own default is 1m)")
	fs.Float64Var(&l.ViewsPerDay, "dashboard-views", 100, "dashboard views a day")
	fs.Float64Var(&l.ViewDays, "dashboard-days", 30, "days of traffic each dashboard view shows")
	visits := fs.Float64("measure-visits", 300, "visits a day of the smaller measured run (the larger has twice as many)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	l.EventsPerDay = 1 // checked with the flags; each size sets its own
	if err := l.check(); fs.NArg() > 0 || !(*visits >= 10 && *visits <= 1e5) || err != nil {
		fmt.Fprintf(c.Stderr, "timetable cost analytics: unexpected arguments, --measure-visits not in 10 to 100000, or: %v\n", err)
		return errUsage
	}
	u, err := measureAnalytics(ctx, *visits)
	if err != nil {
		return err
	}
	return costAnalyticsMarkdown(c.Stdout, u, l)
}

// costAnalyticsMarkdown prints the estimates of u for the seed's three
// sizes.
func costAnalyticsMarkdown(w io.Writer, u *analyticsUnits, l analyticsLoad) error {
	fmt.Fprintf(w, "# Cost of the web analytics of one site on DynamoDB on demand\n\n")
	fmt.Fprintf(w, "Measured per event: %s write units to record it; an aggregation run: %s + %s × events of the day read units, %s + %s × events write units; a dashboard view: %s read units per day shown.\n\n",
		num(u.RecordWrite), num(u.AggReadRun), num(u.AggReadEvent), num(u.AggWriteRun), num(u.AggWriteEvent), num(u.ViewReadDay))
	fmt.Fprintf(w, "Aggregation every %s, %s dashboard views a day of %s days each.\n\n", l.AggregateEvery, num(l.ViewsPerDay), num(l.ViewDays))
	fmt.Fprintln(w, "| Events a day | Write units/month | Read units/month | Storage GB | On-demand $/month | Seed's estimate $/month |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|")
	for _, n := range []float64{1e4, 1e5, 1e6} {
		l.EventsPerDay = n
		e, err := u.estimate(l)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | ~%s |\n", num(n), num(math.Round(e.WriteUnits*design.SecondsPerMonth)),
			num(math.Round(e.ReadUnits*design.SecondsPerMonth)), e.StorageBytes/design.BytesPerGB, e.OnDemand.Total, num(seedEstimates[n]))
	}
	p := design.DefaultPrices
	fmt.Fprintf(w, "\nPrices: %s (%s). Stats items grow with the traffic (more values in breakdowns, denser visitor sketches), so the larger sizes' aggregation writes and dashboard reads are lower bounds.\n", p.Region, p.Source)
	return nil
}

// measureAnalytics records one day of demo traffic at visits and at twice
// that, event by event, in memory, aggregates each once, opens a dashboard
// over two days of the larger, and returns the units and sizes.
func measureAnalytics(ctx context.Context, visits float64) (*analyticsUnits, error) {
	from := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC) // fixed, so every run measures the same traffic
	type run struct {
		events, total float64
		record, agg   table.Stats
		st            *analytics.Store
		db            *local.DB
		clk           *demo.Clock
	}
	measure := func(v float64, days int) (*run, error) {
		r := &run{clk: demo.NewClock(from)}
		var err error
		if r.db, err = local.Open("", &local.Options{InMemory: true, Now: r.clk.Now, TTLInterval: -1}); err != nil {
			return nil, err
		}
		if r.st, err = analytics.Open(ctx, r.db, &analytics.Options{Now: r.clk.Now, AggregateEvery: -1}); err != nil {
			return nil, err
		}
		if err := r.st.EnsureTable(ctx); err != nil {
			return nil, err
		}
		if err := demo.CreateSite(ctx, r.st, "demo"); err != nil {
			return nil, err
		}
		g := demo.New(&demo.Options{Seed: 1, VisitsPerDay: v})
		for d := range days {
			before := r.st.Table().Stats()
			var recorded table.Stats
			ls, err := demo.Load(ctx, r.st, r.clk, g, &demo.LoadOptions{From: from.AddDate(0, 0, d), Days: 1, Batch: 1,
				Progress: func(int) { recorded = r.st.Table().Stats() }})
			if err != nil {
				return nil, err
			}
			r.total += float64(ls.Events)
			if d == 0 {
				r.events = float64(ls.Events)
				r.record = sub(recorded, before)
				r.agg = sub(r.st.Table().Stats(), recorded)
			}
		}
		return r, nil
	}
	small, err := measure(visits, 1)
	if err != nil {
		return nil, err
	}
	defer small.db.Close()
	big, err := measure(2*visits, 2)
	if err != nil {
		return nil, err
	}
	defer big.db.Close()

	u := &analyticsUnits{RecordWrite: (small.record.WriteUnits + big.record.WriteUnits) / (small.events + big.events)}
	fit := func(a, b float64) (perRun, perEvent float64) {
		perEvent = max(0, (b-a)/(big.events-small.events))
		return max(0, a-perEvent*small.events), perEvent
	}
	u.AggReadRun, u.AggReadEvent = fit(small.agg.ReadUnits, big.agg.ReadUnits)
	u.AggWriteRun, u.AggWriteEvent = fit(small.agg.WriteUnits, big.agg.WriteUnits)

	// A dashboard view of the two days of the larger run: the summary,
	// the visitors by day and the top ten of every breakdown.
	before := big.st.Table().Stats()
	to := from.AddDate(0, 0, 2)
	if _, err := big.st.Summary(ctx, "demo", from, to); err != nil {
		return nil, err
	}
	if _, err := big.st.TimeSeries(ctx, "demo", analytics.MetricVisitors, analytics.Day, from, to); err != nil {
		return nil, err
	}
	for _, d := range analytics.Dimensions {
		if _, err := big.st.Breakdown(ctx, "demo", d, from, to, 10); err != nil {
			return nil, err
		}
	}
	u.ViewReadDay = sub(big.st.Table().Stats(), before).ReadUnits / 2

	// Sizes of what the larger run keeps, by kind of item, over its two days.
	tiers := map[string]*storedTier{}
	order := []string{}
	for it, err := range big.st.Table().ScanAll(ctx, &table.Scan{}) {
		if err != nil {
			return nil, err
		}
		t := tierOf(it)
		if t == nil {
			continue
		}
		if tiers[t.name] == nil {
			tiers[t.name] = t
			order = append(order, t.name)
		}
		x := tiers[t.name]
		x.bytes += float64(local.ItemSize(it))
		x.perDay++ // a count of items, divided below
	}
	for _, name := range order {
		t := tiers[name]
		t.bytes /= t.perDay
		switch {
		case t.raw:
			t.perEvent, t.perDay = t.perDay/big.total, 0
		case t.retention == 0: // a month's items, one set a month
			t.perDay /= 30
		default: // two days
			t.perDay /= 2
		}
		u.Tiers = append(u.Tiers, *t)
	}
	return u, nil
}

// tierOf returns the storage tier of a stored item (its counts zero),
// or nil for the items that do not grow with traffic (site, goals,
// realtime counters, marks, salt).
func tierOf(it table.Item) *storedTier {
	key := ""
	if v, ok := it["sk"].(*types.AttributeValueMemberS); ok {
		key = v.Value
	}
	raw, hourly, daily := 30*day, 90*day, 730*day
	for _, t := range []struct {
		prefix string
		tier   storedTier
	}{
		{"PV#", storedTier{name: "page views", raw: true, gsis: 1, retention: raw}},
		{"EVENT#", storedTier{name: "events", raw: true, retention: raw}},
		{"SESSION#", storedTier{name: "sessions", raw: true, gsis: 1, retention: raw}},
		{"STATS#hour#", storedTier{name: "hourly stats", gsis: 1, retention: hourly}},
		{"STATS#day#", storedTier{name: "daily stats", gsis: 1, retention: daily}},
		{"TOP#day#", storedTier{name: "daily top items", retention: daily}},
		{"STATS#month#", storedTier{name: "monthly stats", gsis: 1}},
		{"TOP#month#", storedTier{name: "monthly top items"}},
	} {
		if strings.HasPrefix(key, t.prefix) {
			x := t.tier
			return &x
		}
	}
	return nil
}

// sub returns the units of a minus those of b.
func sub(a, b table.Stats) table.Stats {
	return table.Stats{ReadUnits: a.ReadUnits - b.ReadUnits, WriteUnits: a.WriteUnits - b.WriteUnits}
}
