package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/analytics/statsapi"
	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

// analyticsRangeConfig sizes the analytics-range part.
type analyticsRangeConfig struct {
	pageViews  int // page views over the days, about
	days       int
	runs       int    // timed runs of each query (their p50 and p90 are reported)
	perDay     int    // dashboard loads a day that run each query, for the monthly cost
	cpuProfile string // CPU profile of the timed runs of the filtered queries, if set
}

// rangeQuery is a query of the analytics-range part: filtered, it needs
// the hits (the hit buckets, and the raw hits of the last days); without
// its filter the aggregates answer it if aggregates (one dimension).
type rangeQuery struct {
	name, metrics, dims string
	aggregates          bool
}

func (q rangeQuery) body(filtered bool) string {
	f := ""
	if filtered {
		f = `,"filters":[["is","visit:source",["Google"]]]`
	}
	return `{"site_id":"demo","metrics":[` + q.metrics + `],"dimensions":[` + q.dims + `],"date_range":"12mo"` + f + `}`
}

// rangeRun is what the timed runs of one query measured.
type rangeRun struct {
	p50, p90    time.Duration
	cpu         time.Duration // the process's CPU time of the p50 run
	units       table.Stats   // of one run
	rows        int
	computed    string
	first       string // the first row, for the report
	batchGets   int64  // BatchGetItem calls of one run
	queryCalls  int64  // Query calls of one run
	monthlyCost float64
}

