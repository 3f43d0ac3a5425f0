package testenv

import (
	"testing"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
)

// Backend is a backend a test runs on.
type Backend struct {
	// Name is the subtest's name: "engine" or "dynamodb".
	Name string

	// Open returns the backend's API for tb. On the engine it is a new
	// MemDB with opts; on the DynamoDB-compatible server it is
	// dynamotest.Client, which ignores opts and fails tb if the server
	// does not answer.
	Open func(tb testing.TB, opts *local.Options) timetable.API
}

// Backends returns the embedded engine and, when dynamotest.Endpoint is
// set, the DynamoDB-compatible server it names.
func Backends() []Backend {
	bs := []Backend{{Name: "engine", Open: func(tb testing.TB, opts *local.Options) timetable.API {
		tb.Helper()
		return MemDB(tb, opts)
	}}}
	if dynamotest.Endpoint() != "" {
		bs = append(bs, Backend{Name: "dynamodb", Open: func(tb testing.TB, _ *local.Options) timetable.API {
			tb.Helper()
			return dynamotest.Client(tb)
		}})
	}
	return bs
}

// EachBackend runs fn as a subtest on each of Backends, named by the
// backend, and logs when it ran on the embedded engine only.
func EachBackend(t *testing.T, fn func(t *testing.T, b Backend)) {
	t.Helper()
	bs := Backends()
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
	if len(bs) == 1 {
		t.Logf("%s not set: ran on the embedded engine only", dynamotest.EndpointEnv)
	}
}

// OpenOn is Open for a test on clk: the engine's TTL sweeper reads clk,
// and its block cache is 4 MiB (a test's engine holds little).
func (b Backend) OpenOn(tb testing.TB, clk *Clock) timetable.API {
	tb.Helper()
	return b.Open(tb, &local.Options{Now: clk.Now, CacheSize: 4 << 20})
}
