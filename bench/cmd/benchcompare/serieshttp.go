package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// seriesHTTPConfig sizes the series-http part: timetable serve's series
// API against VictoriaMetrics over HTTP.
type seriesHTTPConfig struct {
	ids, readings  int
	batch, senders int
	queries        int
	warmup         int
	settleMax      time.Duration
	soak           soakConfig
	targets        string // comma-separated: timetable, victoriametrics
	datasets       string // comma-separated names of tsDatasets; the soak runs with the first
	serveArgs      string
	vmBin          string
}

// tsRun is what one server did in the series-http part.
type tsRun struct {
	name       string
	readings   int64
	ingest     time.Duration
	ingestCPU  time.Duration // the server's, during the ingest
	lifeCPU    time.Duration // the server's, from its start to its clean stop after the merge
	peakRSS    int64         // VmHWM at the end of the ingest
	merge      string        // what was asked of the server to merge
	mergeTook  time.Duration // until the server said the merge was done
	settle     time.Duration // from the merge to the server's quiet
	quiet      bool          // whether the server went quiet before settleMax
	dirBytes   int64         // the data folder, without its caches
	dirParts   []string      // "name size" of the folder's top-level entries
	queries    queryRun
	soak       *soakRun
	rangeWants int
}

func (r tsRun) rate() float64 { return float64(r.readings) / r.ingest.Seconds() }

func (r tsRun) cpuPerReading(d time.Duration) float64 { return us(d) / float64(r.readings) }

func (r tsRun) bytesPerReading() float64 { return float64(r.dirBytes) / float64(r.readings) }

// seriesHTTPTargets returns the servers asked for, timetable first.
func seriesHTTPTargets(ctx context.Context, e *env) ([]tsTarget, error) {
	var ts []tsTarget
	for _, name := range strings.Split(e.cfg.seriesHTTP.targets, ",") {
		t, err := seriesHTTPTarget(ctx, e, name)
		if err != nil {
			return nil, fmt.Errorf("-series-http-targets: %w", err)
		}
		if t != nil {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("-series-http-targets: no target")
	}
	return ts, nil
}

// seriesHTTPTarget returns the server named name (timetable or
// victoriametrics; spaces around it ignored), nil for an empty name, or
// an error for another name.
func seriesHTTPTarget(ctx context.Context, e *env, name string) (tsTarget, error) {
	c := e.cfg.seriesHTTP
	switch strings.TrimSpace(name) {
	case "timetable":
		bin, err := e.timetableBin(ctx)
		if err != nil {
			return nil, err
		}
		return timetableServe{bin: bin, logDir: e.work, args: strings.Fields(c.serveArgs)}, nil
	case "victoriametrics":
		if _, err := os.Stat(c.vmBin); err != nil {
			return nil, fmt.Errorf("VictoriaMetrics not found at %s (make bench-compare builds it): %w", c.vmBin, err)
		}
		return victoriaMetrics{bin: c.vmBin, logDir: e.work}, nil
	case "":
		return nil, nil
	default:
		return nil, fmt.Errorf("unknown target %q", name)
	}
}

// preflightSeriesHTTP starts and stops each server of the series-http
// part, so that a run that cannot do that part fails at once, not after
// the other parts (until timetable serve has the series API, it fails
// here; -series-http-targets victoriametrics runs the other half).
func preflightSeriesHTTP(ctx context.Context, e *env) error {
	targets, err := seriesHTTPTargets(ctx, e)
	if err != nil {
		return err
	}
	for _, t := range targets {
		dir, err := os.MkdirTemp(e.work, "series-http-preflight-")
		if err != nil {
			return err
		}
		srv, err := t.Start(ctx, dir)
		if err == nil {
			err = srv.Shutdown(2 * time.Minute)
		}
		os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("%s cannot run: %w", t.Name(), err)
		}
	}
	return nil
}

