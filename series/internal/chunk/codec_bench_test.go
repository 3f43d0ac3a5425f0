package chunk

import (
	"testing"

	"github.com/timetable-db/timetable/internal/testenv"
)

// codecDatasets are the series BenchmarkCodec compares the codings on:
// (a) the random walks of the benchmarks (BenchmarkSize's 1 Hz walk and
// the series store benchmark's three fields moving by -0.10 to +0.10 each
// minute); (b) a sensor of two decimals, such as a thermometer at 21.37,
// that changes by a few hundredths half of the time; (c) node-exporter-like
// scrapes every 15 s: constant series, counters, page-sized gauges, the
// load average; and a float gauge at full precision.
func codecDatasets() []corpusCase {
	return []corpusCase{
		{"walk1Hz/hour", walkSeries(1, 3600, 1, 1000, 0.5)},
		{"cents3/day", centsSeries(6, 1440, 3, 60000, 10)},
		{"sensor1Hz/hour", sensorSeries(1, 3600, 1000)},
		{"sensor1Hz/day", sensorSeries(1, 86400, 1000)},
		{"nodeExporter15s/hour", nodeExporterSeries(1, 240)},
		{"nodeExporter15s/day", nodeExporterSeries(1, 5760)},
		{"gauge15s/day", gaugeSeries(3, 5760)},
	}
}

// codecs are the encoders BenchmarkCodec compares: XOR values only (as
// Gorilla and Prometheus code them; the timestamps are coded as always),
// the decimal encodings without factors, and every encoding.
var codecs = []struct {
	name string
	set  func(*encoder)
}{
	{"xor", func(e *encoder) { e.xorOnly = true }},
	{"decimal", func(e *encoder) { e.noFactors = true }},
	{"factor", func(*encoder) {}},
}

// BenchmarkCodec encodes and decodes each dataset with each coding:
// "encode" is Appender.Bytes of the whole chunk, reporting its bytes per
// value (B/value, the chunk's bytes over readings times fields) and the
// CPU time per value; "decode" is Open and DecodeAll of every column.
func BenchmarkCodec(b *testing.B) {
	for _, d := range codecDatasets() {
		values := float64(len(d.s.ts) * len(d.s.fields))
		for _, codec := range codecs {
			a := d.s.appender(b)
			codec.set(&a.enc)
			enc := a.Bytes()
			d.s.check(b, enc)
			b.Run(d.name+"/"+codec.name+"/encode", func(b *testing.B) {
				cpu := testenv.CPUTime()
				for b.Loop() {
					_ = a.Bytes()
				}
				b.ReportMetric(float64(len(enc))/values, "B/value")
				b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N)/values, "cpu-ns/value")
			})
			b.Run(d.name+"/"+codec.name+"/decode", func(b *testing.B) {
				ts := make([]int64, len(d.s.ts))
				vals := make([][]float64, len(d.s.fields))
				for i := range vals {
					vals[i] = make([]float64, len(d.s.ts))
				}
				cpu := testenv.CPUTime()
				decodeLoop(b, enc, ts, vals)
				b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N)/values, "cpu-ns/value")
			})
		}
	}
}
