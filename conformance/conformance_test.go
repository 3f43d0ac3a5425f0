package conformance_test

import (
	"testing"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/internal/dynamotest"
)

// TestConformance_DynamoDBLocal runs the cases against the reference, so a
// case that states DynamoDB's behaviour wrongly fails here first.
func TestConformance_DynamoDBLocal(t *testing.T) {
	// DynamoDB Local keeps one database per access key: a key of our own
	// keeps other packages' tables, created in parallel by `go test ./...`,
	// out of the ListTables cases.
	client := dynamotest.Client(t, dynamotest.AccessKey("conformance"))
	conformance.RunWithStreams(t, client, dynamotest.StreamsClient(t, "conformance"))
}
