package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/table"
)

var allLayouts = []series.Layout{series.ItemPerReading, series.DayPartitioned, series.Buckets, series.Chunks}

// storeOptions are the options of the stores of the layout runs: no
// background flush, rollup or compaction pass (flushes and compactions
// are explicit, and compaction deletes the merged items at once), no log.
func storeOptions(tableName string) *series.Options {
	return &series.Options{Table: tableName, FlushInterval: -1, RollupInterval: -1, CompactInterval: -1, CompactGrace: time.Millisecond,
		FlushSize: 1 << 20, MaxBuffered: 4 << 20}
}

// openEngine opens a fresh embedded engine on disk in a new folder under
// the work folder. Its writes are not synced: the layout runs measure
// sizes and units, not durability.
func openEngine(e *env, prefix string) (*local.DB, string, error) {
	dir, err := os.MkdirTemp(e.work, prefix)
	if err != nil {
		return nil, "", err
	}
	db, err := local.Open(dir, &local.Options{NoSync: true})
	if err != nil {
		return nil, "", err
	}
	return db, dir, nil
}

// layoutIngest is the ingest shape (1-minute readings of 3 fields) in one
// layout, on a smaller number of series.
type layoutIngest struct {
	layout   series.Layout
	readings int64
	seconds  float64
	stats    table.Stats
	// compactStats: the units of the compaction passes (chunks only).
	compactStats table.Stats
	items        int64
	itemBytes    int64
	sstBytes     int64
	totalBytes   int64
}

func (r layoutIngest) sstPerReading() float64 { return float64(r.sstBytes) / float64(r.readings) }

// billedPerReading is DynamoDB's storage per reading: item sizes plus 100
// bytes of overhead per item.
func (r layoutIngest) billedPerReading() float64 {
	return float64(r.itemBytes+100*r.items) / float64(r.readings)
}

func runLayoutIngest(ctx context.Context, e *env, layout series.Layout, cfg ingestConfig) (layoutIngest, error) {
	db, dir, err := openEngine(e, "layout-ingest-")
	if err != nil {
		return layoutIngest{}, err
	}
	defer os.RemoveAll(dir)
	defer db.Close()
	const tableName = "bench_layout"
	o := storeOptions(tableName)
	o.FlushSize, o.MaxBuffered = 0, 0 // the defaults, as in the ingest run
	st, err := series.Open(ctx, db, o, series.Schema{Name: "SENSOR", Fields: ingestFields, Layout: layout, NoRollups: true})
	if err != nil {
		return layoutIngest{}, err
	}
	defer st.Close()
	if err := st.EnsureTable(ctx); err != nil {
		return layoutIngest{}, err
	}
	st.Table().ResetStats()
	k, err := st.Kind("SENSOR")
	if err != nil {
		return layoutIngest{}, err
	}
	walks := make([]*walk, cfg.IDs)
	for i := range walks {
		walks[i] = newWalk(uint64(i), len(ingestFields))
	}
	t0 := time.Now()
	err = ingestBlocks(ctx, cfg, func(w, id int, first int64, n int) error {
		rs := make([]series.Reading, n)
		vals := make([]float64, n*len(ingestFields))
		for i := range rs {
			v := vals[i*len(ingestFields) : (i+1)*len(ingestFields)]
			walks[id].step(v)
			rs[i] = series.Reading{Time: time.UnixMilli(first + int64(i)*60_000), Values: v}
		}
		return k.Write(ctx, seriesID(id), rs...)
	})
	if err != nil {
		return layoutIngest{}, err
	}
	if err := st.Flush(ctx); err != nil {
		return layoutIngest{}, err
	}
	r := layoutIngest{layout: layout, readings: int64(cfg.IDs) * int64(cfg.Readings), seconds: time.Since(t0).Seconds(), stats: st.Table().Stats()}
	if layout == series.Chunks {
		st.Table().ResetStats()
		if err := compactStore(ctx, st); err != nil {
			return layoutIngest{}, err
		}
		r.compactStats = st.Table().Stats()
	}
	if err := st.Close(); err != nil {
		return layoutIngest{}, err
	}
	if r.items, r.itemBytes, err = tableBytes(ctx, db, tableName); err != nil {
		return layoutIngest{}, err
	}
	if err := db.Close(); err != nil {
		return layoutIngest{}, err
	}
	if r.sstBytes, r.totalBytes, err = compactedSize(dir); err != nil {
		return layoutIngest{}, err
	}
	return r, nil
}

