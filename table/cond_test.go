package table

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestCond_Filters(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		items := []Item{
			{"P": S("A"), "S": S("1"), "n": N("5"), "lo": N("1"), "name": S("alpha"), "tags": &types.AttributeValueMemberSS{Value: []string{"x", "y"}}, "doc": &types.AttributeValueMemberM{Value: Item{"k": N("3")}}},
			{"P": S("A"), "S": S("2"), "n": N("10"), "lo": N("20"), "name": S("beta"), "tags": &types.AttributeValueMemberSS{Value: []string{"y"}}},
			{"P": S("A"), "S": S("3"), "n": N("15"), "name": S("alphabet"), "a.b": S("dotted")},
			{"P": S("A"), "S": S("4"), "name": N("7")},
		}
		if err := tbl.BatchPut(ctx, items); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			c    Cond
			want []string
		}{
			{"Eq", Attr("n").Eq(10), []string{"2"}},
			{"Ne", Attr("n").Ne(10), []string{"1", "3", "4"}},
			{"Lt", Attr("n").Lt(10), []string{"1"}},
			{"Lte", Attr("n").Lte(10), []string{"1", "2"}},
			{"Gt", Attr("n").Gt(10), []string{"3"}},
			{"Gte", Attr("n").Gte(10), []string{"2", "3"}},
			{"Between", Attr("n").Between(5, 10), []string{"1", "2"}},
			{"In", Attr("n").In(5, 15, 99), []string{"1", "3"}},
			{"BeginsWith", Attr("name").BeginsWith("alpha"), []string{"1", "3"}},
			{"Contains string", Attr("name").Contains("pha"), []string{"1", "3"}},
			{"Contains set", Attr("tags").Contains("x"), []string{"1"}},
			{"Exists", Attr("tags").Exists(), []string{"1", "2"}},
			{"NotExists", Attr("tags").NotExists(), []string{"3", "4"}},
			{"Type", Attr("name").Type("N"), []string{"4"}},
			{"Size", Attr("tags").Size().Eq(2), []string{"1"}},
			{"Size Gt", Attr("name").Size().Gt(5), []string{"3"}},
			{"Nested path", Attr("doc.k").Eq(3), []string{"1"}},
			{"Dotted name", AttrName("a.b").Eq("dotted"), []string{"3"}},
			{"Attribute to attribute", Attr("lo").Lt(Attr("n")), []string{"1"}},
			{"And", And(Attr("n").Gt(1), Attr("name").BeginsWith("alpha"), Attr("tags").Exists()), []string{"1"}},
			{"Or", Or(Attr("n").Eq(5), Attr("n").Eq(15)), []string{"1", "3"}},
			{"Not", Not(Attr("n").Exists()), []string{"4"}},
			{"method And", Attr("n").Gt(1).And(Attr("n").Lt(15)), []string{"1", "2"}},
			{"method Or", Attr("n").Eq(5).Or(Attr("name").Type("N")), []string{"1", "4"}},
			{"And of one", And(Cond{}, Attr("n").Eq(5), Cond{}), []string{"1"}},
			{"And of none", And(), []string{"1", "2", "3", "4"}},
			{"Not of none", Not(Cond{}), []string{"1", "2", "3", "4"}},
		} {
			got := collect(t, tbl.QueryAll(ctx, &Query{Hash: "A", Filter: c.c}))
			if !slices.Equal(sks(got, "S"), c.want) {
				t.Errorf("%s: got %v, want %v", c.name, sks(got, "S"), c.want)
			}
		}
		for _, c := range []Cond{Attr("n").In(), Attr("n").Eq(make(chan int)), And(Attr("n").Eq(1), Attr("x").Lt(func() {})), Attr("x").Between(1, make(chan int))} {
			if _, err := tbl.Query(ctx, &Query{Hash: "A", Filter: c}); err == nil {
				t.Errorf("bad condition accepted")
			}
		}
	})
}

func TestCond_Expr(t *testing.T) {
	eachTable(t, pkSk, func(t *testing.T, ctx context.Context, tbl *Table) {
		names := map[string]string{"#v": "v"}
		newer := func(v int) Cond {
			return Expr("attribute_not_exists(#v) OR #v < :v", names, map[string]types.AttributeValue{":v": N(strconv.Itoa(v))})
		}
		put := func(v int) error {
			_, err := tbl.Put(ctx, Item{"P": S("A"), "S": S("1"), "v": N(strconv.Itoa(v))}, &PutOptions{If: newer(v)})
			return err
		}
		if err := put(5); err != nil {
			t.Fatalf("Put over no item: %v", err)
		}
		if err := put(7); err != nil {
			t.Fatalf("Put of a greater v: %v", err)
		}
		if err := put(6); !IsConditionFailed(err) {
			t.Fatalf("Put of a smaller v: %v, want a failed condition", err)
		}
		if _, err := tbl.Delete(ctx, Key{Hash: "A", Range: "1"}, &DeleteOptions{If: newer(7)}); !IsConditionFailed(err) {
			t.Fatalf("Delete: %v, want a failed condition", err)
		}
		got := collect(t, tbl.ScanAll(ctx, &Scan{Filter: Expr("#v = :v", names, map[string]types.AttributeValue{":v": N("7")})}))
		if !slices.Equal(sks(got, "S"), []string{"1"}) {
			t.Fatalf("Scan with an Expr filter: %v", got)
		}
		// Only alone.
		for _, c := range []Cond{And(newer(1), Attr("v").Exists()), Or(newer(1)), Not(newer(1))} {
			if _, err := tbl.Put(ctx, Item{"P": S("A"), "S": S("2")}, &PutOptions{If: c}); !errors.Is(err, errRawCombined) {
				t.Errorf("Put with a combined Expr: %v, want errRawCombined", err)
			}
		}
		if _, err := tbl.Update(ctx, Key{Hash: "A", Range: "1"}, NewUpdate().Set("w", 1), &UpdateOptions{If: newer(9)}); !errors.Is(err, errRawCombined) {
			t.Errorf("Update with an Expr condition: %v, want errRawCombined", err)
		}
		if _, err := tbl.Query(ctx, &Query{Hash: "A", Filter: newer(9)}); !errors.Is(err, errRawCombined) {
			t.Errorf("Query with an Expr filter: %v, want errRawCombined", err)
		}
	})
}
