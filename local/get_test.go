package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestGetItem_Projection(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "x", n("1"), "y", s("2"), "m", &types.AttributeValueMemberM{Value: attrs("in", s("z"), "out", s("w"))}))
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")),
		ProjectionExpression: aws.String("x, #m.#i"), ExpressionAttributeNames: map[string]string{"#m": "m", "#i": "in"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Item) != 2 || len(out.Item["m"].(*types.AttributeValueMemberM).Value) != 1 {
		t.Fatalf("projected = %v", out.Item)
	}
	out, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")), AttributesToGet: []string{"y", "zz"}})
	if err != nil || len(out.Item) != 1 {
		t.Fatalf("AttributesToGet: %v %v", out.Item, err)
	}
	out, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")), ProjectionExpression: aws.String("zz")})
	if err != nil || out.Item == nil || len(out.Item) != 0 {
		t.Fatalf("projection of nothing: %v %v", out.Item, err)
	}
}

// TestReturnConsumedCapacity_Invalid checks DynamoDB's answer to a
// ReturnConsumedCapacity outside its enum, on a read and a write.
func TestReturnConsumedCapacity_Invalid(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	const msg = "1 validation error detected: Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")), ReturnConsumedCapacity: "ALL"})
	wantAPIError(t, err, "ValidationException", msg)
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a")), ReturnConsumedCapacity: "ALL"})
	wantAPIError(t, err, "ValidationException", msg)
	if it := get(t, db, "tbl", attrs("pk", s("a"))); it != nil {
		t.Errorf("a refused PutItem wrote %v", it)
	}
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :a"),
		ExpressionAttributeValues: attrs(":a", s("a")), ReturnConsumedCapacity: "ALL"})
	wantAPIError(t, err, "ValidationException", msg)
}
