package series

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

func TestRetention_ReadsNeverReturnExpired(t *testing.T) {
	eachLayout(t, t0.Add(3*time.Hour), func(l Layout) Schema {
		sc := sensorSchema(l)
		sc.Retention = Retention{Raw: 2 * time.Hour, Hourly: 5 * time.Hour, Daily: 48 * time.Hour}
		return sc
	}, func(t *testing.T, e layoutEnv) {
		ctx, clk, st, k, l := e.ctx, e.clk, e.st, e.k, e.l
		// Too old already.
		if err := k.WriteSync(ctx, "s1", Reading{Time: t0, Values: []float64{1, 1}}); !errors.Is(err, ErrExpired) {
			t.Fatalf("writing an expired reading: %v", err)
		}
		rs := sensorReadings(t0.Add(time.Hour+time.Minute), 10*time.Minute, 12) // 01:01 to 02:51
		if err := k.WriteSync(ctx, "s1", rs...); err != nil {
			t.Fatal(err)
		}
		if l == ItemPerReading {
			// The TTL counts from event time, not write time.
			item, err := st.Table().Get(ctx, table.K("SENSOR#s1", orderKeyOf(t, k, "s1", rs[0].Time)), nil)
			if err != nil {
				t.Fatal(err)
			}
			ttl, _ := getInt(item, attrTTL)
			if want := keys.TTL(rs[0].Time.Add(2 * time.Hour)); ttl != want {
				t.Errorf("ttl %d, want %d (event time + 2h)", ttl, want)
			}
		}
		clk.Set(t0.Add(3*time.Hour + 30*time.Minute)) // readings before 01:30 have expired
		p, err := k.Range(ctx, "s1", Query{})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, rs[3:])
		p, err = k.Range(ctx, "s1", Query{From: t0, Reverse: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Readings) != 9 {
			t.Errorf("reverse range: %d readings, want 9", len(p.Readings))
		}
		a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0, To: t0.Add(4 * time.Hour), Step: 4 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Periods) != 1 || a.Periods[0].Count != 9 {
			t.Errorf("aggregate over expired readings: %+v", a.Periods)
		}
		// Rollups of the hours outlive the raw readings.
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		hours, err := k.Rollups(ctx, "s1", Hourly, t0, t0.Add(4*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		// 01:00 lost readings before the pass: it is not computed from
		// what is left. 02:00 is whole.
		if len(hours) != 1 || hours[0].Count != 6 {
			t.Errorf("hourly rollups: %+v", hours)
		}
		clk.Set(t0.Add(5 * time.Hour))
		if _, err := k.Latest(ctx, "s1"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Latest after its reading expired: %v", err)
		}
		p, err = k.Range(ctx, "s1", Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Readings) != 0 {
			t.Errorf("%d expired readings returned", len(p.Readings))
		}
		// Hour 02:00 expires 5h after its end, at 08:00.
		for _, c := range []struct {
			at   time.Duration
			want int
		}{{8*time.Hour - time.Minute, 1}, {8 * time.Hour, 0}} {
			clk.Set(t0.Add(c.at))
			hours, err = k.Rollups(ctx, "s1", Hourly, t0, t0.Add(4*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(hours) != c.want {
				t.Errorf("at %v: %d hourly rollups, want %d", c.at, len(hours), c.want)
			}
			a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0, To: t0.Add(4 * time.Hour), Step: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Periods) != c.want {
				t.Errorf("at %v: %d hourly aggregates, want %d", c.at, len(a.Periods), c.want)
			}
		}
	})
}

// orderKeyOf finds the sort key of the item-per-reading item at time tm.
func orderKeyOf(t testing.TB, k *Kind, id string, tm time.Time) string {
	t.Helper()
	p, err := k.st.tbl.Query(context.Background(), &table.Query{Hash: k.rawPK(id, 0), Range: table.BeginsWith(keys.MustTimestamp(tm)), Limit: 1})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("no item at %v: %v", tm, err)
	}
	sk, _ := getS(p.Items[0], attrSK)
	return sk
}
