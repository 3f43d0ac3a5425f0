package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestDeleteTable_RemovesData(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	put(t, db, "tbl", attrs("pk", s("a"), "x", n("1")))
	out, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if st := out.TableDescription.TableStatus; st != types.TableStatusDeleting {
		t.Errorf("DeleteTable's answer says %s, want DELETING as DynamoDB", st)
	}
	_, err = db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ResourceNotFoundException", "Cannot do operations on a non-existent table")
	_, err = db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("tbl")})
	wantAPIError(t, err, "ResourceNotFoundException", "non-existent table")
	createTable(t, db, "tbl", "")
	if it := get(t, db, "tbl", attrs("pk", s("a"))); it != nil {
		t.Fatalf("recreated table has old item %v", it)
	}
}
