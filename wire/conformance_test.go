package wire_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
)

// TestConformance_Wire runs the conformance cases through aws-sdk-go-v2
// over HTTP against the handler serving the embedded engine: the third way
// the cases run, after the engine in process and DynamoDB Local.
func TestConformance_Wire(t *testing.T) {
	db := testenv.MemDB(t, nil)
	client, srv := serve(t, db)
	conformance.RunWithStreams(t, client, dynamotest.NewStreamsClient(srv.URL, "wire"))
}

// TestConformance_WireOverDynamoDBLocal runs the conformance cases through
// the handler in front of DynamoDB Local, so a case that passes on
// DynamoDB Local but fails here points at the codec, not at the engine.
func TestConformance_WireOverDynamoDBLocal(t *testing.T) {
	ref := withStreams{referenceClient(t), streamsClient{dynamotest.StreamsClient(t, "wire")}}
	client, srv := serve(t, ref)
	conformance.RunWithStreams(t, client, dynamotest.NewStreamsClient(srv.URL, "wire"))
}

// withStreams is DynamoDB Local's two clients as one API that is also a
// StreamsAPI, which the handler then serves both of.
type withStreams struct {
	*dynamodb.Client
	streamsClient
}

type streamsClient struct{ *dynamodbstreams.Client }
