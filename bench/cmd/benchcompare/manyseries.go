package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// The many-series part: a fleet of devices, each sending one reading a
// minute, many more series than readings per series. The same line
// protocol as series-http (tsKind, tsFields, the series tag), to
// timetable serve and VictoriaMetrics in turn, each alone on the machine
// on a fresh data folder: the ingest rate, the time of the flush that
// makes every reading written (timetable: a write with ?sync=true, which
// returns once the table has every reading; VictoriaMetrics:
// /internal/force_flush, which makes its in-memory rows searchable
// parts), the server's peak RSS, and the time of its clean stop.

// manySeriesConfig sizes the many-series part.
type manySeriesConfig struct {
	ids     int // series (devices)
	minutes int // readings per series, one a minute
	batch   int // lines per request
	senders int // requests in flight
}

// manyRun is what one server did in the many-series part.
type manyRun struct {
	name      string
	readings  int64
	ingest    time.Duration // first request to last answer
	flush     time.Duration // the flush request after the ingest
	flushHow  string
	ingestCPU time.Duration // the server's, during the ingest and the flush
	peakRSS   int64         // VmHWM after the flush
	stop      time.Duration // from SIGTERM to the exit
}

func (r manyRun) rate() float64 { return float64(r.readings) / r.ingest.Seconds() }

// writtenRate is the readings over the time until all are written (the
// ingest and the flush).
func (r manyRun) writtenRate() float64 { return float64(r.readings) / (r.ingest + r.flush).Seconds() }

// runManySeries measures each server of -series-http-targets in turn.
func runManySeries(ctx context.Context, e *env) ([]Figure, section, error) {
	c := e.cfg.manySeries
	runs, err := eachTarget(ctx, e, func(t tsTarget) (manyRun, error) { return runManyTarget(ctx, e, t, c) })
	if err != nil {
		return nil, section{}, err
	}
	var figs []Figure
	if len(runs) == 2 && runs[0].name == "timetable serve" {
		figs = manySeriesFigures(c, runs[0], runs[1])
	}
	return figs, section{title: "Many devices: 1 reading a minute from each of many series, timetable serve vs VictoriaMetrics", body: manySeriesSection(c, runs, vmVersion(e.cfg.seriesHTTP.vmBin))}, nil
}

// runManyTarget runs the ingest, the flush and a clean stop of one server
// on a fresh data folder, and checks the latest reading of a few series.
func runManyTarget(ctx context.Context, e *env, t tsTarget, c manySeriesConfig) (manyRun, error) {
	r := manyRun{name: t.Name()}
	hc := newTSClient(c.senders)
	// A flush of many series may take long: the client waits.
	hc.Timeout = 30 * time.Minute
	defer hc.CloseIdleConnections()
	e.logf("many-series: starting %s", t.Name())
	dir, srv, err := startFresh(ctx, e, t, "many-series-data-", hc)
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	g := recentLines(tsDatasets[0], c.ids, c.minutes, -1)
	total := int64(c.ids) * int64(c.minutes)
	e.logf("many-series: ingest into %s: %d series x %d one-minute readings, %d per request, %d senders", t.Name(), c.ids, c.minutes, c.batch, c.senders)
	var cpu0 time.Duration
	if r.readings, r.ingest, cpu0, err = timedIngest(ctx, hc, t, srv, g, sendConfig{batch: c.batch, senders: c.senders, limit: total}); err != nil {
		return r, err
	}
	e.logf("many-series: %s: %.0f readings/s; flushing", t.Name(), r.rate())
	t1 := time.Now()
	if r.flushHow, err = t.Flush(ctx, hc, srv.Endpoint); err != nil {
		return r, fmt.Errorf("flush: %w", err)
	}
	r.flush = time.Since(t1)
	if r.ingestCPU, r.peakRSS, err = serverUse(srv, cpu0); err != nil {
		return r, err
	}
	e.logf("many-series: %s: flush %v, peak RSS %s", t.Name(), r.flush.Round(time.Millisecond), fmtBytes(r.peakRSS))
	for _, i := range []int{0, c.ids / 2, c.ids - 1} {
		vals, err := t.Latest(ctx, hc, srv.Endpoint, seriesID(i))
		if err != nil {
			return r, fmt.Errorf("latest of %s: %w", seriesID(i), err)
		}
		if !sameValues(vals, g.last[i]) {
			return r, fmt.Errorf("latest of %s: values %v, want %v", seriesID(i), vals, g.last[i])
		}
	}
	t2 := time.Now()
	if err := e.shutdown(srv); err != nil {
		return r, err
	}
	r.stop = time.Since(t2)
	return r, nil
}

