package local_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/local"
)

func TestTTL_Sweep(t *testing.T) {
	clk := testenv.NewClock(time.Unix(1_700_000_000, 0))
	db := openMem(t, &local.Options{Now: clk.Now, TTLInterval: -1})
	createTable(t, db, "tbl", "", withGSIOn("g"))
	now := clk.Now().Unix()
	// Items that exist before TTL is enabled enter the queue when it is.
	put(t, db, "tbl", attrs("pk", s("early"), "exp", n(fmt.Sprint(now-10)), "g", n("1")))
	_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	put(t, db, "tbl", attrs("pk", s("past"), "exp", n(fmt.Sprint(now-1)), "g", n("1")))
	put(t, db, "tbl", attrs("pk", s("now"), "exp", n(fmt.Sprint(now)+".5")))
	put(t, db, "tbl", attrs("pk", s("future"), "exp", n(fmt.Sprint(now+100)), "g", n("1")))
	put(t, db, "tbl", attrs("pk", s("ancient"), "exp", n(fmt.Sprint(now-6*365*24*3600))))
	put(t, db, "tbl", attrs("pk", s("string"), "exp", s("0")))
	put(t, db, "tbl", attrs("pk", s("none")))
	// A rewrite moves the item in the queue.
	put(t, db, "tbl", attrs("pk", s("moved"), "exp", n(fmt.Sprint(now-5))))
	put(t, db, "tbl", attrs("pk", s("moved"), "exp", n(fmt.Sprint(now+5))))

	// Expired but unswept items are still returned, as in DynamoDB.
	if get(t, db, "tbl", attrs("pk", s("past"))) == nil {
		t.Fatal("expired item hidden before the sweep")
	}
	deleted, err := db.SweepExpired()
	if err != nil {
		t.Fatal(err)
	}
	if deleted != 3 {
		t.Errorf("swept %d items, want 3", deleted)
	}
	for _, pk := range []string{"early", "past", "now"} {
		if get(t, db, "tbl", attrs("pk", s(pk))) != nil {
			t.Errorf("%s not deleted", pk)
		}
	}
	for _, pk := range []string{"future", "ancient", "string", "none", "moved"} {
		if get(t, db, "tbl", attrs("pk", s(pk))) == nil {
			t.Errorf("%s deleted", pk)
		}
	}
	out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("tbl"), IndexName: aws.String("byg"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: attrs(":g", n("1"))})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 {
		t.Errorf("index still has %d entries, want 1", out.Count)
	}
	clk.Advance(200 * time.Second)
	if deleted, _ := db.SweepExpired(); deleted != 2 {
		t.Errorf("second sweep deleted %d, want 2 (future, moved)", deleted)
	}
}

func TestTTL_BackgroundSweeper(t *testing.T) {
	db := openMem(t, &local.Options{TTLInterval: 5 * time.Millisecond})
	createTable(t, db, "tbl", "")
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("exp"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	put(t, db, "tbl", attrs("pk", s("x"), "exp", n(fmt.Sprint(time.Now().Unix()-1))))
	deadline := time.Now().Add(10 * time.Second)
	for get(t, db, "tbl", attrs("pk", s("x"))) != nil {
		if time.Now().After(deadline) {
			t.Fatal("sweeper did not delete the expired item")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestTTL_Settings(t *testing.T) {
	db := openMem(t, nil)
	createTable(t, db, "tbl", "")
	spec := func(attr string, on bool) *dynamodb.UpdateTimeToLiveInput {
		return &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("tbl"),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(on)}}
	}
	_, err := db.UpdateTimeToLive(ctx, spec("exp", false))
	wantAPIError(t, err, "ValidationException", "TimeToLive is already disabled")
	if _, err := db.UpdateTimeToLive(ctx, spec("exp", true)); err != nil {
		t.Fatal(err)
	}
	_, err = db.UpdateTimeToLive(ctx, spec("exp", true))
	wantAPIError(t, err, "ValidationException", "TimeToLive is already enabled")
	_, err = db.UpdateTimeToLive(ctx, spec("other", true))
	wantAPIError(t, err, "ValidationException", "TimeToLive is active on a different AttributeName")
	out, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("tbl")})
	if err != nil || out.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(out.TimeToLiveDescription.AttributeName) != "exp" {
		t.Fatalf("describe: %+v %v", out, err)
	}
}
