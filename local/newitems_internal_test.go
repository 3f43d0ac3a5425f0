package local

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/local/internal/value"
)

// newItemsTables are the tables of the tests of timetable.WithNewItems:
// one with nothing but items, one with time to live, one with a global
// and a local secondary index, one with a stream.
var newItemsTables = []string{"plain", "ttl", "indexed", "streamed"}

// openNewItemsDB opens an in-memory DB at a fixed clock holding
// newItemsTables.
func openNewItemsDB(t *testing.T) *DB {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	db, err := Open("", &Options{InMemory: true, TTLInterval: -1, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, name := range newItemsTables {
		in := pkSKTable(name)
		switch name {
		case "indexed":
			in.AttributeDefinitions = append(in.AttributeDefinitions,
				types.AttributeDefinition{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS})
			in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}
			in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"),
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
					{AttributeName: aws.String("g"), KeyType: types.KeyTypeRange}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}
		case "streamed":
			in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
		}
		if _, err := db.CreateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
		if name == "ttl" {
			if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
				TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return db
}

// newItem is item number i of series s, of size about size bytes, with an
// index key and a time to live when the rand says so.
func newItem(rng *rand.Rand, s, i int) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("S#%d", s)},
		"sk": &types.AttributeValueMemberS{Value: fmt.Sprintf("%08d", i)},
		"d":  &types.AttributeValueMemberB{Value: bytes.Repeat([]byte{byte(i)}, rng.IntN(3000))},
	}
	if rng.IntN(2) == 0 {
		it["g"] = &types.AttributeValueMemberS{Value: fmt.Sprint(rng.IntN(5))}
	}
	if rng.IntN(2) == 0 {
		it["ttl"] = &types.AttributeValueMemberN{Value: fmt.Sprint(1767322800 + rng.IntN(100000))}
	}
	return it
}

// batchPut puts items into table with one BatchWriteItem call and returns
// the capacity it consumed, indexes included.
func batchPut(t *testing.T, ctx context.Context, db *DB, table string, items []map[string]types.AttributeValue) types.ConsumedCapacity {
	t.Helper()
	ws := make([]types.WriteRequest, len(items))
	for i, it := range items {
		ws[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
	}
	out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: ws},
		ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ConsumedCapacity) != 1 {
		t.Fatalf("consumed capacity of %d tables", len(out.ConsumedCapacity))
	}
	return out.ConsumedCapacity[0]
}

// capacityString spells c for a comparison: table, total and indexes.
func capacityString(c types.ConsumedCapacity) string {
	s := fmt.Sprintf("%s total %v", aws.ToString(c.TableName), aws.ToFloat64(c.CapacityUnits))
	for name, ix := range c.GlobalSecondaryIndexes {
		s += fmt.Sprintf(" gsi %s %v", name, aws.ToFloat64(ix.CapacityUnits))
	}
	for name, ix := range c.LocalSecondaryIndexes {
		s += fmt.Sprintf(" lsi %s %v", name, aws.ToFloat64(ix.CapacityUnits))
	}
	return s
}

// stored is a key and value of a DB's Pebble.
type stored struct{ key, value []byte }

