package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Assertions on the ConsumedCapacity that operations report.

// WantCapacity fails the case unless cc reports total capacity units for
// table (ReturnConsumedCapacity TOTAL or INDEXES).
func (h *H) WantCapacity(cc *types.ConsumedCapacity, table string, total float64) {
	h.t.Helper()
	if cc == nil {
		h.t.Fatalf("ConsumedCapacity is nil, want %v units", total)
	}
	if got := aws.ToString(cc.TableName); got != table {
		h.t.Fatalf("ConsumedCapacity.TableName = %q, want %q", got, table)
	}
	if got := aws.ToFloat64(cc.CapacityUnits); got != total {
		h.t.Fatalf("ConsumedCapacity.CapacityUnits = %v, want %v", got, total)
	}
}

// WantReadCapacity fails the case unless cc reports total units for table, and,
// when table or indexes are not nil, the same breakdown. Pass table < 0 to
// require that no table breakdown is reported.
func (h *H) WantReadCapacity(cc *types.ConsumedCapacity, tableName string, total float64, table float64, gsi, lsi map[string]float64) {
	h.t.Helper()
	if cc == nil {
		h.t.Fatalf("no ConsumedCapacity, want %v units", total)
	}
	got := formatCapacity(cc)
	want := formatCapacity(&types.ConsumedCapacity{TableName: aws.String(tableName), CapacityUnits: aws.Float64(total)})
	if table >= 0 {
		want = formatCapacity(&types.ConsumedCapacity{
			TableName:              aws.String(tableName),
			CapacityUnits:          aws.Float64(total),
			Table:                  &types.Capacity{CapacityUnits: aws.Float64(table)},
			GlobalSecondaryIndexes: capacities(gsi),
			LocalSecondaryIndexes:  capacities(lsi),
		})
	}
	if got != want {
		h.t.Fatalf("ConsumedCapacity\n got: %s\nwant: %s", got, want)
	}
}

// capacities returns the capacities of indexes by name.
func capacities(m map[string]float64) map[string]types.Capacity {
	if m == nil {
		return nil
	}
	out := map[string]types.Capacity{}
	for k, v := range m {
		out[k] = types.Capacity{CapacityUnits: aws.Float64(v)}
	}
	return out
}

// formatCapacity renders the parts of a read's consumed capacity that DynamoDB
// Local reports (capacity units; read and write units are left out).
func formatCapacity(cc *types.ConsumedCapacity) string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "table=%s units=%s", aws.ToString(cc.TableName), f(cc.CapacityUnits))
	if cc.Table != nil {
		fmt.Fprintf(&b, " Table=%s", f(cc.Table.CapacityUnits))
	}
	for _, part := range []struct {
		name string
		m    map[string]types.Capacity
	}{{"GSI", cc.GlobalSecondaryIndexes}, {"LSI", cc.LocalSecondaryIndexes}} {
		names := make([]string, 0, len(part.m))
		for k := range part.m {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&b, " %s[%s]=%s", part.name, k, f(part.m[k].CapacityUnits))
		}
	}
	return b.String()
}

// wantIndexCapacity fails the case unless cc reports table units for the
// table and exactly the given index units (name=units, GSIs and LSIs alike).
func wantIndexCapacity(h *H, cc *types.ConsumedCapacity, table float64, indexes map[string]float64) {
	h.t.Helper()
	if cc == nil || cc.Table == nil {
		h.t.Fatalf("ConsumedCapacity %+v has no Table part", cc)
	}
	if got := aws.ToFloat64(cc.Table.CapacityUnits); got != table {
		h.t.Fatalf("Table.CapacityUnits = %v, want %v", got, table)
	}
	got := map[string]float64{}
	for name, c := range cc.GlobalSecondaryIndexes {
		got[name] = aws.ToFloat64(c.CapacityUnits)
	}
	for name, c := range cc.LocalSecondaryIndexes {
		got[name] = aws.ToFloat64(c.CapacityUnits)
	}
	total := table
	for _, u := range indexes {
		total += u
	}
	if fmt.Sprint(got) != fmt.Sprint(indexes) || aws.ToFloat64(cc.CapacityUnits) != total {
		h.t.Fatalf("index units %v total %v, want %v total %v", got, aws.ToFloat64(cc.CapacityUnits), indexes, total)
	}
}

// capOf returns the entry of list for table, failing the case when there is
// none.
func (h *H) capOf(list []types.ConsumedCapacity, table string) *types.ConsumedCapacity {
	h.t.Helper()
	for i := range list {
		if aws.ToString(list[i].TableName) == table {
			return &list[i]
		}
	}
	h.t.Fatalf("no ConsumedCapacity for table %s in %d entries", table, len(list))
	return nil
}
