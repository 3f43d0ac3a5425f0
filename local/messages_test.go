package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Members the SDK client requires, so that the conformance cases cannot
// leave them out, get DynamoDB Local's words when they are absent (a
// request over the wire can leave them out).
func TestMessages_AbsentRequiredMembers(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ValidationException", "Item to put in PutItem cannot be null")
	_, err = db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"tbl": {{PutRequest: &types.PutRequest{}}}}})
	wantAPIError(t, err, "ValidationException", "The supplied Item contains a null AttributeValue")
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ValidationException", "TimeToLiveSpecification cannot be null")
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"), TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true)}})
	wantAPIError(t, err, "ValidationException", "AttributeName cannot be null when time to live is being enabled")
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{}}}})
	wantAPIError(t, err, "ValidationException", "Invalid global secondary index name")
	_, err = db.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("tbl"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
		Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("gsi")},
		Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gsi")},
	}}})
	wantAPIError(t, err, "ValidationException", "must hold one of Create, Update or Delete")
}
