package series

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/timetable-db/timetable"
)

// expect computes the periods of rs by bucket, independently of the
// store's code.
func expect(rs []Reading, nf int, bucket func(time.Time) (time.Time, time.Time)) []Period {
	by := map[time.Time]*Period{}
	for _, r := range rs {
		st, end := bucket(r.Time)
		p := by[st]
		if p == nil {
			p = &Period{Start: st, End: end, Fields: make([]Aggregate, nf)}
			by[st] = p
		}
		p.Count++
		for i := 0; i < nf; i++ {
			v := r.Values[i]
			if math.IsNaN(v) {
				continue
			}
			a := &p.Fields[i]
			if addSample(a, v, r.Time) {
				continue
			}
			if r.Time.Before(a.FirstTime) {
				a.First, a.FirstTime = v, r.Time
			}
			if !r.Time.Before(a.LastTime) {
				a.Last, a.LastTime = v, r.Time
			}
		}
	}
	var out []Period
	for _, p := range by {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Period) int { return a.Start.Compare(b.Start) })
	return out
}

func wantPeriods(t testing.TB, what string, got, want []Period) {
	t.Helper()
	if len(got) != len(want) {
		var gs, ws []string
		for _, p := range got {
			gs = append(gs, fmt.Sprintf("%s/%d", p.Start.Format("01-02T15"), p.Count))
		}
		for _, p := range want {
			ws = append(ws, fmt.Sprintf("%s/%d", p.Start.Format("01-02T15"), p.Count))
		}
		t.Fatalf("%s: %d periods, want %d\n got %v\nwant %v", what, len(got), len(want), gs, ws)
	}
	for i := range got {
		g, w := got[i], want[i]
		if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.Count != w.Count || len(g.Fields) != len(w.Fields) {
			t.Fatalf("%s: period %d: got %v, want %v", what, i, g, w)
		}
		for j := range g.Fields {
			a, b := g.Fields[j], w.Fields[j]
			if a.Count != b.Count || a.Min != b.Min || a.Max != b.Max || a.First != b.First || a.Last != b.Last ||
				!a.FirstTime.Equal(b.FirstTime) || !a.LastTime.Equal(b.LastTime) || math.Abs(a.Sum-b.Sum) > 1e-9*math.Max(1, math.Abs(b.Sum)) {
				t.Fatalf("%s: period %v field %d: got %+v, want %+v", what, g.Start, j, a, b)
			}
		}
	}
}

func hourOf(t time.Time) (time.Time, time.Time) {
	s := t.Truncate(time.Hour)
	return s, s.Add(time.Hour)
}
func dayOf(t time.Time) (time.Time, time.Time) {
	s := t.Truncate(24 * time.Hour)
	return s, s.AddDate(0, 0, 1)
}
func monthOf(t time.Time) (time.Time, time.Time) {
	s := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return s, s.AddDate(0, 1, 0)
}
func within(rs []Reading, from, to time.Time) []Reading {
	var out []Reading
	for _, r := range rs {
		if !r.Time.Before(from) && r.Time.Before(to) {
			out = append(out, r)
		}
	}
	return out
}

