package auth

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/timetable-db/timetable/internal/testenv"
	"github.com/timetable-db/timetable/wire"
)

// TestDynamoDB_SignatureCopyInBudget: the copy of a body the signature
// check makes is held in the endpoint's in-flight budget, besides wire's
// own buffer, and given back after the answer; a budget that cannot hold
// both gets ThrottlingException.
func TestDynamoDB_SignatureCopyInBudget(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	clk := newClock()
	clk.Set(time.Now().UTC()) // the signer's clock is the real one
	s := openStore(t, db, clk, nil)
	k, err := s.CreateAccessKey(ctx, "sdk", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const big = 300 << 10 // a PutItem body of a little more
	client := func(b wire.Budget) *dynamodb.Client {
		srv := httptest.NewServer(s.DynamoDB(db, &DynamoDBOptions{Wire: &wire.Options{Budget: b}}))
		t.Cleanup(srv.Close)
		return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL),
			Credentials: credentials.NewStaticCredentialsProvider(k.ID, k.Secret, ""), RetryMaxAttempts: 1})
	}
	put := func(c *dynamodb.Client) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("budget"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "a"},
			"v":  &types.AttributeValueMemberS{Value: strings.Repeat("x", big)},
		}})
		return err
	}

	roomy := testenv.NewBudget(64 << 20)
	c := client(roomy)
	testenv.CreateTable(t, c, "budget", "")
	if err := put(c); err != nil {
		t.Fatal(err)
	}
	if held, peak := roomy.State(); held != 0 || peak < 2*big {
		t.Fatalf("after a PutItem of %d bytes: %d bytes held, at most %d, want 0 and at least both copies (%d)", big, held, peak, 2*big)
	}

	// Room for one copy of the body, not for two.
	tight := testenv.NewBudget(big * 3 / 2)
	err = put(client(tight))
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "ThrottlingException" {
		t.Fatalf("PutItem of %d bytes in a budget of %d: %v, want ThrottlingException", big, big*3/2, err)
	}
	if held, _ := tight.State(); held != 0 {
		t.Fatalf("after the refusal: %d bytes held", held)
	}
	if _, err := client(tight).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("a small request in the tight budget: %v", err)
	}
}
