package series

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/table"
)

// clock is the tests' settable clock.
type clock = testenv.Clock

var newClock = testenv.NewClock

// backend is a backend a test runs on.
type backend = testenv.Backend

// openEngine opens an in-memory embedded engine whose TTL clock is clk.
func openEngine(t testing.TB, clk *clock) timetable.API { return testenv.Backends()[0].OpenOn(t, clk) }

// openOn opens b on clk, and returns its API and testOptions on clk.
func openOn(t testing.TB, b backend, clk *clock) (timetable.API, *Options) {
	t.Helper()
	return b.OpenOn(t, clk), testOptions(t, clk)
}

// backends returns the backends of testenv.Backends.
var backends = testenv.Backends

// endpointEnv names the DynamoDB-compatible endpoint the tests also run
// against; a child process of a test reads it to reach the server its
// parent checked.
const endpointEnv = dynamotest.EndpointEnv

// dynamoLocal returns a client for the server at endpoint.
func dynamoLocal(endpoint string) timetable.API { return dynamotest.NewClient(endpoint) }

// eachBackend runs fn as a subtest on the embedded engine and, when
// TIMETABLE_DYNAMODB_ENDPOINT is set, on that endpoint (testenv.EachBackend).
var eachBackend = testenv.EachBackend

var testTableOptions = &table.Options{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, RetryTimeout: 20 * time.Second}

// tableName returns a table name unique to the test.
func tableName(t testing.TB) string { return dynamotest.TableName(t, "series") }

// testOptions are store options for tests: no timers, the fake clock.
func testOptions(t testing.TB, clk *clock) *Options {
	return &Options{
		Table:           tableName(t),
		TableOptions:    testTableOptions,
		FlushInterval:   -1,
		RollupInterval:  -1,
		CompactInterval: -1,
		Now:             clk.Now,
	}
}

