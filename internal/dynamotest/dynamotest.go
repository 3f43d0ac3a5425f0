// Package dynamotest gives tests a client for the DynamoDB-compatible server
// named by the environment variable TIMETABLE_DYNAMODB_ENDPOINT (DynamoDB
// Local, which `make test` starts on a free port and names there), and skips
// them when the variable is unset, so that `go test ./...` needs no setup.
//
// The contract:
//
//   - [Endpoint] returns the URL in [EndpointEnv], "" when it is unset; for
//     a test that also runs without the server.
//   - [Require] returns that URL for a test that needs the server. When the
//     variable is unset it calls t.Skip with a message that names
//     [EndpointEnv]; when it is set but the server does not answer
//     ListTables (asked once per process), it fails the test with t.Fatal:
//     a server that is named but down is an error, never a skip.
//   - [Client] is [Require] and a client for the URL.
//   - [NewClient] returns a client for any URL (a test's own httptest server,
//     say) with the same settings; it neither skips nor checks.
//
// The settings: region us-east-1, static credentials with access key "test"
// (DynamoDB Local accepts any) and the SDK's standard retryer, which retries
// throttling and transport failures that a busy DynamoDB Local shows now and
// then. Options passed to Client or NewClient are applied after these, in
// order; [AccessKey] chooses the access key, and with it which of DynamoDB
// Local's databases (it keeps one per key) the client sees.
//
// [TableName] gives a test a table name that no other test, and no other
// run against the same server, uses.
package dynamotest

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// EndpointEnv names the environment variable that holds the URL of a
// DynamoDB-compatible server.
const EndpointEnv = "TIMETABLE_DYNAMODB_ENDPOINT"

// Endpoint returns the URL in EndpointEnv, or "" when it is unset.
func Endpoint() string { return os.Getenv(EndpointEnv) }

// Require returns the URL in EndpointEnv. It skips the test when the
// variable is unset and fails it when the server does not answer.
func Require(t testing.TB) string {
	t.Helper()
	endpoint := Endpoint()
	if endpoint == "" {
		t.Skipf("%s is not set: no DynamoDB-compatible server to test against (make test starts DynamoDB Local and sets it)", EndpointEnv)
	}
	if err := answers(endpoint); err != nil {
		t.Fatalf("%s=%s does not answer: %v", EndpointEnv, endpoint, err)
	}
	return endpoint
}

// Client returns a client for the server at Require's URL, with opts
// applied after the package's settings; it skips or fails the test as
// Require does.
func Client(t testing.TB, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	return NewClient(Require(t), opts...)
}

// NewClient returns a client for the server at endpoint, with opts applied
// after the package's settings.
func NewClient(endpoint string, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	}, opts...)
}

// RetryClosedConnection is an option that makes the client retry a request
// only when its connection was closed under it, at once and up to four
// times, so a test sees the server's first answer to anything else.
//
// The retry is for a client-side race with fast servers: for a request body
// larger than net/http's 4 KB write buffer, the server can answer before
// the transport's writer has made its final read of the body; the SDK then
// closes the body, smithy-go's closed body answers that read (a WriteTo)
// with io.EOF, net/http takes it for a failed write and closes the
// connection while the response is being read ("use of closed network
// connection", aws-sdk-go-v2 issue 2737). The SDK's default retryer retries
// it.
func RetryClosedConnection(o *dynamodb.Options) {
	o.Retryer = retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 5
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			return aws.BoolTernary(errors.Is(err, net.ErrClosed))
		})}
	})
}

// AccessKey is an option that sets the client's access key (letters and
// digits only). DynamoDB Local keeps one database per access key, so a
// package whose tests list tables uses a key of its own to keep out the
// tables other packages create in parallel under `go test ./...`.
func AccessKey(key string) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(key, "test", "")
	}
}

var (
	checkedMu sync.Mutex
	checked   = map[string]error{}
)

// answers reports whether the server at endpoint answers ListTables,
// asking it once per process.
func answers(endpoint string) error {
	checkedMu.Lock()
	defer checkedMu.Unlock()
	if err, ok := checked[endpoint]; ok {
		return err
	}
	_, err := NewClient(endpoint).ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	checked[endpoint] = err
	return err
}

// StreamsClient returns a DynamoDB Streams client for the server at
// Require's URL (DynamoDB Local serves both APIs on one endpoint) with
// access key key, the key of the DynamoDB client whose tables' streams it
// reads; it skips or fails the test as Require does.
func StreamsClient(t testing.TB, key string) *dynamodbstreams.Client {
	t.Helper()
	return NewStreamsClient(Require(t), key)
}

// NewStreamsClient returns a DynamoDB Streams client for the server at
// endpoint with access key key and the package's other settings.
func NewStreamsClient(endpoint, key string) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(key, "test", ""),
	})
}
