package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestDeleteTable_RemovesData(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "x", n("1")))
	if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")}); err != nil {
		t.Fatal(err)
	}
	_, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ResourceNotFoundException", "non-existent table")
	createTable(t, db, "tbl", "")
	if it := get(t, db, "tbl", attrs("pk", s("a"))); it != nil {
		t.Fatalf("recreated table has old item %v", it)
	}
}
