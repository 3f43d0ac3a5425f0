package local

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/value"
)

// TestItemReader_MatchesGet reads keys present (in the memtable, in
// tables, overwritten), deleted and never written, in sorted and random
// order with repeats, through one itemReader, and compares each item with
// getRaw's.
func TestItemReader_MatchesGet(t *testing.T) {
	ctx := context.Background()
	db, err := Open("", &Options{InMemory: true, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("tbl"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}); err != nil {
		t.Fatal(err)
	}
	item := func(i, v int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%03d", i)},
			"v":  &types.AttributeValueMemberN{Value: fmt.Sprint(v)},
		}
	}
	// Keys 0-299: even ones written, multiples of 6 overwritten after a
	// flush, multiples of 10 deleted after another; odd ones never written.
	for i := 0; i < 300; i += 2 {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: item(i, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i += 6 {
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: item(i, 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i += 10 {
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("tbl"),
			Key: map[string]types.AttributeValue{"pk": item(i, 0)["pk"]}}); err != nil {
			t.Fatal(err)
		}
	}
	m := db.tables["tbl"].m()
	keys := make([][]byte, 300)
	for i := range keys {
		k, err := m.keyFromItem(item(i, 0))
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = k.key
	}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		batch := make([][]byte, 1+r.IntN(40))
		for j := range batch {
			batch[j] = keys[r.IntN(len(keys))]
		}
		if round%2 == 0 {
			slices.SortFunc(batch, bytes.Compare)
		}
		ir := itemReader{db: db}
		for _, k := range batch {
			got, err := ir.get(k)
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.getRaw(k)
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (want == nil) || (got != nil && !value.EqualItems(got, want)) {
				t.Fatalf("round %d key %q: reader %v, get %v", round, k, got, want)
			}
		}
		if err := ir.close(); err != nil {
			t.Fatal(err)
		}
	}
}
