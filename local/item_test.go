package local_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestPutItem_GetItem_RoundTrip(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "N")
	item := attrs("pk", s("a"), "sk", n("01.50"), "x", n("1e2"), "l", &types.AttributeValueMemberL{Value: []types.AttributeValue{s("v"), &types.AttributeValueMemberNULL{Value: true}}},
		"ss", &types.AttributeValueMemberSS{Value: []string{"b", "a"}}, "bin", b([]byte{0, 1}))
	put(t, db, "tbl", item)
	got := get(t, db, "tbl", attrs("pk", s("a"), "sk", n("1.5")))
	if got == nil {
		t.Fatal("item not found by equal number key")
	}
	if v := got["x"].(*types.AttributeValueMemberN).Value; v != "100" {
		t.Errorf("x = %s, want canonical 100", v)
	}
	if v := got["sk"].(*types.AttributeValueMemberN).Value; v != "1.5" {
		t.Errorf("sk = %s, want canonical 1.5", v)
	}
	if it := get(t, db, "tbl", attrs("pk", s("a"), "sk", n("2"))); it != nil {
		t.Errorf("absent item: got %v", it)
	}
}

func TestPutItem_KeyValidation(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S")
	for _, c := range []struct {
		name string
		item map[string]types.AttributeValue
		msg  string
	}{
		{"missing sk", attrs("pk", s("a")), "One of the required keys was not given a value"},
		{"wrong type", attrs("pk", s("a"), "sk", n("1")), "Type mismatch for key"},
		{"set key", attrs("pk", s("a"), "sk", &types.AttributeValueMemberSS{Value: []string{"x"}}), "Invalid attribute value type"},
		{"empty pk", attrs("pk", s(""), "sk", s("1")), "cannot contain an empty string value. Key: pk"},
		{"long pk", attrs("pk", s(strings.Repeat("a", 2049)), "sk", s("1")), "Hash primary key values must be under 2048 bytes"},
		{"long sk", attrs("pk", s("a"), "sk", s(strings.Repeat("a", 1025))), "range primary key values must be under 1024 bytes"},
		{"empty set", attrs("pk", s("a"), "sk", s("1"), "x", &types.AttributeValueMemberSS{}), "An string set  may not be empty"},
		{"bad number", attrs("pk", s("a"), "sk", s("1"), "x", n("abc")), "A value provided cannot be converted into a number"},
		{"dup set", attrs("pk", s("a"), "sk", s("1"), "x", &types.AttributeValueMemberNS{Value: []string{"1", "1.0"}}), "Input collection contains duplicates"},
		{"too big", attrs("pk", s("a"), "sk", s("1"), "x", s(strings.Repeat("a", 400*1024))), "Item size has exceeded the maximum allowed size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: c.item})
			wantAPIError(t, err, "ValidationException", c.msg)
		})
	}
	// Exactly at the limit is fine: 2+1 + 2+1 + 1+len(x) = 400 KB.
	put(t, db, "tbl", attrs("pk", s("a"), "sk", s("1"), "x", s(strings.Repeat("a", 400*1024-7))))
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a"))})
	wantAPIError(t, err, "ValidationException", "The number of conditions on the keys is invalid")
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nope"), Key: attrs("pk", s("a"))})
	wantAPIError(t, err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
}

func TestPutItem_Condition(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	in := &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a"), "v", n("1")),
		ConditionExpression: aws.String("attribute_not_exists(pk)")}
	if _, err := db.PutItem(ctx, in); err != nil {
		t.Fatal(err)
	}
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	_, err := db.PutItem(ctx, in)
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	var ccf *types.ConditionalCheckFailedException
	if !errorsAs(err, &ccf) || ccf.Item["v"].(*types.AttributeValueMemberN).Value != "1" {
		t.Fatalf("want the old item in the exception, got %v", err)
	}
	// Legacy Expected.
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a")),
		Expected: map[string]types.ExpectedAttributeValue{"v": {Value: n("2")}}})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a"), "v", n("3")),
		Expected: map[string]types.ExpectedAttributeValue{"v": {Value: n("1")}}, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a")), ReturnValues: types.ReturnValueAllNew})
	wantAPIError(t, err, "ValidationException", "Return values set to invalid value")
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("a")),
		ExpressionAttributeValues: attrs(":x", n("1"))})
	wantAPIError(t, err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
}

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

func TestDeleteItem_ReturnsOld(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "v", n("1")))
	_, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")),
		ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: attrs(":v", n("2"))})
	wantAPIError(t, err, "ConditionalCheckFailedException", "The conditional request failed")
	out, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")), ReturnValues: types.ReturnValueAllOld})
	if err != nil || out.Attributes["v"] == nil {
		t.Fatalf("delete: %v %v", out, err)
	}
	out, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a")), ReturnValues: types.ReturnValueAllOld})
	if err != nil || out.Attributes != nil {
		t.Fatalf("second delete: %v %v", out, err)
	}
}

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