// runSeriesHTTP measures each server in turn, each alone on the machine,
// on each dataset: the ingest of the same line protocol, the bytes on
// disk once merged, the latest and one-day reads; and a soak, on the
// first dataset.
func runSeriesHTTP(ctx context.Context, e *env) ([]Figure, section, error) {
	c := e.cfg.seriesHTTP
	var figs []Figure
	var body strings.Builder
	for k, name := range strings.Split(c.datasets, ",") {
		ds, ok := datasetNamed(strings.TrimSpace(name))
		if !ok {
			return nil, section{}, fmt.Errorf("-series-http-data: no dataset %q", name)
		}
		runs, err := eachTarget(ctx, e, func(t tsTarget) (tsRun, error) {
			r, err := runTSTarget(ctx, e, t, c, ds)
			if err != nil || c.soak.duration <= 0 || k > 0 {
				return r, err
			}
			s, err := runTSSoak(ctx, e, t, c.soak)
			if err != nil {
				return r, fmt.Errorf("soak: %w", err)
			}
			r.soak = &s
			return r, nil
		})
		if err != nil {
			return nil, section{}, fmt.Errorf("%s data: %w", ds.title, err)
		}
		if len(runs) == 2 && runs[0].name == "timetable serve" {
			figs = append(figs, seriesHTTPFigures(c, ds, k, runs[0], runs[1])...)
		}
		if k > 0 {
			fmt.Fprintf(&body, "\n### %s data\n\n", strings.ToUpper(ds.title[:1])+ds.title[1:])
		}
		body.WriteString(seriesHTTPSection(c, ds, runs, vmVersion(c.vmBin)))
	}
	return figs, section{title: "Series over HTTP: timetable serve vs VictoriaMetrics", body: body.String()}, nil
}

