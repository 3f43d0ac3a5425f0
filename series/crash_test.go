package series

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
)

// killAPI "kills the process" at a chosen write: it passes calls through
// until the n-th write call (PutItem, UpdateItem, DeleteItem,
// BatchWriteItem, TransactWriteItems; counted from 1), makes only the
// first prefix requests of that call if it is a BatchWriteItem, and fails
// it and every call after it, reads included, as a dead process makes
// none. n = 0 never kills. With before set, it calls before at the n-th
// write instead, and kills nothing.
type killAPI struct {
	timetable.API
	n, prefix int
	before    func()

	mu     sync.Mutex
	writes int
	dead   bool
	// batchLen is the number of requests of the call killed, if it was
	// a BatchWriteItem.
	batchLen int
}

var errKilled = errors.New("killed")

// write counts a write call and reports whether it may be made whole; a
// killed call is made for its first prefix requests through partial.
func (f *killAPI) write(ctx context.Context, batch *dynamodb.BatchWriteItemInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dead {
		return errKilled
	}
	f.writes++
	if f.n == 0 || f.writes < f.n {
		return nil
	}
	if f.before != nil {
		if f.writes == f.n {
			f.mu.Unlock()
			defer f.mu.Lock()
			f.before()
		}
		return nil
	}
	f.dead = true
	if batch != nil {
		for name, ws := range batch.RequestItems {
			f.batchLen = len(ws)
			if f.prefix > 0 {
				in := &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: ws[:min(f.prefix, len(ws))]}}
				if _, err := f.API.BatchWriteItem(ctx, in); err != nil {
					return err
				}
			}
		}
	}
	return errKilled
}

func (f *killAPI) alive() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dead {
		return errKilled
	}
	return nil
}

// unless makes the call fn(ctx, in) unless err is set.
func unless[In, Out any](err error, ctx context.Context, in In, fn func(context.Context, In, ...func(*dynamodb.Options)) (Out, error), o []func(*dynamodb.Options)) (Out, error) {
	if err != nil {
		var none Out
		return none, err
	}
	return fn(ctx, in, o...)
}

func (f *killAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return unless(f.write(ctx, nil), ctx, in, f.API.PutItem, o)
}

func (f *killAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return unless(f.write(ctx, nil), ctx, in, f.API.UpdateItem, o)
}

func (f *killAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return unless(f.write(ctx, nil), ctx, in, f.API.DeleteItem, o)
}

func (f *killAPI) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return unless(f.write(ctx, in), ctx, in, f.API.BatchWriteItem, o)
}

func (f *killAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return unless(f.write(ctx, nil), ctx, in, f.API.TransactWriteItems, o)
}

func (f *killAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return unless(f.alive(), ctx, in, f.API.GetItem, o)
}

func (f *killAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return unless(f.alive(), ctx, in, f.API.Query, o)
}

func (f *killAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return unless(f.alive(), ctx, in, f.API.BatchGetItem, o)
}

// TestWriteSync_CrashPoints kills a WriteSync at every write it makes (and
// part way through each of its BatchWriteItem calls), for every layout,
// with a write-ahead log and without, and without rollups, then opens the Store again on the
// same table and runs the rollup pass: whatever part of the call reached
// the table, Range, Latest, Aggregate by the hour (from the rollups) and
// by the half hour (from the raw readings) and Rollups agree. The call
// writes a late reading into an hour already rolled up and a reading
// newer than the series' latest.
func TestWriteSync_CrashPoints(t *testing.T) {
	ctx := context.Background()
	for _, l := range allLayouts {
		for _, c := range []struct{ wal, noRollups bool }{{false, false}, {true, false}, {false, true}} {
			t.Run(fmt.Sprintf("%s/wal=%v/norollups=%v", l, c.wal, c.noRollups), func(t *testing.T) {
				points := 0
				for n := 1; ; n++ {
					for prefix := 0; ; prefix++ {
						sc := Schema{Name: "K", Fields: []string{"v"}, Layout: l, NoRollups: c.noRollups}
						killed, batchLen := crashWriteSync(t, ctx, sc, c.wal, n, prefix)
						if !killed {
							if n == 1 {
								t.Fatal("WriteSync made no write")
							}
							t.Logf("%d crash points", points)
							return
						}
						points++
						if prefix+1 >= batchLen {
							break
						}
					}
				}
			})
		}
	}
}

// crashEnv is a store whose kind K holds a reading at t0+5m, rolled up:
// the clock is at t0+1h6m.
type crashEnv struct {
	clk  *clock
	api  timetable.API
	opts *Options
	sc   Schema
	st   *Store
}