// hzRun is one series of 1 Hz readings of one field over one day (or
// fewer points), written through the buffer and flushed every flushEvery
// readings, then read back.
type hzRun struct {
	layout     series.Layout
	flushEvery int
	points     int
	writeStats table.Stats
	// compactStats: the units of the compaction passes after the writes
	// (chunks only); dayReadBefore: one Range of the day before them.
	compactStats  table.Stats
	dayReadBefore table.Stats
	// dayRead: read units of one Range of the whole day (and the
	// operations it took); latestRead: of one Latest.
	dayRead    table.Stats
	latestRead table.Stats
	// read times of the day, per read path, sorted
	times map[string][]time.Duration
	// sizes after compaction
	items, itemBytes int64
	sstBytes         int64
}

// writeUnitsPerReading are the write units of the writes and of the
// compaction per reading.
func (r hzRun) writeUnitsPerReading() float64 {
	return (r.writeStats.WriteUnits + r.compactStats.WriteUnits) / float64(r.points)
}

// fastest returns the read path with the lowest median and its median.
func (r hzRun) fastest() (string, time.Duration) {
	best, bestT := "", time.Duration(math.MaxInt64)
	for _, p := range readPaths {
		if ts := r.times[p]; len(ts) > 0 && ts[len(ts)/2] < bestT {
			best, bestT = p, ts[len(ts)/2]
		}
	}
	return best, bestT
}

// readPaths are the public read paths of a whole range, timed in turn.
var readPaths = []string{"Range", "Iter", "All"}

// hzDay is the day of the 1 Hz runs: the day before yesterday (UTC), so
// that it is whole, in the past and within the raw retention.
func hzDay() time.Time { return time.Now().UTC().Truncate(24 * time.Hour).Add(-48 * time.Hour) }

// hzReadings returns points 1 Hz readings of one field from day on.
func hzReadings(day time.Time, points int) []series.Reading {
	w := newWalk(7, 1)
	vals := make([]float64, points)
	rs := make([]series.Reading, points)
	for i := range rs {
		w.step(vals[i : i+1])
		rs[i] = series.Reading{Time: day.Add(time.Duration(i) * time.Second), Values: vals[i : i+1 : i+1]}
	}
	return rs
}

// simClock is the clock of a store fed with readings of the past as if
// they arrived live: it runs at the real pace from the instant last set.
type simClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *simClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Set makes the clock read t now.
func (c *simClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset = time.Until(t)
}

// writeHz writes rs to series id of k in flushes of flushEvery readings,
// each at the simulated time just after its last reading (so that the
// store behaves as with live readings: it writes a period's markers once,
// not at every flush), then sets the clock to an hour after the last
// reading, when every hour can be compacted.
func writeHz(ctx context.Context, st *series.Store, clk *simClock, k *series.Kind, id string, rs []series.Reading, flushEvery int) error {
	for i := 0; i < len(rs); i += flushEvery {
		batch := rs[i:min(i+flushEvery, len(rs))]
		clk.Set(batch[len(batch)-1].Time.Add(time.Second))
		if err := k.Write(ctx, id, batch...); err != nil {
			return err
		}
		if err := st.Flush(ctx); err != nil {
			return err
		}
	}
	clk.Set(rs[len(rs)-1].Time.Add(time.Hour))
	return nil
}

func hzSchema(layout series.Layout) series.Schema {
	return series.Schema{Name: "SENSOR", Fields: []string{"v"}, Layout: layout, NoRollups: true}
}

// readDay reads [from, to) of series id through path and checks the count.
func readDay(ctx context.Context, k *series.Kind, id, path string, from, to time.Time, want int) error {
	q := series.Query{From: from, To: to}
	n := 0
	switch path {
	case "Range":
		p, err := k.Range(ctx, id, q)
		if err != nil {
			return err
		}
		n = len(p.Readings)
	case "Iter":
		it := k.Iter(ctx, id, q)
		for it.Next() {
			n++
		}
		if err := it.Err(); err != nil {
			return err
		}
		it.Close()
	case "All":
		for _, err := range k.All(ctx, id, q) {
			if err != nil {
				return err
			}
			n++
		}
	}
	if n != want {
		return fmt.Errorf("%s read %d readings, want %d", path, n, want)
	}
	return nil
}

