package table

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestStats: consumed units per operation, as DynamoDB computes them: 1 KB
// write units, 4 KB read units, eventually consistent reads at half.
func TestStats(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		tbl.ResetStats()
		big := strings.Repeat("x", 2500) // a ~2.5 KB item: 3 write units
		for i := range 4 {
			if _, err := tbl.Put(ctx, Item{"P": S("A"), "S": S(fmt.Sprint(i)), "b": S(big)}, nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tbl.Get(ctx, K("A", "0"), &GetOptions{Consistent: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Get(ctx, K("A", "1"), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Update(ctx, K("A", "0"), NewUpdate().Increment("c", 1), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.Query(ctx, &Query{Hash: "A", Consistent: true}); err != nil {
			t.Fatal(err)
		}
		st := tbl.Stats()
		want := map[string]OpStats{
			"PutItem":    {Calls: 4, WriteUnits: 12},
			"GetItem":    {Calls: 2, ReadUnits: 1.5},
			"UpdateItem": {Calls: 1, WriteUnits: 3},
			"Query":      {Calls: 1, ReadUnits: 3}, // ~10 KB strongly consistent
		}
		for op, w := range want {
			if g := st.Ops[op]; g != w {
				t.Errorf("%s: %+v, want %+v", op, g, w)
			}
		}
		if st.WriteUnits != 15 || st.ReadUnits != 4.5 {
			t.Errorf("totals: %v read, %v write", st.ReadUnits, st.WriteUnits)
		}
		tbl.ResetStats()
		if st := tbl.Stats(); len(st.Ops) != 0 || st.ReadUnits != 0 {
			t.Errorf("after reset: %+v", st)
		}
	})
}

func TestCreate_Idempotent(t *testing.T) {
	eachTable(t, withGSI, func(t *testing.T, ctx context.Context, tbl *Table) {
		if err := tbl.Create(ctx, &CreateOptions{TTLAttribute: "expires"}); err != nil {
			t.Fatalf("second Create: %v", err)
		}
		if err := tbl.EnableTTL(ctx, "expires"); err != nil {
			t.Fatalf("EnableTTL again: %v", err)
		}
		if err := tbl.Drop(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tbl.Drop(ctx); err != nil {
			t.Fatalf("second Drop: %v", err)
		}
	})
}
