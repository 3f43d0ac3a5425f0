package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/analytics/demo"
	"github.com/timetable-db/timetable/backend"
	"github.com/timetable-db/timetable/local"
)

// DemoCommand is `timetable demo`: it creates a demonstration site with
// goals and records days of realistic traffic (package analytics/demo)
// through the analytics store's own Record and aggregation, so that the
// dashboard has something to show.
type DemoCommand struct {
	Stdout, Stderr io.Writer
	// Now returns the present. Default time.Now.
	Now func() time.Time
}

const demoUsage = `Usage: timetable demo [--data DIR | --backend URL] [flags]

Creates the web-analytics site --site (domain demo.timetable.local) with
goals, records --days of realistic traffic ending now (weekly and daily
cycles, growth, sources and campaigns, countries, devices, custom events,
a pricing-to-signup funnel) and aggregates every day, with a progress bar.
The traffic is the same for the same --seed.

Raw hits live 30 days and the store refuses older ones, so the days are
recorded in order on a clock that the store and the engine share, each
while it is recent; days more than 30 days old keep their aggregates and
their raw hits expire, as in real life.

With --backend http(s)://HOST:PORT or dynamodb://REGION, the site is
written through the DynamoDB API at that URL (a timetable serve, DynamoDB
Local, or Amazon DynamoDB; credentials from the AWS default chain). Such a
backend expires hits on its own clock, so it takes at most 30 days.

Example: a demo site in a data folder, then its dashboard.

  timetable demo --data ./timetable-data --days 90
  timetable serve --data ./timetable-data
  # open http://127.0.0.1:8000/

Flags:
`

// demoFlags are demo's settings.
type demoFlags struct {
	data, backend, site, table string
	// storage is where the site is written, from --data and --backend.
	storage storage
	days    int
	visits  float64
	seed    uint64
	replace bool
}