func TestRollup_Idempotent(t *testing.T) {
	eachLayout(t, t0.Add(30*time.Hour), func(l Layout) Schema { return sensorSchema(l) }, func(t *testing.T, e layoutEnv) {
		ctx, clk, st, k := e.ctx, e.clk, e.st, e.k
		rs := sensorReadings(t0.Add(-2*time.Hour), 7*time.Minute, 240) // to t0+26h
		if err := k.WriteSync(ctx, "s1", rs...); err != nil {
			t.Fatal(err)
		}
		check := func(stage string, rs []Reading) {
			t.Helper()
			now := clk.Now()
			lateEnd := now.Add(-5 * time.Minute)
			hours, err := k.Rollups(ctx, "s1", Hourly, t0.Add(-24*time.Hour), now)
			if err != nil {
				t.Fatal(err)
			}
			// Hours that ended LateWindow ago are rolled up.
			var done []Reading
			for _, r := range rs {
				if _, end := hourOf(r.Time); !end.After(lateEnd) {
					done = append(done, r)
				}
			}
			wantPeriods(t, stage+" hourly", hours, expect(done, 2, hourOf))
			days, err := k.Rollups(ctx, "s1", Daily, t0.Add(-48*time.Hour), now)
			if err != nil {
				t.Fatal(err)
			}
			wantPeriods(t, stage+" daily", days, expect(within(rs, t0.Add(-24*time.Hour), t0.Add(24*time.Hour)), 2, dayOf))
			months, err := k.Rollups(ctx, "s1", Monthly, t0.AddDate(0, -2, 0), now)
			if err != nil {
				t.Fatal(err)
			}
			wantPeriods(t, stage+" monthly", months, expect(within(rs, t0.AddDate(0, -1, 0), t0), 2, monthOf))
			// Aggregates at every step agree with the readings,
			// rolled up or not.
			for _, step := range []time.Duration{time.Hour, 3 * time.Hour, 24 * time.Hour, 15 * time.Minute} {
				from, to := t0.Add(-2*time.Hour), t0.Add(27*time.Hour)
				a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: from, To: to, Step: step})
				if err != nil {
					t.Fatal(err)
				}
				bucket := func(x time.Time) (time.Time, time.Time) { s := x.Truncate(step); return s, s.Add(step) }
				wantPeriods(t, stage+" aggregate "+step.String(), a.Periods, expect(within(rs, from, to), 2, bucket))
			}
			a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: t0.AddDate(0, -1, 0), To: now, Months: 1})
			if err != nil {
				t.Fatal(err)
			}
			if a.Tier != Monthly {
				t.Errorf("monthly aggregate read the %s tier", a.Tier)
			}
			wantPeriods(t, stage+" aggregate months", a.Periods, expect(rs, 2, monthOf))
		}
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		check("first pass", rs)
		// Running again, and recomputing, changes nothing.
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		if err := k.Recompute(ctx, "s1", t0.Add(-2*time.Hour), t0.Add(24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		check("second pass", rs)

		// A late reading in an hour already rolled up: aggregates
		// see it at once (its hour is stale), rollups after the
		// next pass, exactly once.
		late := Reading{Time: t0.Add(3*time.Hour + 30*time.Minute + time.Millisecond), Values: []float64{99, 1}, Tags: []string{"late"}}
		if err := k.WriteSync(ctx, "s1", late); err != nil {
			t.Fatal(err)
		}
		rs2 := append(slices.Clone(rs), late)
		from, to := t0.Add(-2*time.Hour), t0.Add(27*time.Hour)
		a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: from, To: to, Step: 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		wantPeriods(t, "late, before the pass", a.Periods, expect(rs2, 2, dayOf))
		for i := 0; i < 2; i++ {
			if err := st.Rollup(ctx); err != nil {
				t.Fatal(err)
			}
			check("late", rs2)
		}
		// The next day: everything rolled up.
		clk.Advance(24 * time.Hour)
		if err := st.Rollup(ctx); err != nil {
			t.Fatal(err)
		}
		days, err := k.Rollups(ctx, "s1", Daily, t0.Add(-48*time.Hour), clk.Now())
		if err != nil {
			t.Fatal(err)
		}
		wantPeriods(t, "all days", days, expect(rs2, 2, dayOf))
		ms, err := k.markers(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.g != 2 { // only the open month may stay marked
				t.Errorf("marker left: %+v", m)
			}
		}
	})
}

func TestAggregate_StepFromRangeLength(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.AddDate(2, 0, 0))
	sc := sensorSchema(Chunks)
	sc.Retention = Retention{Raw: Forever, Hourly: Forever, Daily: Forever}
	st, k := openKind(t, openEngine(t, clk), testOptions(t, clk), sc)
	rs := sensorReadings(t0, 6*time.Hour, 4*365) // two years
	if err := k.WriteSync(ctx, "s1", rs...); err != nil {
		t.Fatal(err)
	}
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		span   time.Duration
		tier   Tier
		step   time.Duration
		months int
	}{
		{3 * time.Hour, Raw, time.Minute, 0},
		{2 * 24 * time.Hour, Hourly, time.Hour, 0},
		{60 * 24 * time.Hour, Daily, 24 * time.Hour, 0},
		{600 * 24 * time.Hour, Monthly, 0, 1},
	} {
		from := t0.Add(24 * time.Hour)
		a, err := k.Aggregate(ctx, "s1", AggregateQuery{From: from, To: from.Add(c.span)})
		if err != nil {
			t.Fatal(err)
		}
		if a.Tier != c.tier || a.Step != c.step || a.Months != c.months {
			t.Errorf("span %v: tier %s step %v months %d, want %s %v %d", c.span, a.Tier, a.Step, a.Months, c.tier, c.step, c.months)
		}
		var n int64
		for _, p := range a.Periods {
			n += p.Count
		}
		if want := int64(len(within(rs, from, from.Add(c.span)))); n != want {
			t.Errorf("span %v: %d readings aggregated, want %d", c.span, n, want)
		}
	}
}

