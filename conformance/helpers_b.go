package conformance

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Helpers for the read, index, batch and transaction cases.

// MustQuery runs in once and fails the case on error.
func (h *H) MustQuery(in *dynamodb.QueryInput) *dynamodb.QueryOutput {
	h.t.Helper()
	out, err := h.API.Query(h.Ctx, in)
	if err != nil {
		h.t.Fatalf("Query: %v", err)
	}
	return out
}

// MustScan runs in once and fails the case on error.
func (h *H) MustScan(in *dynamodb.ScanInput) *dynamodb.ScanOutput {
	h.t.Helper()
	out, err := h.API.Scan(h.Ctx, in)
	if err != nil {
		h.t.Fatalf("Scan: %v", err)
	}
	return out
}

// PutMany writes every item to table with PutItem, in order.
func (h *H) PutMany(table string, items ...Item) {
	h.t.Helper()
	for _, it := range items {
		h.Put(table, it)
	}
}

// WantItemSet fails the case unless got and want hold the same items, in any
// order (for scans and for index entries that share a key).
func (h *H) WantItemSet(got, want []Item) {
	h.t.Helper()
	g, w := bFormatSorted(got), bFormatSorted(want)
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		h.t.Fatalf("item sets differ\n got (%d): %s\nwant (%d): %s", len(g), strings.Join(g, "\n     "), len(w), strings.Join(w, "\n     "))
	}
}

func bFormatSorted(items []Item) []string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = FormatItem(it)
	}
	sort.Strings(s)
	return s
}

// WantValues fails the case unless the attribute name of items, in order, has
// the values want.
func (h *H) WantValues(items []Item, name string, want ...types.AttributeValue) {
	h.t.Helper()
	g := make([]string, len(items))
	for i, it := range items {
		g[i] = Format(it[name])
	}
	w := make([]string, len(want))
	for i, v := range want {
		w[i] = Format(v)
	}
	if strings.Join(g, " ") != strings.Join(w, " ") {
		h.t.Fatalf("%s values\n got (%d): %s\nwant (%d): %s", name, len(g), strings.Join(g, " "), len(w), strings.Join(w, " "))
	}
}

// WantCounts fails the case unless Count and ScannedCount are as expected.
func (h *H) WantCounts(count, scanned int32, wantCount, wantScanned int32) {
	h.t.Helper()
	if count != wantCount || scanned != wantScanned {
		h.t.Fatalf("Count/ScannedCount = %d/%d, want %d/%d", count, scanned, wantCount, wantScanned)
	}
}

// WantNoLastKey fails the case when a page says there is more to read.
func (h *H) WantNoLastKey(lek Item) {
	h.t.Helper()
	if len(lek) != 0 {
		h.t.Fatalf("LastEvaluatedKey = %s, want none", FormatItem(lek))
	}
}

// WantLastKey fails the case unless the LastEvaluatedKey is want.
func (h *H) WantLastKey(lek, want Item) {
	h.t.Helper()
	if len(lek) == 0 {
		h.t.Fatalf("no LastEvaluatedKey, want %s", FormatItem(want))
	}
	wantItem(h.t, lek, want)
}

// WantReadCapacity fails the case unless cc reports total units for table, and,
// when table or indexes are not nil, the same breakdown. Pass table < 0 to
// require that no table breakdown is reported.
func (h *H) WantReadCapacity(cc *types.ConsumedCapacity, tableName string, total float64, table float64, gsi, lsi map[string]float64) {
	h.t.Helper()
	if cc == nil {
		h.t.Fatalf("no ConsumedCapacity, want %v units", total)
	}
	got := bFmtCapacity(cc)
	want := bFmtCapacity(&types.ConsumedCapacity{TableName: aws.String(tableName), CapacityUnits: aws.Float64(total)})
	if table >= 0 {
		want = bFmtCapacity(&types.ConsumedCapacity{
			TableName:              aws.String(tableName),
			CapacityUnits:          aws.Float64(total),
			Table:                  &types.Capacity{CapacityUnits: aws.Float64(table)},
			GlobalSecondaryIndexes: bCapMap(gsi),
			LocalSecondaryIndexes:  bCapMap(lsi),
		})
	}
	if got != want {
		h.t.Fatalf("ConsumedCapacity\n got: %s\nwant: %s", got, want)
	}
}

func bCapMap(m map[string]float64) map[string]types.Capacity {
	if m == nil {
		return nil
	}
	out := map[string]types.Capacity{}
	for k, v := range m {
		out[k] = types.Capacity{CapacityUnits: aws.Float64(v)}
	}
	return out
}

// fmtCapacity renders the parts of a read's consumed capacity that DynamoDB
// Local reports (capacity units; read and write units are left out).
func bFmtCapacity(cc *types.ConsumedCapacity) string {
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

// queryIn builds a QueryInput with a key condition and its values.
func queryIn(table, keyCond string, values Item) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeValues: values,
	}
}

// def is an attribute definition.
func bDef(name string, t types.ScalarAttributeType) types.AttributeDefinition {
	return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t}
}

// keySchema is a key schema of a hash key and an optional range key.
func bKeySchema(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

// projection is an index projection; nonKey is for INCLUDE.
func bProjection(t types.ProjectionType, nonKey ...string) *types.Projection {
	return &types.Projection{ProjectionType: t, NonKeyAttributes: nonKey}
}

// gsi describes a global secondary index.
func bGSI(name, hash, rng string, p *types.Projection) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{IndexName: aws.String(name), KeySchema: bKeySchema(hash, rng), Projection: p}
}

// lsi describes a local secondary index on partition key pk.
func bLSI(name, rng string, p *types.Projection) types.LocalSecondaryIndex {
	return types.LocalSecondaryIndex{IndexName: aws.String(name), KeySchema: bKeySchema("pk", rng), Projection: p}
}

// seq returns "prefix000".."prefix(n-1)" zero padded to width 3.
func bSeq(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return s
}

// txReason is an expected cancellation reason of a transaction: its code
// ("None" for operations that did not fail), message and item (for
// ReturnValuesOnConditionCheckFailure ALL_OLD).
type txReason struct {
	code, msg string
	item      Item
}

// WantTxCanceled fails the case unless err is a *types.TransactionCanceledException
// with DynamoDB's message and exactly the reasons want, in order.
func (h *H) WantTxCanceled(err error, want ...txReason) {
	h.t.Helper()
	codes := make([]string, len(want))
	for i, r := range want {
		codes[i] = r.code
	}
	h.WantError(err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]")
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		h.t.Fatalf("error %T is not a *types.TransactionCanceledException", err)
	}
	if len(tce.CancellationReasons) != len(want) {
		h.t.Fatalf("%d cancellation reasons, want %d", len(tce.CancellationReasons), len(want))
	}
	for i, r := range tce.CancellationReasons {
		if got := aws.ToString(r.Code); got != want[i].code {
			h.t.Fatalf("reason %d: code %q, want %q", i, got, want[i].code)
		}
		if got := aws.ToString(r.Message); got != want[i].msg {
			h.t.Fatalf("reason %d: message %q, want %q", i, got, want[i].msg)
		}
		if (r.Item == nil) != (want[i].item == nil) || FormatItem(r.Item) != FormatItem(want[i].item) {
			h.t.Fatalf("reason %d: item %s, want %s", i, FormatItem(r.Item), FormatItem(want[i].item))
		}
	}
}
