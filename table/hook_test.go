package table

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/timetable-db/timetable/internal/dynamotest"
)

// TestOptions_OnTableMissing: the hook hears of a missing table from the
// item operations that meet it (with their names), and not from the
// operations on the table itself.
func TestOptions_OnTableMissing(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		var (
			mu    sync.Mutex
			heard []string
		)
		o := *testOptions
		o.OnTableMissing = func(op string, err error) {
			if !IsTableMissing(err) {
				t.Errorf("OnTableMissing(%s, %v): not a missing table", op, err)
			}
			mu.Lock()
			heard = append(heard, op)
			mu.Unlock()
		}
		s := pkSk
		s.Name = dynamotest.TableName(t, "missing") // never created
		tbl, err := New(b.api, s, &o)
		if err != nil {
			t.Fatal(err)
		}
		if err := tbl.Drop(ctx); err != nil { // DeleteTable: not heard
			t.Fatal(err)
		}
		if _, err := tbl.Get(ctx, K("A", "1"), nil); !IsTableMissing(err) {
			t.Fatalf("Get of a missing table: %v", err)
		}
		if err := tbl.BatchPut(ctx, []Item{{"P": S("A"), "S": S("1")}}); !IsTableMissing(err) {
			t.Fatalf("BatchPut to a missing table: %v", err)
		}
		if want := []string{"GetItem", "BatchWriteItem"}; !slices.Equal(heard, want) {
			t.Fatalf("heard %v, want %v", heard, want)
		}
		// A table that exists is not reported missing.
		heard = nil
		ok := newTable(t, b.api, pkSk, &o)
		if _, err := ok.Get(ctx, K("A", "1"), nil); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of an absent item: %v", err)
		}
		if len(heard) != 0 {
			t.Fatalf("heard %v from a table that exists", heard)
		}
	})
}
