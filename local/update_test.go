package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestUpdateItem_ReturnValues(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S")
	key := attrs("pk", s("u"), "sk", s("1"))
	upd := func(expr string, rv types.ReturnValue, vals map[string]types.AttributeValue) map[string]types.AttributeValue {
		t.Helper()
		out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key,
			UpdateExpression: aws.String(expr), ExpressionAttributeValues: vals, ReturnValues: rv})
		if err != nil {
			t.Fatal(err)
		}
		return out.Attributes
	}
	got := upd("SET a = :a, b = :b", types.ReturnValueAllNew, attrs(":a", s("x"), ":b", n("1")))
	if len(got) != 4 {
		t.Fatalf("ALL_NEW = %v", got)
	}
	got = upd("SET a = :a ADD b :b", types.ReturnValueUpdatedOld, attrs(":a", s("y"), ":b", n("1")))
	if len(got) != 2 || got["a"].(*types.AttributeValueMemberS).Value != "x" {
		t.Fatalf("UPDATED_OLD = %v", got)
	}
	got = upd("ADD b :b", types.ReturnValueUpdatedNew, attrs(":b", n("1")))
	if len(got) != 1 || got["b"].(*types.AttributeValueMemberN).Value != "3" {
		t.Fatalf("UPDATED_NEW = %v", got)
	}
	_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key,
		UpdateExpression: aws.String("SET sk = :a"), ExpressionAttributeValues: attrs(":a", s("z"))})
	wantAPIError(t, err, "ValidationException", "Cannot update attribute sk. This attribute is part of the key")
	// No update expression: creates the item with its key only.
	out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("u"), "sk", s("2")), ReturnValues: types.ReturnValueAllNew})
	if err != nil || len(out.Attributes) != 2 {
		t.Fatalf("bare update: %v %v", out, err)
	}
	// Legacy AttributeUpdates.
	out, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key, ReturnValues: types.ReturnValueAllNew,
		AttributeUpdates: map[string]types.AttributeValueUpdate{"c": {Action: types.AttributeActionPut, Value: s("v")}, "a": {Action: types.AttributeActionDelete}}})
	if err != nil || out.Attributes["c"] == nil || out.Attributes["a"] != nil {
		t.Fatalf("AttributeUpdates: %v %v", out, err)
	}
}
