package series

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

func TestShards_ScatterGather(t *testing.T) {
	eachLayout(t, t0.Add(30*time.Hour), func(l Layout) Schema {
		sc := sensorSchema(l)
		sc.Shards = 4
		return sc
	}, func(t *testing.T, e layoutEnv) {
		ctx, st, k, l := e.ctx, e.st, e.k, e.l
		rs := sensorReadings(t0, 3*time.Minute, 400) // 20 hours
		// Through the buffer, in four flushes, and directly.
		for i := 0; i < 300; i += 75 {
			if err := k.Write(ctx, "hot", rs[i:i+75]...); err != nil {
				t.Fatal(err)
			}
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.WriteSync(ctx, "hot", rs[300:]...); err != nil {
			t.Fatal(err)
		}
		// Every shard got items.
		for _, suffix := range keys.Shards(4) {
			pk := "SENSOR#hot#" + suffix
			q := &table.Query{Hash: pk, Limit: 1}
			if l == DayPartitioned {
				q.Hash = pk + "#" + keys.MustTimeSeries(t0, keys.Day)
			}
			p, err := st.Table().Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) == 0 {
				t.Errorf("shard %s has no item", pk)
			}
		}
		p, err := k.Range(ctx, "hot", Query{})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, rs)
		// Pages in reverse, merged over the shards.
		got, _ := rangePages(t, ctx, k, "hot", Query{Reverse: true, PageSize: 33, From: rs[50].Time}, 1000)
		want := slices.Clone(rs[50:])
		slices.Reverse(want)
		wantReadings(t, got, want)
		r, err := k.Latest(ctx, "hot")
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, []Reading{r}, rs[len(rs)-1:])
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := k.Aggregate(ctx, "hot", AggregateQuery{From: t0, To: t0.Add(24 * time.Hour), Step: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		wantPeriods(t, "hourly over shards", a.Periods, expect(rs, 2, hourOf))
	})
}

func TestMetricIndex_AllSeriesOneField(t *testing.T) {
	eachBackendLayout(t, func(t *testing.T, b backend, l Layout) {
		ctx := context.Background()
		clk := newClock(t0.Add(72 * time.Hour))
		api, opts := openOn(t, b, clk)
		// A table made without the index gets it from EnsureTable.
		plain := openStore(t, api, opts, Schema{Name: "OTHER", Fields: []string{"x"}})
		_ = plain
		sc := sensorSchema(l)
		sc.MetricIndex = true
		sc.IndexShards = 2
		st := mustOpen(t, ctx, api, opts, sc)
		defer st.Close()
		if err := st.EnsureTable(ctx); err != nil {
			t.Fatal(err)
		}
		k := mustKind(t, st, "SENSOR")
		var want []MetricPoint
		for d := 0; d < 5; d++ {
			id := fmt.Sprintf("dev-%d", d)
			rs := sensorReadings(t0.Add(time.Duration(d)*time.Minute), 20*time.Minute, 120) // 40 hours
			if err := k.WriteSync(ctx, id, rs...); err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if !r.Time.Before(t0.Add(10*time.Hour)) && r.Time.Before(t0.Add(30*time.Hour)) && !isNaN(r.Values[1]) {
					want = append(want, MetricPoint{ID: id, Time: r.Time, Value: r.Values[1]})
				}
			}
		}
		slices.SortFunc(want, func(a, b MetricPoint) int {
			if c := a.Time.Compare(b.Time); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		got, err := k.MetricRange(ctx, "humidity", t0.Add(10*time.Hour), t0.Add(30*time.Hour), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d points, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || !got[i].Time.Equal(want[i].Time) || got[i].Value != want[i].Value {
				t.Fatalf("point %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		if _, err := mustKind(t, plain, "OTHER").MetricRange(ctx, "x", t0, t0.Add(time.Hour), 0); err == nil {
			t.Error("MetricRange on a kind without the index")
		}
	})
}

func isNaN(f float64) bool { return f != f }
