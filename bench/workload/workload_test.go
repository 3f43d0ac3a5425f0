package workload_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/timetable-db/timetable/bench/workload"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/local"
)

func openLocal(t testing.TB) *local.DB {
	t.Helper()
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestSuite_Local(t *testing.T) {
	if err := workload.Suite(context.Background(), openLocal(t), tableName("suite")); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_Local(t *testing.T) {
	testLoad(t, openLocal(t))
}

func tableName(prefix string) string {
	return fmt.Sprintf("bench_%s_%d_%d", prefix, os.Getpid(), time.Now().UnixNano())
}

func TestSuite_Endpoint(t *testing.T) {
	c := dynamotest.Client(t)
	if err := workload.Suite(context.Background(), c, tableName("suite")); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_Endpoint(t *testing.T) {
	testLoad(t, dynamotest.Client(t))
}

func testLoad(t *testing.T, c workload.Client) {
	t.Helper()
	res, err := workload.Load(context.Background(), c, workload.LoadConfig{
		Table:    tableName("load"),
		Workers:  4,
		Duration: 300 * time.Millisecond,
		Warmup:   100 * time.Millisecond,
		MaxOps:   2000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 0 || res.FirstError != nil {
		t.Fatalf("%d errors, first: %v", res.Errors, res.FirstError)
	}
	if res.Ops == 0 || res.Ops > 2000 {
		t.Fatalf("ops = %d, want 1..2000", res.Ops)
	}
	for op, s := range res.PerOp {
		if s.Count == 0 {
			t.Errorf("%s: no operations measured", workload.OpNames[op])
		}
	}
}
