package table

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// byTenantRegion has a global index with a multi-attribute key: partition
// (tenant, region), sort (day N, seq N).
var byTenantRegion = Schema{
	HashKey: "id",
	Indexes: []Index{{Name: "byTR", HashKey: "tenant", MoreHashKeys: []string{"region"},
		RangeKey: "day", MoreRangeKeys: []string{"seq"}, KeysOnly: true}},
	KeyTypes: map[string]types.ScalarAttributeType{"day": "N", "seq": "N"},
}

func TestQuery_MultiAttributeIndex(t *testing.T) {
	eachTable(t, byTenantRegion, func(t *testing.T, ctx context.Context, tbl *Table) {
		d, err := tbl.API().DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tbl.Name())})
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, k := range d.Table.GlobalSecondaryIndexes[0].KeySchema {
			ks = append(ks, string(k.KeyType)+" "+aws.ToString(k.AttributeName))
		}
		if want := []string{"HASH tenant", "HASH region", "RANGE day", "RANGE seq"}; !slices.Equal(ks, want) {
			t.Fatalf("index key schema %v, want %v", ks, want)
		}
		var items []Item
		for i := range 24 {
			items = append(items, Item{"id": S(fmt.Sprintf("i%02d", i)), "tenant": S("t"), "region": S([]string{"eu", "us"}[i%2]),
				"day": N(fmt.Sprint(i % 3 * 10)), "seq": N(fmt.Sprint(-i))})
		}
		if err := tbl.BatchPut(ctx, items); err != nil {
			t.Fatal(err)
		}
		ids := func(q *Query) []string {
			t.Helper()
			q.Index = "byTR"
			return sks(collect(t, tbl.QueryAll(ctx, q)), "id")
		}
		// eu: i even; day = i%3*10; ordered by day, then seq (-i) ascending.
		want := []string{"i18", "i12", "i06", "i00", "i22", "i16", "i10", "i04", "i20", "i14", "i08", "i02"}
		if got := ids(&Query{Hash: "t", MoreHash: []any{"eu"}}); !slices.Equal(got, want) {
			t.Fatalf("partition: %v, want %v", got, want)
		}
		if got := ids(&Query{Hash: "t", MoreHash: []any{"eu"}, Range: Gte(10)}); !slices.Equal(got, want[4:]) {
			t.Fatalf("day >= 10: %v", got)
		}
		if got := ids(&Query{Hash: "t", MoreHash: []any{"eu"}, RangePrefix: []any{10}, Range: Lt(-10)}); !slices.Equal(got, want[4:6]) {
			t.Fatalf("day = 10, seq < -10: %v", got)
		}
		if got := ids(&Query{Hash: "t", MoreHash: []any{"eu"}, RangePrefix: []any{20, -14}}); !slices.Equal(got, []string{"i14"}) {
			t.Fatalf("day = 20, seq = -14: %v", got)
		}
		// Pages resume with cursors that carry every key attribute.
		p, err := tbl.Query(ctx, &Query{Index: "byTR", Hash: "t", MoreHash: []any{"eu"}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		p2, err := tbl.Query(ctx, &Query{Index: "byTR", Hash: "t", MoreHash: []any{"eu"}, Limit: 5, Cursor: p.Cursor})
		if err != nil {
			t.Fatal(err)
		}
		if got := sks(append(p.Items, p2.Items...), "id"); !slices.Equal(got, want[:10]) {
			t.Fatalf("two pages: %v", got)
		}
		for _, q := range []*Query{
			{Hash: "t"},
			{Hash: "t", MoreHash: []any{"eu", "x"}},
			{Hash: "t", MoreHash: []any{"eu"}, RangePrefix: []any{1, 2}, Range: Eq(3)},
		} {
			q.Index = "byTR"
			if _, err := tbl.Query(ctx, q); err == nil || !strings.HasPrefix(err.Error(), "table: ") {
				t.Errorf("%+v: err = %v", q, err)
			}
		}
	})
}

func TestNew_MultiAttributeIndexChecks(t *testing.T) {
	for _, ix := range []Index{
		{Name: "l", Local: true, RangeKey: "r", MoreRangeKeys: []string{"x"}},
		{Name: "l", Local: true, RangeKey: "r", MoreHashKeys: []string{"x"}},
		{Name: "g", HashKey: "h", MoreRangeKeys: []string{"x"}},
		{Name: "g", HashKey: "h", MoreHashKeys: []string{"a", "b", "c", "d"}},
		{Name: "g", HashKey: "h", RangeKey: "r", MoreRangeKeys: []string{""}},
	} {
		if _, err := New(engine(t), Schema{Name: "t", HashKey: "P", RangeKey: "S", Indexes: []Index{ix}}, nil); err == nil {
			t.Errorf("%+v: no error", ix)
		}
	}
}
