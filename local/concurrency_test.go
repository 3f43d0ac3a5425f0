package local_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local"
)

// TestConcurrency_ParallelAdd checks that no update is lost when many
// goroutines ADD to one counter (and to a GSI-indexed attribute).
func TestConcurrency_ParallelAdd(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true})
	createTable(t, db, "tbl", "", withGSIOn("c"))
	const workers, adds = 16, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range adds {
				_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String("tbl"), Key: attrs("pk", s("counter")),
					UpdateExpression: aws.String("ADD c :one"), ExpressionAttributeValues: attrs(":one", n("1"))})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := get(t, db, "tbl", attrs("pk", s("counter")))["c"].(*types.AttributeValueMemberN).Value
	if got != fmt.Sprint(workers*adds) {
		t.Fatalf("counter = %s, want %d", got, workers*adds)
	}
	// The index holds exactly one entry, with the final value.
	out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("tbl"), IndexName: aws.String("byc")})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 || out.Items[0]["c"].(*types.AttributeValueMemberN).Value != got {
		t.Fatalf("index: %v", out.Items)
	}
}

// TestConcurrency_ConditionalCreate checks that exactly one of many
// concurrent conditional creates of one item succeeds.
func TestConcurrency_ConditionalCreate(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("tbl"), Item: attrs("pk", s("x"), "w", n(fmt.Sprint(i))),
				ConditionExpression: aws.String("attribute_not_exists(pk)")})
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d conditional creates succeeded", wins)
	}
}

// withGSIOn adds a GSI "by<attr>" on a number attribute, projecting ALL.
func withGSIOn(attr string) func(*dynamodb.CreateTableInput) {
	return func(in *dynamodb.CreateTableInput) {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(attr), AttributeType: types.ScalarAttributeTypeN})
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: aws.String("by" + attr),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(attr), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}})
	}
}

// TestConcurrency_DeleteTableDuringBatches checks that deleting and
// recreating a table while batches write to it and another table neither
// deadlocks nor fails with anything but ResourceNotFoundException.
func TestConcurrency_DeleteTableDuringBatches(t *testing.T) {
	db := openMem(t, &local.Options{NoSync: true})
	createTable(t, db, "one", "")
	createTable(t, db, "two", "")
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
					"one": {{PutRequest: &types.PutRequest{Item: attrs("pk", s(fmt.Sprint(w, "-", i)))}}},
					"two": {{PutRequest: &types.PutRequest{Item: attrs("pk", s(fmt.Sprint(w, "-", i)))}}},
				}})
				var rnf *types.ResourceNotFoundException
				if err != nil && !errorsAs(err, &rnf) {
					errs <- err
					return
				}
			}
		}()
	}
	for range 20 {
		if _, err := db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("two")}); err != nil {
			t.Fatal(err)
		}
		createTable(t, db, "two", "")
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
