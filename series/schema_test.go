package series

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
)

func TestSchema_Validation(t *testing.T) {
	bad := []Schema{
		{},
		{Name: "A#B"},
		{Name: "~X"},
		{Name: strings.Repeat("x", MaxKindName+1)},
		{Name: "S", Fields: []string{"pk"}},
		{Name: "S", Fields: []string{"_hidden"}},
		{Name: "S", Fields: []string{"a"}, Tags: []string{"a"}},
		{Name: "S", Fields: []string{""}},
		{Name: "S", Layout: 9},
		{Name: "S", BucketPeriod: keys.Minute},
		{Name: "S", Rollups: []keys.Granularity{keys.Year}},
		{Name: "S", Retention: Retention{Raw: -2}},
		{Name: "S", Shards: keys.MaxShards + 1},
	}
	for _, s := range bad {
		if _, err := s.normalize(); !errors.Is(err, ErrInvalidSchema) {
			t.Errorf("%+v: %v, want ErrInvalidSchema", s, err)
		}
	}
	n, err := Schema{Name: "SENSOR", Fields: []string{"t"}, Rollups: []keys.Granularity{keys.Month, keys.Hour}}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	if n.Layout != Chunks || n.BucketPeriod != keys.Day || n.Shards != 1 || n.Retention.Raw != DefaultRawRetention ||
		n.Retention.Monthly != Forever || len(n.Rollups) != 2 || n.Rollups[0] != keys.Hour || n.finer(keys.Month) != keys.Hour ||
		n.coarser(keys.Hour) != keys.Month || n.coarser(0) != keys.Hour {
		t.Errorf("defaults: %+v", n)
	}
	if _, err := Open(context.Background(), nil, nil, Schema{Name: "A"}, Schema{Name: "A"}); !errors.Is(err, ErrInvalidSchema) {
		t.Errorf("two kinds of one name: %v", err)
	}
}

func TestWrite_InvalidReadings(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0)
	st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sensorSchema(Chunks))
	cases := []struct {
		id   string
		r    Reading
		want error
	}{
		{"", Reading{Time: t0}, ErrInvalidID},
		{"a#b", Reading{Time: t0}, ErrInvalidID},
		{"s", Reading{Time: t0, Values: []float64{1, 2, 3}}, ErrInvalidReading},
		{"s", Reading{Time: t0, Tags: []string{"a", "b"}}, ErrInvalidReading},
		{"s", Reading{Time: t0, Tags: []string{"\xff"}}, ErrInvalidReading},
		{"s", Reading{Time: t0, Tags: []string{strings.Repeat("x", 300<<10)}}, ErrInvalidReading},
		{"s", Reading{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, ErrInvalidReading},
		{"s", Reading{Time: t0.Add(-31 * 24 * time.Hour)}, ErrExpired},
	}
	for _, c := range cases {
		if err := k.WriteSync(ctx, c.id, c.r); !errors.Is(err, c.want) {
			t.Errorf("%q %v: %v, want %v", c.id, c.r, err, c.want)
		}
		if err := k.Write(ctx, c.id, c.r); !errors.Is(err, c.want) {
			t.Errorf("buffered %q %v: %v, want %v", c.id, c.r, err, c.want)
		}
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Latest(ctx, "s"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an invalid reading was written: %v", err)
	}
}

func TestValues_AnyFloat64(t *testing.T) {
	// Values DynamoDB numbers cannot hold (infinities, NaN is absence,
	// beyond 1e126, below 1e-130) round-trip in every layout, and so do
	// their aggregates.
	vals := []float64{math.Inf(1), math.Inf(-1), 1e300, -1e-200, 5e-324, math.MaxFloat64, 0.1, -7, 1e125, 123456789.123456789}
	eachLayout(t, t0.Add(3*time.Hour), func(l Layout) Schema { return Schema{Name: "V", Fields: []string{"v"}, Layout: l} }, func(t *testing.T, e layoutEnv) {
		ctx, st, k := e.ctx, e.st, e.k
		var rs []Reading
		for i, v := range vals {
			rs = append(rs, Reading{Time: t0.Add(time.Duration(i) * time.Minute), Values: []float64{v}})
		}
		if err := k.WriteSync(ctx, "x", rs...); err != nil {
			t.Fatal(err)
		}
		p, err := k.Range(ctx, "x", Query{})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, rs)
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		hours, err := k.Rollups(ctx, "x", Hourly, t0, t0.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(hours) != 1 || hours[0].Fields[0].Max != math.Inf(1) || hours[0].Fields[0].Min != math.Inf(-1) || !math.IsNaN(hours[0].Fields[0].Sum) {
			t.Errorf("rollup of extreme values: %+v", hours)
		}
	})
}
