package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/series"
)

// CostCommand is `timetable cost`: it turns a time-series workload (a
// fleet of devices, their rate, dashboards, retention) into DynamoDB
// capacity units and a monthly bill for each series layout, with package
// design's cost model and prices.
type CostCommand struct {
	Stdout, Stderr io.Writer
}

// costUsage is the help of `timetable cost`; the layouts are the
// registry's (series.Layouts).
var costUsage = strings.Replace(costUsageText, "LAYOUTS", layoutNames(", "), 1)

const costUsageText = `Usage: timetable cost [flags]
       timetable cost analytics [flags]   (web analytics: timetable cost analytics -h)

Estimates what a time-series workload costs on Amazon DynamoDB in each
series layout (LAYOUTS): write
and read units a month, storage, and the monthly bill on demand and
provisioned, at the us-east-1 prices of package design's cost model.

The workload: --devices series, each written --rate readings of --fields
fields, flushed every --flush (the store's FlushInterval); --dashboards
dashboards open, each showing --dashboard-series series over
--dashboard-range and refreshed every --dashboard-refresh (a range read
and a latest reading per series); raw readings kept --retention; the
hourly, daily and monthly rollups unless --no-rollups. Item sizes are
estimates calibrated on the benchmarks; --detail prints every line of the
arithmetic.

Example: 10,000 devices at one reading a minute, 5 dashboards.

  timetable cost --devices 10000 --rate 1/min --fields 3 --dashboards 5 --dashboard-range 24h --dashboard-refresh 1m --retention 30d

Flags:
`

