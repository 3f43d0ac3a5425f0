package local_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

// TestTTL_SweepMultiKeyIndex checks that the TTL sweeper removes the
// entries of an expired item from an index with a multi-attribute key, and
// that DescribeTable's index counts and sizes follow.
func TestTTL_SweepMultiKeyIndex(t *testing.T) {
	clk := testenv.NewClock(time.Unix(1_700_000_000, 0))
	db := openMem(t, &local.Options{Now: clk.Now, TTLInterval: -1})
	createTable(t, db, "tbl", "", func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions,
			types.AttributeDefinition{AttributeName: aws.String("a"), AttributeType: types.ScalarAttributeTypeS},
			types.AttributeDefinition{AttributeName: aws.String("b"), AttributeType: types.ScalarAttributeTypeN},
			types.AttributeDefinition{AttributeName: aws.String("c"), AttributeType: types.ScalarAttributeTypeB})
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("abc"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("b"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("c"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
	})
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	now := clk.Now().Unix()
	for i := range 6 {
		exp := now + 100
		if i%2 == 0 {
			exp = now - 1
		}
		put(t, db, "tbl", attrs("pk", s(fmt.Sprint(i)), "a", s("x"), "b", n("1"), "c", b([]byte{byte(i)}), "exp", n(fmt.Sprint(exp))))
	}
	indexSize := func() (count, size int64) {
		t.Helper()
		d, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("tbl")})
		if err != nil {
			t.Fatal(err)
		}
		g := d.Table.GlobalSecondaryIndexes[0]
		return aws.ToInt64(g.ItemCount), aws.ToInt64(g.IndexSizeBytes)
	}
	count0, size0 := indexSize()
	if count0 != 6 || size0 < 6*9 {
		t.Fatalf("index count %d, size %d before the sweep", count0, size0)
	}
	if deleted, err := db.SweepExpired(); err != nil || deleted != 3 {
		t.Fatalf("swept %d, %v; want 3", deleted, err)
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("abc"),
		KeyConditionExpression: aws.String("a = :a AND b = :b"), ExpressionAttributeValues: attrs(":a", s("x"), ":b", n("1"))})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
	}
	if fmt.Sprint(got) != "[1 3 5]" {
		t.Fatalf("index after the sweep: %v", got)
	}
	// The entries are all of one size, at least that of their key
	// attributes: pk (1 + 1 bytes), a (1 + 1), b (1 + 2), c (1 + 1).
	if count, size := indexSize(); count != 3 || size != size0/2 {
		t.Fatalf("index count %d, size %d after the sweep; %d before", count, size, size0)
	}
}
