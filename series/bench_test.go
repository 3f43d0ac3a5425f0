package series

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/table"
)

// benchStore opens a store on a fresh in-memory engine.
func benchStore(b *testing.B, sc Schema) (*Store, *clock) {
	clk := newClock(t0.Add(48 * time.Hour))
	st := openStore(b, openEngine(b, clk), testOptions(b, clk), sc)
	return st, clk
}

func BenchmarkLatest(b *testing.B) {
	ctx := context.Background()
	st, _ := benchStore(b, Schema{Name: "S", Fields: []string{"v"}, NoRollups: true})
	k := mustKind(b, st, "S")
	for i := 0; i < 100; i++ {
		if err := k.WriteSync(ctx, fmt.Sprint("s", i), Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{float64(i)}}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := k.Latest(ctx, fmt.Sprint("s", i%100)); err != nil {
			b.Fatal(err)
		}
		if len(lat) < cap(lat) {
			lat = append(lat, time.Since(start))
		}
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us")
}

// BenchmarkRange_Day reads one day of 1 Hz readings of one field, written
// by flushes of flushEvery readings, and compacted by that many passes
// (one: the hours merged, their sources not yet deleted; three: the day
// merged and its sources deleted), with Iter and with Range.
func BenchmarkRange_Day(b *testing.B) {
	for _, c := range []struct {
		flushEvery int
		passes     int
	}{{60, 0}, {3600, 0}, {60, 1}, {60, 3}} {
		flushEvery := c.flushEvery
		name := fmt.Sprintf("chunks-of-%d", flushEvery)
		switch c.passes {
		case 1:
			name += "-in-grace"
		case 3:
			name += "-compacted"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			st, clk := benchStore(b, Schema{Name: "S", Fields: []string{"v"}, NoRollups: true})
			k := mustKind(b, st, "S")
			rs := make([]Reading, 86400)
			v := 20.0
			for i := range rs {
				v += float64(i%7-3) * 0.01
				rs[i] = Reading{Time: t0.Add(time.Duration(i) * time.Second), Values: []float64{float64(int(v*100)) / 100}}
			}
			for i := 0; i < len(rs); i += flushEvery {
				if err := k.Write(ctx, "s", rs[i:i+flushEvery]...); err != nil {
					b.Fatal(err)
				}
				if err := st.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			}
			// Hours merged, then (the walk is calm: its day of chunks is
			// under dayChunkBytes) the day, then the hours deleted.
			for range c.passes {
				if err := k.Compact(ctx, "s", t0, t0.Add(24*time.Hour)); err != nil {
					b.Fatal(err)
				}
				clk.Advance(st.opts.CompactGrace + time.Second)
			}
			q := Query{From: t0, To: t0.Add(24 * time.Hour)}
			b.Run("Iter", func(b *testing.B) {
				measureRead(b, st, func() {
					n := 0
					it := k.Iter(ctx, "s", q)
					for it.Next() {
						n++
					}
					if it.Err() != nil || n != len(rs) {
						b.Fatal(n, it.Err())
					}
				})
			})
			// A page of all the readings handed to a function, not
			// collected: what the HTTP API's readings route does.
			b.Run("RangeFunc", func(b *testing.B) {
				measureRead(b, st, func() {
					n := 0
					cur, err := k.RangeFunc(ctx, "s", q, func(Reading) error { n++; return nil })
					if err != nil || n != len(rs) || cur != "" {
						b.Fatal(n, cur, err)
					}
				})
			})
			b.Run("Range", func(b *testing.B) {
				measureRead(b, st, func() {
					p, err := k.Range(ctx, "s", q)
					if err != nil || len(p.Readings) != len(rs) {
						b.Fatal(err)
					}
				})
			})
			// The day in pages, each resumed from the cursor of the one
			// before, as the HTTP API's clients read it.
			for _, size := range []int{1000, 100} {
				b.Run(fmt.Sprintf("Range-pages-of-%d", size), func(b *testing.B) {
					st.Table().ResetStats()
					b.ReportAllocs()
					for b.Loop() {
						pq, n := q, 0
						pq.PageSize = size
						for {
							p, err := k.Range(ctx, "s", pq)
							if err != nil {
								b.Fatal(err)
							}
							n += len(p.Readings)
							if p.Cursor == "" {
								break
							}
							pq.Cursor = p.Cursor
						}
						if n != len(rs) {
							b.Fatal(n)
						}
					}
					reportTableCalls(b, st.Table().Stats())
				})
			}
		})
	}
}

