package table

import (
	"context"
	"slices"
	"testing"
)

func TestTx(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		if _, err := tbl.Put(ctx, Item{"P": S("ACCOUNT#1"), "S": S("BALANCE"), "amount": N("100")}, nil); err != nil {
			t.Fatal(err)
		}
		// A transfer: debit with a balance check, and a transaction record.
		err := tbl.Tx().
			Update(K("ACCOUNT#1", "BALANCE"), NewUpdate().Increment("amount", -30), Attr("amount").Gte(30)).
			Put(Item{"P": S("ACCOUNT#1"), "S": S("TRANSACTION#2024-12-01T14:30:00.000Z#1"), "amount": N("-30")}, Attr("S").NotExists()).
			Check(K("ACCOUNT#1", "BALANCE"), Attr("amount").Exists()).
			Commit(ctx)
		if err == nil {
			t.Fatal("a transaction with two actions on one item was accepted")
		}
		tx := tbl.Tx().
			Update(K("ACCOUNT#1", "BALANCE"), NewUpdate().Increment("amount", -30), Attr("amount").Gte(30)).
			Put(Item{"P": S("ACCOUNT#1"), "S": S("TRANSACTION#2024-12-01T14:30:00.000Z#1"), "amount": N("-30")}, Attr("S").NotExists())
		if tx.Len() != 2 {
			t.Fatalf("Len = %d", tx.Len())
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		// Too large a debit: cancelled by the condition of the first action.
		err = tbl.Tx().
			Update(K("ACCOUNT#1", "BALANCE"), NewUpdate().Increment("amount", -500), Attr("amount").Gte(500)).
			Put(Item{"P": S("ACCOUNT#1"), "S": S("TRANSACTION#2024-12-01T14:31:00.000Z#2"), "amount": N("-500")}, Cond{}).
			Commit(ctx)
		if !IsConditionFailed(err) || !slices.Equal(CancellationReasons(err), []string{"ConditionalCheckFailed", "None"}) {
			t.Fatalf("cancelled transaction: %v, reasons %v", err, CancellationReasons(err))
		}
		got, err := tbl.TxGet(ctx, []Key{K("ACCOUNT#1", "BALANCE"), K("ACCOUNT#1", "nope"), K("ACCOUNT#1", "TRANSACTION#2024-12-01T14:31:00.000Z#2")}, nil)
		if err != nil || len(got) != 3 || num(got[0], "amount") != 70 || got[1] != nil || got[2] != nil {
			t.Fatalf("TxGet = %v, %v", got, err)
		}
		if err := tbl.Tx().Delete(K("ACCOUNT#1", "TRANSACTION#2024-12-01T14:30:00.000Z#1"), Attr("amount").Lt(0)).Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tbl.Tx().Commit(ctx); err != nil {
			t.Fatalf("empty Commit: %v", err)
		}
		if err := tbl.Tx().Check(K("a", "b"), Cond{}).Commit(ctx); err == nil {
			t.Fatal("Check without condition accepted")
		}
		st := tbl.Stats().Ops
		if st["TransactWriteItems"].WriteUnits == 0 || st["TransactGetItems"].ReadUnits == 0 {
			t.Fatalf("transaction stats %+v", st)
		}
	})
}
