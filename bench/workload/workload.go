// Package workload holds the workloads that benchcompare runs against
// timetable and its peers: a test-suite-shaped sequence of operations
// (Suite) and a concurrent load generator (Load). Both take a Client, the
// few methods of aws-sdk-go-v2's *dynamodb.Client they use, so the same code
// drives the embedded engine in process and any endpoint over HTTP.
package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Client is the part of aws-sdk-go-v2's *dynamodb.Client (and of
// timetable.API) that the workloads use.
type Client interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
}

// waitActive polls DescribeTable until the table is ACTIVE (dynalite keeps
// new tables CREATING for a while unless told otherwise) or ctx ends.
func waitActive(ctx context.Context, c Client, table string) error {
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return fmt.Errorf("cannot describe table %s: %w", table, err)
		}
		if out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// deleteTable deletes a table and waits until it is gone.
func deleteTable(ctx context.Context, c Client, table string) error {
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		return fmt.Errorf("cannot delete table %s: %w", table, err)
	}
	for {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		var nf *types.ResourceNotFoundException
		if errors.As(err, &nf) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot describe table %s: %w", table, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// batchPut writes items with BatchWriteItem, 25 at a time, resending
// unprocessed items (with a short pause) until all are written.
func batchPut(ctx context.Context, c Client, table string, items []map[string]types.AttributeValue) error {
	for len(items) > 0 {
		n := min(25, len(items))
		reqs := make([]types.WriteRequest, n)
		for i, it := range items[:n] {
			reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
		}
		items = items[n:]
		pending := map[string][]types.WriteRequest{table: reqs}
		for tries := 0; len(pending) > 0; tries++ {
			if tries == 100 {
				return fmt.Errorf("batch write to %s: items still unprocessed after %d tries", table, tries)
			}
			if tries > 0 {
				time.Sleep(10 * time.Millisecond)
			}
			out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return fmt.Errorf("batch write to %s: %w", table, err)
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(n int) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: fmt.Sprint(n)}
}
