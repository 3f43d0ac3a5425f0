package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestBatch_Bytes checks Batch.Bytes, what Options.Reserve is asked for,
// against the heap a decoded batch holds: within a factor of two either
// way, for readings of a few series, of a series each, and of one.
func TestBatch_Bytes(t *testing.T) {
	const n = 50_000
	for _, c := range []struct {
		name string
		line func(i int) string
	}{
		{"100 series", func(i int) string {
			return fmt.Sprintf("SENSOR,series=s%d,location=l%d temperature=%d.5,humidity=%di %d\n", i%100, i%7, i%20, i%30, int64(i)*1e9)
		}},
		{"a series each", func(i int) string {
			return fmt.Sprintf("SENSOR,host=h%d,location=l%d temperature=%d.5 %d\n", i, i%7, i%20, int64(i)*1e9)
		}},
		{"one series", func(i int) string { return fmt.Sprintf("METER kwh=%d %d\n", i, int64(i)*1e9) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in bytes.Buffer
			for i := range n {
				in.WriteString(c.line(i))
			}
			var reserved int64
			o := Options{Reserve: func(m int64) error { reserved += m; return nil }}
			var m0, m1 runtime.MemStats
			// Two collections empty the pool of released batches'
			// arrays, which would make a batch hold less new heap.
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&m0)
			b, err := LineProtocol(bytes.NewReader(in.Bytes()), lookupOf(), o)
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&m1)
			heap := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
			runtime.KeepAlive(b)
			runtime.KeepAlive(in.Bytes())
			t.Logf("%d B/reading held, %d B/reading estimated, %d B reserved", heap/n, b.Bytes/n, reserved)
			if b.Bytes < heap/2 || b.Bytes > 2*heap {
				t.Errorf("Bytes = %d, the heap holds %d", b.Bytes, heap)
			}
			if reserved < b.Bytes || reserved > b.Bytes+ReserveStep {
				t.Errorf("reserved %d for %d bytes", reserved, b.Bytes)
			}
		})
	}
}

// TestOptions_MaxSeries: a body of more series than MaxSeries is refused
// whole, naming the line of the first series over and the cap; readings
// of the series already seen do not count.
func TestOptions_MaxSeries(t *testing.T) {
	in := "SENSOR,series=a temperature=1 1\nSENSOR,series=b temperature=1 1\nSENSOR,series=a temperature=2 2\nMETER kwh=1 1\n"
	o := Options{MaxSeries: 3}
	if _, err := LineProtocol(strings.NewReader(in), lookupOf(), o); err != nil {
		t.Fatalf("3 series: %v", err)
	}
	o.MaxSeries = 2
	_, err := LineProtocol(strings.NewReader(in), lookupOf(), o)
	if e := wantError(t, err, "line 4: more than 2 series"); !errors.Is(e, ErrTooManySeries) {
		t.Errorf("%v does not wrap ErrTooManySeries", err)
	}
	_, err = CSV(strings.NewReader("series,time\na,1\na,2\nb,3\nc,4\n"), "SENSOR", lookupOf(), o)
	wantError(t, err, "line 5: more than 2 series")
	_, err = JSON(strings.NewReader(`[{"series":"a","time":1},{"series":"b","time":1},{"series":"c","time":1}]`), "SENSOR", lookupOf(), o)
	wantError(t, err, "reading 3: more than 2 series")
}

// TestOptions_Reserve: an error of Reserve stops the decoding at the
// reading that needed the memory, and is the *Error's cause.
func TestOptions_Reserve(t *testing.T) {
	busy := errors.New("no memory left")
	var in strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&in, "SENSOR,series=s%d temperature=1 1\n", i)
	}
	calls := 0
	o := Options{Reserve: func(n int64) error {
		if calls++; calls == 2 {
			return busy
		}
		return nil
	}}
	_, err := LineProtocol(strings.NewReader(in.String()), lookupOf(), o)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, busy) || e.Line < 2 {
		t.Fatalf("error %v, want an *Error past line 1 wrapping %v", err, busy)
	}
	if calls != 2 {
		t.Errorf("Reserve called %d times after it failed", calls)
	}
}
