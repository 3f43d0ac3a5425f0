package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/timetable-db/timetable/bench/internal/peers"
)

// The prometheus part: what a Prometheus server and a Grafana dashboard
// ask of a metrics store. The same remote-write 1.0 requests (built once,
// before any server starts: the same bytes for every server) to
// timetable serve, VictoriaMetrics and Prometheus itself (its TSDB
// behind its remote-write receiver), each alone on the machine on a fresh
// data folder: the ingest rate and the server's CPU per sample, the bytes
// on disk per sample after the ingest and once the server has merged and
// gone quiet, then the same query_range requests of a dashboard, timed
// one at a time, their answers checked for their series and compared
// across servers.

// promConfig sizes the prometheus part.
type promConfig struct {
	load      promLoad
	batch     int // samples per request
	senders   int // shards sending at once
	queries   int // measured requests of each query
	warmup    int // unmeasured requests of each query before
	settleMax time.Duration
	targets   string // comma-separated: timetable, victoriametrics, prometheus
	bin       string // the Prometheus binary; "" looks for prometheus on PATH
}

// check returns an error naming the first flag of c out of its range.
func (c promConfig) check() error {
	l := c.load
	switch {
	case l.counters < 1 || l.gauges < 1 || l.zones < 1:
		return fmt.Errorf("-prometheus-counters, -prometheus-gauges and -prometheus-zones: want at least 1")
	case l.counterStep <= 0 || l.gaugeStep <= 0 || l.counterSpan < l.counterStep || l.gaugeSpan < l.gaugeStep:
		return fmt.Errorf("-prometheus-*-step: want a step above 0 and no longer than its span")
	case l.counterSpan >= 48*time.Hour || l.gaugeSpan >= 48*time.Hour:
		return fmt.Errorf("-prometheus-*-span: want under 48h (Prometheus' out-of-order window)")
	case c.batch < 1 || c.senders < 1 || c.queries < 1 || c.warmup < 0:
		return fmt.Errorf("-prometheus-batch, -prometheus-senders and -prometheus-queries: want at least 1, -prometheus-warmup at least 0")
	}
	return nil
}

// promTarget is one server of the prometheus part. timetableServe and
// victoriaMetrics (of the series-http part) are two; promServer the
// third.
type promTarget interface {
	// Name is the server's name in reports.
	Name() string
	// Start starts the server with its data in dataDir and waits until it
	// is ready.
	Start(ctx context.Context, dataDir string) (*peers.Server, error)
	// Flush makes every sample acknowledged searchable and written, and
	// says what it asked.
	Flush(ctx context.Context, c *http.Client, endpoint string) (string, error)
	// Merge asks the server to merge what it holds into its final form
	// on disk, waits for that, and says what it asked.
	Merge(ctx context.Context, c *http.Client, endpoint string, timeout time.Duration) (string, error)
	// CacheDirs are the top-level folders of the data folder left out of
	// the bytes on disk (caches the server rebuilds by itself).
	CacheDirs() []string
}

// promServer is Prometheus with remote write on and an out-of-order
// window (peers.StartPrometheus).
type promServer struct{ bin, logDir string }

func (p promServer) Name() string { return "Prometheus" }

func (p promServer) Start(ctx context.Context, dataDir string) (*peers.Server, error) {
	return peers.StartPrometheus(ctx, p.bin, dataDir, p.logDir)
}

// Flush asks nothing: a sample is searchable once Prometheus acknowledged
// it, and in its WAL.
func (p promServer) Flush(context.Context, *http.Client, string) (string, error) {
	return "nothing (searchable once acknowledged, in its WAL)", nil
}

// Merge asks nothing: Prometheus compacts its head into blocks by itself
// once it spans more than 3 h, and then truncates its WAL; the caller
// waits until it is quiet.
func (p promServer) Merge(context.Context, *http.Client, string, time.Duration) (string, error) {
	return "nothing (it compacts its head into 2 h blocks by itself)", nil
}

func (p promServer) CacheDirs() []string { return nil }

