package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/series"
	"github.com/timetable-db/timetable/server"
)

// BenchmarkReadings reads one day of one series through GET
// /api/v1/kinds/{kind}/series/{id}/readings?from=&to=&order=asc, following
// cursors, the handler called in this goroutine over an in-memory engine:
// 1,440 one-minute readings of 3 fields (the HTTP comparison's read), and
// 86,400 one-second readings of one field (pages of the default 10,000),
// each a random walk with two decimals, flushed an hour at a time and
// compacted into one day item. It reports the table calls per read.
func BenchmarkReadings(b *testing.B) {
	for _, c := range []struct {
		name   string
		fields []string
		step   time.Duration
	}{
		{"minute-3-fields", []string{"f1", "f2", "f3"}, time.Minute},
		{"second-1-field", []string{"v"}, time.Second},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			// A day before yesterday: the engine expires items by their TTL
			// (the raw retention after their readings) on the real clock.
			day := time.Now().UTC().Truncate(24 * time.Hour).Add(-48 * time.Hour)
			var mu sync.Mutex
			now := day.Add(50 * time.Hour)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			st, err := series.Open(ctx, testenv.MemDB(b, nil), &series.Options{FlushInterval: -1, RollupInterval: -1, CompactInterval: -1, CompactGrace: time.Second, Now: clock})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			if err := st.EnsureTable(ctx); err != nil {
				b.Fatal(err)
			}
			k, err := st.Define(ctx, series.Schema{Name: "SENSOR", Fields: c.fields, NoRollups: true})
			if err != nil {
				b.Fatal(err)
			}
			n := int(24 * time.Hour / c.step)
			rs := make([]series.Reading, n)
			v := make([]float64, len(c.fields))
			for i := range rs {
				vals := make([]float64, len(v))
				for j := range v {
					v[j] += float64((i*7+j*3)%21-10) / 100
					vals[j] = float64(int64(v[j]*100)) / 100
				}
				rs[i] = series.Reading{Time: day.Add(time.Duration(i) * c.step), Values: vals}
			}
			perHour := int(time.Hour / c.step)
			for i := 0; i < n; i += perHour {
				if err := k.Write(ctx, "s1", rs[i:i+perHour]...); err != nil {
					b.Fatal(err)
				}
				if err := st.Flush(ctx); err != nil {
					b.Fatal(err)
				}
			}
			// The hours merged, then the day, then the sources deleted.
			for range 3 {
				if err := k.Compact(ctx, "s1", day, day.Add(24*time.Hour)); err != nil {
					b.Fatal(err)
				}
				mu.Lock()
				now = now.Add(2 * time.Second)
				mu.Unlock()
			}
			srv, err := server.New(server.Config{Store: st})
			if err != nil {
				b.Fatal(err)
			}
			path := fmt.Sprintf("/api/v1/kinds/SENSOR/series/s1/readings?from=%s&to=%s&order=asc", day.Format(time.RFC3339), day.Add(24*time.Hour).Format(time.RFC3339))
			st.Table().ResetStats()
			b.ReportAllocs()
			pages, checked := 0, 0 // the readings are counted in the first reads only
			cpu := testenv.CPUTime()
			for b.Loop() {
				url, got := path, 0
				for {
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, httptest.NewRequest("GET", url, nil))
					if rec.Code != 200 {
						b.Fatalf("%d %s", rec.Code, rec.Body)
					}
					pages++
					body := rec.Body.Bytes()
					if checked < 2 {
						got += bytes.Count(body, []byte(`"time"`))
					}
					// The cursor, if any, is the answer's last member.
					i := bytes.LastIndex(body, []byte(`"cursor":"`))
					if i < 0 {
						break
					}
					cur := body[i+len(`"cursor":"`):]
					url = path + "&cursor=" + string(cur[:bytes.IndexByte(cur, '"')])
				}
				if checked < 2 && got != n {
					b.Fatalf("read %d readings, want %d", got, n)
				}
				checked++
			}
			b.ReportMetric(float64((testenv.CPUTime()-cpu).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
			s := st.Table().Stats()
			b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
			b.ReportMetric(float64(s.Ops["Query"].Calls)/float64(b.N), "queries/op")
			b.ReportMetric(float64(s.Ops["GetItem"].Calls)/float64(b.N), "gets/op")
		})
	}
}
