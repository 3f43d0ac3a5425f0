package local_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestUpdateTable_AddAndRemoveGSI(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	for i := range 10 {
		item := attrs("pk", s(fmt.Sprint("k", i)), "v", n(fmt.Sprint(i%3)))
		if i == 9 {
			item["v"] = s("wrong type: left out of the index")
		}
		put(t, db, "tbl", item)
	}
	out, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("v"), AttributeType: types.ScalarAttributeTypeN}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byv"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("v"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := out.TableDescription.GlobalSecondaryIndexes; len(g) != 1 || g[0].IndexStatus != types.IndexStatusCreating {
		t.Fatalf("update output %+v", g)
	}
	q, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("byv"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: attrs(":v", n("0"))})
	if err != nil {
		t.Fatal(err)
	}
	if q.Count != 3 {
		t.Fatalf("backfilled index has %d items for v=0, want 3", q.Count)
	}
	d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Table.GlobalSecondaryIndexes[0]; g.IndexStatus != types.IndexStatusActive || aws.ToInt64(g.ItemCount) != 9 {
		t.Fatalf("described index %+v", g)
	}
	// A new write with the wrong type is now rejected.
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("x"), "v", s("no"))})
	wantAPIError(t, err, "ValidationException", "Type mismatch for Index Key")
	if _, err := db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("byv")}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("byv"),
		KeyConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: attrs(":v", n("0"))})
	wantAPIError(t, err, "ValidationException", "The table does not have the specified index: byv")
	put(t, db, "tbl", attrs("pk", s("x"), "v", s("fine now")))
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ValidationException", "Nothing to update")
}