// promTargets returns the servers of -prometheus-targets, in its order.
func promTargets(ctx context.Context, e *env) ([]promTarget, error) {
	c := e.cfg.prom
	var ts []promTarget
	for _, name := range strings.Split(c.targets, ",") {
		if strings.TrimSpace(name) != "prometheus" {
			t, err := seriesHTTPTarget(ctx, e, name)
			if err != nil {
				return nil, fmt.Errorf("-prometheus-targets: %w", err)
			}
			if t != nil {
				ts = append(ts, t)
			}
			continue
		}
		bin := c.bin
		if bin == "" {
			var err error
			if bin, err = exec.LookPath("prometheus"); err != nil {
				return nil, fmt.Errorf("no prometheus on PATH (Debian's package prometheus; or -prometheus-targets without it): %w", err)
			}
		}
		ts = append(ts, promServer{bin: bin, logDir: e.work})
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("-prometheus-targets: no target")
	}
	return ts, nil
}

// promRun is what one server did in the prometheus part.
type promRun struct {
	name        string
	samples     int64
	ingest      time.Duration // first request to last answer
	flush       time.Duration
	ingestCPU   time.Duration // the server's, during the ingest and the flush
	peakRSS     int64
	ingestBytes int64 // the data folder after the ingest and the flush
	ingestParts []string
	merge       string
	settle      time.Duration // from the merge request to quiet
	quiet       bool
	mergedBytes int64 // the data folder once merged and quiet
	mergedParts []string
	lat         [][]time.Duration // per query, sorted
	answers     []promMatrix      // per query, the last answer
}

func (r promRun) rate() float64 { return float64(r.samples) / r.ingest.Seconds() }

func (r promRun) cpuPerSample() float64 { return us(r.ingestCPU) / float64(max(r.samples, 1)) }

func perSample(bytes, samples int64) float64 { return float64(bytes) / float64(max(samples, 1)) }

// promQueries returns the dashboard's queries over the load ending at end
// (Unix seconds): rate of every counter series over a day at a one-minute
// step, and the gauge's sum by zone over an hour at its sample step.
func promQueries(l promLoad, end int64) []promQuery {
	return []promQuery{
		{name: fmt.Sprintf("rate of %d series over %v, step 1m", l.counters, l.counterSpan), expr: "rate(" + promCounter + "[5m])",
			start: end - int64(l.counterSpan.Seconds()), end: end, step: time.Minute, series: l.counters},
		{name: fmt.Sprintf("sum by (zone) of %d series over %v, step %v", l.gauges, l.gaugeSpan, l.gaugeStep), expr: "sum by (zone) (" + promGauge + ")",
			start: end - int64(l.gaugeSpan.Seconds()), end: end, step: l.gaugeStep, series: min(l.zones, (l.gauges+9)/10)},
	}
}

// runProm builds the requests, then measures each server of
// -prometheus-targets in turn.
func runProm(ctx context.Context, e *env) ([]Figure, section, error) {
	c := e.cfg.prom
	targets, err := promTargets(ctx, e)
	if err != nil {
		return nil, section{}, err
	}
	// The last sample is two minutes before now, on a whole minute:
	// VictoriaMetrics leaves out of queries the last 30 s
	// (-search.latencyOffset), and the steps of the queries fall on
	// samples.
	end := time.Now().Truncate(time.Minute).Add(-2 * time.Minute)
	e.logf("prometheus: building the requests: %d samples, %d per request, %d shards", c.load.samples(), c.batch, c.senders)
	shards, err := buildShards(promSeries(c.load, end.UnixMilli()), c.senders, c.batch)
	if err != nil {
		return nil, section{}, err
	}
	qs := promQueries(c.load, end.Unix())
	var runs []promRun
	for _, t := range targets {
		r, err := runPromTarget(ctx, e, t, c, shards, qs)
		if err != nil {
			return nil, section{}, fmt.Errorf("%s: %w", t.Name(), err)
		}
		runs = append(runs, r)
	}
	var figs []Figure
	if len(runs) > 1 && runs[0].name == (timetableServe{}).Name() {
		for _, p := range runs[1:] {
			figs = append(figs, promFigures(c, qs, runs[0], p)...)
		}
	}
	return figs, section{title: "Prometheus remote write and query_range: timetable serve vs VictoriaMetrics and Prometheus",
		body: promSection(c, qs, runs, vmVersion(e.cfg.seriesHTTP.vmBin), promVersion(targets))}, nil
}

