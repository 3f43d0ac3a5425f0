package table

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

type backend struct {
	name string // "engine" or "dynamodb"
	api  timetable.API
}

var (
	engineOnce sync.Once
	engineDB   *local.DB
	engineErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if engineDB != nil {
		engineDB.Close()
	}
	os.Exit(code)
}

func engine(t testing.TB) timetable.API {
	engineOnce.Do(func() {
		engineDB, engineErr = local.Open("", &local.Options{InMemory: true, CacheSize: 8 << 20})
	})
	if engineErr != nil {
		t.Fatalf("cannot open the embedded engine: %v", engineErr)
	}
	return engineDB
}

// eachBackend runs fn as a subtest on the embedded engine (the one the
// package's tests share) and, when TIMETABLE_DYNAMODB_ENDPOINT is set, on
// that endpoint (testenv.EachBackend).
func eachBackend(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Helper()
	testenv.EachBackend(t, func(t *testing.T, b testenv.Backend) {
		var api timetable.API
		if b.Name == "engine" {
			api = engine(t)
		} else {
			api = b.Open(t, nil)
		}
		fn(t, backend{name: b.Name, api: api})
	})
}

// testOptions keep retries short so that failure paths finish quickly.
var testOptions = &Options{BaseDelay: time.Millisecond, MaxDelay: 20 * time.Millisecond, RetryTimeout: 20 * time.Second}

// newTable creates a table of schema s (with a unique name) on api, and
// drops it when the test ends.
func newTable(t testing.TB, api timetable.API, s Schema, o *Options) *Table {
	t.Helper()
	s.Name = dynamotest.TableName(t, "tbl")
	if o == nil {
		o = testOptions
	}
	tbl, err := New(api, s, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tbl.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tbl.Drop(context.Background()); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return tbl
}

// pkSk is the classic schema, with key names that are not pk and sk so
// that nothing can rely on those.
var pkSk = Schema{HashKey: "P", RangeKey: "S"}

// withGSI has a global index keyed on other attributes, and a local one.
var withGSI = Schema{
	HashKey: "id", RangeKey: "at",
	Indexes: []Index{
		{Name: "byMetric", HashKey: "metric", RangeKey: "ts"},
		{Name: "byValue", Local: true, RangeKey: "v"},
	},
	KeyTypes: map[string]types.ScalarAttributeType{"at": "N", "v": "N"},
}

func S(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func N(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func str(it Item, name string) string {
	switch v := it[name].(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case nil:
		return "<absent>"
	}
	return fmt.Sprintf("%T", it[name])
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// collect drains a sequence.
func collect(t testing.TB, seq func(func(Item, error) bool)) []Item {
	t.Helper()
	var out []Item
	for it, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

func sks(items []Item, name string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = str(it, name)
	}
	return out
}

// num returns a number attribute's value (NaN if absent or not a number):
// backends may spell one number differently ("2" and "2.0").
func num(it Item, name string) float64 {
	v, ok := it[name].(*types.AttributeValueMemberN)
	if !ok {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(v.Value, 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// eachTable runs fn as a subtest on each backend (eachBackend), with a
// new table of schema s on it and a context that ends with the test.
func eachTable(t *testing.T, s Schema, fn func(t *testing.T, ctx context.Context, tbl *Table)) {
	t.Helper()
	eachBackend(t, func(t *testing.T, b backend) {
		fn(t, ctxT(t), newTable(t, b.api, s, nil))
	})
}