func runHz(ctx context.Context, e *env, layout series.Layout, points, flushEvery, runs int) (hzRun, error) {
	db, dir, err := openEngine(e, "layout-hz-")
	if err != nil {
		return hzRun{}, err
	}
	defer os.RemoveAll(dir)
	defer db.Close()
	const tableName = "bench_hz"
	clk := &simClock{}
	o := storeOptions(tableName)
	o.Now = clk.Now
	st, err := series.Open(ctx, db, o, hzSchema(layout))
	if err != nil {
		return hzRun{}, err
	}
	defer st.Close()
	if err := st.EnsureTable(ctx); err != nil {
		return hzRun{}, err
	}
	k, err := st.Kind("SENSOR")
	if err != nil {
		return hzRun{}, err
	}
	day := hzDay()
	rs := hzReadings(day, points)
	st.Table().ResetStats()
	if err := writeHz(ctx, st, clk, k, "1", rs, flushEvery); err != nil {
		return hzRun{}, err
	}
	r := hzRun{layout: layout, flushEvery: flushEvery, points: points, writeStats: st.Table().Stats(), times: map[string][]time.Duration{}}
	from, to := day, day.Add(24*time.Hour)
	if layout == series.Chunks {
		st.Table().ResetStats()
		if err := readDay(ctx, k, "1", "Range", from, to, points); err != nil {
			return hzRun{}, err
		}
		r.dayReadBefore = st.Table().Stats()
		st.Table().ResetStats()
		if err := compactStore(ctx, st); err != nil {
			return hzRun{}, err
		}
		r.compactStats = st.Table().Stats()
	}
	st.Table().ResetStats()
	if err := readDay(ctx, k, "1", "Range", from, to, points); err != nil {
		return hzRun{}, err
	}
	r.dayRead = st.Table().Stats()
	st.Table().ResetStats()
	if _, err := k.Latest(ctx, "1"); err != nil {
		return hzRun{}, err
	}
	r.latestRead = st.Table().Stats()
	// Timed reads: one warm-up per path, then runs rounds over the paths.
	for _, p := range readPaths {
		if err := readDay(ctx, k, "1", p, from, to, points); err != nil {
			return hzRun{}, err
		}
	}
	for range runs {
		for _, p := range readPaths {
			t0 := time.Now()
			if err := readDay(ctx, k, "1", p, from, to, points); err != nil {
				return hzRun{}, err
			}
			r.times[p] = append(r.times[p], time.Since(t0))
		}
	}
	for _, ts := range r.times {
		slices.Sort(ts)
	}
	if err := st.Close(); err != nil {
		return hzRun{}, err
	}
	if r.items, r.itemBytes, err = tableBytes(ctx, db, tableName); err != nil {
		return hzRun{}, err
	}
	if err := db.Close(); err != nil {
		return hzRun{}, err
	}
	if r.sstBytes, _, err = compactedSize(dir); err != nil {
		return hzRun{}, err
	}
	return r, nil
}

// latencies of Latest and LatestMany over many series.
type latestRun struct {
	ids, calls   int
	single       []time.Duration // sorted
	many         []time.Duration // sorted, LatestMany of manyIDs
	manyIDs      int
	engineSynced bool
}

func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// runLatest writes a few readings to each of ids series of the chunks
// layout on the embedded engine on disk (synced, as the default), flushes
// them, then times calls of Latest on series picked at random, and calls
// of LatestMany of manyIDs series.
func runLatest(ctx context.Context, e *env, ids, calls, manyIDs int) (latestRun, error) {
	dir, err := os.MkdirTemp(e.work, "latest-")
	if err != nil {
		return latestRun{}, err
	}
	defer os.RemoveAll(dir)
	db, err := local.Open(dir, nil)
	if err != nil {
		return latestRun{}, err
	}
	defer db.Close()
	st, err := series.Open(ctx, db, storeOptions("bench_latest"), series.Schema{Name: "SENSOR", Fields: ingestFields, NoRollups: true})
	if err != nil {
		return latestRun{}, err
	}
	defer st.Close()
	if err := st.EnsureTable(ctx); err != nil {
		return latestRun{}, err
	}
	k, err := st.Kind("SENSOR")
	if err != nil {
		return latestRun{}, err
	}
	start := hzDay()
	names := make([]string, ids)
	for i := range ids {
		names[i] = seriesID(i)
		w := newWalk(uint64(i), len(ingestFields))
		rs := make([]series.Reading, 10)
		for j := range rs {
			v := make([]float64, len(ingestFields))
			w.step(v)
			rs[j] = series.Reading{Time: start.Add(time.Duration(j) * time.Minute), Values: v}
		}
		if err := k.Write(ctx, names[i], rs...); err != nil {
			return latestRun{}, err
		}
	}
	if err := st.Flush(ctx); err != nil {
		return latestRun{}, err
	}
	r := latestRun{ids: ids, calls: calls, manyIDs: min(manyIDs, ids), engineSynced: true}
	rng := newWalk(99, 0)
	for i := range calls + calls/10 {
		id := names[rng.next()%uint64(ids)]
		t0 := time.Now()
		if _, err := k.Latest(ctx, id); err != nil {
			return latestRun{}, fmt.Errorf("latest %s: %w", id, err)
		}
		if d := time.Since(t0); i >= calls/10 { // the first tenth warms up
			r.single = append(r.single, d)
		}
	}
	slices.Sort(r.single)
	manyCalls := max(10, calls/1000)
	for i := range manyCalls + 2 {
		off := int(rng.next() % uint64(ids))
		batch := make([]string, r.manyIDs)
		for j := range batch {
			batch[j] = names[(off+j)%ids]
		}
		t0 := time.Now()
		got, err := k.LatestMany(ctx, batch)
		if err != nil {
			return latestRun{}, err
		}
		if d := time.Since(t0); i >= 2 {
			r.many = append(r.many, d)
		}
		if len(got) != len(batch) {
			return latestRun{}, fmt.Errorf("LatestMany returned %d of %d series", len(got), len(batch))
		}
	}
	slices.Sort(r.many)
	return r, nil
}

