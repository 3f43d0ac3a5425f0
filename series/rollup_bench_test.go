package series

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// syncCountingAPI is a callCountingAPI that keeps its engine's Syncer, so
// that a Store with a log defers its syncs on it as on the engine.
type syncCountingAPI struct{ *callCountingAPI }

func (a syncCountingAPI) Sync(ctx context.Context) error {
	return a.API.(timetable.Syncer).Sync(ctx)
}

// rollupBenchEnv is a store with a log whose kind holds series x days of
// one-minute readings of two fields, flushed an hour at a time and
// compacted, with the markers of the finest tier that the flushes wrote.
type rollupBenchEnv struct {
	st      *Store
	k       *Kind
	api     *callCountingAPI
	markers []table.WriteRequest // the hour markers the flushes wrote
	series  int
	days    int
}

func newRollupBenchEnv(tb testing.TB, series, days int) *rollupBenchEnv {
	ctx := context.Background()
	clk := newClock(t0)
	api := &callCountingAPI{queryCounter{API: openEngine(tb, clk)}}
	opts := testOptions(tb, clk)
	opts.WALDir = tb.TempDir()
	sc := Schema{Name: "S", Fields: []string{"temperature", "humidity"}}
	st := openStore(tb, syncCountingAPI{api}, opts, sc)
	k := mustKind(tb, st, "S")
	for h := 0; h < days*24; h++ {
		for s := 0; s < series; s++ {
			rs := make([]Reading, 60)
			for i := range rs {
				n := h*60 + i
				rs[i] = Reading{
					Time:   t0.Add(time.Duration(n) * time.Minute),
					Values: []float64{20 + float64((n*7+s)%97)*0.01, 40 + float64((n+s)%13)},
				}
			}
			if err := k.Write(ctx, fmt.Sprintf("s%04d", s), rs...); err != nil {
				tb.Fatal(err)
			}
		}
		clk.Set(t0.Add(time.Duration(h+1) * time.Hour))
		if err := st.Flush(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	// Every hour due, and the days compacted (twice: merged, then the
	// sources deleted after CompactGrace).
	clk.Set(t0.Add(time.Duration(days)*24*time.Hour + time.Hour))
	for range 2 {
		for s := 0; s < series; s++ {
			if err := k.Compact(ctx, fmt.Sprintf("s%04d", s), t0, t0.Add(time.Duration(days)*24*time.Hour)); err != nil {
				tb.Fatal(err)
			}
		}
		clk.Advance(opts.CompactGrace + time.Second)
	}
	var ms []table.WriteRequest
	for item, err := range st.tbl.QueryAll(ctx, &table.Query{Hash: k.markerPK(), Consistent: true}) {
		if err != nil {
			tb.Fatal(err)
		}
		ms = append(ms, table.PutRequest(item))
	}
	if len(ms) != series*days*24 {
		tb.Fatalf("%d markers, want %d", len(ms), series*days*24)
	}
	return &rollupBenchEnv{st: st, k: k, api: api, markers: ms, series: series, days: days}
}

// remark writes the hour markers again, so that the next pass computes
// every series-hour (rollups are recomputed whole: the same work).
func (e *rollupBenchEnv) remark(tb testing.TB) {
	if err := e.st.tbl.BatchWrite(context.Background(), e.markers); err != nil {
		tb.Fatal(err)
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRollupPass times the rollup pass over series x 3 days of
// one-minute readings, compacted, every hour marked: the process's CPU
// per pass, and per series-day the table calls, read and write units.
func BenchmarkRollupPass(b *testing.B) {
	const series, days = 100, 3
	e := newRollupBenchEnv(b, series, days)
	ctx := context.Background()
	var cpu time.Duration
	var calls int64
	var ru, wu float64
	passes := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		e.remark(b)
		e.api.calls.Store(0)
		e.st.tbl.ResetStats()
		c0 := cpuTime()
		b.StartTimer()
		if err := e.st.Rollup(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		calls += e.api.calls.Load()
		s := e.st.tbl.Stats()
		ru += s.ReadUnits
		wu += s.WriteUnits
		passes++
		b.StartTimer()
	}
	sd := float64(passes * series * days)
	b.ReportMetric(float64(cpu.Milliseconds())/float64(passes), "cpu-ms/pass")
	b.ReportMetric(float64(calls)/sd, "calls/series-day")
	b.ReportMetric(ru/sd, "RU/series-day")
	b.ReportMetric(wu/sd, "WU/series-day")
}
