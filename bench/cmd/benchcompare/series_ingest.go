package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
)

// The ingest workload: ids series of `readings` one-minute readings of
// ingestFields float fields (a random walk with two decimals), written in
// blocks of `batch` minutes: every series gets its readings of one block
// (one call per series, or with Group one call per goroutine for all its
// series) before any gets those of the next, by `workers` goroutines. Prometheus TSDB refuses samples more than an hour older
// than the newest it holds (out-of-order ingestion off, its default), so
// a block is at most 60 minutes.
var ingestFields = []string{"a", "b", "c"}

type ingestConfig struct {
	System   string `json:"system"` // "timetable" or "prometheus"
	Dir      string `json:"dir"`
	IDs      int    `json:"ids"`
	Readings int    `json:"readings"`
	Batch    int    `json:"batch"`
	Workers  int    `json:"workers"`
	Start    int64  `json:"start"` // first reading, Unix milliseconds
	Rollups  bool   `json:"rollups"`
	// Group writes the readings of a block of all the series of a
	// goroutine in one call (timetable: Kind.WriteMany; Prometheus: one
	// Appender and Commit), as a server receiving a batch of many series
	// per request would, instead of one call per series.
	Group bool `json:"group,omitempty"`
	// NoSync (timetable only) acknowledges writes once they are written
	// to the operating system, not synced: the log with WALNoSync, the
	// engine with NoSync. Prometheus' Commit gives that durability.
	NoSync bool `json:"no_sync,omitempty"`
	// CPUProfile, if set, is a file for a CPU profile of the ingest (not
	// of the measurements after it).
	CPUProfile string `json:"cpu_profile,omitempty"`
}

// ingestResult is what an ingest child reports.
type ingestResult struct {
	System   string `json:"system"`
	Readings int64  `json:"readings"`
	Samples  int64  `json:"samples"`
	// AckSeconds is the time until the last write was acknowledged
	// (durable); Seconds adds what is needed for the data to be in the
	// store proper (timetable: the final flush of the write buffer to the
	// table; Prometheus: nothing, its head is its store).
	AckSeconds float64 `json:"ack_seconds"`
	Seconds    float64 `json:"seconds"`
	// CompactSeconds is the time from Seconds to the compacted state:
	// timetable's compaction passes (merging each hour's chunks, then
	// deleting the merged items), Prometheus' compaction of its head and
	// blocks into the blocks it would have after a while.
	CompactSeconds float64 `json:"compact_seconds"`
	CPUSeconds     float64 `json:"cpu_seconds"`
	PeakRSS        int64   `json:"peak_rss"`
	// Bytes on disk after ingest and compaction: DataBytes are the
	// engine's sstables (timetable) or the persisted blocks (Prometheus),
	// DataReadings the readings they hold; DirBytes the whole folder.
	DataBytes    int64 `json:"data_bytes"`
	DataReadings int64 `json:"data_readings"`
	DirBytes     int64 `json:"dir_bytes"`
	// Items and ItemBytes: the items of the table and their DynamoDB
	// sizes (timetable only).
	Items     int64 `json:"items"`
	ItemBytes int64 `json:"item_bytes"`
}

func (r ingestResult) rate() float64 { return float64(r.Readings) / r.Seconds }

// childEnv marks a process started by runIngestChild.
const childEnv = "BENCHCOMPARE_INGEST_CHILD"

// maybeIngestChild runs the ingest child and exits if this process is
// one; it returns otherwise.
func maybeIngestChild() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	var cfg ingestConfig
	if err := json.Unmarshal([]byte(os.Getenv(childEnv+"_CONFIG")), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "ingest child:", err)
		os.Exit(1)
	}
	res, err := ingest(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ingest child:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(res)
	os.Exit(0)
}

// runIngestChild runs ingest(cfg) in a child process (this executable,
// flagged by childEnv), so that its peak memory is its own.
func runIngestChild(ctx context.Context, cfg ingestConfig, stderr io.Writer) (ingestResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return ingestResult{}, err
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		return ingestResult{}, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"=1", childEnv+"_CONFIG="+string(b))
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return ingestResult{}, fmt.Errorf("%s ingest child: %w", cfg.System, err)
	}
	var res ingestResult
	if err := json.Unmarshal(out, &res); err != nil {
		return ingestResult{}, fmt.Errorf("%s ingest child: %w (output %q)", cfg.System, err, out)
	}
	return res, nil
}