// eachTarget runs run on each server of -series-http-targets in turn,
// and returns what it did on each, in the order of the servers.
func eachTarget[R any](ctx context.Context, e *env, run func(tsTarget) (R, error)) ([]R, error) {
	targets, err := seriesHTTPTargets(ctx, e)
	if err != nil {
		return nil, err
	}
	var runs []R
	for _, t := range targets {
		r, err := run(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name(), err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// tsStep is the time between two readings of a series in the ingest.
const tsStep = 60 // seconds

// recentLines returns the lines of ids series of readings readings each,
// tsStep apart, the last a minute before now (both servers take them as
// recent: VictoriaMetrics refuses samples older than its retention, a
// month by default), keeping the values of step watch (-1 for none).
func recentLines(ds tsDataset, ids, readings int, watch int64) *lineGen {
	start := time.Now().Truncate(time.Minute).Unix() - int64(readings)*tsStep
	return newLineGen(ds, ids, start, tsStep, watch)
}

// timedIngest sends g's lines to t on srv as sc says, and returns the
// readings sent, the time from the first request to the last answer, and
// the server's CPU time before the first request (for serverUse).
func timedIngest(ctx context.Context, hc *http.Client, t tsTarget, srv *peers.Server, g *lineGen, sc sendConfig) (n int64, took, cpu0 time.Duration, err error) {
	if cpu0, err = srv.CPU(); err != nil {
		return 0, 0, 0, err
	}
	t0 := time.Now()
	n, err = sendLines(ctx, hc, t.WriteURL(srv.Endpoint), g, sc, nil)
	took = time.Since(t0)
	if err != nil {
		return n, took, cpu0, fmt.Errorf("ingest: %w", err)
	}
	return n, took, cpu0, nil
}

// serverUse returns the server's CPU time since cpu0 and its peak RSS.
func serverUse(srv *peers.Server, cpu0 time.Duration) (time.Duration, int64, error) {
	cpu1, err := srv.CPU()
	if err != nil {
		return 0, 0, err
	}
	rss, err := srv.PeakRSS()
	return cpu1 - cpu0, rss, err
}

// tsDay returns the steps of the one-day range the reads ask for (from
// and to, both included) in an ingest of readings steps: the day in the
// middle, or all of them if there are fewer.
func tsDay(readings int) [2]int64 {
	const day = 24 * 60 * 60 / tsStep
	if readings <= day {
		return [2]int64{0, int64(readings) - 1}
	}
	from := int64(readings-day) / 2
	return [2]int64{from, from + day - 1}
}

// runTSTarget runs one server on a fresh data folder: the ingest, the
// merge, a clean stop and the size of the folder, then a restart on the
// same folder for the reads (so that no server reads from the caches its
// ingest filled), and a clean stop.
func runTSTarget(ctx context.Context, e *env, t tsTarget, c seriesHTTPConfig, ds tsDataset) (tsRun, error) {
	r := tsRun{name: t.Name()}
	hc := newTSClient(c.senders)
	defer hc.CloseIdleConnections()
	e.logf("series-http: starting %s", t.Name())
	dir, srv, err := startFresh(ctx, e, t, "series-http-data-", hc)
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)

	day := tsDay(c.readings)
	g := recentLines(ds, c.ids, c.readings, day[0])
	total := int64(c.ids) * int64(c.readings)
	e.logf("series-http: ingest into %s: %d series x %d readings (%s), %d per request, %d senders", t.Name(), c.ids, c.readings, ds.title, c.batch, c.senders)
	var cpu0 time.Duration
	if r.readings, r.ingest, cpu0, err = timedIngest(ctx, hc, t, srv, g, sendConfig{batch: c.batch, senders: c.senders, limit: total}); err != nil {
		return r, err
	}
	if r.ingestCPU, r.peakRSS, err = serverUse(srv, cpu0); err != nil {
		return r, err
	}
	e.logf("series-http: %s: %.0f readings/s, server CPU %.2f µs/reading", t.Name(), r.rate(), r.cpuPerReading(r.ingestCPU))

	mctx, cancel := context.WithTimeout(ctx, c.settleMax)
	t1 := time.Now()
	r.merge, err = t.Merge(mctx, hc, srv.Endpoint, c.settleMax)
	r.mergeTook = time.Since(t1)
	cancel()
	if err != nil {
		return r, fmt.Errorf("merge: %w", err)
	}
	if r.settle, r.quiet, err = settle(ctx, srv, 3*time.Second, c.settleMax); err != nil {
		return r, err
	}
	if err := e.shutdown(srv); err != nil {
		return r, err
	}
	r.lifeCPU = srv.ExitCPU()
	if r.dirBytes, r.dirParts, err = folderParts(dir, t.CacheDirs()); err != nil {
		return r, err
	}
	e.logf("series-http: %s: %.2f bytes/reading on disk once merged", t.Name(), r.bytesPerReading())

	e.logf("series-http: restarting %s for the reads", t.Name())
	if srv, err = t.Start(ctx, dir); err != nil {
		return r, err
	}
	e.track(srv)
	r.rangeWants = int(day[1]-day[0]) + 1
	if r.queries, err = timeQueries(ctx, t, hc, srv.Endpoint, g, day, r.rangeWants, c.warmup, c.queries); err != nil {
		return r, fmt.Errorf("reads: %w", err)
	}
	e.logf("series-http: %s: latest p50 %v, day p50 %v", t.Name(), pct(r.queries.latest, 0.5), pct(r.queries.rng, 0.5))
	return r, e.shutdown(srv)
}

// startFresh starts t on a new data folder under e's work folder, named
// by pattern as os.MkdirTemp names it, has e track the server, and
// prepares it through hc. On success the caller removes dir when done; on
// an error the folder is already removed, and a server that started stays
// tracked by e, which stops it.
func startFresh(ctx context.Context, e *env, t tsTarget, pattern string, hc *http.Client) (dir string, srv *peers.Server, err error) {
	dir, err = os.MkdirTemp(e.work, pattern)
	if err != nil {
		return "", nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if srv, err = t.Start(ctx, dir); err != nil {
		return "", nil, err
	}
	e.track(srv)
	if err = t.Prepare(ctx, hc, srv.Endpoint); err != nil {
		return "", nil, err
	}
	return dir, srv, nil
}

// runTSSoak runs a soak of t on a fresh data folder.
func runTSSoak(ctx context.Context, e *env, t tsTarget, sc soakConfig) (soakRun, error) {
	hc := newTSClient(sc.senders + 1)
	defer hc.CloseIdleConnections()
	dir, srv, err := startFresh(ctx, e, t, "series-http-soak-", hc)
	if err != nil {
		return soakRun{}, err
	}
	defer os.RemoveAll(dir)
	e.logf("series-http: soak of %s for %v: %d readings/s of %d series, %.0f queries/s", t.Name(), sc.duration, sc.rate, sc.ids, sc.qps)
	r, err := soak(ctx, t, srv, hc, sc)
	if err != nil {
		return r, err
	}
	first, last, ok := r.levelled()
	e.logf("series-http: soak of %s: RSS %s at the start, %s at the end; slope %.1f MiB/min in the first third, %.1f in the last (levelled off: %v)",
		t.Name(), fmtBytes(r.samples[0].rss), fmtBytes(r.samples[len(r.samples)-1].rss), first/(1<<20), last/(1<<20), ok)
	return r, e.shutdown(srv)
}

// shutdown stops s cleanly (see peers.Server.Shutdown) and forgets it.
func (e *env) shutdown(s *peers.Server) error {
	for i, t := range e.servers {
		if t == s {
			e.servers = append(e.servers[:i], e.servers[i+1:]...)
			break
		}
	}
	return s.Shutdown(2 * time.Minute)
}

// folderParts returns the size of the regular files under dir but for
// its top-level folders named in caches, and the sizes of its top-level
// entries, largest first (caches marked).
func folderParts(dir string, caches []string) (int64, []string, error) {
	var total int64
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, nil, err
	}
	type part struct {
		name string
		size int64
	}
	var ps []part
	for _, de := range ents {
		size, _, err := dirSize(filepath.Join(dir, de.Name()), "")
		if err != nil {
			return 0, nil, err
		}
		name := de.Name()
		if slices.Contains(caches, name) {
			name += "/ (cache, not counted)"
		} else {
			total += size
			if de.IsDir() {
				name += "/"
			}
		}
		ps = append(ps, part{name, size})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].size > ps[j].size })
	var out []string
	for _, p := range ps {
		if p.size > 0 {
			out = append(out, fmt.Sprintf("`%s` %s", p.name, fmtBytes(p.size)))
		}
	}
	return total, out, nil
}

