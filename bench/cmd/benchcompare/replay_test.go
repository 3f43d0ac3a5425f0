package main

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/bench/internal/peers"
	"github.com/timetable-db/timetable/bench/workload"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/wire"
)

// TestReplay_Suite records the suite workload against the engine over
// HTTP, then runs it twice against the replay of that recording (in
// process here; the benchmark runs the replay in a child process): the
// workload's checks pass on the recorded answers, and the replay starts
// over after the last one. A workload out of step with the recording gets
// an error that says so.
func TestReplay_Suite(t *testing.T) {
	ctx := context.Background()
	db, err := local.Open("", &local.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := httptest.NewServer(wire.New(db, nil))
	defer srv.Close()
	rec, recorder := peers.NewRecordingClient(srv.URL)
	if err := workload.Suite(ctx, rec, "replay_test"); err != nil {
		t.Fatal(err)
	}
	answers := recorder.Answers()
	if min := workload.SuitePuts + workload.SuiteQueries + workload.SuiteUpdates; len(answers) < min {
		t.Fatalf("recorded %d answers, want at least %d", len(answers), min)
	}
	file, err := writeReplay(t.TempDir(), answers)
	if err != nil {
		t.Fatal(err)
	}
	r, err := loadReplay(file)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveListener(ln, r.answer)

	c := peers.NewClient("http://"+ln.Addr().String(), 1)
	for run := range 2 {
		if err := workload.Suite(ctx, c, "replay_test"); err != nil {
			t.Fatalf("run %d against the replay: %v", run, err)
		}
	}

	// Out of step: the replay expects CreateTable first.
	_, err = c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("replay_test"),
		Item:      map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
	})
	if err == nil || !strings.Contains(err.Error(), "replay out of step at answer 0: asked for PutItem, recorded CreateTable") {
		t.Fatalf("PutItem out of step: got %v, want the replay's out-of-step error", err)
	}
}
