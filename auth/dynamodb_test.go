package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/internal/dynamotest"
)

// TestStore_DynamoDB runs a Store on DynamoDB Local: the table is created,
// tokens and access keys are made, used and revoked as on the engine.
func TestStore_DynamoDB(t *testing.T) {
	ctx := context.Background()
	client := dynamotest.Client(t)
	name := dynamotest.TableName(t, "auth")
	t.Cleanup(func() { _, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
	clk := newClock()
	s := openStore(t, client, clk, &Options{Table: name})
	if _, err := Open(ctx, client, &Options{Table: name}); err != nil { // the table exists: opened as it is
		t.Fatal(err)
	}

	secret, tok, err := s.CreateToken(ctx, "d", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Allows(ScopeAdmin, Everything) {
		t.Fatal("an admin token of every kind does not allow admin")
	}
	ts, err := s.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].ID != tok.ID || !ts[0].LastUsed.Equal(clk.Now()) {
		t.Fatalf("Tokens = %+v", ts)
	}
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("after revoke: %v", err)
	}

	k, err := s.CreateAccessKey(ctx, "k", []Scope{ScopeAdmin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := s.AccessKeys(ctx)
	if err != nil || len(ks) != 1 || ks[0].ID != k.ID || ks[0].Secret != "" {
		t.Fatalf("AccessKeys = %+v, %v", ks, err)
	}
	if err := s.RevokeAccessKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeAccessKey(ctx, k.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking twice: %v", err)
	}
}