// vmVersion returns what the VictoriaMetrics binary says its version is,
// or "" if it cannot tell.
func vmVersion(bin string) string {
	out, err := exec.Command(bin, "-version").Output()
	if err != nil {
		return ""
	}
	v := strings.TrimSpace(string(out))
	if i := strings.LastIndex(v, "-v"); i >= 0 {
		v = v[i+1:]
	}
	return v
}

func seriesHTTPShape(c seriesHTTPConfig) string {
	return fmt.Sprintf("%d series x %d readings of 3 fields, line protocol, %d lines per request, %d senders", c.ids, c.readings, c.batch, c.senders)
}

// seriesHTTPFigures compares ours with peer (VictoriaMetrics) on ds, the
// k-th dataset of the run: the first's figures are named as they were
// before there were others, the others' say their dataset.
func seriesHTTPFigures(c seriesHTTPConfig, ds tsDataset, k int, ours, peer tsRun) []Figure {
	const pn = "VictoriaMetrics"
	named := func(name string) string {
		if k == 0 {
			return name
		}
		return strings.Replace(name, "series HTTP", "series HTTP ("+ds.title+" data)", 1)
	}
	lower := func(name string, o, p float64, unit string, digits int, target string) Figure {
		return Figure{Name: named(name), Ours: round(o, digits), Peer: ptr(round(p, digits)), Unit: unit,
			Ratio: ptr(round(p/o, 2)), peerName: pn, target: target}
	}
	shape := seriesHTTPShape(c)
	figs := []Figure{
		{Name: named("series HTTP ingest, " + shape + ": timetable serve vs VictoriaMetrics"), Ours: round(ours.rate(), 0),
			Peer: ptr(round(peer.rate(), 0)), Unit: "readings/s", Ratio: ptr(round(ours.rate()/peer.rate(), 2)), peerName: pn, target: ">= 1"},
		lower("series HTTP ingest, server CPU per reading during the ingest", ours.cpuPerReading(ours.ingestCPU), peer.cpuPerReading(peer.ingestCPU), "µs/reading", 3, ">= 1"),
		lower("series HTTP ingest, server CPU per reading over the server's whole run (start, ingest, merge, clean stop)", ours.cpuPerReading(ours.lifeCPU), peer.cpuPerReading(peer.lifeCPU), "µs/reading", 3, ""),
		lower("series HTTP ingest, peak RSS of the server", mb(ours.peakRSS), mb(peer.peakRSS), "MiB", 1, ""),
		lower("series HTTP bytes on disk per reading once merged (the data folder after a clean stop)", ours.bytesPerReading(), peer.bytesPerReading(), "B/reading", 2, ">= 1"),
	}
	for _, q := range []struct {
		what string
		o, p []time.Duration
	}{
		{"latest of one series", ours.queries.latest, peer.queries.latest},
		{fmt.Sprintf("range of one day of one series (%d readings)", ours.rangeWants), ours.queries.rng, peer.queries.rng},
	} {
		for _, p := range []float64{0.5, 0.99} {
			figs = append(figs, lower(fmt.Sprintf("series HTTP %s, one request at a time: p%g", q.what, p*100), ms(pct(q.o, p)), ms(pct(q.p, p)), "ms", 3, ""))
		}
	}
	if ours.soak != nil && peer.soak != nil {
		_, _, ok := ours.soak.levelled()
		o, p := ours.soak.samples[len(ours.soak.samples)-1].rss, peer.soak.samples[len(peer.soak.samples)-1].rss
		f := lower(fmt.Sprintf("series HTTP soak, RSS of the server at the end of %v of steady ingest and queries", c.soak.duration), mb(o), mb(p), "MiB", 1, "levels off")
		f.met = check(ok)
		figs = append(figs, f)
	}
	return figs
}

