package promapi_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/promapi"
	"github.com/timetable-db/timetable/series"
)

// The load of the query benchmarks, the shape of the benchmark
// comparison's prometheus part: counters read as a rate over a day and
// gauges read as a sum by zone over an hour, as remote write stores them
// (a kind per metric, field "value", the labels as tags and the id).
const (
	benchCounterStep = time.Minute
	benchCounterSpan = 24 * time.Hour
	benchZones       = 10
	benchGaugeStep   = 15 * time.Second
	benchGaugeSpan   = time.Hour
)

// benchFraction divides the series of the load (1,000 counters and
// 10,000 gauges), for a quicker look at where the time goes.
var benchFraction = flag.Int("bench-fraction", 1, "divide the series of the query benchmarks' load by this")

// benchEnd is the time of the last sample of the load; the store's clock
// is two minutes later.
var benchEnd = time.Date(2025, 3, 2, 12, 0, 0, 0, time.UTC)

// benchSeries is a series of the load: its labels, its id and its kind.
type benchSeries struct {
	labels  labels.Labels
	kind    string
	id      string
	tags    []string
	step    time.Duration
	n       int
	counter bool
}

func benchLoad() []benchSeries {
	var out []benchSeries
	for i := range 1000 / max(*benchFraction, 1) {
		ls := labels.FromStrings("instance", fmt.Sprintf("host-%04d:9100", i), "job", "api")
		out = append(out, benchSeries{labels: ls, kind: "bench_requests_total", id: promapi.FormatLabelSet(ls),
			tags: []string{ls.Get("instance"), ls.Get("job")}, step: benchCounterStep, n: int(benchCounterSpan / benchCounterStep), counter: true})
	}
	for i := range 10_000 / max(*benchFraction, 1) {
		host := i / 10
		ls := labels.FromStrings("cpu", fmt.Sprint(i%10), "instance", fmt.Sprintf("host-%04d:9100", host), "job", "node", "zone", fmt.Sprintf("zone-%d", host%benchZones))
		out = append(out, benchSeries{labels: ls, kind: "bench_cpu_usage", id: promapi.FormatLabelSet(ls),
			tags: []string{ls.Get("cpu"), ls.Get("instance"), ls.Get("job"), ls.Get("zone")}, step: benchGaugeStep, n: int(benchGaugeSpan / benchGaugeStep)})
	}
	return out
}

// benchData is the load written to a store (flushed every 200,000
// readings, in time order across the series, as remote write sends
// them; compacted or not) and to Prometheus' TSDB.
type benchData struct {
	flushed, compacted *series.Store
	tsdb               storage.Queryable
}

var (
	benchOnce sync.Once
	benchDB   *benchData
	benchErr  error
)

// loadBench writes the load once for every benchmark of the process.
func loadBench(b *testing.B) *benchData {
	benchOnce.Do(func() { benchDB, benchErr = writeBench(b) })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDB
}

// benchDir is the folder of the TSDB of the load, removed by TestMain.
var benchDir string

