package ingest

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/timetable-db/timetable/series"
)

// benchLines is 10,000 line-protocol entries of 100 series, two tags
// (one a schema tag), three fields and a timestamp each.
func benchLines() ([]byte, int) {
	var buf bytes.Buffer
	const n = 10000
	for i := range n {
		fmt.Fprintf(&buf, "WEATHER,host=h%d,location=site%d temperature=%d.5,humidity=%di,pressure=1013.%d %d\n",
			i%100, i%7, 10+i%20, 40+i%30, i%10, 1733063400000000000+int64(i)*int64(time.Second))
	}
	return buf.Bytes(), n
}

var weather = series.Schema{Name: "WEATHER", Fields: []string{"temperature", "humidity", "pressure"}, Tags: []string{"location"}}

// BenchmarkLineProtocol decodes benchLines into a Batch: the mapping to
// kinds, series and readings on top of the library's decoding, which
// BenchmarkLineProtocol_Library measures alone.
func BenchmarkLineProtocol(b *testing.B) {
	in, n := benchLines()
	lookup := func(string) (series.Schema, error) { return weather, nil }
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		bt, err := LineProtocol(bytes.NewReader(in), lookup, Options{})
		if err != nil || bt.Readings != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "readings/s")
}

// BenchmarkLineProtocol_Library decodes benchLines with the library
// alone, every section and value parsed: the baseline.
func BenchmarkLineProtocol_Library(b *testing.B) {
	in, n := benchLines()
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	now := time.Now()
	for b.Loop() {
		d := lineprotocol.NewDecoder(bytes.NewReader(in))
		count := 0
		for d.Next() {
			if _, err := d.Measurement(); err != nil {
				b.Fatal(err)
			}
			for {
				k, _, err := d.NextTag()
				if err != nil {
					b.Fatal(err)
				}
				if k == nil {
					break
				}
			}
			for {
				k, _, err := d.NextField()
				if err != nil {
					b.Fatal(err)
				}
				if k == nil {
					break
				}
			}
			if _, err := d.Time(lineprotocol.Nanosecond, now); err != nil {
				b.Fatal(err)
			}
			count++
		}
		if count != n {
			b.Fatalf("%d entries", count)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "readings/s")
}
