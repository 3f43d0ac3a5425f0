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
		{"long name", attrs("pk", s("a"), "sk", s("1"), strings.Repeat("n", 65536), s("v")), "Attribute name is too large, must be less than 65536 bytes"},
		{"long map key", attrs("pk", s("a"), "sk", s("1"), "m", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{strings.Repeat("n", 65536): s("v")}}),
			"Attribute name is too large, must be less than 65536 bytes"},
		{"too big", attrs("pk", s("a"), "sk", s("1"), "x", s(strings.Repeat("a", 400*1024))), "Item size has exceeded the maximum allowed size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: c.item})
			wantAPIError(t, err, "ValidationException", c.msg)
		})
	}
	// The longest name DynamoDB takes is 65,535 bytes.
	put(t, db, "tbl", attrs("pk", s("a"), "sk", s("2"), strings.Repeat("n", 65535), s("v")))
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