// deferAPI is a syncAPI that also records the rollup pass's item writes:
// "put", "batch" and "del", with a "!" when not under
// timetable.WithDeferredSync.
type deferAPI struct{ *syncAPI }

func (a deferAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	a.record(deferMark(ctx, "batch"))
	return a.API.BatchWriteItem(ctx, in, opts...)
}

func deferMark(ctx context.Context, e string) string {
	if !timetable.DeferredSync(ctx) {
		return e + "!"
	}
	return e
}

func (a deferAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	a.record(deferMark(ctx, "put"))
	return a.API.PutItem(ctx, in, opts...)
}

func (a deferAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	a.record(deferMark(ctx, "del"))
	return a.API.DeleteItem(ctx, in, opts...)
}

func TestRollup_DeferredSync(t *testing.T) {
	// With a log, the rollup pass's writes to a Syncer are deferred, and
	// each marker is deleted only after a Sync that follows every write
	// made before it (its rollup and coarser marker among them); the pass
	// ends with a Sync. Without a log its writes are synced one by one.
	ctx := context.Background()
	for _, c := range []struct {
		name string
		wal  bool
	}{{"log", true}, {"no log", false}} {
		t.Run(c.name, func(t *testing.T) {
			clk := newClock(t0.Add(4 * time.Hour))
			api := deferAPI{&syncAPI{API: openEngine(t, clk)}}
			opts := testOptions(t, clk)
			if c.wal {
				opts.WALDir = t.TempDir()
			}
			st := openStore(t, api, opts, sensorSchema(Chunks))
			k := mustKind(t, st, "SENSOR")
			rs := sensorReadings(t0, time.Minute, 180) // 3 hours
			for _, id := range []string{"s1", "s2"} {
				if err := k.Write(ctx, id, rs...); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			api.mu.Lock()
			api.events = nil
			api.mu.Unlock()
			if err := st.Rollup(ctx); err != nil {
				t.Fatal(err)
			}
			api.mu.Lock()
			ev := slices.Clone(api.events)
			api.mu.Unlock()
			var puts, batches, dels, syncs int
			lastPut, lastSync := -1, -1
			for i, e := range ev {
				switch strings.TrimSuffix(e, "!") {
				case "put":
					puts++
					lastPut = i
				case "batch":
					batches++
					lastPut = i
				case "del":
					dels++
					if c.wal && lastSync < lastPut {
						t.Fatalf("event %d: a marker deleted before the writes before it were synced: %v", i, ev)
					}
				case "sync":
					syncs++
					lastSync = i
				}
				if deferred := !strings.HasSuffix(e, "!"); e != "sync" && deferred != c.wal {
					t.Fatalf("event %d: %q, deferred %v, want %v: %v", i, e, deferred, c.wal, ev)
				}
			}
			// 6 series-hours in 2 series-days (not yet due): a batch per
			// series-day, of its 3 rollups and its day marker; 6 markers
			// deleted.
			if batches != 2 || puts != 0 || dels != 6 {
				t.Fatalf("%d batches, %d puts and %d deletes, want 2, 0 and 6: %v", batches, puts, dels, ev)
			}
			if c.wal && (syncs == 0 || ev[len(ev)-1] != "sync") {
				t.Fatalf("the pass does not end with a sync: %v", ev)
			}
			if !c.wal && syncs != 0 {
				t.Fatalf("%d syncs without a log: %v", syncs, ev)
			}
			hours, err := k.Rollups(ctx, "s2", Hourly, t0, t0.Add(3*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			wantPeriods(t, "hourly", hours, expect(rs, 2, hourOf))
		})
	}
}