// Run parses args and prints the estimates.
func (c *CostCommand) Run(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "analytics" {
		return c.runCostAnalytics(ctx, args[1:])
	}
	fs := newFlagSet("cost", costUsage, c.Stderr)
	l := series.Fleet{Rate: 1.0 / 60, DashboardRange: day, DashboardRefresh: time.Minute, Retention: series.DefaultRawRetention, Flush: 5 * time.Minute}
	fs.Float64Var(&l.Devices, "devices", 10000, "number of series (devices)")
	fs.Func("rate", "readings per series: N/UNIT, UNIT s, min, h, d or a duration (default 1/min)", func(s string) (err error) {
		l.Rate, err = parseRate(s)
		return err
	})
	fs.IntVar(&l.Fields, "fields", 3, "float fields per reading")
	fs.Float64Var(&l.Dashboards, "dashboards", 5, "dashboards open at any time")
	fs.Float64Var(&l.DashboardSeries, "dashboard-series", 10, "series each dashboard shows")
	durationFlag(fs, &l.DashboardRange, "dashboard-range", "time range of a dashboard's charts (default 24h)")
	durationFlag(fs, &l.DashboardRefresh, "dashboard-refresh", "period of a dashboard's refresh (default 1m)")
	durationFlag(fs, &l.Retention, "retention", "how long raw readings are kept: a duration or days, 30d (default 30d)")
	durationFlag(fs, &l.Flush, "flush", "the store's flush interval (default 5m)")
	noRollups := fs.Bool("no-rollups", false, "no hourly, daily and monthly rollups")
	fs.Float64Var(&l.Peak, "peak", 1, "ratio of peak to average rate, for provisioned capacity")
	detail := fs.Bool("detail", false, "also print each layout's full estimate (every write, read and tier)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	l.Rollups = !*noRollups
	if fs.NArg() > 0 {
		fmt.Fprintf(c.Stderr, "timetable cost: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if err := l.Check(); err != nil {
		fmt.Fprintf(c.Stderr, "timetable cost: %v\n", err)
		return errUsage
	}
	lays := series.Layouts()
	var ests []*design.Estimate
	for _, lay := range lays {
		w, err := l.Workload(lay)
		if err != nil {
			return err
		}
		e, err := w.Estimate()
		if err != nil {
			return err
		}
		ests = append(ests, e)
	}
	return costMarkdown(c.Stdout, &l, lays, ests, *detail)
}

// durationFlag defines a flag of a duration or a number of days.
func durationFlag(fs *flag.FlagSet, d *time.Duration, name, usage string) {
	fs.Func(name, usage, func(s string) (err error) {
		*d, err = parseDuration(s)
		return err
	})
}

// costMarkdown writes the table of the estimates (ests[i] of layout
// lays[i]), one row per layout, the cheapest, and with detail each
// estimate's own markdown.
func costMarkdown(w io.Writer, l *series.Fleet, lays []series.Layout, ests []*design.Estimate, detail bool) error {
	p := ests[0].Prices
	fmt.Fprintf(w, "# Cost of %s series at %s readings/s each, %d fields\n\n", num(l.Devices), num(l.Rate), l.Fields)
	rollups := "hourly, daily and monthly rollups"
	if !l.Rollups {
		rollups = "no rollups"
	}
	fmt.Fprintf(w, "Raw readings kept %s, flushed every %s; %s dashboards of %s series over %s, refreshed every %s; %s. Prices: %s (%s).\n\n",
		days(l.Retention), days(l.Flush), num(l.Dashboards), num(l.DashboardSeries), days(l.DashboardRange), days(l.DashboardRefresh), rollups, p.Region, p.Source)
	fmt.Fprintln(w, "| Layout | Write units/month | Read units/month | Storage GB | On-demand $/month | Provisioned $/month |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	best, bestCost, bestMode := 0, 0.0, ""
	for i, e := range ests {
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | %.2f |\n", lays[i],
			num(math.Round((e.WriteUnits+e.GSIWriteUnits)*design.SecondsPerMonth)), num(math.Round(e.ReadUnits*design.SecondsPerMonth)),
			e.StorageBytes/design.BytesPerGB, e.OnDemand.Total, e.Provisioned.Total)
		mode, cost := "on-demand", e.OnDemand.Total
		if e.Provisioned.Total < cost {
			mode, cost = "provisioned", e.Provisioned.Total
		}
		if i == 0 || cost < bestCost {
			best, bestCost, bestMode = i, cost, mode
		}
	}
	fmt.Fprintf(w, "\nCheapest: %s, %s, $%.2f a month.\n", lays[best], bestMode, bestCost)
	if detail {
		for i, e := range ests {
			fmt.Fprintf(w, "\n---\n\n")
			e.Name = lays[i].String() + " layout"
			if err := e.Markdown(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// days renders d as a number of days if it is whole days, else as Go
// does.
func days(d time.Duration) string {
	if d%day == 0 {
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}

// num renders x with thousands separators and at most 4 decimals.
func num(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if math.Abs(x) < 1000 {
		if r := strconv.FormatFloat(x, 'f', 4, 64); len(r) < len(s) {
			s = strings.TrimRight(strings.TrimRight(r, "0"), ".")
		}
		return s
	}
	intPart := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	var b strings.Builder
	for i, ch := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 && ch != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// day is a day, as --rate and durations in days count it.
const day = 24 * time.Hour

// parseRate parses a rate of readings, "N/UNIT": N a positive number, UNIT
// s, min, h or d (or second, minute, hour, day), or a Go duration ("1/30s",
// "5/1m"); it returns readings per second.
func parseRate(s string) (float64, error) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, fmt.Errorf("rate %q: want N/UNIT, such as 1/min or 2/s", s)
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(n > 0) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("rate %q: %q is not a positive number", s, num)
	}
	var per time.Duration
	switch strings.TrimSpace(unit) {
	case "s", "sec", "second":
		per = time.Second
	case "m", "min", "minute":
		per = time.Minute
	case "h", "hour":
		per = time.Hour
	case "d", "day":
		per = day
	default:
		if per, err = parseDuration(unit); err != nil {
			return 0, fmt.Errorf("rate %q: unknown unit %q (s, min, h, d or a duration)", s, unit)
		}
	}
	r := n / per.Seconds()
	if !(r > 0) || math.IsInf(r, 0) {
		return 0, fmt.Errorf("rate %q is out of range", s)
	}
	return r, nil
}

// parseDuration parses a Go duration, or a number of days "30d"; it must
// be positive.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || !(n > 0) || n > 100*365 {
			return 0, fmt.Errorf("duration %q: want a positive number of days, at most 36500", s)
		}
		d = time.Duration(n * float64(day))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("duration %q: want a Go duration (90s, 5m, 24h) or days (30d)", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("duration %q is not positive", s)
	}
	return d, nil
}
