package timetable

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// API is the subset of aws-sdk-go-v2's *dynamodb.Client method set that
// timetable uses. The real client satisfies it, and so does the embedded
// engine in package local; everything above this interface is written once
// and runs on either backend.
//
// Implementations are safe for concurrent use. Errors are the SDK's own:
// typed exceptions from package types (such as
// *types.ConditionalCheckFailedException) where the SDK has one, otherwise a
// smithy.APIError whose ErrorCode is DynamoDB's (such as "ValidationException").
type API interface {
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
	ListTables(ctx context.Context, in *dynamodb.ListTablesInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error)
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
	DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error)

	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)

	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, optFns ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

var _ API = (*dynamodb.Client)(nil)

// PartiQLAPI is the PartiQL part of the client's method set: statements
// run one at a time, in batches, and in transactions. The SDK client and
// the embedded engine implement it; package wire serves it when the API it
// wraps does.
type PartiQLAPI interface {
	ExecuteStatement(ctx context.Context, in *dynamodb.ExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteStatementOutput, error)
	BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
	ExecuteTransaction(ctx context.Context, in *dynamodb.ExecuteTransactionInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ExecuteTransactionOutput, error)
}

var _ PartiQLAPI = (*dynamodb.Client)(nil)

// ItemJSONReader is an optional capability of an API: answering GetItem,
// Query and Scan with the items already written as DynamoDB JSON (the
// awsJson1_0 protocol's attribute values), so that a backend that stores
// items in an encoding of its own transcodes them to the answer without
// building attribute values that a server would only encode again. The
// embedded engine implements it; package wire uses it when the API it
// serves does.
//
// Each method appends to dst the JSON of the answer's items (GetItem: the
// item's object, nothing when it is absent; Query and Scan: the array of
// the page's items) and returns the output without them, and dst extended. A nil
// output with a nil error means the backend does not answer this request
// that way (a projection, a filter, ...), and dst is returned unchanged:
// the caller then calls the ordinary method. On error the returned slice
// is dst as given.
type ItemJSONReader interface {
	GetItemJSON(ctx context.Context, in *dynamodb.GetItemInput, dst []byte) (*dynamodb.GetItemOutput, []byte, error)
	QueryJSON(ctx context.Context, in *dynamodb.QueryInput, dst []byte) (*dynamodb.QueryOutput, []byte, error)
	ScanJSON(ctx context.Context, in *dynamodb.ScanInput, dst []byte) (*dynamodb.ScanOutput, []byte, error)
}

// Backend is an API that may hold resources: Close releases them. For the
// embedded engine it flushes and closes the data folder; for a remote
// endpoint it does nothing. Package backend's Open returns one.
type Backend interface {
	API
	Close() error
}

// QueryBatcher is an optional capability of an API: answering many Query
// requests in one call, each answer (outs[i], or the error errs[i]) what
// Query would answer ins[i], read more cheaply than by a call each (the
// embedded engine reads them all with one storage iterator). Requests
// answered with an error may be sent again through Query, which applies
// the usual retries. Package table uses it to read the first pages of
// many partitions at once (Table.QueryPages), and runs the requests
// concurrently through Query on an API without it.
type QueryBatcher interface {
	QueryBatch(ctx context.Context, ins []*dynamodb.QueryInput) (outs []*dynamodb.QueryOutput, errs []error)
}