// rolledUp opens a crashEnv with kind sc (named K, of one field) on a new
// engine, with a write-ahead log if wal.
func rolledUp(t *testing.T, ctx context.Context, sc Schema, wal bool) crashEnv {
	t.Helper()
	e := crashEnv{clk: newClock(t0.Add(10 * time.Minute)), sc: sc}
	e.api = openEngine(t, e.clk)
	e.opts = testOptions(t, e.clk)
	if wal {
		e.opts.WALDir = t.TempDir()
	}
	var err error
	if e.st, err = Open(ctx, e.api, e.opts, e.sc); err != nil {
		t.Fatal(err)
	}
	if err := e.st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mustKind(t, e.st, "K").WriteSync(ctx, "s", one(5*time.Minute, 1)); err != nil {
		t.Fatal(err)
	}
	e.clk.Set(t0.Add(time.Hour + 6*time.Minute))
	if err := e.st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

// one is a reading of one value at t0+d.
func one(d time.Duration, v float64) Reading { return Reading{Time: t0.Add(d), Values: []float64{v}} }

// crashWriteSync runs one case of TestWriteSync_CrashPoints: the kill at
// the n-th write call after prefix of its requests. It reports whether
// the kill happened (WriteSync made n writes or more) and the number of
// requests of the call killed (0 if not a BatchWriteItem).
func crashWriteSync(t *testing.T, ctx context.Context, sc Schema, wal bool, n, prefix int) (killed bool, batchLen int) {
	t.Helper()
	e := rolledUp(t, ctx, sc, wal)
	clk, api, opts := e.clk, e.api, e.opts
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}

	// The process killed in a WriteSync of a late reading of the first
	// hour and a new latest one in the second.
	dying := &killAPI{API: api, n: n, prefix: prefix}
	dopts := *opts
	dopts.TableOptions = testTableOptions
	ds := mustOpen(t, ctx, dying, &dopts, sc)
	err := mustKind(t, ds, "K").WriteSync(ctx, "s", one(20*time.Minute, 2), one(time.Hour+5*time.Minute, 3))
	killed = errors.Is(err, errKilled)
	if err != nil && !killed {
		t.Fatalf("kill at write %d (+%d): WriteSync: %v", n, prefix, err)
	}
	_ = ds.Close() // fails: the process is dead
	if !killed {
		return false, 0
	}

	// The restart, once both hours are due.
	clk.Set(t0.Add(2*time.Hour + 6*time.Minute))
	st := mustOpen(t, ctx, api, opts, sc)
	defer st.Close()
	if err := st.Rollup(ctx); err != nil {
		t.Fatal(err)
	}
	k := mustKind(t, st, "K")
	where := fmt.Sprintf("kill at write %d (+%d of %d)", n, prefix, dying.batchLen)
	checkAgree(t, ctx, k, "s", t0, t0.Add(2*time.Hour), where)
	return true, dying.batchLen
}

// checkAgree checks that what Range returns of series id in [from, to)
// (whole hours) is what Latest, Aggregate by the hour and by the half
// hour and the hourly Rollups say.
func checkAgree(t *testing.T, ctx context.Context, k *Kind, id string, from, to time.Time, where string) {
	t.Helper()
	page, err := k.Range(ctx, id, Query{From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	rs := page.Readings
	perHour := map[time.Time]int64{}
	for _, r := range rs {
		perHour[r.Time.Truncate(time.Hour)]++
	}
	counts := func(what string, ps []Period) {
		t.Helper()
		got := map[time.Time]int64{}
		for _, p := range ps {
			got[p.Start.Truncate(time.Hour)] += p.Count
		}
		for h := from; h.Before(to); h = h.Add(time.Hour) {
			if got[h] != perHour[h] {
				t.Fatalf("%s: %s counts %d readings in the hour %s, Range %d (%s)", where, what, got[h], h.Format(time.TimeOnly), perHour[h], brief(rs))
			}
		}
	}
	for _, step := range []time.Duration{time.Hour, 30 * time.Minute} {
		agg, err := k.Aggregate(ctx, id, AggregateQuery{From: from, To: to, Step: step})
		if err != nil {
			t.Fatal(err)
		}
		counts(fmt.Sprintf("Aggregate by %v", step), agg.Periods)
	}
	if !k.s.NoRollups {
		ps, err := k.Rollups(ctx, id, Hourly, from, to)
		if err != nil {
			t.Fatal(err)
		}
		counts("Rollups", ps)
	}
	latest, err := k.Latest(ctx, id)
	switch {
	case len(rs) == 0 && !errors.Is(err, ErrNotFound):
		t.Fatalf("%s: Latest of no reading: %v, %v", where, latest, err)
	case len(rs) > 0 && (err != nil || !sameReading(latest, rs[len(rs)-1])):
		t.Fatalf("%s: Latest %v (%v), Range's newest %v", where, latest, err, rs[len(rs)-1])
	}
}

// TestWriteSync_PassBetweenWrites runs a rollup pass (of another Store)
// before each write of a WriteSync of a late reading, into an hour
// already rolled up: a pass that takes the hour's marker, written before
// the items, and computes the hour before the items are written, must
// not leave it without a marker; the next pass counts the reading.
func TestWriteSync_PassBetweenWrites(t *testing.T) {
	ctx := context.Background()
	for _, l := range allLayouts {
		t.Run(l.String(), func(t *testing.T) {
			for n := 1; ; n++ {
				e := rolledUp(t, ctx, Schema{Name: "K", Fields: []string{"v"}, Layout: l}, false)
				st := e.st
				passed := false
				hooked := &killAPI{API: e.api, n: n, before: func() {
					passed = true
					if err := st.Rollup(ctx); err != nil {
						t.Error(err)
					}
				}}
				ws := mustOpen(t, ctx, hooked, e.opts, e.sc)
				if err := mustKind(t, ws, "K").WriteSync(ctx, "s", one(20*time.Minute, 2)); err != nil {
					t.Fatal(err)
				}
				ws.Close()
				if err := st.Rollup(ctx); err != nil {
					t.Fatal(err)
				}
				checkAgree(t, ctx, mustKind(t, st, "K"), "s", t0, t0.Add(time.Hour), fmt.Sprintf("a pass before write %d", n))
				st.Close()
				if !passed {
					return
				}
			}
		})
	}
}