func writeBench(b *testing.B) (*benchData, error) {
	ctx := context.Background()
	load := benchLoad()
	type sample struct {
		s int
		t time.Time
		v float64
	}
	// The samples in time order across the series, each series' values
	// from its own generator.
	var samples []sample
	for i, s := range load {
		rng := rand.New(rand.NewPCG(uint64(i), 24))
		v := 0.0
		if !s.counter {
			v = float64(rng.IntN(100))
		}
		start := benchEnd.Add(-time.Duration(s.n-1) * s.step)
		for j := range s.n {
			if s.counter {
				v += float64(rng.IntN(100))
			} else {
				v = math.Round(min(100, max(0, v+rng.NormFloat64()))*100) / 100
			}
			samples = append(samples, sample{i, start.Add(time.Duration(j) * s.step), v})
		}
	}
	slices.SortStableFunc(samples, func(a, c sample) int { return a.t.Compare(c.t) })

	var dbs []*local.DB
	open := func() (*series.Store, *testenv.Clock, error) {
		clk := testenv.NewClock(benchEnd.Add(2 * time.Minute))
		db, err := local.Open("", &local.Options{InMemory: true, Now: clk.Now})
		if err != nil {
			return nil, nil, err
		}
		dbs = append(dbs, db)
		st, err := series.Open(ctx, db, &series.Options{Now: clk.Now, FlushInterval: -1, RollupInterval: -1, CompactInterval: -1, RefreshInterval: -1},
			series.Schema{Name: "bench_requests_total", Fields: []string{"value"}, Tags: []string{"instance", "job"}},
			series.Schema{Name: "bench_cpu_usage", Fields: []string{"value"}, Tags: []string{"cpu", "instance", "job", "zone"}},
		)
		if err != nil {
			return nil, nil, err
		}
		return st, clk, st.EnsureTable(ctx)
	}
	write := func(st *series.Store) error {
		const batch = 500
		for i := 0; i < len(samples); i += batch {
			byKind := map[string][]series.SeriesReadings{}
			for _, smp := range samples[i:min(i+batch, len(samples))] {
				s := load[smp.s]
				byKind[s.kind] = append(byKind[s.kind], series.SeriesReadings{ID: s.id, Readings: []series.Reading{{Time: smp.t, Values: []float64{smp.v}, Tags: s.tags}}})
			}
			for name, srs := range byKind {
				k, err := st.Kind(name)
				if err != nil {
					return err
				}
				if err := k.WriteMany(ctx, srs); err != nil {
					return err
				}
			}
		}
		return st.Flush(ctx)
	}
	d := &benchData{}
	var err error
	if d.flushed, _, err = open(); err != nil {
		return nil, err
	}
	if err := write(d.flushed); err != nil {
		return nil, err
	}
	st, clk, err := open()
	if err != nil {
		return nil, err
	}
	if err := write(st); err != nil {
		return nil, err
	}
	// Every hour merged, the days ended merged, the sources deleted.
	for range 2 {
		if err := st.Compact(ctx); err != nil {
			return nil, err
		}
		clk.Advance(15 * time.Minute)
	}
	d.compacted = st

	if benchDir, err = os.MkdirTemp("", "promapi-bench"); err != nil {
		return nil, err
	}
	db, err := tsdb.Open(benchDir, nil, nil, &tsdb.Options{OutOfOrderTimeWindow: int64(48 * time.Hour / time.Millisecond)}, nil)
	if err != nil {
		return nil, err
	}
	app := db.Appender(ctx)
	for _, smp := range samples {
		s := load[smp.s]
		ls := labels.NewBuilder(s.labels).Set("__name__", s.kind).Labels()
		if _, err := app.Append(0, ls, smp.t.UnixMilli(), smp.v); err != nil {
			return nil, err
		}
	}
	if err := app.Commit(); err != nil {
		return nil, err
	}
	d.tsdb = db
	// The engines' background compactions done, so that they do not run
	// during the measures.
	for quiet := 0; quiet < 10; {
		time.Sleep(100 * time.Millisecond)
		quiet++
		for _, db := range dbs {
			if m := db.Metrics(); m.Compact.NumInProgress > 0 || m.Flush.NumInProgress > 0 {
				quiet = 0
			}
		}
	}
	return d, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchQueries are the two queries of the benchmark comparison, over the
// range it asks.
var benchQueries = []struct {
	name, query string
	span, step  time.Duration
}{
	{"rate-1000-24h", `rate(bench_requests_total[5m])`, 24 * time.Hour, time.Minute},
	{"sum-by-10000-1h", `sum by (zone) (bench_cpu_usage)`, time.Hour, 15 * time.Second},
}

// BenchmarkQueryRange runs the queries of the benchmark comparison
// through Prometheus' engine over the store (its chunks as flushed, and
// compacted) and over Prometheus' TSDB holding the same samples.
func BenchmarkQueryRange(b *testing.B) {
	d := loadBench(b)
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 50_000_000, Timeout: 10 * time.Minute, LookbackDelta: 5 * time.Minute})
	ctx := context.Background()
	for _, q := range benchQueries {
		for _, src := range []struct {
			name string
			q    storage.Queryable
		}{
			{"flushed", &promapi.Queryable{Store: d.flushed}},
			{"compacted", &promapi.Queryable{Store: d.compacted}},
			{"tsdb", d.tsdb},
		} {
			b.Run(q.name+"/"+src.name, func(b *testing.B) {
				end := benchEnd.Add(time.Minute).Truncate(q.step)
				b.ReportAllocs()
				cpu0 := processCPU()
				for b.Loop() {
					pq, err := engine.NewRangeQuery(ctx, src.q, nil, q.query, end.Add(-q.span), end, q.step)
					if err != nil {
						b.Fatal(err)
					}
					res := pq.Exec(ctx)
					if res.Err != nil {
						b.Fatal(res.Err)
					}
					if m, ok := res.Value.(promql.Matrix); !ok || len(m) == 0 {
						b.Fatalf("no series: %v", res.Value)
					}
					pq.Close()
				}
				b.ReportMetric(float64((processCPU()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// processCPU returns the CPU time the process used so far: on a machine
// shared with other work, a steadier measure than the wall clock.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