func seriesHTTPSection(c seriesHTTPConfig, ds tsDataset, runs []tsRun, vmVer string) string {
	var sb strings.Builder
	if vmVer == "" {
		vmVer = "the version pinned in bench/tools/victoriametrics/go.mod"
	}
	fmt.Fprintf(&sb, "timetable serve's series API (docs/http-api.md) and VictoriaMetrics single-node (%s, built from the Go module proxy with the local Go, run with its defaults), each alone on the machine, one after the other, each on a fresh data folder and listening on 127.0.0.1. The same client (Go's net/http, keep-alive, no compression) sends both the same bytes and the same queries.\n\n", vmVer)
	day := tsDay(c.readings)
	fmt.Fprintf(&sb, "Ingest: %d series x %d one-minute readings of 3 fields (%s), ending a minute before the run, as InfluxDB line protocol with timestamps in seconds (`POST /write?precision=s` on both), in time order (every series' reading of a minute, then the next minute), %d lines per request, %d requests in flight. A line is `%s,%s=100042 f1=21.53,f2=31.2,f3=41.07 1700000000`: timetable takes the `%s` tag as the series id of kind `%s` (defined first with `POST /api/v1/kinds`, fields f1, f2, f3, layout chunks); VictoriaMetrics makes three series of each, `%s_f1{%s=\"100042\"}` and so on. The rate is the readings over the time from the first request to the last answer. Server CPU is the user and system time of the server's process (from /proc), during the ingest, and over its whole run until its clean stop after the merge (background merges and the flush at exit included); the client's is not counted. timetable acknowledges a write once it is in its series log (kill -9 safe); VictoriaMetrics once it is in memory (its rows reach disk within `-inmemoryDataFlushInterval`, 5 s by default: a kill -9 loses the last seconds).\n\n",
		c.ids, c.readings, ds.about, c.batch, c.senders, tsKind, tsSeriesTag, tsSeriesTag, tsKind, tsKind, tsSeriesTag)
	fmt.Fprintf(&sb, "On disk: after the ingest each server is asked to merge (the Merge column), then left until its process uses less than 2%% of a CPU over 3 s (at most %v), stopped with SIGTERM (it must exit by itself, with status 0), and its data folder is measured (regular files' sizes, but for the caches VictoriaMetrics saves at exit into `cache/`, which it rebuilds by itself), over the readings.\n\n", c.settleMax)
	fmt.Fprintf(&sb, "Reads: each server is then restarted on its folder (so neither answers from caches its ingest filled; the operating system's page cache is warm for both), %d unmeasured calls of each read on random series, then %d calls of each, one at a time, on the series in one shuffled order, every answer checked against the values sent. Latest: timetable's `GET /api/v1/kinds/%s/series/{id}/latest`; VictoriaMetrics' `GET /api/v1/query` of `last_over_time({__name__=~\"%s_f1|%s_f2|%s_f3\",%s=\"{id}\"}[1d]) keep_metric_names` at now, with `nocache=1` (it keeps no latest value apart; every measured call is of another series anyway). Range: steps %d to %d of every series (one day, %d readings); timetable's `GET .../series/{id}/readings?from=&to=&order=asc`, following cursors; VictoriaMetrics' `GET /api/v1/export` of the three metrics with `start` and `end`.\n\n",
		c.warmup, c.queries, tsKind, tsKind, tsKind, tsKind, tsSeriesTag, day[0], day[1], day[1]-day[0]+1)

	sb.WriteString("| server | readings/s | server CPU/reading, ingest | server CPU/reading, whole run | peak RSS, ingest | bytes/reading on disk | folder | merge | merge done, then quiet, after |\n|---|---:|---:|---:|---:|---:|---|---|---:|\n")
	for _, r := range runs {
		quiet := r.mergeTook.Round(time.Second).String() + ", " + r.settle.Round(time.Second).String()
		if !r.quiet {
			quiet += " (never quiet)"
		}
		fmt.Fprintf(&sb, "| %s | %.0f | %.2f µs | %.2f µs | %s | %.2f | %s | %s | %s |\n", r.name, r.rate(), r.cpuPerReading(r.ingestCPU), r.cpuPerReading(r.lifeCPU),
			fmtBytes(r.peakRSS), r.bytesPerReading(), strings.Join(r.dirParts, ", "), r.merge, quiet)
	}
	sb.WriteString("\n| server | read | p50 | p90 | p99 | max |\n|---|---|---:|---:|---:|---:|\n")
	for _, r := range runs {
		for _, q := range []struct {
			name string
			d    []time.Duration
		}{{"latest", r.queries.latest}, {fmt.Sprintf("one day (%d readings)", r.rangeWants), r.queries.rng}} {
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s |\n", r.name, q.name, fmtDur(pct(q.d, 0.5)), fmtDur(pct(q.d, 0.9)), fmtDur(pct(q.d, 0.99)), fmtDur(pct(q.d, 1)))
		}
	}
	if !slices.ContainsFunc(runs, func(r tsRun) bool { return r.soak != nil }) {
		return sb.String()
	}
	s := c.soak
	fmt.Fprintf(&sb, "\nSoak: a fresh server and folder, then for %v: %d readings/s (%d series, one-second readings ending about now, %d per request, %d senders) and %.0f queries/s one at a time (latest of a random series, then its last hour of readings, in turn); the server's RSS (VmRSS) every %v. Growth levels off when the last third of the soak grows at most a quarter as fast as the first third (least-squares slopes of the samples under load, the idle one at the start left out), or by less than 5%% of the final RSS.\n\n",
		s.duration, s.rate, s.ids, s.batch, s.senders, s.qps, s.sample)
	sb.WriteString("| server | readings/s sent | server CPU/reading | queries | latest p50 / p99 | last hour p50 / p99 | RSS at start | RSS at end | max | slope, first third | slope, last third | levels off |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range runs {
		k := r.soak
		if k == nil {
			continue
		}
		first, last, ok := k.levelled()
		var peak int64
		for _, x := range k.samples {
			peak = max(peak, x.rss)
		}
		fmt.Fprintf(&sb, "| %s | %.0f | %.2f µs | %d (%d latest without a reading yet) | %s / %s | %s / %s | %s | %s | %s | %.1f MiB/min | %.1f MiB/min | %v |\n", r.name,
			float64(k.readings)/k.duration.Seconds(), us(k.serverCPU)/float64(max(k.readings, 1)), k.queries, k.empty,
			fmtDur(pct(k.latest, 0.5)), fmtDur(pct(k.latest, 0.99)), fmtDur(pct(k.rng, 0.5)), fmtDur(pct(k.rng, 0.99)),
			fmtBytes(k.samples[0].rss), fmtBytes(k.samples[len(k.samples)-1].rss), fmtBytes(peak), first/(1<<20), last/(1<<20), yesNo(ok))
	}
	sb.WriteString("\nRSS over the soak (MiB, one column per sample):\n\n")
	for _, r := range runs {
		if r.soak == nil {
			continue
		}
		var xs []string
		for _, x := range r.soak.samples {
			xs = append(xs, fmt.Sprintf("%.0f", mb(x.rss)))
		}
		fmt.Fprintf(&sb, "- %s: %s\n", r.name, strings.Join(xs, " "))
	}
	return sb.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}
