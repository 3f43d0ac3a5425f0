// Package conformance holds the cases that every implementation of
// timetable.API must pass: the embedded engine, the wire endpoint in front of
// it, and DynamoDB Local, which is the reference.
//
// Run runs every case as a named subtest, so `go test -run
// 'TestConformance/PutItem'` picks a group and a failure names its case.
// Cases create their own uniquely named tables and delete them when they end,
// so they can share one backend and run in parallel.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable"
)

// Case is one conformance case. Name is "Group/Case", the group being the
// operation or feature under test (for example "PutItem/ConditionFails").
type Case struct {
	Name string
	Run  func(t *testing.T, h *H)
}

var registry []Case

// register adds cases; each cases_*.go file calls it from init.
func register(cs ...Case) { registry = append(registry, cs...) }

// Cases returns every case, sorted by name. The slice is a copy.
func Cases() []Case {
	cs := append([]Case(nil), registry...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}

// Run runs every case against api as a parallel subtest of t.
func Run(t *testing.T, api timetable.API) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Fatalf("conformance: duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			h := &H{API: api, Ctx: context.Background(), t: t}
			c.Run(t, h)
		})
	}
}

// H is what a case gets: the backend under test and helpers that fail the
// case on unexpected errors.
type H struct {
	API timetable.API
	Ctx context.Context
	t   *testing.T
}

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
	if in.TableName == nil {
		in.TableName = aws.String(h.TableName())
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil {
		in.BillingMode = types.BillingModePayPerRequest
	}
	err := retryInternalFailure(func() error {
		_, err := h.API.CreateTable(h.Ctx, in)
		return err
	})
	if err != nil {
		h.t.Fatalf("CreateTable %s: %v", *in.TableName, err)
	}
	name := *in.TableName
	h.t.Cleanup(func() {
		_, _ = h.API.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	h.WaitActive(name)
	return name
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
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "InternalFailure" && time.Now().Before(deadline) {
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

// HashTable creates a table keyed by a string partition key "pk".
func (h *H) HashTable() string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	})
}

// RangeTable creates a table keyed by a string partition key "pk" and a sort
// key "sk" of the given type (S, N or B).
func (h *H) RangeTable(skType types.ScalarAttributeType) string {
	h.t.Helper()
	return h.CreateTable(&dynamodb.CreateTableInput{
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: skType},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
}

// Put writes item to table, failing the case on error.
func (h *H) Put(table string, item Item) {
	h.t.Helper()
	if _, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
		h.t.Fatalf("PutItem: %v", err)
	}
}

// Get reads the item with key from table with a consistent read; nil when
// absent.
func (h *H) Get(table string, key Item) Item {
	h.t.Helper()
	out, err := h.API.GetItem(h.Ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		h.t.Fatalf("GetItem: %v", err)
	}
	return out.Item
}

// QueryAll runs in page by page until LastEvaluatedKey is empty and returns
// every item, in order.
func (h *H) QueryAll(in *dynamodb.QueryInput) []Item {
	h.t.Helper()
	var items []Item
	for {
		out, err := h.API.Query(h.Ctx, in)
		if err != nil {
			h.t.Fatalf("Query: %v", err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// ScanAll runs in page by page until LastEvaluatedKey is empty and returns
// every item, in order.
func (h *H) ScanAll(in *dynamodb.ScanInput) []Item {
	h.t.Helper()
	var items []Item
	for {
		out, err := h.API.Scan(h.Ctx, in)
		if err != nil {
			h.t.Fatalf("Scan: %v", err)
		}
		items = append(items, out.Items...)
		if len(out.LastEvaluatedKey) == 0 {
			return items
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// Must fails the case when err is not nil.
func (h *H) Must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

// ErrorCode returns the DynamoDB error code of err ("" for nil), such as
// "ValidationException" or "ConditionalCheckFailedException".
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	if ae := apiError(err); ae != nil {
		return ae.ErrorCode()
	}
	return "non-API error: " + err.Error()
}

// ErrorMessage returns DynamoDB's message of err ("" for nil).
func ErrorMessage(err error) string {
	if ae := apiError(err); ae != nil {
		return ae.ErrorMessage()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// WantError fails the case unless err has DynamoDB error code code and, when
// msg is not empty, message msg. A msg that starts with "~" need only be a
// substring of the message.
func (h *H) WantError(err error, code, msg string) {
	h.t.Helper()
	if err == nil {
		h.t.Fatalf("got no error, want %s: %s", code, msg)
	}
	if got := ErrorCode(err); got != code {
		h.t.Fatalf("error code = %q, want %q (message %q)", got, code, ErrorMessage(err))
	}
	if msg == "" {
		return
	}
	got := ErrorMessage(err)
	if sub, ok := strings.CutPrefix(msg, "~"); ok {
		if !strings.Contains(got, sub) {
			h.t.Fatalf("error message = %q, want it to contain %q", got, sub)
		}
		return
	}
	if got != msg {
		h.t.Fatalf("error message = %q, want %q", got, msg)
	}
}
