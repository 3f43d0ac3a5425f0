package conformance_test

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/conformance"
)

// EndpointEnv names the environment variable that holds the URL of a
// DynamoDB-compatible server (DynamoDB Local in `make test`).
const EndpointEnv = "TIMETABLE_DYNAMODB_ENDPOINT"

// TestConformance_DynamoDBLocal runs the cases against the reference, so a
// case that states DynamoDB's behaviour wrongly fails here first.
func TestConformance_DynamoDBLocal(t *testing.T) {
	endpoint := os.Getenv(EndpointEnv)
	if endpoint == "" {
		t.Skipf("%s is not set: no DynamoDB-compatible server to test against", EndpointEnv)
	}
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		// DynamoDB Local keeps one database per access key: a key of our own
		// keeps other packages' tables, created in parallel by `go test
		// ./...`, out of the ListTables cases. (Access keys must be letters and
		// digits only.)
		Credentials: credentials.NewStaticCredentialsProvider("conformance", "test", ""),
	})
	if _, err := client.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("%s=%s does not answer: %v", EndpointEnv, endpoint, err)
	}
	conformance.Run(t, client)
}
