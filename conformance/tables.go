package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Tables: fresh names, creation with clean-up, waiting for a table and its
// indexes, and the two key shapes most cases use.

var tableSeq atomic.Int64

var runID = func() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}()

// TableName returns a fresh table name that no other case uses.
func (h *H) TableName() string {
	return fmt.Sprintf("cf_%s_%d", runID, tableSeq.Add(1))
}

// CreateTable creates the table described by in (a fresh name is set when
// in.TableName is nil; BillingMode defaults to PAY_PER_REQUEST), waits until
// it and its indexes are active, deletes it when the case ends, and returns
// its name.
func (h *H) CreateTable(in *dynamodb.CreateTableInput) string {
	h.t.Helper()
	if err := retryInternalFailure(func() error { return h.createErr(in) }); err != nil {
		h.t.Fatalf("CreateTable %s: %v", *in.TableName, err)
	}
	name := *in.TableName
	h.WaitActive(name)
	return name
}

// createErr tries once to create the table described by in, with
// CreateTable's defaults, and returns the error; a table that does get
// created is deleted when the case ends.
func (h *H) createErr(in *dynamodb.CreateTableInput) error {
	h.t.Helper()
	if in.TableName == nil {
		in.TableName = aws.String(h.TableName())
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil {
		in.BillingMode = types.BillingModePayPerRequest
	}
	_, err := h.API.CreateTable(h.Ctx, in)
	if err == nil {
		name := *in.TableName
		h.t.Cleanup(func() {
			_, _ = h.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		})
	}
	return err
}

// UpdateTable calls the API's UpdateTable, retrying an InternalFailure
// answer as CreateTable does.
func (h *H) UpdateTable(in *dynamodb.UpdateTableInput) (*dynamodb.UpdateTableOutput, error) {
	var out *dynamodb.UpdateTableOutput
	err := retryInternalFailure(func() error {
		var err error
		out, err = h.API.UpdateTable(h.Ctx, in)
		return err
	})
	return out, err
}

// retryInternalFailure calls op up to three times while it fails with
// InternalFailure. DynamoDB Local now and then answers a table operation
// made while many others run that way (status 400, so the SDK does not
// retry it); the harness retries that answer, and only that one.
func retryInternalFailure(op func() error) error {
	var err error
	for try := 0; try < 3; try++ {
		if err = op(); ErrorCode(err) != "InternalFailure" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// WaitActive waits until the table and all its global secondary indexes are
// ACTIVE, failing the case after 30 seconds.
func (h *H) WaitActive(name string) *types.TableDescription {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		if ErrorCode(err) == "InternalFailure" && time.Now().Before(deadline) {
			// DynamoDB Local now and then fails a DescribeTable while it
			// builds an index; the table is still there.
			h.t.Logf("DescribeTable %s: %v; asking again", name, err)
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if err != nil {
			h.t.Fatalf("DescribeTable %s: %v", name, err)
		}
		active := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == types.IndexStatusActive
		}
		if active {
			return out.Table
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("table %s not active after 30s", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitIndexGone waits until the table no longer lists the global secondary
// index, failing the case after 30 seconds.
func (h *H) WaitIndexGone(table, index string) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			h.t.Fatalf("DescribeTable %s: %v", table, err)
		}
		found := false
		for _, g := range out.Table.GlobalSecondaryIndexes {
			found = found || aws.ToString(g.IndexName) == index
		}
		if !found {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("index %s of %s still present after 30s", index, table)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Describe returns the description of table, failing the case on error.
func (h *H) Describe(table string) *types.TableDescription {
	h.t.Helper()
	out, err := h.API.DescribeTable(h.Ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		h.t.Fatalf("DescribeTable %s: %v", table, err)
	}
	return out.Table
}

// HashTable creates a table keyed by a string partition key "pk".
func (h *H) HashTable() string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk")})
}

// HashTableByG creates a table keyed by a string partition key "pk" with a
// global secondary index "by_g" on a string attribute "g", projecting ALL.
func (h *H) HashTableByG() string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions:   attrDefs("pk", "S", "g", "S"),
		KeySchema:              keySchema("pk"),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{gsi("by_g", "g", "", types.ProjectionTypeAll)},
	})
}

// RangeTable creates a table keyed by a string partition key "pk" and a sort
// key "sk" of the given type (S, N or B).
func (h *H) RangeTable(skType types.ScalarAttributeType) string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{AttributeDefinitions: attrDefs("pk", "S", "sk", string(skType)), KeySchema: keySchema("pk", "sk")})
}
