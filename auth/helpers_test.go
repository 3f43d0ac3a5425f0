package auth

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

// clock is the tests' settable clock.
type clock = testenv.Clock

// newClock returns a clock that reads 2026-03-01 12:00 UTC.
func newClock() *clock { return testenv.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// countingAPI counts the item reads and writes that reach the backend.
type countingAPI struct {
	timetable.API
	gets, updates, queries atomic.Int64
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.gets.Add(1)
	return c.API.GetItem(ctx, in, o...)
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.updates.Add(1)
	return c.API.UpdateItem(ctx, in, o...)
}

func (c *countingAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.queries.Add(1)
	return c.API.Query(ctx, in, o...)
}

// memDB returns an in-memory engine, closed when the test ends.
func memDB(t testing.TB) *local.DB {
	t.Helper()
	return testenv.MemDB(t, nil)
}

// openStore opens a Store over api with the clock clk (and o's other
// settings, if o is not nil).
func openStore(t testing.TB, api timetable.API, clk *clock, o *Options) *Store {
	t.Helper()
	var opts Options
	if o != nil {
		opts = *o
	}
	opts.Now = clk.Now
	s, err := Open(context.Background(), api, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
