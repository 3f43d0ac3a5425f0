package wire_test

import (
	"testing"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/local"
)

// TestConformance_Wire runs the conformance cases through aws-sdk-go-v2
// over HTTP against the handler serving the embedded engine: the third way
// the cases run, after the engine in process and DynamoDB Local.
func TestConformance_Wire(t *testing.T) {
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	client, _ := serve(t, db)
	conformance.Run(t, client)
}

// TestConformance_WireOverDynamoDBLocal runs the conformance cases through
// the handler in front of DynamoDB Local, so a case that passes on
// DynamoDB Local but fails here points at the codec, not at the engine.
func TestConformance_WireOverDynamoDBLocal(t *testing.T) {
	ref := referenceClient(t)
	client, _ := serve(t, ref)
	conformance.Run(t, client)
}
