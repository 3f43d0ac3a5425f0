package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v, want %v", got, t0)
	}
	c.Advance(time.Minute)
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after Advance, Now = %v", got)
	}
	c.Set(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("after Set, Now = %v", got)
	}
	var zero Clock
	if !zero.Now().IsZero() {
		t.Fatal("the zero Clock does not read the zero time")
	}
}

func TestMemDB_LeavesOptionsAlone(t *testing.T) {
	opts := &local.Options{TTLInterval: -1}
	db := MemDB(t, opts)
	if opts.InMemory {
		t.Fatal("MemDB modified the caller's options")
	}
	if _, err := db.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
}

func TestEachBackend_EngineFirst(t *testing.T) {
	var names []string
	EachBackend(t, func(t *testing.T, b Backend) {
		names = append(names, b.Name)
		if b.Name == "engine" {
			if b.Open(t, nil) == nil {
				t.Fatal("no API")
			}
		}
	})
	if len(names) == 0 || names[0] != "engine" {
		t.Fatalf("ran on %v, want the engine first", names)
	}
}

func TestCreateTable_Keys(t *testing.T) {
	db := MemDB(t, nil)
	for _, c := range []struct {
		table  string
		skType types.ScalarAttributeType
		want   int
	}{{"hash_only", "", 1}, {"hash_range", types.ScalarAttributeTypeN, 2}} {
		CreateTable(t, db, c.table, c.skType)
		out, err := db.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(c.table)})
		if err != nil {
			t.Fatal(err)
		}
		td := out.Table
		if len(td.KeySchema) != c.want || len(td.AttributeDefinitions) != c.want || *td.KeySchema[0].AttributeName != "pk" ||
			td.BillingModeSummary == nil || td.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("%s: keys %+v, attributes %+v, billing %+v", c.table, td.KeySchema, td.AttributeDefinitions, td.BillingModeSummary)
		}
		if c.want == 2 && (*td.KeySchema[1].AttributeName != "sk" || td.KeySchema[1].KeyType != types.KeyTypeRange) {
			t.Errorf("%s: range key %+v, want sk", c.table, td.KeySchema[1])
		}
	}
}

// Counter counts the Query calls, the items they return and the items
// put, from the last Reset or Reads.
func TestCounter(t *testing.T) {
	ctx := context.Background()
	c := &Counter{API: MemDB(t, nil)}
	CreateTable(t, c, "counted", types.ScalarAttributeTypeS)
	put := func(sk string) types.WriteRequest {
		return types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "p"}, "sk": &types.AttributeValueMemberS{Value: sk}}}}
	}
	if _, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"counted": {put("a"), put("b"), put("c")}}}); err != nil {
		t.Fatal(err)
	}
	if n := c.Puts(func(it map[string]types.AttributeValue) bool {
		return it["sk"].(*types.AttributeValueMemberS).Value != "b"
	}); n != 2 {
		t.Errorf("Puts: %d, want 2", n)
	}
	for range 2 {
		if _, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("counted"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "p"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if q, n := c.Reads(); q != 2 || n != 6 {
		t.Errorf("Reads: %d calls, %d items; want 2 and 6", q, n)
	}
	if q, n := c.Reads(); q != 0 || n != 0 {
		t.Errorf("Reads again: %d calls, %d items", q, n)
	}
	c.Reset()
	if n := c.Puts(func(map[string]types.AttributeValue) bool { return true }); n != 0 {
		t.Errorf("Puts after Reset: %d", n)
	}
}
