package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

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