// unitCheck is the sample workload's consumed capacity per operation on
// the embedded engine and on DynamoDB Local.
type unitCheck struct {
	layout         series.Layout
	points         int
	local, ddb     table.Stats
	localT, remote float64 // total units
}

// sampleWorkload writes points 1 Hz readings to one series with a flush
// every 60 readings (and compacts them, for chunks), reads them back with
// Range and reads Latest, on api,
// in a table of its own, and returns the units the table client reports.
func sampleWorkload(ctx context.Context, api timetable.API, tableName string, layout series.Layout, points int) (table.Stats, error) {
	clk := &simClock{}
	o := storeOptions(tableName)
	o.Now = clk.Now
	st, err := series.Open(ctx, api, o, hzSchema(layout))
	if err != nil {
		return table.Stats{}, err
	}
	defer st.Close()
	if err := st.EnsureTable(ctx); err != nil {
		return table.Stats{}, err
	}
	st.Table().ResetStats()
	k, err := st.Kind("SENSOR")
	if err != nil {
		return table.Stats{}, err
	}
	day := hzDay()
	if err := writeHz(ctx, st, clk, k, "1", hzReadings(day, points), 60); err != nil {
		return table.Stats{}, err
	}
	if layout == series.Chunks {
		if err := compactStore(ctx, st); err != nil {
			return table.Stats{}, err
		}
	}
	if err := readDay(ctx, k, "1", "Range", day, day.Add(24*time.Hour), points); err != nil {
		return table.Stats{}, err
	}
	if _, err := k.Latest(ctx, "1"); err != nil {
		return table.Stats{}, err
	}
	s := st.Table().Stats()
	return s, st.Close()
}

func runUnitCheck(ctx context.Context, e *env, layout series.Layout, points int) (unitCheck, error) {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		return unitCheck{}, err
	}
	defer db.Close()
	name := "bench_series_" + strings.ReplaceAll(layout.String(), "-", "_")
	ls, err := sampleWorkload(ctx, db, name, layout, points)
	if err != nil {
		return unitCheck{}, fmt.Errorf("embedded engine: %w", err)
	}
	endpoint := e.cfg.ddbEndpoint
	if endpoint == "" {
		srv, err := e.DynamoDBLocal(ctx)
		if err != nil {
			return unitCheck{}, err
		}
		endpoint = srv.Endpoint
	}
	client := newSeriesClient(endpoint)
	name = fmt.Sprintf("%s_%d", name, time.Now().UnixNano())
	ds, err := sampleWorkload(ctx, client, name, layout, points)
	deleteTable(ctx, client, name)
	if err != nil {
		return unitCheck{}, fmt.Errorf("DynamoDB Local: %w", err)
	}
	return unitCheck{layout: layout, points: points, local: ls, ddb: ds,
		localT: ls.ReadUnits + ls.WriteUnits, remote: ds.ReadUnits + ds.WriteUnits}, nil
}

// opsOf returns the operation names of some stats, sorted.
func opsOf(ss ...table.Stats) []string {
	seen := map[string]bool{}
	for _, s := range ss {
		for op := range s.Ops {
			seen[op] = true
		}
	}
	var ops []string
	for op := range seen {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	return ops
}

// newSeriesClient is a client of a DynamoDB endpoint for the series
// store, whose table client retries what needs retrying.
func newSeriesClient(endpoint string) *dynamodb.Client { return peers.NewClient(endpoint, 8) }

func deleteTable(ctx context.Context, api timetable.API, name string) {
	_, _ = api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
}
