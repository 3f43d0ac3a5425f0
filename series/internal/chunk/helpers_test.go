package chunk

import (
	"math"
	"math/rand/v2"
	"testing"
)

// series is a sequence of readings used by tests and benchmarks.
type series struct {
	fields []string
	ts     []int64
	vals   [][]float64 // vals[field][reading]
}

func newSeries(fields ...string) *series {
	return &series{fields: fields, vals: make([][]float64, len(fields))}
}

func (s *series) add(t int64, vs ...float64) {
	s.ts = append(s.ts, t)
	for i, v := range vs {
		s.vals[i] = append(s.vals[i], v)
	}
}

func (s *series) appender(tb testing.TB) *Appender {
	tb.Helper()
	a, err := NewAppender(s.fields)
	if err != nil {
		tb.Fatal(err)
	}
	s.appendTo(tb, a, nil)
	return a
}

// appendTo appends the readings of s to a, calling after (if not nil)
// after each with its index.
func (s *series) appendTo(tb testing.TB, a *Appender, after func(j int)) {
	tb.Helper()
	row := make([]float64, len(s.fields))
	for j, t := range s.ts {
		for i := range row {
			row[i] = s.vals[i][j]
		}
		if err := a.Append(t, row); err != nil {
			tb.Fatalf("reading %d: %v", j, err)
		}
		if after != nil {
			after(j)
		}
	}
}

func (s *series) encode(tb testing.TB) []byte {
	tb.Helper()
	return s.appender(tb).Bytes()
}

// start is 2024-12-01T00:00:00Z in milliseconds.
const start = 1733011200000

// round2 rounds to two decimals the way a parser of "12.34" would.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// walk is a random walk with two decimals: each step is uniform in
// [-step, step), and the value is rounded to cents.
func walk(r *rand.Rand, n int, step float64) []float64 {
	vs := make([]float64, n)
	v := 100.0
	for i := range vs {
		v = round2(v + (r.Float64()*2-1)*step)
		vs[i] = v
	}
	return vs
}

// regular returns n timestamps every interval milliseconds, each moved by
// up to ±jitter milliseconds (sorted again, so that jitter never reorders).
func regular(r *rand.Rand, n int, interval, jitter int64) []int64 {
	ts := make([]int64, n)
	for i := range ts {
		ts[i] = start + int64(i)*interval
		if jitter > 0 {
			ts[i] += r.Int64N(2*jitter+1) - jitter
		}
		if i > 0 && ts[i] < ts[i-1] {
			ts[i] = ts[i-1]
		}
	}
	return ts
}

// walkSeries is n readings every interval ms of k fields, each a random
// walk with two decimals.
func walkSeries(seed uint64, n, k int, interval int64, step float64) *series {
	r := rand.New(rand.NewPCG(seed, 1))
	names := []string{"temperature", "humidity", "pressure", "f3", "f4", "f5"}[:k]
	s := newSeries(names...)
	s.ts = regular(r, n, interval, 0)
	for i := range s.vals {
		s.vals[i] = walk(r, n, step)
	}
	return s
}

// centsSeries is n readings every interval ms of k fields, each a random
// walk with two decimals whose steps are uniform over -maxStep..maxStep
// cents.
func centsSeries(seed uint64, n, k int, interval int64, maxStep int64) *series {
	r := rand.New(rand.NewPCG(seed, 3))
	s := newSeries([]string{"a", "b", "c", "d"}[:k]...)
	s.ts = regular(r, n, interval, 0)
	for i := range s.vals {
		cents := 2000 + r.Int64N(1000)
		s.vals[i] = make([]float64, n)
		for j := range s.vals[i] {
			cents += r.Int64N(2*maxStep+1) - maxStep
			s.vals[i][j] = float64(cents) / 100
		}
	}
	return s
}

// gaugeSeries is like a Prometheus float gauge scraped every 15 s with a
// few ms of jitter: a smooth curve plus noise, at full float precision.
func gaugeSeries(seed uint64, n int) *series {
	r := rand.New(rand.NewPCG(seed, 2))
	s := newSeries("value")
	s.ts = regular(r, n, 15000, 5)
	s.vals[0] = make([]float64, n)
	for i := range s.vals[0] {
		s.vals[0][i] = 0.5 + 0.3*math.Sin(float64(i)/200) + r.NormFloat64()*0.01
	}
	return s
}

