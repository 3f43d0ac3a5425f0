package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A nil AttributeValue is what the wire makes of a JSON null; DynamoDB
// names the attribute or map key that holds it, before any other check of
// the item or key.
func TestNullAttributeValue(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tnull", "N")
	const msg = "The supplied Item contains a null AttributeValue"
	list := &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1"), nil}}
	for _, c := range []struct {
		item map[string]types.AttributeValue
		want string
	}{
		{nattrs("pk", s("a"), "sk", n("1"), "x", nil), msg + ": x is null"},
		{nattrs("pk", nil, "sk", n("1")), msg + ": pk is null"},
		{nattrs("pk", s("a"), "sk", n("1"), "x", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"y": nil}}), msg + ": y is null"},
		{nattrs("pk", s("a"), "sk", n("1"), "x", list), msg},
		// Before the other problems of the item.
		{nattrs("pk", n("1"), "sk", n("1"), "x", nil, "y", &types.AttributeValueMemberSS{}), msg + ": x is null"},
	} {
		_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tnull"), Item: c.item})
		wantAPIError(t, err, "ValidationException", c.want)
	}
	key := nattrs("pk", s("a"), "sk", nil)
	_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tnull"), Key: key})
	wantAPIError(t, err, "ValidationException", msg+": sk is null")
	_, err = db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tnull"), Key: key})
	wantAPIError(t, err, "ValidationException", msg+": sk is null")
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tnull"), Key: key, UpdateExpression: aws.String("SET a = ")})
	wantAPIError(t, err, "ValidationException", msg+": sk is null")
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tnull"), KeyConditionExpression: aws.String("pk = :v"),
		ExpressionAttributeValues: nattrs(":v", s("a")), ExclusiveStartKey: key})
	wantAPIError(t, err, "ValidationException", msg+": sk is null")
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
		"tnull": {{DeleteRequest: &types.DeleteRequest{Key: key}}},
	}})
	wantAPIError(t, err, "ValidationException", msg+": sk is null")
	_, err = db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("tnull"), Key: key}},
	}})
	wantAPIError(t, err, "ValidationException", msg+": sk is null")
	for _, v := range []types.AttributeValue{nil, list} {
		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tnull"), Item: nattrs("pk", s("a"), "sk", n("1")),
			ConditionExpression: aws.String("a = :v"), ExpressionAttributeValues: nattrs(":v", v)})
		wantAPIError(t, err, "ValidationException", "ExpressionAttributeValues contains invalid value: "+msg+" for key :v")
	}
	if got := get(t, db, "tnull", nattrs("pk", s("a"), "sk", n("1"))); got != nil {
		t.Fatalf("item written: %v", got)
	}
}

// nattrs is attrs that allows nil values.
func nattrs(kv ...any) map[string]types.AttributeValue {
	m := map[string]types.AttributeValue{}
	for i := 0; i < len(kv); i += 2 {
		v, _ := kv[i+1].(types.AttributeValue)
		m[kv[i].(string)] = v
	}
	return m
}