// Run parses args and records the demonstration site.
func (c *DemoCommand) Run(ctx context.Context, args []string) error {
	fs := newFlagSet("demo", demoUsage, c.Stderr)
	var f demoFlags
	fs.StringVar(&f.data, "data", defaultDataDir, "data folder to write to when no --backend is given (not while a server holds it)")
	fs.StringVar(&f.backend, "backend", "", "the backend to write to instead of --data: file:DIR, or a DynamoDB endpoint: http(s)://HOST:PORT or dynamodb://REGION")
	fs.StringVar(&f.backend, "server", "", "the same as --backend (older name)")
	fs.StringVar(&f.site, "site", "demo", "the site id")
	fs.StringVar(&f.table, "table", analytics.DefaultTable, "the table of the web analytics (serve's --analytics-table)")
	fs.IntVar(&f.days, "days", 90, "days of traffic, ending today (1 to 3660)")
	fs.Float64Var(&f.visits, "visits-per-day", 1000, "mean visits a day in the last week (about 3 page views each; 1 to 10000000)")
	fs.Uint64Var(&f.seed, "seed", 1, "the traffic's random seed")
	fs.BoolVar(&f.replace, "replace", false, "delete the site first if it exists (with all its data)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	set := flagsGiven(fs)
	bad := ""
	if f.storage, err = parseStorage(f.data, set["data"], f.backend, false); err != nil {
		bad = err.Error()
	}
	switch {
	case bad != "":
	case len(pos) > 0:
		bad = fmt.Sprintf("unexpected argument %q", pos[0])
	case f.days < 1 || f.days > 3660:
		bad = fmt.Sprintf("--days %d is not in 1 to 3660", f.days)
	case !(f.visits >= 1 && f.visits <= 1e7):
		bad = fmt.Sprintf("--visits-per-day %v is not in 1 to 10000000", f.visits)
	case f.storage.remote != "" && f.days > 30:
		bad = fmt.Sprintf("--days %d with --backend %s: a remote backend expires hits older than 30 days on its own clock, before they can be aggregated; use --days 30 or less, or --data", f.days, f.storage.remote)
	}
	if bad != "" {
		fmt.Fprintf(c.Stderr, "timetable demo: %s\n\n", bad)
		fs.Usage()
		return errUsage
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	present := now().UTC().Truncate(time.Millisecond)
	from := present.Truncate(24*time.Hour).AddDate(0, 0, 1-f.days)
	clk := demo.NewClock(from)

	api, closeAPI, err := f.open(ctx, clk)
	if err != nil {
		return err
	}
	defer closeAPI()
	st, err := analytics.Open(ctx, api, &analytics.Options{Table: f.table, Now: clk.Now, AggregateEvery: -1})
	if err != nil {
		return err
	}
	if err := st.EnsureTable(ctx); err != nil {
		return err
	}
	if err := c.createSite(ctx, st, &f); err != nil {
		return err
	}

	g := demo.New(&demo.Options{Site: f.site, Seed: f.seed, VisitsPerDay: f.visits, End: present})
	total := 0
	for d := range f.days {
		for _, e := range g.Day(from.AddDate(0, 0, d)) {
			if !e.Time.After(present) {
				total++
			}
		}
	}
	bar := newProgressBar(c.Stderr, int64(total), "recording events", false)
	started, done := time.Now(), 0
	ls, err := demo.Load(ctx, st, clk, g, &demo.LoadOptions{From: from, Days: f.days, Now: present,
		Progress: func(n int) { _ = bar.Add(n - done); done = n }})
	_ = bar.Finish()
	if err != nil {
		return err
	}
	if s, ok := api.(timetable.Syncer); ok {
		if err := s.Sync(ctx); err != nil {
			return err
		}
	}
	took := time.Since(started)
	u := st.Table().Stats()
	fmt.Fprintf(c.Stdout, "Site %q (%s): %s events, %s of them page views, over %d days, recorded and aggregated in %v (%s events/s).\n",
		f.site, demo.Domain, num(float64(ls.Events)), num(float64(ls.PageViews)), ls.Days, took.Round(time.Second/10), num(math.Round(float64(ls.Events)/took.Seconds())))
	fmt.Fprintf(c.Stdout, "DynamoDB would have billed %s write units and %s read units for it (`timetable cost analytics` prices a month).\n",
		num(math.Round(u.WriteUnits)), num(math.Round(u.ReadUnits)))
	if f.storage.remote != "" {
		fmt.Fprintf(c.Stdout, "\nThe dashboard of a server on %s shows site %q.\n", f.storage.remote, f.site)
		return nil
	}
	fmt.Fprintf(c.Stdout, "\nSee the dashboard:\n\n  timetable serve --data %s\n  # then open http://127.0.0.1:8000/ and sign in with the admin token serve prints at its first start\n", f.storage.where())
	return nil
}

// open opens the backend of f: the data folder on clk (so that its TTL
// expires hits on the demo's clock, not the wall clock's), or the server.
func (f *demoFlags) open(ctx context.Context, clk *demo.Clock) (timetable.API, func(), error) {
	if f.storage.remote != "" {
		b, err := backend.Open(ctx, f.storage.remote)
		if err != nil {
			return nil, nil, err
		}
		return b, func() { _ = b.Close() }, nil
	}
	db, err := local.Open(f.storage.dir, &local.Options{Now: clk.Now, NoSync: true, InMemory: f.storage.inMemory})
	if err != nil {
		return nil, nil, fmt.Errorf("cannot open the data folder %s: %w", f.storage.dir, err)
	}
	return db, func() { _ = db.Close() }, nil
}

// createSite creates the demo site, after deleting it with --replace.
func (c *DemoCommand) createSite(ctx context.Context, st *analytics.Store, f *demoFlags) error {
	if f.replace {
		if err := st.DeleteSite(ctx, f.site); err != nil && !errors.Is(err, timetable.ErrNotFound) {
			return err
		}
	}
	err := demo.CreateSite(ctx, st, f.site)
	if errors.Is(err, analytics.ErrExists) {
		return fmt.Errorf("site %q exists already; --replace deletes it and its data first", f.site)
	}
	return err
}
