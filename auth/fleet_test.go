package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/timetable-db/timetable/internal/dynamotest"
	"github.com/timetable-db/timetable/internal/testenv"
)

// Three Stores (three servers) on one auth table: a token or an access
// key made or revoked through one is honoured or refused by the others
// within CacheTTL, and by the one that revoked it at once. (That another
// Store does use its cache until then is TestStore_Cache's check.)
func TestFleet_RevocationWithinCacheTTL(t *testing.T) {
	testenv.EachBackend(t, func(t *testing.T, b testenv.Backend) {
		ctx := context.Background()
		api := b.Open(t, nil)
		name := dynamotest.TableName(t, "auth")
		t.Cleanup(func() { _, _ = api.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}) })
		clk := newClock()
		var stores [3]*Store
		for i := range stores {
			stores[i] = openStore(t, api, clk, &Options{Table: name})
		}
		a, bb, c := stores[0], stores[1], stores[2]

		authOK := func(s *Store, secret string) bool {
			t.Helper()
			_, err := s.Authenticate(ctx, secret)
			if err != nil && !errors.Is(err, ErrUnauthenticated) {
				t.Fatal(err)
			}
			return err == nil
		}
		signedOK := func(s *Store, k AccessKey) bool {
			t.Helper()
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"TableName":"x"}`))
			r.Header.Set("X-Amz-Target", "DynamoDB_20120810.GetItem")
			sign(t, r, k, "us-east-1", clk.Now())
			w := httptest.NewRecorder()
			s.SigV4(&recorder{}).ServeHTTP(w, r)
			return w.Code == http.StatusNoContent
		}
		each := func(what string, want bool, ok func(*Store) bool, ss ...*Store) {
			t.Helper()
			for _, s := range ss {
				if got := ok(s); got != want {
					t.Errorf("%s: a Store answers %v, want %v", what, got, want)
				}
			}
		}

		// Made through A: every Store takes them, and caches them.
		secret, tok, err := a.CreateToken(ctx, "t", []Scope{ScopeRead}, nil)
		if err != nil {
			t.Fatal(err)
		}
		k, err := a.CreateAccessKey(ctx, "k", []Scope{ScopeAdmin}, nil)
		if err != nil {
			t.Fatal(err)
		}
		each("a new token", true, func(s *Store) bool { return authOK(s, secret) }, a, bb, c)
		each("a new access key", true, func(s *Store) bool { return signedOK(s, k) }, a, bb, c)

		// A key made through A while the others hold the set of keys
		// reaches them within CacheTTL.
		k2, err := a.CreateAccessKey(ctx, "k2", []Scope{ScopeAdmin}, nil)
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(DefaultCacheTTL)
		each("an access key made CacheTTL ago", true, func(s *Store) bool { return signedOK(s, k2) }, a, bb, c)
		each("a token read again", true, func(s *Store) bool { return authOK(s, secret) }, a, bb, c)

		// Revoked through B: B refuses them at once, A and C once CacheTTL
		// has passed since they read them.
		if err := bb.RevokeToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		if err := bb.RevokeAccessKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		each("a token revoked here", false, func(s *Store) bool { return authOK(s, secret) }, bb)
		each("an access key revoked here", false, func(s *Store) bool { return signedOK(s, k) }, bb)
		clk.Advance(DefaultCacheTTL)
		each("a token revoked through another Store CacheTTL ago", false, func(s *Store) bool { return authOK(s, secret) }, a, c)
		each("an access key revoked through another Store CacheTTL ago", false, func(s *Store) bool { return signedOK(s, k) }, a, c)
		each("the access key left", true, func(s *Store) bool { return signedOK(s, k2) }, a, bb, c)
	})
}