// check decodes b three ways (Iterator, DecodeAll, Aggregates) and
// compares with s bit for bit.
func (s *series) check(tb testing.TB, b []byte) {
	tb.Helper()
	c, err := Open(b)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	n := len(s.ts)
	if c.Len() != n || c.NumFields() != len(s.fields) {
		tb.Fatalf("chunk has %d readings of %d fields, want %d of %d", c.Len(), c.NumFields(), n, len(s.fields))
	}
	if n > 0 && (c.MinTime() != s.ts[0] || c.MaxTime() != s.ts[n-1]) {
		tb.Fatalf("time range %d..%d, want %d..%d", c.MinTime(), c.MaxTime(), s.ts[0], s.ts[n-1])
	}
	for i, name := range s.fields {
		if c.Field(i) != name || c.Index(name) != i {
			tb.Fatalf("field %d is %q, want %q", i, c.Field(i), name)
		}
	}
	it := c.Iterator()
	j := 0
	for it.Next() {
		t, vs := it.At()
		if j >= n {
			tb.Fatalf("more than %d readings", n)
		}
		if t != s.ts[j] {
			tb.Fatalf("iterator: reading %d at %d, want %d", j, t, s.ts[j])
		}
		for i, v := range vs {
			if math.Float64bits(v) != math.Float64bits(s.vals[i][j]) {
				tb.Fatalf("iterator: reading %d field %d = %v (%#x), want %v (%#x)", j, i, v, math.Float64bits(v), s.vals[i][j], math.Float64bits(s.vals[i][j]))
			}
		}
		j++
	}
	if err := it.Err(); err != nil {
		tb.Fatalf("iterator: %v", err)
	}
	if j != n {
		tb.Fatalf("iterator: %d readings, want %d", j, n)
	}
	ts := make([]int64, n)
	vals := make([][]float64, len(s.fields))
	for i := range vals {
		vals[i] = make([]float64, n)
	}
	if err := c.DecodeAll(ts, vals); err != nil {
		tb.Fatalf("DecodeAll: %v", err)
	}
	for j := range ts {
		if ts[j] != s.ts[j] {
			tb.Fatalf("DecodeAll: reading %d at %d, want %d", j, ts[j], s.ts[j])
		}
		for i := range vals {
			if math.Float64bits(vals[i][j]) != math.Float64bits(s.vals[i][j]) {
				tb.Fatalf("DecodeAll: reading %d field %d = %v, want %v", j, i, vals[i][j], s.vals[i][j])
			}
		}
	}
	got, err := c.Aggregates()
	if err != nil {
		tb.Fatalf("Aggregates: %v", err)
	}
	want := s.aggregates()
	for i := range want {
		if !sameAggregate(got[i], want[i]) {
			tb.Fatalf("field %d aggregates %+v, want %+v", i, got[i], want[i])
		}
	}
}

// aggregates computes the aggregates of s the plain way.
func (s *series) aggregates() []Aggregate {
	aggs := make([]Aggregate, len(s.fields))
	for i, vs := range s.vals {
		a := &aggs[i]
		for j, v := range vs {
			if math.IsNaN(v) {
				continue
			}
			if a.Count == 0 {
				a.Min, a.Max, a.First, a.FirstTime = v, v, v, s.ts[j]
			}
			a.Count++
			a.Sum += v
			a.Min = math.Min(a.Min, v)
			a.Max = math.Max(a.Max, v)
			a.Last, a.LastTime = v, s.ts[j]
		}
	}
	return aggs
}

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b)) || (a == 0 && b == 0)
}

func sameAggregate(a, b Aggregate) bool {
	return a.Count == b.Count && sameFloat(a.Sum, b.Sum) && sameFloat(a.Min, b.Min) && sameFloat(a.Max, b.Max) &&
		sameFloat(a.First, b.First) && sameFloat(a.Last, b.Last) && a.FirstTime == b.FirstTime && a.LastTime == b.LastTime
}

// sensorSeries is n readings every interval ms of a sensor that reports
// two decimals, such as a thermometer at 21.37: the reading wanders by up
// to ±2 hundredths at a time and stays put half of the time.
func sensorSeries(seed uint64, n int, interval int64) *series {
	r := rand.New(rand.NewPCG(seed, 4))
	s := newSeries("temperature")
	s.ts = regular(r, n, interval, 0)
	s.vals[0] = make([]float64, n)
	m := int64(2137)
	for j := range s.vals[0] {
		if r.IntN(2) == 0 {
			m += r.Int64N(5) - 2
		}
		s.vals[0][j] = float64(m) / 100
	}
	return s
}

// nodeExporterFields are the fields of nodeExporterSeries.
var nodeExporterFields = []string{
	"up", "boot_time_seconds", "memory_total_bytes", "filesystem_size_bytes", "cpu_count",
	"cpu_seconds_total", "network_receive_bytes_total", "context_switches_total",
	"memory_available_bytes", "filesystem_avail_bytes", "load1", "procs_running",
}

// nodeExporterSeries is n scrapes, every 15 s with ±5 ms of jitter, of a
// host as node-exporter reports it: five constant series, counters (CPU
// seconds in hundredths, bytes and context switches as integers), memory
// and disk gauges in 4 KiB pages, the load average in hundredths and a
// small count.
func nodeExporterSeries(seed uint64, n int) *series {
	r := rand.New(rand.NewPCG(seed, 5))
	s := newSeries(nodeExporterFields...)
	s.ts = regular(r, n, 15000, 5)
	for i := range s.vals {
		s.vals[i] = make([]float64, n)
	}
	cpu, rx, ctx := int64(123456789), int64(987654321012), int64(55555555)
	memPages, fsPages := int64(2_000_000), int64(50_000_000)
	load := int64(150)
	for j := range n {
		cpu += 1400 + r.Int64N(200) // hundredths of a second of 15 s on one CPU
		rx += r.Int64N(2_000_000)
		ctx += 20_000 + r.Int64N(5_000)
		memPages += r.Int64N(2001) - 1000
		if r.IntN(20) == 0 {
			fsPages -= r.Int64N(100)
		}
		load = max(0, load+r.Int64N(21)-10)
		row := []float64{
			1, 1733000000, 16_777_216 * 1024, 512 * 1024 * 1024 * 1024, 8,
			float64(cpu) / 100, float64(rx), float64(ctx),
			float64(memPages * 4096), float64(fsPages * 4096), float64(load) / 100, float64(1 + r.IntN(4)),
		}
		for i, v := range row {
			s.vals[i][j] = v
		}
	}
	return s
}
