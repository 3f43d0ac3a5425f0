package local_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

func TestCatalog_SurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := local.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, db, "tbl", "S", func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeN})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
	})
	put(t, db, "tbl", attrs("pk", s("a"), "sk", s("b"), "g", n("7")))
	db = reopen(t, db, dir)
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Table.GlobalSecondaryIndexes) != 1 || aws.ToInt64(out.Table.ItemCount) != 1 ||
		aws.ToInt64(out.Table.GlobalSecondaryIndexes[0].ItemCount) != 1 {
		t.Fatalf("after reopen: %+v", out.Table)
	}
	createTable(t, db, "tb2", "")
	if it := get(t, db, "tbl", attrs("pk", s("a"), "sk", s("b"))); it == nil {
		t.Fatal("item lost")
	}
}
