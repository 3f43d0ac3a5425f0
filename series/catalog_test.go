package series

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
)

func TestStore_Kind_Unknown(t *testing.T) {
	clk := newClock(t0)
	st := openStore(t, openEngine(t, clk), testOptions(t, clk), sensorSchema(Chunks))
	k, err := st.Kind("NOPE")
	if k != nil || !errors.Is(err, ErrUnknownKind) || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"NOPE"`) {
		t.Fatalf("Kind(NOPE) = %v, %v; want nil and ErrUnknownKind (and ErrNotFound) naming it", k, err)
	}
	if errors.Is(ErrInvalidSchema, ErrNotFound) {
		t.Fatal("ErrInvalidSchema matches ErrNotFound") // the control of the Is method
	}
	if k, err := st.Kind("SENSOR"); err != nil || k.Name() != "SENSOR" {
		t.Fatalf("Kind(SENSOR) = %v, %v", k, err)
	}
}

func TestStore_Define(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		clk := newClock(t0.Add(time.Hour))
		api, opts := openOn(t, b, clk)
		st := openStore(t, api, opts, sensorSchema(Chunks))
		sc := Schema{Name: "METER", Fields: []string{"kwh"}, Layout: Buckets, Duplicates: RejectDifferent,
			Retention: Retention{Raw: Forever}, Rollups: []keys.Granularity{keys.Day}}
		k, err := st.Define(ctx, sc)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := st.Kind("METER"); err != nil || got != k {
			t.Fatalf("Kind(METER) = %v, %v; want the defined kind", got, err)
		}
		// Again: the same kind; the same schema spelt with defaults too.
		again := sc
		again.BucketPeriod = keys.Day
		if k2, err := st.Define(ctx, again); err != nil || k2 != k {
			t.Fatalf("Define again = %v, %v; want the kind", k2, err)
		}
		other := sc
		other.Fields = []string{"kwh", "volts"}
		if _, err := st.Define(ctx, other); !errors.Is(err, ErrKindExists) {
			t.Fatalf("Define of another schema: %v, want ErrKindExists", err)
		}
		if _, err := st.Define(ctx, sensorSchema(Buckets)); !errors.Is(err, ErrKindExists) {
			t.Fatalf("Define over Open's kind: %v, want ErrKindExists", err)
		}
		if _, err := st.Define(ctx, Schema{Name: "bad#name"}); !errors.Is(err, ErrInvalidSchema) {
			t.Fatalf("Define of a bad schema: %v, want ErrInvalidSchema", err)
		}
		if err := k.WriteSync(ctx, "m1", Reading{Time: t0, Values: []float64{1.5}}); err != nil {
			t.Fatal(err)
		}
		names := func(st *Store) string {
			var ns []string
			for _, k := range st.Kinds() {
				ns = append(ns, k.Name())
			}
			return strings.Join(ns, ",")
		}
		if got := names(st); got != "SENSOR,METER" {
			t.Fatalf("Kinds = %s", got)
		}

		// A store opened with no schemas has the stored one, and its data.
		st.Close()
		st2 := reopen(t, api, opts)
		if got := names(st2); got != "METER" {
			t.Fatalf("Kinds after reopening = %s, want METER (SENSOR was never stored)", got)
		}
		k2 := mustKind(t, st2, "METER")
		want, _ := sc.normalize()
		if !sameSchema(k2.Schema(), want) {
			t.Fatalf("stored schema %+v, want %+v", k2.Schema(), want)
		}
		r, err := k2.Latest(ctx, "m1")
		if err != nil || r.Values[0] != 1.5 {
			t.Fatalf("Latest = %v, %v", r, err)
		}
	})
}

func TestStore_Define_TableMissing(t *testing.T) {
	clk := newClock(t0)
	st, err := Open(context.Background(), openEngine(t, clk), testOptions(t, clk))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Define(context.Background(), sensorSchema(Chunks)); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("Define without a table: %v, want ErrTableNotFound", err)
	}
	if _, err := st.Kind("SENSOR"); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("a failed Define left a kind: %v", err)
	}
}

func TestSchemaChange_Rules(t *testing.T) {
	base, err := sensorSchema(Chunks).normalize()
	if err != nil {
		t.Fatal(err)
	}
	ok := []func(s *Schema){
		func(s *Schema) { s.Fields = append(s.Fields, "pressure") },
		func(s *Schema) { s.Tags = append(s.Tags, "floor", "building") },
		func(s *Schema) { s.Retention.Raw = Forever },
		func(s *Schema) { s.Rollups = []keys.Granularity{keys.Day} },
		func(s *Schema) { s.Rollups, s.NoRollups = nil, true },
		func(s *Schema) { s.Duplicates = KeepAll },
		func(s *Schema) { s.NoCompaction = true },
		func(s *Schema) { s.MetricIndex, s.IndexShards = true, 4 },
	}
	for i, f := range ok {
		n := base
		n.Fields, n.Tags = append([]string(nil), base.Fields...), append([]string(nil), base.Tags...)
		f(&n)
		if err := schemaChange(base, n); err != nil {
			t.Errorf("allowed change %d: %v", i, err)
		}
	}
	bad := []struct {
		f    func(s *Schema)
		want string
	}{
		{func(s *Schema) { s.Layout = Buckets }, "layout chunks to buckets"},
		{func(s *Schema) { s.Shards = 4 }, "shards 1 to 4"},
		{func(s *Schema) { s.BucketPeriod = keys.Hour }, "bucket period day to hour"},
		{func(s *Schema) { s.Fields = []string{"humidity", "temperature"} }, "fields [temperature, humidity] to [humidity, temperature]"},
		{func(s *Schema) { s.Fields = []string{"temperature"} }, "fields"},
		{func(s *Schema) { s.Fields = []string{"temp", "humidity"} }, "fields"},
		{func(s *Schema) { s.Tags = []string{"place"} }, "tags [location] to [place]"},
		{func(s *Schema) { s.Tags = nil }, "tags"},
	}
	for _, c := range bad {
		n := base
		c.f(&n)
		err := schemaChange(base, n)
		if !errors.Is(err, ErrSchemaChange) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("change %q: %v, want ErrSchemaChange naming it", c.want, err)
		}
	}
}

func TestStore_Change(t *testing.T) {
	for _, l := range allLayouts {
		t.Run(l.String(), func(t *testing.T) { changeTest(t, l) })
	}
}

// changeTest changes a kind with readings flushed, queued, buffered and in
// the log, writes with the new schema, and restarts without flushing:
// every reading reads back, those written before with the new field and
// tag absent.
func changeTest(t *testing.T, l Layout) {
	ctx := context.Background()
	clk := newClock(t0.Add(2 * time.Hour))
	api := openEngine(t, clk)
	opts := testOptions(t, clk)
	opts.WALDir = t.TempDir()
	st := openStore(t, api, opts, sensorSchema(l))
	old := mustKind(t, st, "SENSOR")
	rs := sensorReadings(t0, time.Minute, 90)
	if err := old.Write(ctx, "s1", rs[:30]...); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := old.Write(ctx, "s1", rs[30:60]...); err != nil {
		t.Fatal(err)
	}
	st.buf.seal() // a queued batch, as a failed flush leaves
	if err := old.Write(ctx, "s1", rs[60:]...); err != nil {
		t.Fatal(err)
	}

	changed := sensorSchema(l)
	changed.Fields = append(changed.Fields, "pressure")
	changed.Tags = append(changed.Tags, "floor")
	changed.Retention.Raw = 10 * 365 * 24 * time.Hour
	k, err := st.Change(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	if k == old || old.current() != k || len(old.Schema().Fields) != 3 {
		t.Fatalf("the old kind does not forward to the changed one")
	}
	if got := mustKind(t, st, "SENSOR"); got != k {
		t.Fatalf("Kind after Change is not the changed kind")
	}
	// Written through the old *Kind, with the new field.
	extra := Reading{Time: t0.Add(2 * time.Hour), Values: []float64{21, 41, 1013}, Tags: []string{"lab", "3"}}
	if err := old.Write(ctx, "s1", extra); err != nil {
		t.Fatal(err)
	}
	want := make([]Reading, 0, len(rs)+1)
	for _, r := range rs {
		want = append(want, Reading{Time: r.Time, Values: append(append([]float64(nil), r.Values...), math.NaN()), Tags: append(append([]string(nil), r.Tags...), "")})
	}
	want = append(want, extra)
	check := func(st *Store, when string) {
		t.Helper()
		p, err := mustKind(t, st, "SENSOR").Range(ctx, "s1", Query{})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		wantReadings(t, p.Readings, want)
	}
	check(st, "after the change")

	// Crash: close the log without flushing; the next Open loads the
	// stored schema and replays the log with it.
	st.closeOnce.Do(func() { close(st.stop); st.bg.Wait(); st.closed.Store(true); st.wal.Close() })
	st2 := mustOpen(t, ctx, api, opts)
	defer st2.Close()
	check(st2, "after the restart")
	if err := st2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	check(st2, "after the flush")

	// Changes a kind cannot take, and unknown kinds.
	bad := changed
	bad.Shards = 3
	if _, err := st2.Change(ctx, bad); !errors.Is(err, ErrSchemaChange) || !strings.Contains(err.Error(), "shards 1 to 3") {
		t.Fatalf("Change of shards: %v", err)
	}
	if _, err := st2.Change(ctx, Schema{Name: "NOPE"}); !errors.Is(err, ErrUnknownKind) {
		t.Fatalf("Change of an unknown kind: %v", err)
	}
	// Open with the schema before the change: it would remove a field.
	st2.Close()
	if _, err := Open(ctx, api, opts, sensorSchema(l)); !errors.Is(err, ErrSchemaChange) {
		t.Fatalf("Open with a conflicting schema: %v, want ErrSchemaChange", err)
	}
}

func TestOpen_AppliesAllowedChange(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0)
	api := openEngine(t, clk)
	opts := testOptions(t, clk)
	st := openStore(t, api, opts)
	if _, err := st.Define(ctx, sensorSchema(Chunks)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	more := sensorSchema(Chunks)
	more.Fields = append(more.Fields, "pressure")
	st2 := mustOpen(t, ctx, api, opts, more)
	st2.Close()
	st3 := mustOpen(t, ctx, api, opts)
	defer st3.Close()
	if f := mustKind(t, st3, "SENSOR").Schema().Fields; len(f) != 3 {
		t.Fatalf("stored fields %v, want Open's change stored", f)
	}
}

// TestStore_DefineConcurrent defines kinds while others look kinds up and
// write (run with -race).
func TestStore_DefineConcurrent(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	st := openStore(t, openEngine(t, clk), testOptions(t, clk), sensorSchema(Chunks))
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			k, err := st.Define(ctx, Schema{Name: fmt.Sprintf("K%02d", i), Fields: []string{"v"}})
			if err == nil {
				err = k.Write(ctx, "a", Reading{Time: t0, Values: []float64{float64(i)}})
			}
			if err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				k, err := st.Kind("SENSOR")
				if err != nil {
					errs <- err
					return
				}
				_ = k.Schema()
				_ = st.Kinds()
			}
			f := sensorSchema(Chunks)
			f.Fields = append(f.Fields, fmt.Sprintf("f%02d", i))
			// Concurrent changes of one kind: each must be a change of
			// the kind as it is, or be refused as one.
			if _, err := st.Change(ctx, f); err != nil && !errors.Is(err, ErrSchemaChange) {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(st.Kinds()); got != n+1 {
		t.Fatalf("%d kinds, want %d", got, n+1)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestWrite_TableMissing(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	api := openEngine(t, clk)
	opts := testOptions(t, clk)
	st := mustOpen(t, ctx, api, opts, sensorSchema(Chunks))
	defer st.Close()
	k := mustKind(t, st, "SENSOR")
	r := Reading{Time: t0, Values: []float64{1, 2}}
	for name, write := range map[string]func() error{
		"Write":     func() error { return k.Write(ctx, "s1", r) },
		"WriteMany": func() error { return k.WriteMany(ctx, []SeriesReadings{{ID: "s1", Readings: []Reading{r}}}) },
		"WriteSync": func() error { return k.WriteSync(ctx, "s1", r) },
	} {
		if err := write(); !errors.Is(err, ErrTableNotFound) || !strings.Contains(err.Error(), opts.Table) {
			t.Errorf("%s to a missing table: %v, want ErrTableNotFound naming it", name, err)
		}
	}
	if s := st.Stats(); s.Buffered != 0 || s.RefusedOther != 3 {
		t.Errorf("stats %+v: want nothing buffered, 3 refused", s)
	}
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Table().Drop(context.Background()) })
	if err := k.Write(ctx, "s1", r); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A table dropped under the store: the flush fails, and so do the
	// writes after it.
	if err := st.Table().Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := k.Write(ctx, "s1", Reading{Time: t0.Add(time.Second)}); err != nil {
		t.Fatal(err) // the store cannot know yet
	}
	if err := st.Flush(ctx); err == nil {
		t.Fatal("flush to a dropped table succeeded")
	}
	if err := k.Write(ctx, "s1", r); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("Write after a flush found the table missing: %v", err)
	}
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s := st.Stats(); s.FlushErrors != 1 || s.Flushes < 2 || s.Buffered != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestStore_Stats(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0.Add(time.Hour))
	opts := testOptions(t, clk)
	opts.WALDir = t.TempDir()
	st := openStore(t, openEngine(t, clk), opts, sensorSchema(Chunks), Schema{Name: "ONCE", Fields: []string{"v"}, Duplicates: RejectDifferent})
	k, once := mustKind(t, st, "SENSOR"), mustKind(t, st, "ONCE")
	if err := k.Write(ctx, "s1", sensorReadings(t0, time.Second, 10)...); err != nil {
		t.Fatal(err)
	}
	if err := k.Write(ctx, "s1", Reading{Time: t0, Values: []float64{1, 2, 3}}, Reading{Time: t0}); !errors.Is(err, ErrInvalidReading) {
		t.Fatal(err)
	}
	if err := once.Write(ctx, "a", Reading{Time: t0, Values: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	if err := once.Write(ctx, "a", Reading{Time: t0, Values: []float64{2}}); !errors.Is(err, ErrConflict) {
		t.Fatal(err)
	}
	s := st.Stats()
	if s.ReadingsAccepted != 11 || s.RefusedInvalid != 2 || s.RefusedConflict != 1 || s.RefusedOther != 0 ||
		s.ReadingsRefused != 3 || s.Buffered != 11 || s.Flushes != 0 || s.WALBytes == 0 || s.WALSize == 0 {
		t.Fatalf("before the flush: %+v", s)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil { // nothing to write: not counted
		t.Fatal(err)
	}
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	s = st.Stats()
	if s.Buffered != 0 || s.Flushes != 1 || s.FlushErrors != 0 || s.FlushSeconds <= 0 || s.LastFlush <= 0 ||
		s.WriteUnits <= 0 || s.ReadUnits <= 0 || s.RollupPasses != 1 || s.CompactionPasses != 1 {
		t.Fatalf("after the flush: %+v", s)
	}
}