// mustOpen opens a store over api with opts, failing t on an error. The
// caller closes it.
func mustOpen(t testing.TB, ctx context.Context, api timetable.API, opts *Options, schemas ...Schema) *Store {
	t.Helper()
	st, err := Open(ctx, api, opts, schemas...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// openStore opens a store over api with opts, creates its table and drops
// it (and closes the store) when the test ends.
func openStore(t testing.TB, api timetable.API, opts *Options, schemas ...Schema) *Store {
	t.Helper()
	ctx := context.Background()
	st := mustOpen(t, ctx, api, opts, schemas...)
	if err := st.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		if err := st.Table().Drop(context.Background()); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return st
}

// t0 is the tests' epoch. It is far in the future because DynamoDB Local
// deletes items whose TTL has passed by the real clock, whatever the
// store's fake clock says.
var t0 = time.Date(2099, 12, 1, 0, 0, 0, 0, time.UTC)

// sameReading reports whether two readings are equal (NaN equal to NaN).
func sameReading(a, b Reading) bool {
	if !a.Time.Equal(b.Time) || len(a.Values) != len(b.Values) || len(a.Tags) != len(b.Tags) {
		return false
	}
	for i := range a.Values {
		if a.Values[i] != b.Values[i] && !(math.IsNaN(a.Values[i]) && math.IsNaN(b.Values[i])) {
			return false
		}
	}
	for i := range a.Tags {
		if a.Tags[i] != b.Tags[i] {
			return false
		}
	}
	return true
}

func wantReadings(t testing.TB, got, want []Reading) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d readings, want %d\n got: %v\nwant: %v", len(got), len(want), brief(got), brief(want))
	}
	for i := range got {
		if !sameReading(got[i], want[i]) {
			t.Fatalf("reading %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

func brief(rs []Reading) string {
	var b strings.Builder
	for i, r := range rs {
		if i == 8 {
			fmt.Fprintf(&b, " ...(%d)", len(rs))
			break
		}
		fmt.Fprintf(&b, " %s%v%v", r.Time.Format("01-02T15:04:05.000"), r.Values, r.Tags)
	}
	return b.String()
}

var allLayouts = Layouts()

// prepareNumbered is prepare with the sequence numbers a Write would
// give, for tests that build items without the buffer.
func (k *Kind) prepareNumbered(id string, rs []Reading) ([]rec, error) {
	recs, err := k.prepare(id, rs)
	if err == nil {
		k.st.buf.number([]entry{{k: k, id: id, recs: recs}})
	}
	return recs, err
}

// openKind is openStore with the one schema sc, and returns the Store and
// the kind of sc.
func openKind(t testing.TB, api timetable.API, opts *Options, sc Schema) (*Store, *Kind) {
	t.Helper()
	st := openStore(t, api, opts, sc)
	return st, mustKind(t, st, sc.Name)
}

// mustKind returns the kind of st named name, failing the test if there
// is none.
func mustKind(t testing.TB, st *Store, name string) *Kind {
	t.Helper()
	k, err := st.Kind(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// eachBackendLayout runs fn as a subtest per backend (eachBackend) and
// layout (allLayouts), one after the other.
func eachBackendLayout(t *testing.T, fn func(t *testing.T, b backend, l Layout)) {
	t.Helper()
	eachBackend(t, func(t *testing.T, b backend) {
		for _, l := range allLayouts {
			t.Run(l.String(), func(t *testing.T) { fn(t, b, l) })
		}
	})
}

// layoutEnv is one subtest of eachLayout: a store on one backend whose
// one kind has one layout.
type layoutEnv struct {
	ctx context.Context
	b   backend
	l   Layout
	clk *clock
	st  *Store
	k   *Kind
}

// eachLayout runs fn as a subtest per backend (eachBackend) and layout
// (allLayouts), with a store opened with testOptions on a clock set to now,
// holding the one kind schema(l) describes. On DynamoDB Local the layouts
// run in parallel (onDynamo), so fn must touch nothing outside e.
func eachLayout(t *testing.T, now time.Time, schema func(Layout) Schema, fn func(t *testing.T, e layoutEnv)) {
	t.Helper()
	eachBackendLayout(t, func(t *testing.T, b backend, l Layout) {
		if onDynamo(b) {
			t.Parallel()
		}
		clk := newClock(now)
		sc := schema(l)
		st, k := openKind(t, b.OpenOn(t, clk), testOptions(t, clk), sc)
		fn(t, layoutEnv{ctx: context.Background(), b: b, l: l, clk: clk, st: st, k: k})
	})
}

// shardedSensors is sensorSchema(l) over two shards, for the tests whose
// readings must cross shards.
func shardedSensors(l Layout) Schema {
	sc := sensorSchema(l)
	sc.Shards = 2
	return sc
}

// writeFlush writes rs to series id of k, then flushes st: on return the
// readings are in the table. It fails t on either error.
func writeFlush(t *testing.T, ctx context.Context, st *Store, k *Kind, id string, rs []Reading) {
	t.Helper()
	if err := k.Write(ctx, id, rs...); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// wantRange fails t unless k's Range of series id over q returns exactly
// want, in order.
func wantRange(t *testing.T, ctx context.Context, k *Kind, id string, q Query, want []Reading) {
	t.Helper()
	p, err := k.Range(ctx, id, q)
	if err != nil {
		t.Fatal(err)
	}
	wantReadings(t, p.Readings, want)
}

// rangePages reads series id of k one Range page at a time, starting at
// q and following each page's Cursor until a page has none. It returns
// the readings of all pages in order and the number of readings on each
// page. It fails t on an error, and when max pages are read and the last
// still has a cursor.
func rangePages(t *testing.T, ctx context.Context, k *Kind, id string, q Query, max int) (got []Reading, sizes []int) {
	t.Helper()
	for {
		if len(sizes) == max {
			t.Fatalf("more than %d pages", max)
		}
		p, err := k.Range(ctx, id, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Readings...)
		sizes = append(sizes, len(p.Readings))
		if p.Cursor == "" {
			return got, sizes
		}
		q.Cursor = p.Cursor
	}
}

// addSample adds the value v read at time tm to a's Count, Sum, Min and
// Max. When v is a's first value it also sets First and Last to v at tm
// and returns true; otherwise it returns false and leaves First and Last
// to the caller, whose rule (read order or time order) decides them.
func addSample(a *Aggregate, v float64, tm time.Time) (first bool) {
	if a.Count == 0 {
		*a = Aggregate{Count: 1, Sum: v, Min: v, Max: v, First: v, Last: v, FirstTime: tm, LastTime: tm}
		return true
	}
	a.Count++
	a.Sum += v
	a.Min, a.Max = min(a.Min, v), max(a.Max, v)
	return false
}
