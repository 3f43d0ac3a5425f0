package local_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
