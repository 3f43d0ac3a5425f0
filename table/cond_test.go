package table

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestCond_Filters(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		ctx := ctxT(t)
		tbl := newTable(t, b.api, pkSk, nil)
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
