package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/table"
)

// seriesConfig sizes the series part (the figures of the time-series
// store). The defaults are the full size; tests run a tiny one.
type seriesConfig struct {
	ids, readings, batch, workers int // the ingest run
	layoutIDs                     int // series of the per-layout ingest
	points                        int // readings of the 1 Hz day
	runs                          int // timed reads of the day
	latestIDs, latestCalls        int
	checkPoints                   int // readings of the DynamoDB Local sample
	rollups                       bool
	fsync                         bool // also ingest with fsynced acknowledgements
	cpuProfile                    string
}

// seriesFlushes are the flush periods of the 1 Hz runs, in readings
// (seconds): 1 minute, 5 minutes (the store's default FlushInterval) and
// 1 hour.
var seriesFlushes = []int{60, 300, 3600}

func check(ok bool) *bool { return &ok }

// runSeries measures the series store (issue 3's figures): ingest against
// Prometheus TSDB, bytes per reading and DynamoDB units of each layout,
// the latency of Latest and of reading a day, and a sample of the units
// checked against DynamoDB Local.
func runSeries(ctx context.Context, e *env) ([]Figure, section, error) {
	c := e.cfg.series
	var figs []Figure
	var sb strings.Builder

	// 1. Ingest, each system in a child process of its own.
	start := time.Now().UTC().Truncate(24 * time.Hour).Add(-7 * 24 * time.Hour)
	ingestCfg := ingestConfig{IDs: c.ids, Readings: c.readings, Batch: c.batch, Workers: c.workers, Start: start.UnixMilli(), Rollups: c.rollups}
	results := map[string]ingestResult{}
	// "timetable" acknowledges a write once its log record is written to
	// the operating system, as Prometheus' Commit does: both survive the
	// process being killed (the durability the series store promises by
	// default). "timetable-fsync" also fsyncs the log first.
	runs := []string{"timetable", "prometheus"}
	if c.fsync {
		runs = append(runs, "timetable-fsync")
	}
	// The same with each goroutine's series of a block in one call.
	runs = append(runs, "timetable-grouped", "prometheus-grouped")
	for _, name := range runs {
		dir, err := os.MkdirTemp(e.work, "ingest-"+name+"-")
		if err != nil {
			return nil, section{}, err
		}
		cfg := ingestCfg
		cfg.System, cfg.Dir = name, dir
		if sys, ok := strings.CutSuffix(name, "-grouped"); ok {
			cfg.System, cfg.Group = sys, true
		}
		if sys, ok := strings.CutSuffix(name, "-fsync"); ok {
			cfg.System = sys
		} else {
			cfg.NoSync = true
		}
		if c.cpuProfile != "" {
			cfg.CPUProfile = c.cpuProfile + "." + name
		}
		e.logf("series: ingest, %s, %d series x %d readings", name, c.ids, c.readings)
		res, err := runIngestChild(ctx, cfg, e.stderr)
		os.RemoveAll(dir)
		if err != nil {
			return nil, section{}, err
		}
		e.logf("series: ingest, %s: %.0f readings/s (%.1fs, acknowledged in %.1fs, %.1f CPU-s), peak RSS %s",
			name, res.rate(), res.Seconds, res.AckSeconds, res.CPUSeconds, fmtBytes(res.PeakRSS))
		results[name] = res
	}
	ours, prom := results["timetable"], results["prometheus"]
	shape := fmt.Sprintf("%d series x %d readings of %d fields", c.ids, c.readings, len(ingestFields))
	figs = append(figs,
		Figure{
			Name: "series ingest, in process, " + shape + ", one call per series and block (Kind.Write; one Appender and Commit), each acknowledged once logged to the operating system (kill -9 safe, as Prometheus' Commit): timetable series vs Prometheus TSDB",
			Ours: round(ours.rate(), 0), Peer: ptr(round(prom.rate(), 0)), Unit: "readings/s",
			Ratio: ptr(round(ours.rate()/prom.rate(), 2)), peerName: "Prometheus TSDB", target: ">= 1",
			met: check(ours.rate() >= prom.rate()),
		},
		Figure{
			Name: "series ingest, peak RSS of the ingest process",
			Ours: round(mb(ours.PeakRSS), 1), Peer: ptr(round(mb(prom.PeakRSS), 1)), Unit: "MiB",
			Ratio: ptr(round(float64(prom.PeakRSS)/float64(ours.PeakRSS), 2)), peerName: "Prometheus TSDB",
		},
		Figure{
			Name: "series ingest, bytes on disk per reading after compaction: chunks in the engine's sstables vs Prometheus blocks",
			Ours: round(float64(ours.DataBytes)/float64(ours.DataReadings), 2),
			Peer: ptr(round(float64(prom.DataBytes)/float64(prom.DataReadings), 2)), Unit: "B/reading",
			Ratio:    ptr(round(float64(prom.DataBytes)/float64(prom.DataReadings)/(float64(ours.DataBytes)/float64(ours.DataReadings)), 2)),
			peerName: "Prometheus TSDB", target: "<= 2", met: check(float64(ours.DataBytes)/float64(ours.DataReadings) <= 2),
		},
	)
	var fsynced *ingestResult
	if r, ok := results["timetable-fsync"]; ok {
		fsynced = &r
		figs = append(figs, Figure{
			Name: "series ingest, in process, " + shape + ", one call per series and block, each acknowledged once the log is fsynced (power-loss safe; Prometheus' Commit never fsyncs, so it runs as above): timetable series vs Prometheus TSDB",
			Ours: round(r.rate(), 0), Peer: ptr(round(prom.rate(), 0)), Unit: "readings/s",
			Ratio: ptr(round(r.rate()/prom.rate(), 2)), peerName: "Prometheus TSDB",
		})
	}
	gOurs, gProm := results["timetable-grouped"], results["prometheus-grouped"]
	figs = append(figs, Figure{
		Name: "series ingest, in process, " + shape + ", each goroutine's series of a block in one call (Kind.WriteMany; one Appender and Commit), kill -9 safe: timetable series vs Prometheus TSDB",
		Ours: round(gOurs.rate(), 0), Peer: ptr(round(gProm.rate(), 0)), Unit: "readings/s",
		Ratio: ptr(round(gOurs.rate()/gProm.rate(), 2)), peerName: "Prometheus TSDB",
	})
	writeIngestSection(&sb, c, ingestCfg, ours, prom, fsynced, gOurs, gProm)

	// 2. Each layout: the ingest shape on fewer series.
	layoutCfg := ingestCfg
	layoutCfg.IDs = c.layoutIDs
	var lis []layoutIngest
	for _, l := range allLayouts {
		e.logf("series: layout %s, %d series x %d readings", l, c.layoutIDs, c.readings)
		r, err := runLayoutIngest(ctx, e, l, layoutCfg)
		if err != nil {
			return nil, section{}, fmt.Errorf("layout %s: %w", l, err)
		}
		lis = append(lis, r)
	}
	ipr := lis[0]
	for _, r := range lis {
		f := Figure{
			Name: fmt.Sprintf("series bytes on disk per reading (1-minute readings of 3 fields), %s", r.layout),
			Ours: round(r.sstPerReading(), 2), Unit: "B/reading",
		}
		if r.layout != series.ItemPerReading {
			f.Peer, f.peerName = ptr(round(ipr.sstPerReading(), 2)), "item-per-reading"
			f.Ratio = ptr(round(ipr.sstPerReading()/r.sstPerReading(), 1))
		}
		if r.layout == series.Chunks {
			f.target, f.met = "<= 2", check(r.sstPerReading() <= 2)
		}
		figs = append(figs, f)
	}
	writeLayoutSection(&sb, c, lis)

	// 3. 1 Hz days in each layout, flushed every minute and every hour.
	var hzs []hzRun
	for _, l := range allLayouts {
		for _, fl := range seriesFlushes {
			e.logf("series: layout %s, %d readings at 1 Hz, a flush every %d", l, c.points, fl)
			r, err := runHz(ctx, e, l, c.points, fl, c.runs)
			if err != nil {
				return nil, section{}, fmt.Errorf("layout %s at 1 Hz: %w", l, err)
			}
			hzs = append(hzs, r)
		}
	}
	figs = append(figs, hzFigures(c, hzs)...)
	writeHzSection(&sb, c, hzs)

	// 4. Latest.
	e.logf("series: Latest over %d series, %d calls", c.latestIDs, c.latestCalls)
	lr, err := runLatest(ctx, e, c.latestIDs, c.latestCalls, 500)
	if err != nil {
		return nil, section{}, fmt.Errorf("latest: %w", err)
	}
	p50, p99 := pct(lr.single, 0.5), pct(lr.single, 0.99)
	figs = append(figs,
		Figure{Name: fmt.Sprintf("series Latest, in process, %d series: p50", lr.ids), Ours: round(us(p50), 1), Unit: "µs"},
		Figure{Name: fmt.Sprintf("series Latest, in process, %d series: p99", lr.ids), Ours: round(us(p99), 1), Unit: "µs",
			target: "< 50", met: check(us(p99) < 50)},
		Figure{Name: fmt.Sprintf("series LatestMany of %d series, in process: median", lr.manyIDs), Ours: round(us(pct(lr.many, 0.5)), 0), Unit: "µs"},
	)
	writeLatestSection(&sb, lr)

	// 5. DynamoDB Local check.
	var ucs []unitCheck
	for _, l := range allLayouts {
		e.logf("series: units of a sample workload, %s, embedded engine and DynamoDB Local", l)
		uc, err := runUnitCheck(ctx, e, l, c.checkPoints)
		if err != nil {
			return nil, section{}, fmt.Errorf("unit check %s: %w", l, err)
		}
		ucs = append(ucs, uc)
		figs = append(figs, Figure{
			Name: fmt.Sprintf("series consumed units of a sample workload (%d readings at 1 Hz, compaction, Range, Latest), %s: embedded engine vs DynamoDB Local", c.checkPoints, l),
			Ours: round(uc.localT, 1), Peer: ptr(round(uc.remote, 1)), Unit: "units",
			Ratio: ptr(round(uc.localT/uc.remote, 3)), peerName: "DynamoDB Local", target: "= 1", met: check(sameUnits(uc.local, uc.ddb)),
		})
	}
	writeCheckSection(&sb, ucs)
	return figs, section{title: "Time series", body: sb.String()}, nil
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// sameUnits reports whether two runs consumed the same units per
// operation (to 0.01 unit).
func sameUnits(a, b table.Stats) bool {
	for _, op := range opsOf(a, b) {
		x, y := a.Ops[op], b.Ops[op]
		if math.Abs(x.ReadUnits-y.ReadUnits) > 0.01 || math.Abs(x.WriteUnits-y.WriteUnits) > 0.01 {
			return false
		}
	}
	return true
}

func hzFigures(c seriesConfig, hzs []hzRun) []Figure {
	var figs []Figure
	byKey := func(l series.Layout, fl int) hzRun {
		for _, r := range hzs {
			if r.layout == l && r.flushEvery == fl {
				return r
			}
		}
		return hzRun{}
	}
	day := fmt.Sprintf("%d readings", c.points)
	if c.points == 86400 {
		day = "one day"
	}
	for _, fl := range seriesFlushes {
		ipr := byKey(series.ItemPerReading, fl)
		for _, l := range allLayouts {
			r := byKey(l, fl)
			flush := fmtFlush(fl)
			name := fmt.Sprintf("series DynamoDB write units per reading at 1 Hz, %s, flushed every %s", l, flush)
			if l == series.Chunks {
				name += ", compaction included"
			}
			w := Figure{Name: name,
				Ours: round(r.writeUnitsPerReading(), 4), Unit: "WCU/reading"}
			rname := fmt.Sprintf("series DynamoDB read units, %s of one series at 1 Hz, %s, flushed every %s", day, l, flush)
			if l == series.Chunks {
				rname += ", compacted"
			}
			rd := Figure{Name: rname,
				Ours: round(r.dayRead.ReadUnits, 1), Unit: "RCU"}
			if l != series.ItemPerReading {
				w.Peer, w.peerName, w.Ratio = ptr(round(ipr.writeUnitsPerReading(), 4)), "item-per-reading", ptr(round(ipr.writeUnitsPerReading()/r.writeUnitsPerReading(), 1))
				rd.Peer, rd.peerName, rd.Ratio = ptr(round(ipr.dayRead.ReadUnits, 1)), "item-per-reading", ptr(round(ipr.dayRead.ReadUnits/r.dayRead.ReadUnits, 1))
			}
			if l == series.Chunks {
				w.target, w.met = "<= 0.05", check(r.writeUnitsPerReading() <= 0.05)
				rd.target, rd.met = "<= 10", check(r.dayRead.ReadUnits <= 10)
			}
			figs = append(figs, w, rd)
		}
	}
	for _, fl := range seriesFlushes {
		r := byKey(series.Chunks, fl)
		path, t := r.fastest()
		figs = append(figs, Figure{
			Name: fmt.Sprintf("series read of %s of 1 Hz readings (%d), chunks flushed every %s, in process, %s, median of %d", day, c.points, fmtFlush(fl), path, c.runs),
			Ours: round(ms(t), 2), Unit: "ms", target: "< 5", met: check(ms(t) < 5),
		})
		if path != "Range" {
			// Range returns the day as one []Reading (6 MB at 1 Hz), which
			// Iter and All never build.
			figs = append(figs, Figure{
				Name: fmt.Sprintf("series read of %s of 1 Hz readings (%d), chunks flushed every %s, in process, Range (one page of all), median of %d", day, c.points, fmtFlush(fl), c.runs),
				Ours: round(ms(pct(r.times["Range"], 0.5)), 2), Unit: "ms",
			})
		}
		figs = append(figs, Figure{
			Name: fmt.Sprintf("series bytes on disk per reading at 1 Hz (1 field), chunks flushed every %s", fmtFlush(fl)),
			Ours: round(float64(r.sstBytes)/float64(r.points), 3), Unit: "B/reading", target: "<= 2", met: check(float64(r.sstBytes)/float64(r.points) <= 2),
		})
	}
	return figs
}

func fmtFlush(readings int) string {
	switch {
	case readings%3600 == 0:
		return fmt.Sprintf("%dh", readings/3600)
	case readings%60 == 0:
		return fmt.Sprintf("%dm", readings/60)
	}
	return fmt.Sprintf("%ds", readings)
}

func writeIngestSection(sb *strings.Builder, c seriesConfig, cfg ingestConfig, ours, prom ingestResult, fsynced *ingestResult, gOurs, gProm ingestResult) {
	fmt.Fprintf(sb, "### Ingest\n\n%d series x %d one-minute readings of %d float fields (a random walk with two decimals, the same values for both systems), written in blocks of %d minutes: each series gets its %d readings of a block in one call before any series gets the next block, from %d goroutines. Each system runs in a child process of its own (for its peak memory), one after the other, on this machine's disk.\n\n",
		c.ids, c.readings, len(ingestFields), c.batch, c.batch, c.workers)
	rollups := "no rollup tiers (`NoRollups`: Prometheus computes none either)"
	if c.rollups {
		rollups = "the default rollup tiers (their markers are written; the rollup pass is not run)"
	}
	fmt.Fprintf(sb, "- timetable: `series.Kind.Write` with `Options.WALDir`: each call returns once its readings are in the store's write-ahead log, written to the operating system (`WALNoSync`), so that no acknowledged reading is lost if the process is killed, which is the durability the series store promises and `TestKill9_AcknowledgedReadingsSurvive` proves. The engine is `local.Open(dir, &local.Options{NoSync: true, MemTableSize: 16 << 20, L0CompactionThreshold: 12, L0CompactionFileThreshold: 48})`, the settings the README recommends for ingest-heavy series (the engine's defaults, a 4 MiB memtable compacted at 4 L0 sublevels, favour items overwritten often); a flush's writes go to it unsynced and the log keeps their readings until the flush is done. Default buffer settings (a flush every 500,000 readings, or by the timer), chunks layout, %s. Its time includes the final `Flush` that writes the last buffered readings to the table. Chunk compaction (merging the chunks of each series and hour) is not run by its timer during the ingest: `Store.Compact` runs after it, twice (the second pass deletes the merged items; `CompactGrace` is 1 ms as nothing reads meanwhile), timed apart.\n", rollups)
	fmt.Fprintf(sb, "- Prometheus TSDB (`github.com/prometheus/prometheus/tsdb` v0.315.0, `tsdb.DefaultOptions()`: write-ahead log on, uncompressed, head compaction into 2-hour blocks in the background): one `Appender` and `Commit` per series and block, series references cached as the scrape loop caches them; each field is a series of its own (`{__name__=\"sensor_a\", id=\"...\"}`), so a reading is %d samples. Its `Commit` writes the log to the operating system without an fsync (Prometheus syncs log segments when it closes them): the same durability as timetable's acknowledgement above. After the ingest, `DB.Compact` and `DB.CompactHead` persist the head into blocks and merge them as Prometheus would over the following hours, timed apart.\n\n", len(ingestFields))
	sb.WriteString("| system | readings/s | samples/s | time | acknowledged after | CPU time | peak RSS | compaction after | bytes/reading after compaction | folder after |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	type row struct {
		name string
		r    ingestResult
	}
	rows := []row{{"timetable series", ours}, {"Prometheus TSDB", prom}}
	if fsynced != nil {
		rows = append(rows, row{"timetable series, log fsynced", *fsynced})
	}
	rows = append(rows, row{"timetable series, `WriteMany` per goroutine and block", gOurs}, row{"Prometheus TSDB, one `Commit` per goroutine and block", gProm})
	for _, x := range rows {
		name, r := x.name, x.r
		fmt.Fprintf(sb, "| %s | %.0f | %.0f | %.1f s | %.1f s | %.1f s | %s | %.1f s | %.2f | %s |\n", name, r.rate(), float64(r.Samples)/r.Seconds,
			r.Seconds, r.AckSeconds, r.CPUSeconds, fmtBytes(r.PeakRSS), r.CompactSeconds, float64(r.DataBytes)/float64(r.DataReadings), fmtBytes(r.DirBytes))
	}
	if fsynced != nil {
		sb.WriteString("\nThe log fsynced row is the same run with the store's default `WALNoSync: false` and the engine's default sync: a write is acknowledged once its log record is fsynced (concurrent calls share fsyncs), which also survives a power loss. Prometheus has no such mode (its `Commit` never fsyncs), so it is compared with Prometheus' own durability; the row shows what the fsyncs cost.\n")
	}
	fmt.Fprintf(sb, "\nThe last two rows group the writes as a server receiving a batch of many series per request would: each goroutine writes the %d-minute block of all its series (up to %d) in one call, `Kind.WriteMany` (one log append for all of them) and one `Appender` with one `Commit`, with the same samples, goroutines and blocks.\n", c.batch, (c.ids+c.workers-1)/c.workers)
	fmt.Fprintf(sb, "\nBytes after compaction: for timetable, the sstables of the engine's Pebble database after the store is closed and the whole key space is compacted (the table's %d items weigh %.2f bytes per reading by DynamoDB's item size rules, %.2f with DynamoDB's 100 bytes of storage overhead per item); for Prometheus, its blocks (chunks, index, tombstones, meta) after the head is compacted into blocks, over the samples they hold. Peak RSS is the child process's VmHWM (from /proc) at the end of the ingest (before the compaction). CPU time is the process's user and system time during the ingest.\n\n",
		ours.Items, float64(ours.ItemBytes)/float64(ours.Readings), float64(ours.ItemBytes+100*ours.Items)/float64(ours.Readings))
}

func writeLayoutSection(sb *strings.Builder, c seriesConfig, lis []layoutIngest) {
	fmt.Fprintf(sb, "### Layouts: bytes per reading\n\nThe ingest's readings for %d series (%d readings each, %d fields), written the same way into each layout (buffered writes, default flush size, no log, engine writes not synced), flushed, compacted (chunks: two `Store.Compact` passes, the second deleting the merged items), then measured: the engine's sstables after a compaction of the whole key space, and the table's items by DynamoDB's size rules (and with its 100 bytes of overhead per item, which is what DynamoDB bills for storage).\n\n",
		c.layoutIDs, c.readings, len(ingestFields))
	sb.WriteString("| layout | items | sstables, bytes/reading | items, bytes/reading | billed by DynamoDB, bytes/reading | write units/reading | compaction, read / write units per reading | readings/s (not synced) |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range lis {
		comp := "-"
		if r.layout == series.Chunks {
			comp = fmt.Sprintf("%.4f / %.4f", r.compactStats.ReadUnits/float64(r.readings), r.compactStats.WriteUnits/float64(r.readings))
		}
		fmt.Fprintf(sb, "| %s | %d | %.2f | %.2f | %.2f | %.4f | %s | %.0f |\n", r.layout, r.items, r.sstPerReading(),
			float64(r.itemBytes)/float64(r.readings), r.billedPerReading(), r.stats.WriteUnits/float64(r.readings), comp, float64(r.readings)/r.seconds)
	}
	sb.WriteString("\n")
}

func writeHzSection(sb *strings.Builder, c seriesConfig, hzs []hzRun) {
	fmt.Fprintf(sb, "### Layouts at 1 Hz: DynamoDB units and reads\n\nOne series, %d readings of one field at 1 Hz (a random walk with two decimals) from midnight UTC, written through the buffer and flushed every minute, every 5 minutes (the store's default `FlushInterval`) or every hour, with the store's clock (`Options.Now`) following the readings as if they arrived live; for chunks, one `Range` of the day, then the compaction (two `Store.Compact` passes: merge each hour's chunks, delete the merged items); then one `Range` of the day (eventually consistent reads), one `Latest`, and the timed reads: each public read path (`Range`, `Iter`, `All`) %d times after a warm-up, on the embedded engine on disk. Units are those the table client's `Stats` report (ReturnConsumedCapacity TOTAL), which the embedded engine computes with DynamoDB's rules (checked against DynamoDB Local below).\n\n",
		c.points, c.runs)
	sb.WriteString("Write units per reading include the compaction's; its read units are shown apart (per reading), as is the day's read before it.\n\n")
	sb.WriteString("| layout | flush | write units/reading | write calls | compaction, read / write units per reading | read units, day (before compaction) | read calls, day | read units, Latest | items | sstables, bytes/reading | day read, median (Range / Iter / All) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range hzs {
		var calls int64
		for _, op := range r.writeStats.Ops {
			calls += op.Calls
		}
		var rcalls int64
		for _, op := range r.dayRead.Ops {
			rcalls += op.Calls
		}
		var ts []string
		for _, p := range readPaths {
			ts = append(ts, fmtDur(pct(r.times[p], 0.5)))
		}
		comp, before := "-", ""
		if r.layout == series.Chunks {
			comp = fmt.Sprintf("%.4f / %.4f", r.compactStats.ReadUnits/float64(r.points), r.compactStats.WriteUnits/float64(r.points))
			before = fmt.Sprintf(" (%.1f)", r.dayReadBefore.ReadUnits)
		}
		fmt.Fprintf(sb, "| %s | %s | %.4f | %d | %s | %.1f%s | %d | %.1f | %d | %.3f | %s |\n", r.layout, fmtFlush(r.flushEvery), r.writeUnitsPerReading(), calls, comp,
			r.dayRead.ReadUnits, before, rcalls, r.latestRead.ReadUnits, r.items, float64(r.sstBytes)/float64(r.points), strings.Join(ts, " / "))
	}
	sb.WriteString("\n")
}

func writeLatestSection(sb *strings.Builder, lr latestRun) {
	fmt.Fprintf(sb, "### Latest\n\n%d series of the chunks layout with 10 readings each (3 fields), flushed, on the embedded engine on disk; then %d calls of `Latest` on series picked at random (after %d unmeasured), one at a time, and %d calls of `LatestMany` of %d series.\n\n",
		lr.ids, lr.calls, lr.calls/10, len(lr.many), lr.manyIDs)
	sb.WriteString("| call | p50 | p90 | p99 | p99.9 | max |\n|---|---:|---:|---:|---:|---:|\n")
	for _, x := range []struct {
		name string
		ts   []time.Duration
	}{{"Latest", lr.single}, {fmt.Sprintf("LatestMany of %d", lr.manyIDs), lr.many}} {
		fmt.Fprintf(sb, "| %s | %s | %s | %s | %s | %s |\n", x.name, fmtDur(pct(x.ts, 0.5)), fmtDur(pct(x.ts, 0.9)), fmtDur(pct(x.ts, 0.99)),
			fmtDur(pct(x.ts, 0.999)), fmtDur(pct(x.ts, 1)))
	}
	sb.WriteString("\n")
}

func writeCheckSection(sb *strings.Builder, ucs []unitCheck) {
	if len(ucs) == 0 {
		return
	}
	fmt.Fprintf(sb, "### Consumed capacity checked against DynamoDB Local\n\nThe same sample workload on the embedded engine (in memory) and on DynamoDB Local (over HTTP), a table of its own for each layout: one series, %d readings at 1 Hz flushed every 60 readings (for chunks, then compacted), one `Range` of them and one `Latest`. Units per operation as each backend reported them (ReturnConsumedCapacity TOTAL), read / write:\n\n",
		ucs[0].points)
	sb.WriteString("| layout | operation | calls | embedded engine | DynamoDB Local | same |\n|---|---|---:|---:|---:|---|\n")
	for _, uc := range ucs {
		for _, op := range opsOf(uc.local, uc.ddb) {
			a, b := uc.local.Ops[op], uc.ddb.Ops[op]
			same := "yes"
			if math.Abs(a.ReadUnits-b.ReadUnits) > 0.01 || math.Abs(a.WriteUnits-b.WriteUnits) > 0.01 {
				same = "**no**"
			}
			fmt.Fprintf(sb, "| %s | %s | %d / %d | %g / %g | %g / %g | %s |\n", uc.layout, op, a.Calls, b.Calls, a.ReadUnits, a.WriteUnits, b.ReadUnits, b.WriteUnits, same)
		}
	}
	sb.WriteString("\n")
}