// runAnalyticsRange measures the queries the aggregates cannot answer
// over a long range (issue 26): a demo site of about pageViews page views
// over days (the days whose raw hits have expired written at once with
// analytics.Store.RecordDay, the last 30 recorded and aggregated as in
// the analytics part), then a filtered breakdown by country and month, a
// filtered breakdown and a filtered time series over the last 12 months
// through the Stats API (analytics/statsapi), each beside the same query
// without its filter (the aggregates answer those of one dimension);
// with their times, read units and monthly cost, and the storage of the
// hit buckets.
func runAnalyticsRange(ctx context.Context, e *env) ([]Figure, section, error) {
	const daysAMonth = 30
	c := e.cfg.analyticsRange
	// The engine's TTL sweeper is off: the load moves the clock through a
	// year in minutes, and a year of expired raw hits, which a server
	// deletes a day at a time, is deleted at once after it. The engine
	// then settles (its compactions done) before the queries are timed,
	// so that their times and CPU are theirs.
	d, err := loadDemo(ctx, e, "analytics-range", c.pageViews, c.days, -1, true)
	if err != nil {
		return nil, section{}, err
	}
	defer d.close()
	st, now := d.st, d.clk.Now()
	price := design.DefaultPrices.ReadRequestUnit
	swept := 0
	for {
		n, err := d.db.SweepExpired()
		if err != nil {
			return nil, section{}, err
		}
		if swept += n; n == 0 {
			break
		}
	}
	// Settled: no compaction running for 3 seconds in a row (5 minutes
	// at most).
	settled := time.Now()
	for quiet := 0; quiet < 3 && time.Since(settled) < 5*time.Minute; {
		if quiet++; d.db.Metrics().Compact.NumInProgress > 0 {
			quiet = 0
		}
		select {
		case <-ctx.Done():
			return nil, section{}, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	e.logf("analytics-range: %d expired items deleted, compactions done in %v", swept, time.Since(settled).Round(time.Second))

	measure := func(body string, profile bool) (rangeRun, error) {
		q, err := statsapi.Parse([]byte(body))
		if err != nil {
			return rangeRun{}, err
		}
		var r rangeRun
		var times, cpus []time.Duration
		if profile && c.cpuProfile != "" {
			f, err := os.Create(c.cpuProfile)
			if err != nil {
				return r, err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return r, err
			}
			defer pprof.StopCPUProfile()
		}
		for i := range c.runs + 1 { // the first run warms the caches up, unmeasured
			before := st.Table().Stats()
			t0, c0 := time.Now(), cpuTime()
			resp, err := q.Run(ctx, st, now, nil)
			if err != nil {
				return r, fmt.Errorf("%s: %w", body, err)
			}
			if i == 0 {
				continue
			}
			times, cpus = append(times, time.Since(t0)), append(cpus, time.Duration((cpuTime()-c0)*float64(time.Second)))
			if i == 1 {
				after := st.Table().Stats()
				r.units = diff(after, before)
				r.batchGets = after.Ops["BatchGetItem"].Calls - before.Ops["BatchGetItem"].Calls
				r.queryCalls = after.Ops["Query"].Calls - before.Ops["Query"].Calls
				r.rows, r.computed = len(resp.Results), resp.Meta.ComputedFrom
				if len(resp.Results) > 0 {
					b, _ := json.Marshal(resp.Results[0])
					r.first = string(b)
				}
			}
		}
		r.p50, r.p90 = median(times), percentile(times, 0.9)
		r.cpu = cpus[slices.Index(times, r.p50)]
		r.monthlyCost = r.units.ReadUnits * float64(c.perDay) * daysAMonth * price
		return r, nil
	}

	queries := []rangeQuery{
		{"breakdown by country and month", `"visitors","visits","pageviews"`, `"visit:country","time:month"`, false},
		{"breakdown by country", `"visits"`, `"visit:country"`, true},
		{"time series by month", `"visitors","pageviews"`, `"time:month"`, true},
	}
	var figs []Figure
	var sb strings.Builder
	fmt.Fprintf(&sb, "A demo site (package analytics/demo, seed 0) of %d days: %d events, %d of them page views, loaded into the embedded engine on disk in %v (%.0f events/s). The days whose raw hits have all expired (raw hits are kept 30 days) are written at once with analytics.Store.RecordDay (demo.LoadOptions.Bulk): their hit bucket and aggregates, the items that recording and aggregating each day and the raw hits' expiry leave (a test, analytics/demo TestLoad_BulkSameAsRecorded, compares every item and the visits read from both ways). The last days are recorded with RecordMany and aggregated with AggregatePending on a clock moved through them, as in the analytics part, which writes each day's hit bucket once it is over. So the queries below read the hit buckets of all but the last day, and the raw hits of today. The expired raw hits are deleted after the load (the engine's sweeper off during it), and the queries timed once the engine's compactions are done.\n\n",
		d.stats.Days, d.stats.Events, d.stats.PageViews, d.took.Round(time.Second), d.rate())
	if want := 10_000_000; c.pageViews < want {
		fmt.Fprintf(&sb, "This run is smaller than the target's 10 million page views (-analytics-range-page-views %d): the hit buckets' work grows linearly with the hits of the range (the aggregates' does not), so at 10 million page views a filtered query takes about %.1f times as long as here.\n\n",
			c.pageViews, float64(want)/float64(d.stats.PageViews))
	}
	fmt.Fprintf(&sb, "Each query through the Stats API (statsapi.Query.Run, in process), date range `12mo`, filtered by `visit:source is Google` or not; %d timed runs after one warm-up: their p50 and p90, and the CPU time of this process during the p50 run (user and system, all threads: on a machine shared with other work, it is the steadier figure). Read units as DynamoDB bills them (the engine's consumed capacity, as the table's counters count it: eventually consistent where the reads are); the monthly cost is that of %d dashboard loads a day that each run the query once, for %d days, at $%g per million read request units (on-demand, %s). The aggregates answer a query of one dimension without a filter; a filter or a second dimension (a breakdown by country and month) is computed from the hits: the unfiltered breakdown by country and month reads all of them, the aggregates' counterpart of it being the two unfiltered queries below it.\n\n",
		c.runs, c.perDay, daysAMonth, price*1e6, design.DefaultPrices.Region)
	sb.WriteString("| query | computed from | p50 | p90 | CPU | read units | BatchGetItem / Query calls | monthly cost | rows | first row |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, q := range queries {
		filtered, err := measure(q.body(true), q == queries[0])
		if err != nil {
			return nil, section{}, err
		}
		plain, err := measure(q.body(false), false)
		if err != nil {
			return nil, section{}, err
		}
		want := "raw_hits"
		if q.aggregates {
			want = "aggregates"
		}
		if filtered.rows == 0 || filtered.computed != "raw_hits" || plain.computed != want {
			return nil, section{}, fmt.Errorf("%s: %d rows from %s (the unfiltered from %s): want rows from the hits (the unfiltered from %s)",
				q.name, filtered.rows, filtered.computed, plain.computed, want)
		}
		for _, x := range []struct {
			what string
			r    rangeRun
		}{{"filtered: " + q.body(true), filtered}, {"unfiltered: " + q.body(false), plain}} {
			fmt.Fprintf(&sb, "| %s | %s | %.1f ms | %.1f ms | %.1f ms | %.1f | %d / %d | $%.4f | %d | `%s` |\n", "`"+x.what+"`", x.r.computed, ms(x.r.p50),
				ms(x.r.p90), ms(x.r.cpu), x.r.units.ReadUnits, x.r.batchGets, x.r.queryCalls, x.r.monthlyCost, x.r.rows, x.r.first)
		}
		figs = append(figs,
			Figure{Name: "analytics-range: filtered 12-month " + q.name + " (hit buckets and raw hits), p50", Ours: round(ms(filtered.p50), 1),
				Peer: ptr(round(ms(plain.p50), 2)), Unit: "ms", peerName: "unfiltered, from the " + plain.computed, target: "< 1000 ms",
				met: check(filtered.p50 < time.Second)},
			Figure{Name: "analytics-range: read units of the filtered 12-month " + q.name, Ours: round(filtered.units.ReadUnits, 1),
				Peer: ptr(round(plain.units.ReadUnits, 1)), Unit: "RU", peerName: "unfiltered, from the " + plain.computed})
	}
	sb.WriteString("\n")

	// The storage of the buckets, against the raw hits of a day.
	var bucketBytes, bucketWU float64
	parts := 0
	q := &table.Query{Hash: "SITE#demo", Range: table.BeginsWith("HITPART#")}
	for it, err := range st.Table().QueryAll(ctx, q) {
		if err != nil {
			return nil, section{}, err
		}
		n := float64(local.ItemSize(it))
		bucketBytes += n
		bucketWU += float64(int((n + 1023) / 1024))
		parts++
	}
	day := now.Truncate(24*time.Hour).AddDate(0, 0, -1)
	var rawBytes float64
	rawItems := 0
	for _, prefix := range []string{"PV#", "EVENT#"} {
		q := &table.Query{Hash: "SITE#demo", Range: table.Between(prefix+day.Format("2006-01-02"), prefix+day.Format("2006-01-02")+"~")}
		for it, err := range st.Table().QueryAll(ctx, q) {
			if err != nil {
				return nil, section{}, err
			}
			rawBytes += float64(local.ItemSize(it))
			rawItems++
		}
	}
	perEvent := bucketBytes / float64(d.stats.Events)
	rawPerEvent := rawBytes / float64(max(rawItems, 1))
	gbMonth := design.DefaultPrices.StorageGBMonth
	fmt.Fprintf(&sb, "Hit buckets: %d parts, %.1f MB for %d events (%.1f bytes an event, against %.0f bytes for a raw hit item of %s, GSI copy not counted: %.0fx smaller). Kept 2 years, the buckets of this site's traffic cost $%.4f a month of storage at $%g per GB-month (raw items kept as long: $%.4f). Writing them costs %.0f write units over the load (%.3f an event), beside %.3f an event for the whole load (buckets and aggregates; raw hits only for the last 30 days, the older days written with RecordDay: not the bill of a live site, which the analytics part measures).\n",
		parts, bucketBytes/1e6, d.stats.Events, perEvent, rawPerEvent, day.Format("2006-01-02"), rawPerEvent/perEvent,
		bucketBytes/1e9*gbMonth*730/float64(d.stats.Days), gbMonth, rawPerEvent*float64(d.stats.Events)/1e9*gbMonth*730/float64(d.stats.Days),
		bucketWU, bucketWU/float64(d.stats.Events), d.units.WriteUnits/float64(d.stats.Events))
	figs = append(figs, Figure{Name: "analytics-range: hit bucket bytes per event", Ours: round(perEvent, 2), Peer: ptr(round(rawPerEvent, 1)),
		Unit: "bytes", Ratio: ptr(round(rawPerEvent/perEvent, 1)), peerName: "a raw hit item"})
	return figs, section{title: "Web analytics: any query over any range", body: sb.String()}, nil
}

// percentile returns the p-quantile of ds (0 < p <= 1): the least of
// them that at least p of them are at or below.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[max(int(math.Ceil(p*float64(len(s))))-1, 0)]
}
