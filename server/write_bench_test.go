package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
)

// BenchmarkWrite posts line protocol to /api/v1/write, the handler called
// in this goroutine over an in-memory engine (the store's log on disk,
// not flushed): a request of 10,000 readings of 100 series, and one of
// 100,000 (the default cap). It reports the bytes allocated per reading,
// the body's decoding and the store's buffering together, and the most
// the request held in the in-flight budget per reading (its decoded
// readings, the body's buffers).
func BenchmarkWrite(b *testing.B) {
	ctx := context.Background()
	db := testenv.MemDB(b, nil)
	st, err := series.Open(ctx, db, &series.Options{WALDir: b.TempDir(), FlushInterval: -1, RollupInterval: -1, CompactInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.EnsureTable(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Define(ctx, series.Schema{Name: "WEATHER", Fields: []string{"temperature", "humidity", "pressure"}, Tags: []string{"location"}}); err != nil {
		b.Fatal(err)
	}
	budget := server.NewBudget(0, 0)
	srv, err := server.New(server.Config{Store: st, Budget: budget})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now().Add(-time.Hour).UnixMilli()
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("readings=%d", n), func(b *testing.B) {
			var body bytes.Buffer
			for i := range n {
				fmt.Fprintf(&body, "WEATHER,host=h%d,location=site%d temperature=%d.5,humidity=%di,pressure=1013.%d %d\n",
					i%100, i%7, 10+i%20, 40+i%30, i%10, start+int64(i))
			}
			b.ReportAllocs()
			b.SetBytes(int64(body.Len()))
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for b.Loop() {
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1/write?precision=ms", bytes.NewReader(body.Bytes())))
				if rec.Code != 204 {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(n), "B/reading")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "readings/s")
			b.ReportMetric(float64(budget.Stats().Peak)/float64(n), "held-B/reading")
		})
	}
}
