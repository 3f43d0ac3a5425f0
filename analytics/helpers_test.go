package analytics

import (
	"context"
	"testing"
	"time"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/table"
)

// clock is the tests' settable clock.
type clock = testenv.Clock

var newClock = testenv.NewClock

// backend is a backend a test runs on.
type backend = testenv.Backend

// backends returns the backends of testenv.Backends, the engine first.
var backends = testenv.Backends

// eachBackend runs fn on the embedded engine and, when
// TIMETABLE_DYNAMODB_ENDPOINT is set, on that server (testenv.EachBackend).
var eachBackend = testenv.EachBackend

// openStore opens a Store on a new table of backend b, with the clock clk.
func openStore(t testing.TB, b backend, clk *clock, o *Options) *Store {
	t.Helper()
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.Now = clk.Now
	opts.Table = dynamotest.TableName(t, "analytics")
	opts.TableOptions = &table.Options{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, RetryTimeout: 20 * time.Second}
	ctx := context.Background()
	s, err := Open(ctx, b.OpenOn(t, clk), &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Table().Drop(context.Background()) })
	t.Cleanup(func() { _ = s.Close() }) // before the drop: stops the aggregation loop
	return s
}

// openWithSite is openStore with default options, on a new clock that
// reads now, and a site id (no domains, time zone UTC) already created in
// it. It returns the clock and the Store, and fails t on an error.
func openWithSite(t testing.TB, b backend, now time.Time, id string) (*clock, *Store) {
	t.Helper()
	clk := newClock(now)
	s := openStore(t, b, clk, nil)
	if err := s.CreateSite(context.Background(), Site{ID: id}); err != nil {
		t.Fatal(err)
	}
	return clk, s
}
