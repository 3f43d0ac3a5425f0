package conformance

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Reading and writing items: single operations that fail the case on error,
// batches, and queries and scans read to their end.

// Put writes item to table, failing the case on error.
func (h *H) Put(table string, item Item) {
	h.t.Helper()
	if err := h.putErr(table, item); err != nil {
		h.t.Fatalf("PutItem: %v", err)
	}
}

// PutMany writes every item to table with PutItem, in order.
func (h *H) PutMany(table string, items ...Item) {
	h.t.Helper()
	for _, it := range items {
		h.Put(table, it)
	}
}

// putErr writes item to table and returns the error.
func (h *H) putErr(table string, item Item) error {
	_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	return err
}

// Get reads the item with key from table with a consistent read; nil when
// absent.
func (h *H) Get(table string, key Item) Item {
	h.t.Helper()
	out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		h.t.Fatalf("GetItem: %v", err)
	}
	return out.Item
}

// BatchPut writes items to table with BatchWriteItem, 25 at a time, failing
// the case on errors or unprocessed items.
func (h *H) BatchPut(table string, items ...Item) {
	h.t.Helper()
	for len(items) > 0 {
		n := min(len(items), 25)
		reqs := make([]types.WriteRequest, n)
		for i, it := range items[:n] {
			reqs[i] = putRequest(it)
		}
		out, err := h.API.BatchWriteItem(h.Ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
		if err != nil {
			h.t.Fatalf("BatchWriteItem: %v", err)
		}
		if len(out.UnprocessedItems) != 0 {
			h.t.Fatalf("BatchWriteItem left %d tables unprocessed", len(out.UnprocessedItems))
		}
		items = items[n:]
	}
}

// keysAndAttrs, putRequest and deleteRequest are parts of BatchGetItem and
// BatchWriteItem requests.
func keysAndAttrs(keys ...Item) types.KeysAndAttributes {
	return types.KeysAndAttributes{Keys: keys}
}

func putRequest(it Item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func deleteRequest(key Item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}}
}

// queryIn builds a QueryInput with a key condition and its values.
func queryIn(table, keyCond string, values Item) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String(keyCond),
		ExpressionAttributeValues: values,
	}
}

// MustQuery runs in once and fails the case on error.
func (h *H) MustQuery(in *dynamodb.QueryInput) *dynamodb.QueryOutput {
	h.t.Helper()
	out, err := h.API.Query(h.Ctx, in)
	return must(h, "Query", out, err)
}

// QueryAll runs in page by page until LastEvaluatedKey is empty and returns
// every item, in order.
func (h *H) QueryAll(in *dynamodb.QueryInput) []Item {
	h.t.Helper()
	return allPages(func() ([]Item, Item) {
		out := h.MustQuery(in)
		return out.Items, out.LastEvaluatedKey
	}, &in.ExclusiveStartKey)
}

// scanIn builds a ScanInput of table.
func scanIn(table string) *dynamodb.ScanInput {
	return &dynamodb.ScanInput{TableName: aws.String(table)}
}

// MustScan runs in once and fails the case on error.
func (h *H) MustScan(in *dynamodb.ScanInput) *dynamodb.ScanOutput {
	h.t.Helper()
	out, err := h.API.Scan(h.Ctx, in)
	return must(h, "Scan", out, err)
}

// ScanAll runs in page by page until LastEvaluatedKey is empty and returns
// every item, in order.
func (h *H) ScanAll(in *dynamodb.ScanInput) []Item {
	h.t.Helper()
	return allPages(func() ([]Item, Item) {
		out := h.MustScan(in)
		return out.Items, out.LastEvaluatedKey
	}, &in.ExclusiveStartKey)
}

// must returns out, failing the case when the operation op returned err.
func must[O any](h *H, op string, out O, err error) O {
	h.t.Helper()
	if err != nil {
		h.t.Fatalf("%s: %v", op, err)
	}
	return out
}

// allPages reads the pages that page returns, setting *start to each
// LastEvaluatedKey, until one has none, and returns every item in order.
func allPages(page func() (items []Item, last Item), start *Item) []Item {
	var all []Item
	for {
		items, last := page()
		all = append(all, items...)
		if len(last) == 0 {
			return all
		}
		*start = last
	}
}
