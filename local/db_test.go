package local_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

func TestOpen_BadOptions(t *testing.T) {
	for _, c := range []struct {
		opts  local.Options
		field string
	}{
		{local.Options{MemTableSize: -1}, "MemTableSize"},
		{local.Options{MemTableSize: 64<<10 - 1}, "MemTableSize"},
		{local.Options{MemTableSize: 4 << 30}, "MemTableSize"},
		{local.Options{L0CompactionThreshold: -1}, "L0CompactionThreshold"},
		{local.Options{L0CompactionThreshold: 1001}, "L0CompactionThreshold"},
		{local.Options{L0CompactionFileThreshold: -1}, "L0CompactionFileThreshold"},
	} {
		c.opts.InMemory = true
		db, err := local.Open("", &c.opts)
		if err == nil {
			db.Close()
			t.Errorf("%+v: Open succeeded", c.opts)
			continue
		}
		if !strings.Contains(err.Error(), "Options."+c.field+" is ") {
			t.Errorf("%+v: error %q does not name the field", c.opts, err)
		}
	}
}

// TestOpen_SmallMemTable writes items of every size up to the largest,
// alone and in batches, through the least memtable and L0 thresholds,
// which flush and compact all the time, and reads them back.
func TestOpen_SmallMemTable(t *testing.T) {
	db := openMem(t, &local.Options{MemTableSize: 64 << 10, L0CompactionThreshold: 1, L0CompactionFileThreshold: 1})
	createTable(t, db, "tbl", "N")
	size := func(i int) int { return i * 997 % (400<<10 - 100) }
	item := func(i int) map[string]dtypes.AttributeValue {
		return attrs("pk", s(fmt.Sprint(i%7)), "sk", n(fmt.Sprint(i)), "x", s(strings.Repeat("x", size(i))))
	}
	const items = 300
	for i := 0; i < items; i += 2 {
		put(t, db, "tbl", item(i))
	}
	for i := 1; i < items; i += 50 {
		var reqs []dtypes.WriteRequest
		for j := i; j < i+50 && j < items; j += 2 {
			reqs = append(reqs, dtypes.WriteRequest{PutRequest: &dtypes.PutRequest{Item: item(j)}})
		}
		if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]dtypes.WriteRequest{"tbl": reqs}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range items {
		it := get(t, db, "tbl", attrs("pk", s(fmt.Sprint(i%7)), "sk", n(fmt.Sprint(i))))
		if it == nil || len(it["x"].(*dtypes.AttributeValueMemberS).Value) != size(i) {
			t.Fatalf("item %d: got %d bytes, want %d", i, len(it["x"].(*dtypes.AttributeValueMemberS).Value), size(i))
		}
	}
	// A query reads them back too, page after page (1 MB each).
	count := int32(0)
	in := &dynamodb.QueryInput{TableName: aws.String("tbl"), KeyConditionExpression: aws.String("pk = :p"),
		ExpressionAttributeValues: map[string]dtypes.AttributeValue{":p": s("3")}, Select: dtypes.SelectCount}
	for {
		out, err := db.Query(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		count += out.Count
		if out.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if count != 43 {
		t.Fatalf("Query counted %d items, want 43", count)
	}
}

func TestClose_ThenOperation(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = db.ListTables(ctx, &dynamodb.ListTablesInput{})
	if !errorsIs(err, local.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}