// pebbleContents returns every key and value db's Pebble holds: items,
// index entries, TTL queue, stream records, catalog.
func pebbleContents(t *testing.T, db *DB) []stored {
	t.Helper()
	it, err := db.pdb.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var kvs []stored
	for it.First(); it.Valid(); it.Next() {
		kvs = append(kvs, stored{slices.Clone(it.Key()), slices.Clone(it.Value())})
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return kvs
}

// sameStored reports whether a and b are the same key and value: items,
// index entries and stream records are compared decoded, as the
// encoding of an item follows the order of its map.
func sameStored(t *testing.T, a, b stored) bool {
	t.Helper()
	if !bytes.Equal(a.key, b.key) {
		return false
	}
	switch a.key[0] {
	case spaceData:
		ia, err := decodeItem(a.value)
		if err != nil {
			t.Fatal(err)
		}
		ib, err := decodeItem(b.value)
		if err != nil {
			t.Fatal(err)
		}
		return value.EqualItems(ia, ib)
	case spaceStream:
		ra, err := decodeRecord(0, a.value)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := decodeRecord(0, b.value)
		if err != nil {
			t.Fatal(err)
		}
		return ra.event == rb.event && ra.ttl == rb.ttl && ra.ms == rb.ms && value.EqualItems(ra.keys, rb.keys) &&
			value.EqualItems(ra.new, rb.new) && value.EqualItems(ra.old, rb.old)
	}
	return bytes.Equal(a.value, b.value)
}

// TestNewItems_SameAsRead is a differential test of the puts made under
// timetable.WithNewItems: two engines take the same BatchWriteItem calls,
// one under the context, of items whose keys are new or which repeat a
// stored item exactly (the context's contract), into tables with nothing
// but items, with time to live, with indexes and with a stream; every
// call consumes the same capacity (indexes included) on both, and both
// hold the same keys and values in the end (items, index entries, TTL
// queue, stream records).
func TestNewItems_SameAsRead(t *testing.T) {
	ctx := context.Background()
	readDB, blindDB := openNewItemsDB(t), openNewItemsDB(t)
	blindCtx := timetable.WithNewItems(ctx)
	rng := rand.New(rand.NewPCG(1, 2))
	stored := map[string][]map[string]types.AttributeValue{} // of each table, in order
	for call := range 400 {
		table := newItemsTables[rng.IntN(len(newItemsTables))]
		var items []map[string]types.AttributeValue
		seen := map[string]bool{}
		for range 1 + rng.IntN(25) {
			var it map[string]types.AttributeValue
			if old := stored[table]; len(old) > 0 && rng.IntN(4) == 0 {
				it = old[rng.IntN(len(old))] // stored exactly so: a repeated write
			} else {
				it = newItem(rng, rng.IntN(8), len(old)+call*100+len(items))
			}
			k := it["pk"].(*types.AttributeValueMemberS).Value + "/" + it["sk"].(*types.AttributeValueMemberS).Value
			if seen[k] {
				continue
			}
			seen[k] = true
			items = append(items, it)
		}
		stored[table] = append(stored[table], items...)
		want := capacityString(batchPut(t, ctx, readDB, table, items))
		got := capacityString(batchPut(t, blindCtx, blindDB, table, items))
		if got != want {
			t.Fatalf("call %d into %s: capacity %s under WithNewItems, %s when reading", call, table, got, want)
		}
	}
	got, want := pebbleContents(t, blindDB), pebbleContents(t, readDB)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || !sameStored(t, got[i], want[i]) {
			t.Fatalf("the engines hold different keys or values (%d and %d in all), first at %d", len(got), len(want), i)
		}
	}
	if len(want) < 1000 {
		t.Fatalf("only %d keys and values: the calls wrote less than meant", len(want))
	}
}

// TestNewItems_Trusted checks where the engine trusts WithNewItems: on a
// put that replaces a larger item after all (the context's contract
// broken), a table without index or stream reports the new item's
// capacity (it did not read the old one) and holds the new item; a table
// with an index or a stream reads the old item anyway and reports the
// larger, with its index and stream as without the context.
func TestNewItems_Trusted(t *testing.T) {
	ctx := context.Background()
	blindCtx := timetable.WithNewItems(ctx)
	db := openNewItemsDB(t)
	big := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "1"},
		"g": &types.AttributeValueMemberS{Value: "x"}, "d": &types.AttributeValueMemberB{Value: make([]byte, 2500)},
	}
	small := map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: "a"}, "sk": &types.AttributeValueMemberS{Value: "1"},
		"g": &types.AttributeValueMemberS{Value: "y"},
	}
	for _, table := range newItemsTables {
		batchPut(t, ctx, db, table, []map[string]types.AttributeValue{big})
		got := aws.ToFloat64(batchPut(t, blindCtx, db, table, []map[string]types.AttributeValue{small}).CapacityUnits)
		want := 3.0 // the old item's 3 units
		switch table {
		case "plain", "ttl":
			want = 1 // the new item's, unread
		case "indexed":
			want = 3 + (3 + 1) + (1 + 1) // and both indexes' entries, moved from g=x to g=y
		}
		if got != want {
			t.Errorf("%s: %v units, want %v", table, got, want)
		}
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": small["pk"], "sk": small["sk"]}})
		if err != nil {
			t.Fatal(err)
		}
		if g := out.Item["g"].(*types.AttributeValueMemberS).Value; g != "y" || out.Item["d"] != nil {
			t.Errorf("%s: item %v after the put", table, out.Item)
		}
	}
	// The index holds the new entry only.
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("indexed"), IndexName: aws.String("gsi"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 0 {
		t.Errorf("the index still holds the old entry: %v", out.Items)
	}
}
