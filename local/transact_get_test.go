package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestTransactGetItems(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "x", n("1")))
	out, err := db.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
		{Get: &types.Get{TableName: aws.String("tbl"), Key: attrs("pk", s("a"))}},
		{Get: &types.Get{TableName: aws.String("tbl"), Key: attrs("pk", s("b"))}},
	}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Responses) != 2 || out.Responses[0].Item == nil || out.Responses[1].Item != nil {
		t.Fatalf("responses %+v", out.Responses)
	}
	if c := aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits); c != 4 {
		t.Errorf("capacity %v, want 4", c)
	}
}
