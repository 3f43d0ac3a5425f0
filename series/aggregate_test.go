package series

import (
	"fmt"
	"testing"
	"time"
)

// TestAggregate_SeesBufferedReadings checks that Aggregate counts the
// Store's buffered readings, as Range returns them: in periods not rolled
// up yet, in periods whose rollups are computed (a late reading), and
// while a flush is writing them (in the buffer and the table at once).
func TestAggregate_SeesBufferedReadings(t *testing.T) {
	eachLayout(t, t0.Add(30*time.Hour), shardedSensors, func(t *testing.T, e layoutEnv) {
		ctx, st, k := e.ctx, e.st, e.k
		rs := sensorReadings(t0, 5*time.Minute, 100)
		writeFlush(t, ctx, st, k, "s1", rs[:60])
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		late := Reading{Time: t0.Add(2*time.Hour + 30*time.Second), Values: []float64{99, 1}}
		if err := k.Write(ctx, "s1", append([]Reading{late}, rs[60:]...)...); err != nil {
			t.Fatal(err)
		}
		all := append([]Reading{late}, rs...)
		check := func(what string) {
			t.Helper()
			p, err := k.Range(ctx, "s1", Query{From: t0, To: t0.Add(24 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Readings) != len(all) {
				t.Fatalf("%s: Range returns %d readings, want %d", what, len(p.Readings), len(all))
			}
			for _, step := range []time.Duration{10 * time.Minute, time.Hour, 3 * time.Hour, 24 * time.Hour} {
				a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0, To: t0.Add(24 * time.Hour), Step: step})
				if err != nil {
					t.Fatal(err)
				}
				wantPeriods(t, fmt.Sprintf("%s, step %v", what, step), a.Periods, expect(all, 2, func(t time.Time) (time.Time, time.Time) {
					s := t.Truncate(step)
					return s, s.Add(step)
				}))
			}
		}
		check("buffered")
		// A flush that wrote the readings but has not finished.
		st.buf.seal()
		if err := st.apply(ctx, st.buf.queue[0].entries); err != nil {
			t.Fatal(err)
		}
		check("being flushed")
		if err := st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		check("flushed")
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		check("rolled up")
	})
}