// runPromTarget runs one server on a fresh data folder: the ingest, the
// flush, the merge and the queries.
func runPromTarget(ctx context.Context, e *env, t promTarget, c promConfig, shards [][][]byte, qs []promQuery) (promRun, error) {
	r := promRun{name: t.Name(), samples: c.load.samples()}
	hc := newTSClient(c.senders)
	hc.Timeout = 10 * time.Minute
	defer hc.CloseIdleConnections()
	dir, err := os.MkdirTemp(e.work, "prometheus-data-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	e.logf("prometheus: starting %s", t.Name())
	srv, err := t.Start(ctx, dir)
	if err != nil {
		return r, err
	}
	e.track(srv)
	cpu0, err := srv.CPU()
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	if err := sendShards(ctx, hc, srv.Endpoint+"/api/v1/write", shards); err != nil {
		return r, fmt.Errorf("ingest: %w", err)
	}
	r.ingest = time.Since(t0)
	t1 := time.Now()
	if _, err = t.Flush(ctx, hc, srv.Endpoint); err != nil {
		return r, fmt.Errorf("flush: %w", err)
	}
	r.flush = time.Since(t1)
	if r.ingestCPU, r.peakRSS, err = serverUse(srv, cpu0); err != nil {
		return r, err
	}
	e.logf("prometheus: %s: %.0f samples/s, server CPU %.2f µs/sample", t.Name(), r.rate(), r.cpuPerSample())
	// VictoriaMetrics writes its in-memory parts to disk within
	// -inmemoryDataFlushInterval (5 s): wait for that, then for quiet.
	if err := sleepCtx(ctx, 6*time.Second); err != nil {
		return r, err
	}
	if _, _, err = settle(ctx, srv, 3*time.Second, c.settleMax); err != nil {
		return r, err
	}
	if r.ingestBytes, r.ingestParts, err = folderParts(dir, t.CacheDirs()); err != nil {
		return r, err
	}
	e.logf("prometheus: %s: %.2f bytes/sample after the ingest", t.Name(), perSample(r.ingestBytes, r.samples))

	mctx, cancel := context.WithTimeout(ctx, c.settleMax)
	t2 := time.Now()
	r.merge, err = t.Merge(mctx, hc, srv.Endpoint, c.settleMax)
	cancel()
	if err != nil {
		return r, fmt.Errorf("merge: %w", err)
	}
	if _, r.quiet, err = settle(ctx, srv, 3*time.Second, c.settleMax); err != nil {
		return r, err
	}
	r.settle = time.Since(t2)
	if err := e.shutdown(srv); err != nil {
		return r, err
	}
	if r.mergedBytes, r.mergedParts, err = folderParts(dir, t.CacheDirs()); err != nil {
		return r, err
	}
	e.logf("prometheus: %s: %.2f bytes/sample once merged, quiet and stopped; restarting it for the queries", t.Name(), perSample(r.mergedBytes, r.samples))
	if srv, err = t.Start(ctx, dir); err != nil {
		return r, err
	}
	e.track(srv)

	for _, q := range qs {
		lat, m, err := timeQuery(ctx, hc, srv.Endpoint, q, c.warmup, c.queries)
		if err != nil {
			return r, fmt.Errorf("%s: %w", q.expr, err)
		}
		r.lat = append(r.lat, lat)
		r.answers = append(r.answers, m)
		e.logf("prometheus: %s: %s: p50 %v (%d series, %d points)", t.Name(), q.name, pct(lat, 0.5), len(m), m.points())
	}
	return r, e.shutdown(srv)
}

// timeQuery sends q warmup times, then n times timed, one at a time, and
// returns the times sorted and the last answer, which must have
// q.series series.
func timeQuery(ctx context.Context, c *http.Client, endpoint string, q promQuery, warmup, n int) ([]time.Duration, promMatrix, error) {
	u := endpoint + "/api/v1/query_range?" + q.values().Encode()
	var lat []time.Duration
	var m promMatrix
	for i := range warmup + max(n, 1) {
		t0 := time.Now()
		body, err := httpGet(ctx, c, u)
		d := time.Since(t0)
		if err != nil {
			return nil, nil, err
		}
		if i >= warmup {
			lat = append(lat, d)
		}
		if i == 0 || i == warmup+max(n, 1)-1 {
			if m, err = parseMatrix(body); err != nil {
				return nil, nil, err
			}
			if len(m) != q.series {
				return nil, nil, fmt.Errorf("%d series in the answer, want %d", len(m), q.series)
			}
		}
	}
	slices.Sort(lat)
	return lat, m, nil
}

// largest joins the first n of parts (folderParts' entries, largest
// first) and says how many more there are.
func largest(parts []string, n int) string {
	if len(parts) <= n {
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(parts[:n], ", "), len(parts)-n)
}

// promVersion returns what the Prometheus binary of targets says its
// version is, or "".
func promVersion(targets []promTarget) string {
	for _, t := range targets {
		if p, ok := t.(promServer); ok {
			out, err := exec.Command(p.bin, "--version").Output()
			if err != nil {
				return ""
			}
			first, _, _ := strings.Cut(string(out), "\n")
			return strings.TrimSpace(first)
		}
	}
	return ""
}

// promFigures compares ours with peer.
func promFigures(c promConfig, qs []promQuery, ours, peer promRun) []Figure {
	target := ""
	if peer.name == (victoriaMetrics{}).Name() {
		target = ">= 1"
	}
	lower := func(name string, o, p float64, unit string, digits int, target string) Figure {
		return Figure{Name: name, Ours: round(o, digits), Peer: ptr(round(p, digits)), Unit: unit,
			Ratio: ptr(round(p/o, 2)), peerName: peer.name, target: target}
	}
	shape := fmt.Sprintf("%d samples, %d per request, %d senders", ours.samples, c.batch, c.senders)
	figs := []Figure{
		{Name: "Prometheus remote write 1.0 ingest, " + shape, Ours: round(ours.rate(), 0), Peer: ptr(round(peer.rate(), 0)),
			Unit: "samples/s", Ratio: ptr(round(ours.rate()/peer.rate(), 2)), peerName: peer.name, target: target},
		lower("remote write: server CPU per sample during the ingest and the flush", ours.cpuPerSample(), peer.cpuPerSample(), "µs/sample", 3, target),
		lower("remote write: bytes on disk per sample after the ingest (flushed, quiet)", perSample(ours.ingestBytes, ours.samples), perSample(peer.ingestBytes, peer.samples), "B/sample", 2, ""),
		lower("remote write: bytes on disk per sample once merged and stopped", perSample(ours.mergedBytes, ours.samples), perSample(peer.mergedBytes, peer.samples), "B/sample", 2, ""),
	}
	for i, q := range qs {
		figs = append(figs, lower("query_range, "+q.name+": p50", ms(pct(ours.lat[i], 0.5)), ms(pct(peer.lat[i], 0.5)), "ms", 1, target))
	}
	return figs
}

func promSection(c promConfig, qs []promQuery, runs []promRun, vmVer, promVer string) string {
	var sb strings.Builder
	if vmVer == "" {
		vmVer = "the version pinned in bench/tools/victoriametrics/go.mod"
	}
	if promVer == "" {
		promVer = "not run"
	}
	l := c.load
	fmt.Fprintf(&sb, "What a Prometheus server and a Grafana dashboard ask of a metrics store, to timetable serve (`POST /api/v1/write`, kinds defined by the writes, its defaults), VictoriaMetrics single-node (%s, its defaults) and Prometheus (%s, `--web.enable-remote-write-receiver`, an out-of-order window of 2 d, no scrapes), each alone on the machine, one after the other, on a fresh data folder, listening on 127.0.0.1. Ratios are what matter: same machine, same run, same requests.\n\n", vmVer, promVer)
	fmt.Fprintf(&sb, "Ingest: %d samples, built once before any server starts, the same bytes sent to each: `%s{instance, job}`, %d counters, one sample every %v over %v; `%s{cpu, instance, job, zone}`, %d gauges (10 per instance, %d zones), one sample every %v over the last %v; the last sample two minutes before the run. Remote write 1.0 as Prometheus' queue manager sends it: snappy-compressed `prometheus.WriteRequest`, one TimeSeries with its labels per sample, %d samples per request, the series split among %d shards (senders), each sending its samples in time order, one request at a time. The rate is the samples over the time from the first request to the last answer. Server CPU is that of the server's process (from /proc) during the ingest and the flush (timetable: `POST /write?sync=true` with no lines, which returns once the table has every reading; VictoriaMetrics: `/internal/force_flush`, which makes its in-memory rows searchable; Prometheus: nothing).\n\n",
		l.samples(), promCounter, l.counters, l.counterStep, l.counterSpan, promGauge, l.gauges, l.zones, l.gaugeStep, l.gaugeSpan, c.batch, c.senders)
	fmt.Fprintf(&sb, "On disk: the data folder (regular files, but for VictoriaMetrics' `cache/`; the largest entries listed), over the samples: after the ingest, 6 s after the flush (VictoriaMetrics writes its in-memory parts to disk every 5 s) and once the server then used less than 2%% of a CPU over 3 s (at most %v), while it runs; and merged, once the server was asked to merge (the Merge column), went quiet again and was stopped with SIGTERM (it must exit by itself, with status 0).\n\n", c.settleMax)
	fmt.Fprintf(&sb, "Queries: each server restarted on its folder, then `GET /api/v1/query_range` with `nocache=1` (VictoriaMetrics' result cache off; the others ignore it), %d unmeasured, then %d timed, one at a time; the answer must have the series listed:\n\n", c.warmup, c.queries)
	for _, q := range qs {
		fmt.Fprintf(&sb, "- %s: `%s`, step %v, %d series\n", q.name, q.expr, q.step, q.series)
	}
	sb.WriteString("\n| server | samples/s | flush | server CPU/sample | peak RSS | bytes/sample after ingest | folder | merge | bytes/sample merged | folder | merged, quiet after |\n|---|---:|---:|---:|---:|---:|---|---|---:|---|---:|\n")
	for _, r := range runs {
		quiet := r.settle.Round(time.Second).String()
		if !r.quiet {
			quiet += " (never quiet)"
		}
		fmt.Fprintf(&sb, "| %s | %.0f | %s | %.2f µs | %s | %.2f | %s | %s | %.2f | %s | %s |\n", r.name, r.rate(), r.flush.Round(time.Millisecond), r.cpuPerSample(), fmtBytes(r.peakRSS),
			perSample(r.ingestBytes, r.samples), largest(r.ingestParts, 4), r.merge, perSample(r.mergedBytes, r.samples), largest(r.mergedParts, 4), quiet)
	}
	sb.WriteString("\n| server | query | p50 | p90 | max | series | points | compared with the first server's answer |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	for _, r := range runs {
		for i, q := range qs {
			cmp := "-"
			if r.name != runs[0].name {
				d := diffMatrix(runs[0].answers[i], r.answers[i])
				cmp = fmt.Sprintf("%d points in both, largest relative difference %.2g; %d points only in the first, %d only here", d.common, d.maxRel, d.onlyA, d.onlyB)
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %d | %d | %s |\n", r.name, q.name, fmtDur(pct(r.lat[i], 0.5)), fmtDur(pct(r.lat[i], 0.9)), fmtDur(pct(r.lat[i], 1)),
				len(r.answers[i]), r.answers[i].points(), cmp)
		}
	}
	sb.WriteString("\nThe answers differ where the engines do: VictoriaMetrics' `rate` does not extrapolate to the window's edges as Prometheus' does (and looks back to the sample before the window); Prometheus 2's range selectors hold a sample at the window's start, Prometheus 3's (whose engine timetable runs) do not, so with one sample a minute a 5-minute rate is over 6 samples in one and 5 in the other. The last column says how far apart the answers are.\n")
	return sb.String()
}
