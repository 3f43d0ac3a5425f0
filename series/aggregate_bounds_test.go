package series

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
)

// queryCounter counts the Query and GetItem calls made through it.
type queryCounter struct {
	timetable.API
	calls atomic.Int64
}

func (c *queryCounter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.calls.Add(1)
	return c.API.Query(ctx, in, opts...)
}

func (c *queryCounter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.calls.Add(1)
	return c.API.GetItem(ctx, in, opts...)
}

// TestAggregate_HugeRangeOnMissingSeries checks that the work of an
// Aggregate depends on the data, not on the length of its range: over the
// years 0001-9999 at the hourly tier, a series that does not exist and one
// of a few readings cost a handful of table calls and clock reads (the
// clock is read once per period walked by the retention and rollup
// bookkeeping, which walked every hour of 10,000 years).
func TestAggregate_HugeRangeOnMissingSeries(t *testing.T) {
	from := time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)
	to := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	for _, l := range allLayouts {
		t.Run(l.String(), func(t *testing.T) {
			clk := newClock(t0.Add(72 * time.Hour))
			var clockReads atomic.Int64
			opts := testOptions(t, clk)
			opts.Now = func() time.Time { clockReads.Add(1); return clk.Now() }
			api := &queryCounter{API: openEngine(t, clk)}
			sc := sensorSchema(l)
			st, k := openKind(t, api, opts, sc)
			ctx := context.Background()
			rs := sensorReadings(t0, 7*time.Minute, 50)
			if err := k.WriteSync(ctx, "s1", rs...); err != nil {
				t.Fatal(err)
			}
			if err := st.Rollup(ctx); err != nil {
				t.Fatal(err)
			}
			// A step of 12 months: 9,999 periods, within DefaultMaxPeriods.
			for _, c := range []struct {
				id   string
				want int64
			}{{"missing", 0}, {"s1", int64(len(rs))}} {
				api.calls.Store(0)
				clockReads.Store(0)
				a, err := k.Aggregate(ctx, c.id, AggregateQuery{From: from, To: to, Months: 12, Tier: Hourly})
				if err != nil {
					t.Fatalf("%s: %v", c.id, err)
				}
				var n int64
				for _, p := range a.Periods {
					n += p.Count
				}
				if n != c.want {
					t.Errorf("%s: %d readings in %d periods, want %d", c.id, n, len(a.Periods), c.want)
				}
				if calls, reads := api.calls.Load(), clockReads.Load(); calls > 40 || reads > 200 {
					t.Errorf("%s: %d table calls and %d clock reads for a series of %d readings, want a few", c.id, calls, reads, c.want)
				}
			}
		})
	}
}

// TestAggregate_MaxPeriods checks that Aggregate refuses a range of more
// periods than MaxPeriods (DefaultMaxPeriods by default), naming the
// bound, before reading them, and a step of months beyond the years
// 0000-9999.
func TestAggregate_MaxPeriods(t *testing.T) {
	clk := newClock(t0.Add(72 * time.Hour))
	sc := sensorSchema(Chunks)
	_, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sc)
	ctx := context.Background()
	if err := k.Write(ctx, "s1", sensorReadings(t0, time.Minute, 10)...); err != nil {
		t.Fatal(err)
	}
	refused := func(q AggregateQuery, want string) {
		t.Helper()
		_, err := k.Aggregate(ctx, "s1", q)
		if !errors.Is(err, ErrInvalidQuery) || !strings.Contains(err.Error(), want) {
			t.Errorf("Aggregate(%+v) = %v, want ErrInvalidQuery naming %q", q, err, want)
		}
	}
	from := time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC)
	to := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	// The step picked for 10,000 years is a month: some 120,000 periods.
	refused(AggregateQuery{From: from, To: to, Tier: Hourly}, "more than the 10000")
	refused(AggregateQuery{From: from, Step: time.Minute}, "more than the 10000") // to the newest reading
	refused(AggregateQuery{From: t0, To: t0.Add(6 * time.Hour), Step: time.Hour, MaxPeriods: 5}, "6 periods of 1h0m0s, more than the 5")
	refused(AggregateQuery{From: t0, Months: MaxMonths + 1}, "at most 120000")
	a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0, To: t0.Add(5 * time.Hour), Step: time.Hour, MaxPeriods: 5})
	if err != nil || len(a.Periods) != 1 || a.Periods[0].Count != 10 {
		t.Fatalf("5 periods, at most 5: %+v, %v", a, err)
	}
	if _, err := k.Aggregate(ctx, "s1", AggregateQuery{From: from, To: to, Step: time.Hour, MaxPeriods: -1}); err != nil {
		t.Fatalf("no bound: %v", err)
	}
}

// TestMetricRange_DayCap checks that MetricRange, which reads the metric
// index a day partition at a time, refuses a range of more days than
// DefaultMaxPeriods before reading any (years 0001-9999 made some 3.6
// million queries), and answers a range within it.
func TestMetricRange_DayCap(t *testing.T) {
	clk := newClock(t0.Add(48 * time.Hour))
	api := &queryCounter{API: openEngine(t, clk)}
	sc := Schema{Name: "M", Fields: []string{"x"}, Layout: ItemPerReading, MetricIndex: true, Retention: Retention{Raw: Forever}}
	_, k := openKind(t, api, testOptions(t, clk), sc)
	ctx := context.Background()
	if err := k.WriteSync(ctx, "s1", Reading{Time: t0, Values: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	api.calls.Store(0)
	_, err := k.MetricRange(ctx, "x", time.Date(1, 1, 2, 0, 0, 0, 0, time.UTC), time.Time{}, 0)
	if !errors.Is(err, ErrInvalidQuery) || !strings.Contains(err.Error(), "more than the 10000") {
		t.Errorf("years 0001-2099: %v, want ErrInvalidQuery naming the bound", err)
	}
	if n := api.calls.Load(); n > 2 {
		t.Errorf("%d table calls before the refusal", n)
	}
	pts, err := k.MetricRange(ctx, "x", t0.AddDate(-20, 0, 0), time.Time{}, 0)
	if err != nil || len(pts) != 1 {
		t.Errorf("20 years: %v, %v", pts, err)
	}
}
