package local_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestBatchWriteItem_PutsAndDeletes(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "", withGSIOn("g"))
	createTable(t, db, "tb2", "")
	put(t, db, "tb2", attrs("pk", s("gone")))
	var reqs []types.WriteRequest
	for i := range 24 {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: attrs("pk", s(fmt.Sprint(i)), "g", n("1"))}})
	}
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"tbl": reqs,
		"tb2": {{DeleteRequest: &types.DeleteRequest{Key: attrs("pk", s("gone"))}}},
	}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.UnprocessedItems) != 0 || len(out.ConsumedCapacity) != 2 {
		t.Fatalf("output %+v", out)
	}
	for _, c := range out.ConsumedCapacity {
		if aws.ToString(c.TableName) == "tbl" && (aws.ToFloat64(c.CapacityUnits) != 48 || aws.ToFloat64(c.GlobalSecondaryIndexes["byg"].CapacityUnits) != 24) {
			t.Errorf("tbl capacity %v", aws.ToFloat64(c.CapacityUnits))
		}
	}
	if get(t, db, "tb2", attrs("pk", s("gone"))) != nil || get(t, db, "tbl", attrs("pk", s("7"))) == nil {
		t.Fatal("batch not applied")
	}
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": append(reqs, reqs[:2]...)}})
	wantAPIError(t, err, "ValidationException", "Too many items requested for the BatchWriteItem call")
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {reqs[0], {DeleteRequest: &types.DeleteRequest{Key: attrs("pk", s("0"))}}}}})
	wantAPIError(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	// One invalid request fails the whole batch, and nothing is written.
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {
		{PutRequest: &types.PutRequest{Item: attrs("pk", s("new"))}},
		{PutRequest: &types.PutRequest{Item: attrs("pk", s("bad"), "g", s("not a number"))}}}}})
	wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key")
	if get(t, db, "tbl", attrs("pk", s("new"))) != nil {
		t.Fatal("partial batch written")
	}
}

func TestBatchGetItem(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "x", n("1"), "y", n("2")))
	put(t, db, "tbl", attrs("pk", s("b"), "x", n("3")))
	out, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"tbl": {Keys: []map[string]types.AttributeValue{attrs("pk", s("a")), attrs("pk", s("b")), attrs("pk", s("c"))}, ProjectionExpression: aws.String("x")},
	}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Responses["tbl"]; len(got) != 2 || len(got[0]) != 1 || len(out.UnprocessedKeys) != 0 {
		t.Fatalf("responses %v", out.Responses)
	}
	if c := aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits); c != 1 {
		t.Errorf("capacity %v", c)
	}
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
		"tbl": {Keys: []map[string]types.AttributeValue{attrs("pk", s("a")), attrs("pk", s("a"))}}}})
	wantAPIError(t, err, "ValidationException", "Provided list of item keys contains duplicates")
	var keys []map[string]types.AttributeValue
	for i := range 101 {
		keys = append(keys, attrs("pk", s(fmt.Sprint(i))))
	}
	_, err = db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{"tbl": {Keys: keys}}})
	wantAPIError(t, err, "ValidationException", "Too many items requested for the BatchGetItem call")
}