// measureRead runs read once per iteration of b.Loop and reports its
// allocations, CPU time and table calls.
func measureRead(b *testing.B, st *Store, read func()) {
	st.Table().ResetStats()
	b.ReportAllocs()
	cpu := testenv.CPUTime()
	for b.Loop() {
		read()
	}
	reportCPU(b, cpu)
	reportTableCalls(b, st.Table().Stats())
}

// reportCPU reports the process's CPU time per op since cpu (from
// testenv.CPUTime): on a machine shared with other work, the steadier
// figure than the wall time.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
}

// reportTableCalls reports the read units and the table calls (Query and
// GetItem) per op of a benchmark whose table counters were reset before
// its loop.
func reportTableCalls(b *testing.B, s table.Stats) {
	b.ReportMetric(s.ReadUnits/float64(b.N), "RCU/op")
	b.ReportMetric(float64(s.Ops["Query"].Calls)/float64(b.N), "queries/op")
	b.ReportMetric(float64(s.Ops["GetItem"].Calls)/float64(b.N), "gets/op")
}

// BenchmarkWrite_WAL writes batches of 100 readings of 3 fields through the
// buffer with a write-ahead log, from 8 goroutines, flushing as the buffer
// fills. It reports readings per second.
func BenchmarkWrite_WAL(b *testing.B) {
	ctx := context.Background()
	clk := newClock(t0.Add(48 * time.Hour))
	opts := testOptions(b, clk)
	opts.WALDir = b.TempDir()
	opts.FlushSize = 200_000
	st := openStore(b, openEngine(b, clk), opts, Schema{Name: "S", Fields: []string{"a", "b", "c"}})
	k := mustKind(b, st, "S")
	batch := make([]Reading, 100)
	for i := range batch {
		batch[i] = Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{1.25, 2.5, float64(i)}}
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if err := k.Write(ctx, fmt.Sprint("s", i%1000), batch...); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
	if err := st.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*len(batch))/time.Since(start).Seconds(), "readings/s")
}

// ingestReadings returns n one-minute readings of 3 fields from start, a
// random walk with two decimals, as the ingest benchmark writes them.
func ingestReadings(n int, start time.Time) []Reading {
	rs := make([]Reading, n)
	v := []float64{20, 50, 1000}
	x := uint64(12345)
	for i := range rs {
		vals := make([]float64, len(v))
		for j := range v {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v[j] = math.Round((v[j]+float64(int64(x%201)-100)/100)*100) / 100
			vals[j] = v[j]
		}
		rs[i] = Reading{Time: start.Add(time.Duration(i) * time.Minute), Values: vals}
	}
	return rs
}

// BenchmarkApplyItems builds the items a flush writes for one series of
// the ingest benchmark (200 one-minute readings of 3 fields): chunk
// items, the latest reading and markers, without writing them.
func BenchmarkApplyItems(b *testing.B) {
	st, _ := benchStore(b, Schema{Name: "S", Fields: []string{"a", "b", "c"}, NoRollups: true})
	k := mustKind(b, st, "S")
	recs, err := k.prepareNumbered("100001", ingestReadings(200, t0.Add(-2*time.Hour)))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		items, last, err := k.chunkItems("100001", recs)
		if err != nil || len(items) == 0 {
			b.Fatal(err)
		}
		_ = k.latestItem("100001", ranked{recs[len(recs)-1], last})
		_ = k.markersFor("100001", recs)
	}
}

// BenchmarkPrepare checks a Write of the ingest benchmark (60 readings of
// 3 fields) and encodes its write-ahead log record.
func BenchmarkPrepare(b *testing.B) {
	st, _ := benchStore(b, Schema{Name: "S", Fields: []string{"a", "b", "c"}, NoRollups: true})
	k := mustKind(b, st, "S")
	rs := ingestReadings(60, t0.Add(-2*time.Hour))
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		recs, err := k.prepareNumbered("100001", rs)
		if err != nil {
			b.Fatal(err)
		}
		buf = appendWALReadings(buf[:0], k.s.Name, "100001", recs)
	}
}