// ingestBlocks runs the workload one series per call: write(w, id, t, n)
// writes the n readings of series id from minute t on, in worker w; it
// must advance the walk of series id.
func ingestBlocks(ctx context.Context, cfg ingestConfig, write func(w, id int, first int64, n int) error) error {
	cfg.Group = false
	return ingestCalls(ctx, cfg, func(w int, ids []int, first int64, n int) error { return write(w, ids[0], first, n) })
}

// ingestCalls runs the workload: write(w, ids, t, n) writes the n
// readings of each series of ids from minute t on, in worker w, in one
// call; it must advance the walks of the series. ids is one series, or
// with cfg.Group all the series of worker w. Blocks are separated by a
// barrier.
func ingestCalls(ctx context.Context, cfg ingestConfig, write func(w int, ids []int, first int64, n int) error) error {
	var (
		mu    sync.Mutex
		first error
	)
	mine := make([][]int, cfg.Workers) // the series of each worker
	for id := range cfg.IDs {
		mine[id%cfg.Workers] = append(mine[id%cfg.Workers], id)
	}
	for start := 0; start < cfg.Readings; start += cfg.Batch {
		n := min(cfg.Batch, cfg.Readings-start)
		t := cfg.Start + int64(start)*60_000
		var wg sync.WaitGroup
		for w := range cfg.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				calls := [][]int{mine[w]}
				if !cfg.Group {
					calls = make([][]int, len(mine[w]))
					for i := range mine[w] {
						calls[i] = mine[w][i : i+1]
					}
				}
				for _, ids := range calls {
					if len(ids) == 0 {
						continue
					}
					if err := write(w, ids, t, n); err != nil {
						mu.Lock()
						if first == nil {
							first = err
						}
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		if first != nil {
			return first
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func ingest(ctx context.Context, cfg ingestConfig) (ingestResult, error) {
	if cfg.Batch <= 0 || cfg.Batch > 60 || cfg.Workers <= 0 || cfg.IDs <= 0 || cfg.Readings <= 0 {
		return ingestResult{}, fmt.Errorf("ingest: bad configuration %+v", cfg)
	}
	if cfg.CPUProfile != "" {
		f, err := os.Create(cfg.CPUProfile)
		if err != nil {
			return ingestResult{}, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return ingestResult{}, err
		}
		defer pprof.StopCPUProfile() // if the ingest fails
	}
	switch cfg.System {
	case "timetable":
		return ingestTimetable(ctx, cfg)
	case "prometheus":
		return ingestPrometheus(ctx, cfg)
	}
	return ingestResult{}, fmt.Errorf("ingest: unknown system %q", cfg.System)
}

func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func seriesID(i int) string { return strconv.Itoa(100000 + i) }

// ingestEngineOptions are the engine's options for the ingest: the
// settings the README recommends for ingest-heavy series workloads (a 16
// MiB memtable, L0 compacted at 12 sublevels or 48 tables), which halve
// the compaction work of new chunk items spread over the key space. The
// engine's defaults (4 MiB, 4, 500) favour items overwritten often.
func ingestEngineOptions(noSync bool) *local.Options {
	return &local.Options{NoSync: noSync, MemTableSize: 16 << 20, L0CompactionThreshold: 12, L0CompactionFileThreshold: 48}
}

// ingestTimetable writes through series.Kind.Write with a write-ahead log
// (fsynced unless cfg.NoSync) into the embedded engine on disk, with the
// store's default buffer settings.
func ingestTimetable(ctx context.Context, cfg ingestConfig) (ingestResult, error) {
	engineDir := filepath.Join(cfg.Dir, "engine")
	db, err := local.Open(engineDir, ingestEngineOptions(cfg.NoSync))
	if err != nil {
		return ingestResult{}, err
	}
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	// Compaction passes are run after the ingest (and timed apart), not
	// by the timer, and the merged items are deleted at once (no grace
	// for readers: there are none).
	opts := &series.Options{WALDir: filepath.Join(cfg.Dir, "wal"), WALNoSync: cfg.NoSync, CompactInterval: -1, CompactGrace: time.Millisecond}
	st, err := series.Open(ctx, db, opts, series.Schema{
		Name: "SENSOR", Fields: ingestFields, NoRollups: !cfg.Rollups,
	})
	if err != nil {
		return ingestResult{}, err
	}
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	if err := st.EnsureTable(ctx); err != nil {
		return ingestResult{}, err
	}
	k, err := st.Kind("SENSOR")
	if err != nil {
		return ingestResult{}, err
	}
	walks := make([]*walk, cfg.IDs)
	ids := make([]string, cfg.IDs)
	for i := range walks {
		walks[i] = newWalk(uint64(i), len(ingestFields))
		ids[i] = seriesID(i)
	}
	type workerBufs struct {
		rs    []series.Reading
		vals  []float64
		batch []series.SeriesReadings
	}
	bufs := make([]workerBufs, cfg.Workers)
	nf := len(ingestFields)
	cpu0, t0 := cpuTime(), time.Now()
	err = ingestCalls(ctx, cfg, func(w int, idl []int, first int64, n int) error {
		b := &bufs[w]
		// The readings and values of all the series of the call: Write
		// and WriteMany copy what they keep.
		if cap(b.vals) < len(idl)*n*nf {
			b.vals = make([]float64, len(idl)*n*nf)
			b.rs = make([]series.Reading, len(idl)*n)
		}
		b.batch = b.batch[:0]
		for j, id := range idl {
			rs := b.rs[j*n : (j+1)*n]
			for i := range n {
				v := b.vals[(j*n+i)*nf : (j*n+i+1)*nf]
				walks[id].step(v)
				rs[i] = series.Reading{Time: time.UnixMilli(first + int64(i)*60_000), Values: v}
			}
			b.batch = append(b.batch, series.SeriesReadings{ID: ids[id], Readings: rs})
		}
		if len(b.batch) == 1 {
			return k.Write(ctx, b.batch[0].ID, b.batch[0].Readings...)
		}
		return k.WriteMany(ctx, b.batch)
	})
	if err != nil {
		return ingestResult{}, err
	}
	ack := time.Since(t0)
	if err := st.Flush(ctx); err != nil {
		return ingestResult{}, err
	}
	pprof.StopCPUProfile()
	res := ingestResult{System: cfg.System, Readings: int64(cfg.IDs) * int64(cfg.Readings),
		AckSeconds: ack.Seconds(), Seconds: time.Since(t0).Seconds(), CPUSeconds: cpuTime() - cpu0}
	res.Samples = res.Readings * int64(len(ingestFields))
	res.PeakRSS = vmHWM()
	t1 := time.Now()
	if err := compactStore(ctx, st); err != nil {
		return ingestResult{}, err
	}
	res.CompactSeconds = time.Since(t1).Seconds()
	// Every reading is there, once.
	var stored int64
	for _, id := range ids {
		n := 0
		for _, err := range k.All(ctx, id, series.Query{}) {
			if err != nil {
				return ingestResult{}, fmt.Errorf("reading series %s back: %w", id, err)
			}
			n++
		}
		if n != cfg.Readings {
			return ingestResult{}, fmt.Errorf("timetable: series %s holds %d readings, %d written", id, n, cfg.Readings)
		}
		stored += int64(n)
	}
	res.DataReadings = stored
	err = st.Close()
	st = nil
	if err != nil {
		return ingestResult{}, err
	}
	if res.Items, res.ItemBytes, err = tableBytes(ctx, db, series.DefaultTable); err != nil {
		return ingestResult{}, err
	}
	err = db.Close()
	db = nil
	if err != nil {
		return ingestResult{}, err
	}
	if res.DataBytes, _, err = compactedSize(engineDir); err != nil {
		return ingestResult{}, err
	}
	if res.DirBytes, _, err = dirSize(cfg.Dir, ""); err != nil {
		return ingestResult{}, err
	}
	return res, nil
}

// ingestPrometheus appends the same samples to Prometheus TSDB with its
// default options (write-ahead log on, uncompressed; head compaction into
// 2-hour blocks in the background), one Appender and Commit per series
// and block (with cfg.Group, one for all the series of a goroutine and
// block), as a scrape appends a target's samples, with the series
// references cached as the scrape loop caches them. Each field of a
// series is a Prometheus series: {__name__="sensor_a", id="100123"}.
func ingestPrometheus(ctx context.Context, cfg ingestConfig) (ingestResult, error) {
	dbDir := filepath.Join(cfg.Dir, "prometheus")
	opts := tsdb.DefaultOptions()
	db, err := tsdb.Open(dbDir, slog.New(slog.DiscardHandler), nil, opts, nil)
	if err != nil {
		return ingestResult{}, err
	}
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	nf := len(ingestFields)
	walks := make([]*walk, cfg.IDs)
	lbls := make([]labels.Labels, cfg.IDs*nf)
	refs := make([]storage.SeriesRef, cfg.IDs*nf)
	for i := range walks {
		walks[i] = newWalk(uint64(i), nf)
		for f, name := range ingestFields {
			lbls[i*nf+f] = labels.FromStrings("__name__", "sensor_"+name, "id", seriesID(i))
		}
	}
	vals := make([][]float64, cfg.Workers)
	for w := range vals {
		vals[w] = make([]float64, nf)
	}
	cpu0, t0 := cpuTime(), time.Now()
	err = ingestCalls(ctx, cfg, func(w int, ids []int, first int64, n int) error {
		app := db.Appender(ctx)
		v := vals[w]
		for _, id := range ids {
			for i := range n {
				walks[id].step(v)
				t := first + int64(i)*60_000
				for f := range nf {
					ref, err := app.Append(refs[id*nf+f], lbls[id*nf+f], t, v[f])
					if err != nil {
						app.Rollback()
						return err
					}
					refs[id*nf+f] = ref
				}
			}
		}
		return app.Commit()
	})
	if err != nil {
		return ingestResult{}, err
	}
	ack := time.Since(t0)
	pprof.StopCPUProfile()
	res := ingestResult{System: cfg.System, Readings: int64(cfg.IDs) * int64(cfg.Readings),
		AckSeconds: ack.Seconds(), Seconds: ack.Seconds(), CPUSeconds: cpuTime() - cpu0}
	res.Samples = res.Readings * int64(nf)
	res.PeakRSS = vmHWM()

	// Persist everything into blocks: the compactable head ranges and the
	// level compactions, then what is left in the head.
	t1 := time.Now()
	if err := db.Compact(ctx); err != nil {
		return ingestResult{}, err
	}
	h := db.Head()
	if h.NumSeries() > 0 && h.MaxTime() >= h.MinTime() {
		if err := db.CompactHead(tsdb.NewRangeHead(h, h.MinTime(), h.MaxTime())); err != nil {
			return ingestResult{}, err
		}
	}
	if err := db.Compact(ctx); err != nil {
		return ingestResult{}, err
	}
	res.CompactSeconds = time.Since(t1).Seconds()
	for _, b := range db.Blocks() {
		m := b.Meta()
		res.DataReadings += int64(m.Stats.NumSamples)
		_, size, err := dirSize(b.Dir(), "")
		if err != nil {
			return ingestResult{}, err
		}
		res.DataBytes += size
	}
	res.DataReadings /= int64(nf) // samples to readings
	err = db.Close()
	db = nil
	if err != nil {
		return ingestResult{}, err
	}
	if res.DirBytes, _, err = dirSize(cfg.Dir, ""); err != nil {
		return ingestResult{}, err
	}
	if res.DataReadings != res.Readings {
		return res, fmt.Errorf("prometheus: blocks hold %d readings, %d appended", res.DataReadings, res.Readings)
	}
	return res, nil
}

// compactStore runs the store's compaction to its end: a pass merges the
// chunks of every marked hour, a second one (after CompactGrace) deletes
// the items merged.
func compactStore(ctx context.Context, st *series.Store) error {
	if err := st.Compact(ctx); err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	time.Sleep(10 * time.Millisecond)
	if err := st.Compact(ctx); err != nil {
		return fmt.Errorf("compaction: %w", err)
	}
	return nil
}
