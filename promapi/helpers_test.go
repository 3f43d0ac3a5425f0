package promapi_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/promapi"
	"github.com/timetable-db/timetable/series"
)

// base is the time of the first sample of the fixture; now the store's
// clock, after the last.
var (
	base = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	now  = base.Add(4 * time.Hour)
)

// point is a sample of the fixture with the labels it has in Prometheus.
type point struct {
	labels labels.Labels
	t      int64
	v      float64
}

// fixture is samples written to a store, and the same as Prometheus
// samples.
type fixture struct {
	st      *series.Store
	db      *local.DB
	schemas []series.Schema
	points  []point
}

// newFixture writes three hours of samples, with gaps, to a store of
// three kinds:
//
//   - http_requests_total, field "value": counters with resets, ids the
//     label sets job, instance, code (as remote write makes them);
//   - cpu, fields usage_idle and usage_user: ids "host=..." (as line
//     protocol makes them);
//   - temp, field "value", tag location: plain ids, the location tag
//     changing within a series (so a series is two in Prometheus).
func newFixture(t *testing.T, seed uint64) *fixture {
	t.Helper()
	ctx := context.Background()
	db := testenv.MemDB(t, &local.Options{Now: func() time.Time { return now }})
	schemas := []series.Schema{
		{Name: "http_requests_total", Fields: []string{"value"}, Tags: []string{"code", "instance", "job"}},
		{Name: "cpu", Fields: []string{"usage_idle", "usage_user"}, Tags: []string{"host"}},
		{Name: "temp", Fields: []string{"value"}, Tags: []string{"location"}},
	}
	st, err := series.Open(ctx, db, &series.Options{Now: func() time.Time { return now }}, schemas...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, db: db, schemas: schemas}
	rng := rand.New(rand.NewPCG(seed, 1))
	write := func(kind, id string, rs []series.Reading) {
		k, err := st.Kind(kind)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.WriteSync(ctx, id, rs...); err != nil {
			t.Fatal(err)
		}
	}
	steps := int(3 * time.Hour / (15 * time.Second))
	at := func(i int) time.Time {
		// 15 s scrapes with a jitter of up to 2 s, kept to the ms.
		return base.Add(time.Duration(i)*15*time.Second + time.Duration(rng.IntN(2000))*time.Millisecond)
	}
	// Counters.
	for _, job := range []string{"api", "web"} {
		for _, inst := range []string{"a:80", "b,c=d:80"} {
			for _, code := range []string{"200", "404", "500"} {
				ls := labels.FromStrings("code", code, "instance", inst, "job", job)
				id := promapi.FormatLabelSet(ls)
				name := labels.NewBuilder(ls).Set(model.MetricNameLabel, "http_requests_total").Labels()
				var rs []series.Reading
				c := 0.0
				for i := range steps {
					if rng.IntN(20) == 0 {
						continue // a gap
					}
					if rng.IntN(200) == 0 {
						c = 0 // a reset
					}
					c += float64(rng.IntN(50))
					ts := at(i)
					rs = append(rs, series.Reading{Time: ts, Values: []float64{c}, Tags: []string{code, inst, job}})
					f.points = append(f.points, point{name, ts.UnixMilli(), c})
				}
				write("http_requests_total", id, rs)
			}
		}
	}
	// Gauges of two fields, one absent at times.
	for _, host := range []string{"a", "b", "c"} {
		var rs []series.Reading
		for i := range steps {
			if rng.IntN(10) == 0 {
				continue
			}
			ts := at(i)
			idle := math.Round(rng.Float64()*10000) / 100
			user := math.NaN()
			if rng.IntN(4) != 0 {
				user = math.Round(rng.Float64()*5000) / 100
				f.points = append(f.points, point{labels.FromStrings("__name__", "cpu_usage_user", "host", host), ts.UnixMilli(), user})
			}
			rs = append(rs, series.Reading{Time: ts, Values: []float64{idle, user}, Tags: []string{host}})
			f.points = append(f.points, point{labels.FromStrings("__name__", "cpu_usage_idle", "host", host), ts.UnixMilli(), idle})
		}
		write("cpu", "host="+host, rs)
	}
	// A plain id whose tag changes half way.
	for _, id := range []string{"s1", "s2"} {
		var rs []series.Reading
		for i := range steps {
			loc := "lab"
			if i >= steps/2 {
				loc = "roof"
			}
			ts := at(i)
			v := 15 + math.Round(rng.NormFloat64()*300)/100
			rs = append(rs, series.Reading{Time: ts, Values: []float64{v}, Tags: []string{loc}})
			f.points = append(f.points, point{labels.FromStrings("__name__", "temp", "location", loc, "series", id), ts.UnixMilli(), v})
		}
		write("temp", id, rs)
	}
	return f
}
