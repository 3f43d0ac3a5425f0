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
