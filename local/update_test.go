package local_test

import (
	"fmt"
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

// TestUpdateItem_RemoveOnlyCreatesNothing checks Amazon DynamoDB's rule
// that an update which only removes does not create a missing item (with
// REMOVE, DELETE of set elements, or AttributeUpdates DELETE), while an
// update that writes, or one with no action at all, does.
func TestUpdateItem_RemoveOnlyCreatesNothing(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	for i, in := range []*dynamodb.UpdateItemInput{
		{UpdateExpression: aws.String("REMOVE x, y")},
		{UpdateExpression: aws.String("DELETE ss :v"), ExpressionAttributeValues: attrs(":v", &types.AttributeValueMemberSS{Value: []string{"a"}})},
		{UpdateExpression: aws.String("REMOVE x DELETE ss :v"), ExpressionAttributeValues: attrs(":v", &types.AttributeValueMemberSS{Value: []string{"a"}})},
		{AttributeUpdates: map[string]types.AttributeValueUpdate{"x": {Action: types.AttributeActionDelete}}},
	} {
		key := attrs("pk", s(fmt.Sprint("gone", i)))
		in.TableName, in.Key, in.ReturnValues = aws.String("tbl"), key, types.ReturnValueAllNew
		out, err := db.UpdateItem(ctx, in)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if out.Attributes != nil {
			t.Errorf("%d: ALL_NEW of an item not created: %v", i, out.Attributes)
		}
		if it := get(t, db, "tbl", key); it != nil {
			t.Errorf("%d: an update that only removes created %v", i, it)
		}
	}
	for i, in := range []*dynamodb.UpdateItemInput{
		{UpdateExpression: aws.String("SET x = :v REMOVE y"), ExpressionAttributeValues: attrs(":v", s("1"))},
		{},
	} {
		key := attrs("pk", s(fmt.Sprint("made", i)))
		in.TableName, in.Key = aws.String("tbl"), key
		if _, err := db.UpdateItem(ctx, in); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if it := get(t, db, "tbl", key); it == nil {
			t.Errorf("%d: the update did not create the item", i)
		}
	}
	// On an item that exists, removing its last attributes leaves its key.
	put(t, db, "tbl", attrs("pk", s("kept"), "x", s("1")))
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("kept")), UpdateExpression: aws.String("REMOVE x")}); err != nil {
		t.Fatal(err)
	}
	if it := get(t, db, "tbl", attrs("pk", s("kept"))); len(it) != 1 {
		t.Errorf("an existing item after REMOVE of its last attribute: %v", it)
	}
}
