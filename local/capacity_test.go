package local_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The expected figures were measured on DynamoDB Local.
func TestCapacity_WritesWithIndexes(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S", withIndexes)
	key := attrs("pk", s("u"), "sk", s("1"))
	upd := func(expr string, vals map[string]types.AttributeValue) *types.ConsumedCapacity {
		t.Helper()
		out, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: key, UpdateExpression: aws.String(expr),
			ExpressionAttributeValues: vals, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
		if err != nil {
			t.Fatal(err)
		}
		return out.ConsumedCapacity
	}
	check := func(c *types.ConsumedCapacity, total, gsi, lsi float64) {
		t.Helper()
		if got := aws.ToFloat64(c.CapacityUnits); got != total {
			t.Errorf("total %v, want %v", got, total)
		}
		if got := aws.ToFloat64(c.GlobalSecondaryIndexes["gsi"].CapacityUnits); got != gsi {
			t.Errorf("gsi %v, want %v", got, gsi)
		}
		if got := aws.ToFloat64(c.LocalSecondaryIndexes["lsi"].CapacityUnits); got != lsi {
			t.Errorf("lsi %v, want %v", got, lsi)
		}
	}
	check(upd("SET g = :g, l = :l", attrs(":g", n("7"), ":l", s("x"))), 3, 1, 1)
	check(upd("SET g = :g, l = :l", attrs(":g", n("8"), ":l", s("y"))), 5, 2, 2) // both keys change: delete and put
	check(upd("SET a = :a", attrs(":a", s("a"))), 2, 0, 1)                       // a is projected into lsi only
	check(upd("SET c = :c", attrs(":c", s("c"))), 1, 0, 0)                       // projected nowhere
	check(upd("REMOVE g", nil), 2, 1, 0)
	// The larger of the old and new item counts.
	big := strings.Repeat("x", 3000)
	check(upd("SET c = :c", attrs(":c", s(big))), 3, 0, 0)
	check(upd("REMOVE c", nil), 3, 0, 0)

	out, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"), Key: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if c := out.ConsumedCapacity; aws.ToFloat64(c.CapacityUnits) != 2 || c.Table != nil {
		t.Errorf("delete: %+v", c)
	}
}

func TestCapacity_Reads(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "S")
	put(t, db, "tbl", attrs("pk", s("a"), "sk", s("1"), "d", s(strings.Repeat("x", 5000))))
	put(t, db, "tbl", attrs("pk", s("a"), "sk", s("2"), "d", s(strings.Repeat("x", 5000))))
	for _, c := range []struct {
		consistent bool
		want       float64
	}{{false, 1}, {true, 2}} {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("a"), "sk", s("1")),
			ConsistentRead: aws.Bool(c.consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToFloat64(out.ConsumedCapacity.CapacityUnits); got != c.want {
			t.Errorf("GetItem consistent=%v: %v units, want %v", c.consistent, got, c.want)
		}
	}
	// Query sums the sizes (about 10 KB) and rounds once: 3 units, halved.
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
		FilterExpression:          aws.String("attribute_not_exists(d)"),
		ExpressionAttributeValues: attrs(":p", s("a")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToFloat64(out.ConsumedCapacity.CapacityUnits); got != 1.5 || out.Count != 0 {
		t.Errorf("Query: %v units (count %d), want 1.5", got, out.Count)
	}
	out, err = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: attrs(":p", s("none")), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToFloat64(out.ConsumedCapacity.CapacityUnits); got != 0 {
		t.Errorf("empty Query: %v units, want 0", got)
	}
}
