package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

func TestListTables_Paging(t *testing.T) {
	db := openMem(t, nil)
	for _, name := range []string{"ccc", "aaa", "bbb", "ddd"} {
		createTable(t, db, name, "")
	}
	out, err := db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.TableNames; len(got) != 2 || got[0] != "aaa" || got[1] != "bbb" || aws.ToString(out.LastEvaluatedTableName) != "bbb" {
		t.Fatalf("page 1: %v %v", got, aws.ToString(out.LastEvaluatedTableName))
	}
	out, err = db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(3), ExclusiveStartTableName: aws.String("bbb")})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.TableNames; len(got) != 2 || got[0] != "ccc" || out.LastEvaluatedTableName != nil {
		t.Fatalf("page 2: %v %v", got, aws.ToString(out.LastEvaluatedTableName))
	}
	_, err = db.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(0)})
	wantAPIError(t, err, "ValidationException", "Limit must be greater than or equal to 1")
}
