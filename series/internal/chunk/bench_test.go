package chunk

import (
	"fmt"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/testenv"
)

// itemOverhead is what a DynamoDB item of a chunk costs besides the chunk
// bytes, by DynamoDB's size rules: 100 bytes of per-item storage overhead,
// plus about 100 bytes of keys (pk "SENSOR#id", sk an ISO timestamp),
// attribute names and aggregates per field. It is an estimate: the store
// decides the real attributes.
func itemOverhead(fields int) int { return 100 + 60 + 40*fields }

// benchSize encodes s once per iteration and reports the chunk's bytes per
// reading and per value, and per reading with the item overhead.
func benchSize(b *testing.B, s *series) {
	b.Helper()
	a := s.appender(b)
	var enc []byte
	b.ReportAllocs()
	for b.Loop() {
		enc = a.Bytes()
	}
	c, err := Open(enc)
	if err != nil {
		b.Fatal(err)
	}
	n, k := float64(c.Len()), float64(c.NumFields())
	b.ReportMetric(float64(len(enc))/n, "B/reading")
	b.ReportMetric(float64(len(enc))/n/k, "B/value")
	b.ReportMetric(float64(len(enc)+itemOverhead(c.NumFields()))/n, "item-B/reading")
	b.ReportMetric(n, "readings/chunk")
}

// BenchmarkSize reports the bytes per reading of the benchmark series:
// (a) 1 Hz, one field, random walk with two decimals, hour and day chunks;
// (b) one-minute readings of 3 such fields, day chunks; (c) a float gauge
// as Prometheus scrapes it, every 15 s, full precision, day chunks; (d)
// the series store benchmark's readings: one a minute, 3 fields, each
// moving by -0.10 to +0.10 in steps of 0.01 (21 steps, uniform).
func BenchmarkSize(b *testing.B) {
	b.Run("walk1Hz/hour", func(b *testing.B) { benchSize(b, walkSeries(1, 3600, 1, 1000, 0.5)) })
	b.Run("walk1Hz/day", func(b *testing.B) { benchSize(b, walkSeries(1, 86400, 1, 1000, 0.5)) })
	b.Run("minute3/day", func(b *testing.B) { benchSize(b, walkSeries(2, 1440, 3, 60000, 0.5)) })
	b.Run("minute3/week", func(b *testing.B) { benchSize(b, walkSeries(2, 7*1440, 3, 60000, 0.5)) })
	b.Run("gauge15s/day", func(b *testing.B) { benchSize(b, gaugeSeries(3, 5760)) })
	b.Run("cents3/day", func(b *testing.B) { benchSize(b, centsSeries(6, 1440, 3, 60000, 10)) })
	b.Run("cents3/week", func(b *testing.B) { benchSize(b, centsSeries(6, 7*1440, 3, 60000, 10)) })
}

// BenchmarkSize_WalkStep shows how the size of a 1 Hz hour of a two-decimal
// random walk follows its step (uniform in ±step).
func BenchmarkSize_WalkStep(b *testing.B) {
	for _, step := range []float64{0.01, 0.05, 0.1, 0.5, 1, 10} {
		b.Run(fmt.Sprint(step), func(b *testing.B) { benchSize(b, walkSeries(1, 3600, 1, 1000, step)) })
	}
}

// BenchmarkDecodeAll_Day decodes one day of 1 Hz readings (86,400 points)
// of one two-decimal field, from the bytes: Open and DecodeAll into
// caller-provided slices.
func BenchmarkDecodeAll_Day(b *testing.B) {
	for _, tc := range []struct {
		name string
		s    *series
	}{
		{"walk", walkSeries(1, 86400, 1, 1000, 0.5)},
		{"gauge", func() *series { s := gaugeSeries(3, 86400); s.ts = walkSeries(1, 86400, 1, 1000, 0.5).ts; return s }()},
	} {
		b.Run(tc.name, func(b *testing.B) {
			enc := tc.s.encode(b)
			ts := make([]int64, 86400)
			vals := [][]float64{make([]float64, 86400)}
			b.ReportAllocs()
			b.SetBytes(int64(len(enc)))
			cpu := testenv.CPUTime()
			decodeLoop(b, enc, ts, vals)
			reportPerPoint(b, cpu, 86400)
		})
	}
}

// decodeLoop opens enc and decodes every column into ts and vals once per
// iteration of b.Loop.
func decodeLoop(b *testing.B, enc []byte, ts []int64, vals [][]float64) {
	for b.Loop() {
		c, err := Open(enc)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.DecodeAll(ts, vals); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIterator_Day walks one day of 1 Hz readings with the Iterator.
func BenchmarkIterator_Day(b *testing.B) {
	enc := walkSeries(1, 86400, 1, 1000, 0.5).encode(b)
	b.ReportAllocs()
	cpu := testenv.CPUTime()
	for b.Loop() {
		c, err := Open(enc)
		if err != nil {
			b.Fatal(err)
		}
		it := c.Iterator()
		for it.Next() {
			it.At()
		}
		if it.Err() != nil {
			b.Fatal(it.Err())
		}
	}
	reportPerPoint(b, cpu, 86400)
}

// reportPerPoint reports wall and CPU time per point and CPU time per op:
// on a machine shared with other work, CPU time is the steadier figure.
func reportPerPoint(b *testing.B, cpuStart time.Duration, points int) {
	cpu := float64((testenv.CPUTime() - cpuStart).Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(points), "ns/point")
	b.ReportMetric(cpu/float64(points), "cpu-ns/point")
	b.ReportMetric(cpu/1e6, "cpu-ms/op")
}

// BenchmarkAppend appends one hour of 1 Hz readings of one field and
// encodes it.
func BenchmarkAppend(b *testing.B) {
	s := walkSeries(1, 3600, 1, 1000, 0.5)
	a, _ := NewAppender(s.fields)
	row := make([]float64, 1)
	b.ReportAllocs()
	cpu := testenv.CPUTime()
	for b.Loop() {
		a.Reset()
		for j, t := range s.ts {
			row[0] = s.vals[0][j]
			_ = a.Append(t, row)
		}
		_ = a.Bytes()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/3600, "ns/reading")
	b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N)/3600, "cpu-ns/reading")
}

// BenchmarkBytes_Ingest encodes chunks of the series store's durable
// ingest benchmark: a flush per series and hour, 60 one-minute readings of
// 3 fields, each a walk of -10 to +10 cents a reading (uniform); "short"
// has the 17 readings of a flush edge. Each op encodes one chunk of a set
// of 64 series, so that no branch predictor learns one chunk by heart.
func BenchmarkBytes_Ingest(b *testing.B) {
	for _, n := range []struct {
		name     string
		readings int
	}{{"hour", 60}, {"short", 17}} {
		b.Run(n.name, func(b *testing.B) {
			apps := make([]*Appender, 64)
			for i := range apps {
				apps[i] = centsSeries(uint64(100+i), n.readings, 3, 60000, 10).appender(b)
			}
			b.ReportAllocs()
			i := 0
			cpu := testenv.CPUTime()
			for b.Loop() {
				_ = apps[i%len(apps)].Bytes()
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(3*n.readings), "ns/value")
			b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N)/float64(3*n.readings), "cpu-ns/value")
		})
	}
}
