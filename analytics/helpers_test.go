package analytics

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/table"
)

// clock is a settable clock for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

type backend struct {
	name string
	open func(t testing.TB, clk *clock) timetable.API
}

func backends() []backend {
	bs := []backend{{name: "engine", open: func(t testing.TB, clk *clock) timetable.API {
		db, err := local.Open("", &local.Options{InMemory: true, Now: clk.Now, CacheSize: 4 << 20})
		if err != nil {
			t.Fatalf("cannot open the embedded engine: %v", err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}}}
	if dynamotest.Endpoint() != "" {
		bs = append(bs, backend{name: "dynamodb", open: func(t testing.TB, _ *clock) timetable.API { return dynamotest.Client(t) }})
	}
	return bs
}

// eachBackend runs fn on the embedded engine and, when
// TIMETABLE_DYNAMODB_ENDPOINT is set, on that server.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	bs := backends()
	for _, b := range bs {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
	if len(bs) == 1 {
		t.Logf("%s not set: ran on the embedded engine only", dynamotest.EndpointEnv)
	}
}

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
	s, err := Open(ctx, b.open(t, clk), &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnsureTable(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Table().Drop(context.Background()) })
	return s
}