// BenchmarkPutUnit stores the aggregates of a chunk of the ingest
// benchmark (60 readings of 3 fields) in an item.
func BenchmarkPutUnit(b *testing.B) {
	s := &Schema{Fields: []string{"a", "b", "c"}}
	u := newUnit(3)
	u.n = 60
	for i := range u.fields {
		u.fields[i] = agg{n: 60, sum: 1234.5600000000002 * float64(i+1), min: 19.5, max: 21.25 + float64(i),
			first: 20.03, last: 20.71, firstT: 4102444800000, lastT: 4102448340000}
	}
	b.ReportAllocs()
	for b.Loop() {
		putUnit(make(table.Item, 8), s, u)
	}
}

// BenchmarkBufferAdd buffers Writes of the ingest benchmark (60 readings
// of 3 fields, 1000 series in turn) without a log, sealing a batch every
// 200,000 readings and dropping it unwritten. It measures the buffer's
// own work per Write: checking, sequencing and keeping the readings.
func BenchmarkBufferAdd(b *testing.B) {
	st, _ := benchStore(b, Schema{Name: "S", Fields: []string{"a", "b", "c"}, NoRollups: true})
	k := mustKind(b, st, "S")
	rs := ingestReadings(60, t0.Add(-2*time.Hour))
	ids := make([]string, 1000)
	for i := range ids {
		ids[i] = fmt.Sprint(100000 + i)
	}
	ctx := context.Background()
	start := t0.Add(-20 * 24 * time.Hour)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		// Each series' next hour.
		from := start.Add(time.Duration(n/len(ids)) * time.Hour)
		for i := range rs {
			rs[i].Time = from.Add(time.Duration(i) * time.Minute)
		}
		if err := k.Write(ctx, ids[n%len(ids)], rs...); err != nil {
			b.Fatal(err)
		}
		n++
		if n%(200_000/60) == 0 {
			st.buf.seal()
			st.buf.mu.Lock()
			st.buf.queue, st.buf.queued = nil, 0
			st.buf.mu.Unlock()
		}
	}
}

// BenchmarkFlush_ManySeries flushes one reading of each of 1M series
// (10,000 with -short), as a fleet of devices reporting once a minute
// sends: each iteration writes the next minute of every series, in
// WriteMany calls of 5,000 (as line-protocol requests), and flushes them
// in one flush through the embedded engine in memory. The first minute's
// series are new to the Store (directory items, marker cache entries),
// the later ones are not. It reports the flush's time per series
// (flush-ns/series) and the heap in use after it per series
// (heap-B/series: the Store's bookkeeping and the engine's in-memory
// table).
func BenchmarkFlush_ManySeries(b *testing.B) {
	n := 1_000_000
	if testing.Short() {
		n = 10_000
	}
	ctx := context.Background()
	clk := newClock(t0.Add(48 * time.Hour))
	opts := testOptions(b, clk)
	opts.FlushSize, opts.MaxBuffered = 2*n, 4*n
	st := openStore(b, openEngine(b, clk), opts, Schema{Name: "DEV", Fields: []string{"v"}})
	k := mustKind(b, st, "DEV")
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("dev%07d", i)
	}
	const perCall = 5000
	batch := make([]SeriesReadings, perCall)
	var flushed time.Duration
	minute := 0
	b.ReportAllocs()
	for b.Loop() {
		at := t0.Add(47*time.Hour + time.Duration(minute)*time.Minute)
		for i := 0; i < n; i += perCall {
			m := min(perCall, n-i)
			for j := range m {
				batch[j] = SeriesReadings{ID: ids[i+j], Readings: []Reading{{Time: at, Values: []float64{float64(minute)}}}}
			}
			if err := k.WriteMany(ctx, batch[:m]); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if err := st.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		flushed += time.Since(start)
		minute++
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(flushed.Nanoseconds())/float64(minute*n), "flush-ns/series")
	b.ReportMetric(float64(ms.HeapInuse)/float64(n), "heap-B/series")
}