func manySeriesShape(c manySeriesConfig) string {
	return fmt.Sprintf("%d series x %d one-minute readings of 3 fields, line protocol, %d lines per request, %d senders", c.ids, c.minutes, c.batch, c.senders)
}

// manySeriesFigures compares ours with peer (VictoriaMetrics).
func manySeriesFigures(c manySeriesConfig, ours, peer manyRun) []Figure {
	const pn = "VictoriaMetrics"
	lower := func(name string, o, p float64, unit string, digits int) Figure {
		return Figure{Name: name, Ours: round(o, digits), Peer: ptr(round(p, digits)), Unit: unit, Ratio: ptr(round(p/o, 2)), peerName: pn}
	}
	higher := func(name string, o, p float64, unit string) Figure {
		return Figure{Name: name, Ours: round(o, 0), Peer: ptr(round(p, 0)), Unit: unit, Ratio: ptr(round(o/p, 2)), peerName: pn}
	}
	return []Figure{
		higher("many devices, "+manySeriesShape(c)+": ingest", ours.rate(), peer.rate(), "readings/s"),
		lower("many devices: flush after the ingest (timetable: write ?sync=true; VictoriaMetrics: /internal/force_flush)", ours.flush.Seconds(), peer.flush.Seconds(), "s", 2),
		higher("many devices: readings over the time until all are written (ingest and flush)", ours.writtenRate(), peer.writtenRate(), "readings/s"),
		lower("many devices: peak RSS of the server", mb(ours.peakRSS), mb(peer.peakRSS), "MiB", 1),
		lower("many devices: clean stop (SIGTERM to exit)", ours.stop.Seconds(), peer.stop.Seconds(), "s", 2),
	}
}

func manySeriesSection(c manySeriesConfig, runs []manyRun, vmVer string) string {
	var sb strings.Builder
	if vmVer == "" {
		vmVer = "the version pinned in bench/tools/victoriametrics/go.mod"
	}
	fmt.Fprintf(&sb, "A fleet of devices: %d series (one per device, the `%s` tag) of one reading a minute each, %d minutes of readings ending about now, sent in time order (every device's reading of a minute, then the next minute) as InfluxDB line protocol with timestamps in seconds, %d lines per request, %d requests in flight, to timetable serve (kind `%s`, layout chunks, its default flush settings) and to VictoriaMetrics single-node (%s, its defaults), each alone on the machine, on a fresh data folder, listening on 127.0.0.1. The ingest rate is the readings over the time from the first request to the last answer (timetable answers once a write is in its series log, and holds writes back while its buffer is full; VictoriaMetrics once the rows are in memory). Then one flush: timetable `POST /write?precision=s&sync=true` with no lines, which returns once the table has every reading (raw chunks, latest readings, rollup and compaction markers, the series directory); VictoriaMetrics `GET /internal/force_flush`, which makes its in-memory rows searchable parts. Peak RSS is the server's VmHWM after the flush; CPU is the server process's during the ingest and the flush. The latest reading of three series is checked on each. Then SIGTERM, timed until the process exits (status 0).\n\n",
		c.ids, tsSeriesTag, c.minutes, c.batch, c.senders, tsKind, vmVer)
	sb.WriteString("| server | readings | ingest | readings/s | flush | readings/s until written | server CPU/reading | peak RSS | RSS/series | clean stop |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(&sb, "| %s | %d | %s | %.0f | %s | %.0f | %.2f µs | %s | %.0f B | %s |\n", r.name, r.readings, r.ingest.Round(time.Millisecond), r.rate(),
			r.flush.Round(time.Millisecond), r.writtenRate(), us(r.ingestCPU)/float64(max(r.readings, 1)), fmtBytes(r.peakRSS),
			float64(r.peakRSS)/float64(max(c.ids, 1)), r.stop.Round(time.Millisecond))
	}
	return sb.String()
}

// Flush writes a write with ?sync=true and no lines: it returns once
// every reading written before it is in the table.
func (t timetableServe) Flush(ctx context.Context, c *http.Client, endpoint string) (string, error) {
	if err := postLines(ctx, c, t.WriteURL(endpoint)+"&sync=true", nil); err != nil {
		return "", err
	}
	return "POST /write?sync=true, no lines", nil
}

// Flush asks VictoriaMetrics to make its in-memory rows searchable parts.
func (v victoriaMetrics) Flush(ctx context.Context, c *http.Client, endpoint string) (string, error) {
	if _, err := httpGet(ctx, c, endpoint+"/internal/force_flush"); err != nil {
		return "", err
	}
	return "GET /internal/force_flush", nil
}
