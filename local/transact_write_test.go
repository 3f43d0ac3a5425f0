package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestTransactWriteItems_AllOrNothing(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("check"), "v", n("1")))
	items := []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: attrs("pk", s("new"))}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("tbl"), Key: attrs("pk", s("check")),
			ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: attrs(":v", n("2")),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
	}
	_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	wantAPIError(t, err, "TransactionCanceledException", "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]")
	var tce *types.TransactionCanceledException
	if !errorsAs(err, &tce) || len(tce.CancellationReasons) != 2 || tce.CancellationReasons[1].Item["v"] == nil {
		t.Fatalf("reasons: %+v", tce)
	}
	if get(t, db, "tbl", attrs("pk", s("new"))) != nil {
		t.Fatal("canceled transaction wrote")
	}
	items[1].ConditionCheck.ExpressionAttributeValues = attrs(":v", n("1"))
	items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String("tbl"), Key: attrs("pk", s("ctr")),
		UpdateExpression: aws.String("ADD c :one"), ExpressionAttributeValues: attrs(":one", n("1"))}})
	out, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ClientRequestToken: aws.String("tok-1"),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if c := aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits); c != 6 {
		t.Errorf("capacity %v, want 6", c)
	}
	// Same token and request: success without applying again.
	if _, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ClientRequestToken: aws.String("tok-1")}); err != nil {
		t.Fatal(err)
	}
	if c := get(t, db, "tbl", attrs("pk", s("ctr")))["c"].(*types.AttributeValueMemberN).Value; c != "1" {
		t.Fatalf("idempotent replay applied again: c = %s", c)
	}
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items[:1], ClientRequestToken: aws.String("tok-1")})
	wantAPIError(t, err, "IdempotentParameterMismatchException", "")
	_, err = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("tbl"), Item: attrs("pk", s("x"))}},
		{Delete: &types.Delete{TableName: aws.String("tbl"), Key: attrs("pk", s("x"))}}}})
	wantAPIError(t, err, "ValidationException", "Transaction request cannot include multiple operations on one item")
}
