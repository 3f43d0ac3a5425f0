package series

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timetable-db/timetable/table"
)

func TestApply_Idempotent(t *testing.T) {
	// Writing the same readings again (a retried flush, a replayed log)
	// stores nothing twice, in every layout.
	eachLayout(t, t0.Add(30*time.Hour), shardedSensors, func(t *testing.T, e layoutEnv) {
		ctx, st, k := e.ctx, e.st, e.k
		rs := sensorReadings(t0, 5*time.Minute, 100)
		recs, err := k.prepareNumbered("s1", rs)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := st.apply(ctx, []entry{{k: k, id: "s1", recs: slices.Clone(recs)}}); err != nil {
				t.Fatal(err)
			}
		}
		wantRange(t, ctx, k, "s1", Query{}, rs)
	})
}

func TestBuckets_OverflowAndConcurrentWriters(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(30 * time.Hour))
		sc := Schema{Name: "HR", Fields: []string{"heart_rate"}, Tags: []string{"note"}, Layout: Buckets, NoRollups: true}
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
		// 4 writers at once into one daily bucket, with notes large enough
		// to need overflow parts (300 KB each).
		note := strings.Repeat("x", 2000)
		var all []Reading
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					n := w*50 + i
					r := Reading{Time: t0.Add(time.Duration(n) * time.Minute), Values: []float64{60 + float64(n%40)}, Tags: []string{note}}
					if err := k.WriteSync(ctx, "emp-1", r); err != nil {
						errs <- err
						return
					}
					mu.Lock()
					all = append(all, r)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		slices.SortFunc(all, func(a, b Reading) int { return a.Time.Compare(b.Time) })
		var parts int
		for _, err := range st.Table().QueryAll(ctx, &table.Query{Hash: "HR#emp-1"}) {
			if err != nil {
				t.Fatal(err)
			}
			parts++
		}
		if parts < 2 {
			t.Errorf("%d bucket parts, want overflow parts", parts)
		}
		p, err := k.Range(ctx, "emp-1", Query{})
		if err != nil {
			t.Fatal(err)
		}
		wantReadings(t, p.Readings, all)
		ps, err := k.Buckets(ctx, "emp-1", t0, t0.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		wantPeriods(t, "buckets", ps, expect(all, 1, dayOf))
		t.Logf("%d readings in %d parts: %s", len(all), parts, fmt.Sprint(ps[0].Fields[0].Mean()))
	})
}
