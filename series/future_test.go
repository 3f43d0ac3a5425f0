package series

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWrite_FarFutureRefused checks that every write path refuses a
// reading later than the clock plus Options.MaxFuture (DefaultMaxFuture,
// an hour, by default) with ErrInvalidReading naming the bound, writing
// none of its batch, so that Latest is not stuck on it; a reading within
// the bound is taken, and a negative MaxFuture sets no bound.
func TestWrite_FarFutureRefused(t *testing.T) {
	now := t0.Add(72 * time.Hour)
	ok := Reading{Time: now.Add(-time.Minute), Values: []float64{1, 2}}
	soon := Reading{Time: now.Add(time.Hour), Values: []float64{3, 4}} // at the bound
	for _, far := range []time.Time{now.Add(time.Hour + time.Millisecond), time.Date(2100, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)} {
		clk := newClock(now)
		sc := sensorSchema(Chunks)
		st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sc)
		ctx := context.Background()
		bad := Reading{Time: far, Values: []float64{9, 9}}
		paths := map[string]func() error{
			"Write":     func() error { return k.Write(ctx, "s1", ok, bad) },
			"WriteSync": func() error { return k.WriteSync(ctx, "s1", ok, bad) },
			"WriteMany": func() error {
				return k.WriteMany(ctx, []SeriesReadings{{ID: "s1", Readings: []Reading{ok}}, {ID: "s2", Readings: []Reading{bad}}})
			},
			"WriteKinds": func() error {
				return st.WriteKinds(ctx, []KindReadings{{Kind: sc.Name, Series: []SeriesReadings{{ID: "s1", Readings: []Reading{ok, bad}}}}})
			},
		}
		for name, write := range paths {
			err := write()
			if !errors.Is(err, ErrInvalidReading) || !strings.Contains(err.Error(), "more than 1h0m0s ahead of the clock") {
				t.Errorf("%s at %v: %v, want ErrInvalidReading naming the bound", name, far, err)
			}
		}
		for _, id := range []string{"s1", "s2"} {
			if rd, err := k.Latest(ctx, id); err == nil {
				t.Errorf("after the refusals of %v, Latest(%s) = %v, want none", far, id, rd.Time)
			}
		}
		if err := k.WriteSync(ctx, "s1", ok, soon); err != nil {
			t.Fatalf("a reading at the bound: %v", err)
		}
		if rd, err := k.Latest(ctx, "s1"); err != nil || !rd.Time.Equal(soon.Time) {
			t.Errorf("Latest = %v, %v, want %v", rd.Time, err, soon.Time)
		}
	}
	// No bound.
	clk := newClock(now)
	opts := testOptions(t, clk)
	opts.MaxFuture = -1
	st := openStore(t, openEngine(t, clk), opts, sensorSchema(Chunks))
	if err := mustKind(t, st, "SENSOR").WriteSync(context.Background(), "s1", Reading{Time: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Errorf("MaxFuture -1: %v", err)
	}
}
