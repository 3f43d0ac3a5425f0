package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

func TestStore_CreateToken_Authenticate(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openStore(t, memDB(t), clk, nil)

	secret, tok, err := s.CreateToken(ctx, "sensors", []Scope{ScopeWrite, ScopeRead, ScopeWrite}, []string{"SENSOR", "SENSOR"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "tt_"+tok.ID+"_") || len(secret) != tokenLen {
		t.Fatalf("secret %q does not have the form tt_<id>_<random> for id %q", secret, tok.ID)
	}
	if !slices.Equal(tok.Scopes, []Scope{ScopeWrite, ScopeRead}) || !slices.Equal(tok.Kinds, []string{"SENSOR"}) {
		t.Fatalf("token %+v: repeated scopes or kinds not kept once", tok)
	}
	if !tok.Created.Equal(clk.Now()) || !tok.LastUsed.IsZero() {
		t.Fatalf("token %+v: Created %v, LastUsed zero wanted", tok, clk.Now())
	}

	p, err := s.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if p.ID() != tok.ID || p.Token().Name != "sensors" {
		t.Fatalf("principal %+v, want token %s", p.Token(), tok.ID)
	}
	if !p.Allows(ScopeWrite, "SENSOR") || p.Allows(ScopeWrite, "OTHER") || p.Allows(ScopeAdmin, "SENSOR") {
		t.Fatalf("principal of %+v allows the wrong things", tok)
	}

	// The stored item holds the hash, never the secret.
	it, err := s.t.Get(ctx, table.K(pkToken, tok.ID), nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range it {
		if strings.Contains(fmt.Sprint(v), secret[len(tokenPrefix)+tokenIDLen+1:]) {
			t.Fatalf("attribute %s holds the secret", name)
		}
	}

	// Another token's random part with this id, and malformed secrets,
	// are refused.
	other := "tt_" + tok.ID + "_" + strings.Repeat("a", tokenRandomLen)
	for _, bad := range []string{other, "", "tt_", secret + "a", secret[:len(secret)-1], strings.ToUpper(secret),
		"tt_" + strings.Repeat("a", tokenIDLen) + "_" + secret[len(secret)-tokenRandomLen:], strings.Replace(secret, "_", "-", 1)} {
		if _, err := s.Authenticate(ctx, bad); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnauthenticated", bad, err)
		}
	}

	ts, err := s.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].ID != tok.ID || ts[0].Name != "sensors" || !slices.Equal(ts[0].Scopes, tok.Scopes) || !slices.Equal(ts[0].Kinds, tok.Kinds) {
		t.Fatalf("Tokens = %+v, want [%+v]", ts, tok)
	}
}

func TestStore_CreateToken_Invalid(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, memDB(t), newClock(), nil)
	for _, c := range []struct {
		name   string
		scopes []Scope
		kinds  []string
	}{
		{"", []Scope{ScopeRead}, nil},
		{strings.Repeat("n", maxNameBytes+1), []Scope{ScopeRead}, nil},
		{"bad utf-8 \xff", []Scope{ScopeRead}, nil},
		{"no scope", nil, nil},
		{"unknown scope", []Scope{"root"}, nil},
		{"empty kind", []Scope{ScopeRead}, []string{""}},
	} {
		if _, _, err := s.CreateToken(ctx, c.name, c.scopes, c.kinds); err == nil {
			t.Errorf("CreateToken(%q, %v, %q) succeeded", c.name, c.scopes, c.kinds)
		}
	}
	if ts, err := s.Tokens(ctx); err != nil || len(ts) != 0 {
		t.Fatalf("Tokens = %v, %v after refused creations", ts, err)
	}
}

func TestPrincipal_Allows(t *testing.T) {
	f := func(scopes []Scope, kinds []string, scope Scope, kind string, want bool) {
		t.Helper()
		p := &Principal{token: Token{Scopes: scopes, Kinds: kinds}}
		if got := p.Allows(scope, kind); got != want {
			t.Errorf("token %v kinds %q: Allows(%s, %q) = %v, want %v", scopes, kinds, scope, kind, got, want)
		}
	}
	all := []Scope{ScopeRead, ScopeWrite, ScopeAdmin}
	// Every kind.
	f([]Scope{ScopeRead}, nil, ScopeRead, "A", true)
	f([]Scope{ScopeRead}, nil, ScopeRead, "", true)
	f([]Scope{ScopeRead}, nil, ScopeWrite, "A", false)
	f([]Scope{ScopeRead}, nil, ScopeAdmin, "", false)
	f([]Scope{ScopeWrite}, nil, ScopeWrite, "A", true)
	f([]Scope{ScopeWrite}, nil, ScopeRead, "A", false) // write does not imply read
	for _, sc := range all {
		f([]Scope{ScopeAdmin}, nil, sc, "A", true) // admin implies all
		f([]Scope{ScopeAdmin}, nil, sc, "", true)
	}
	// Limited to kind A.
	f([]Scope{ScopeRead}, []string{"A"}, ScopeRead, "A", true)
	f([]Scope{ScopeRead}, []string{"A"}, ScopeRead, "B", false)
	f([]Scope{ScopeRead}, []string{"A"}, ScopeRead, "", true) // list kinds, narrowed by the server
	f([]Scope{ScopeRead, ScopeWrite}, []string{"A", "B"}, ScopeWrite, "B", true)
	f([]Scope{ScopeAdmin}, []string{"A"}, ScopeWrite, "A", true)
	f([]Scope{ScopeAdmin}, []string{"A"}, ScopeAdmin, "A", true)
	f([]Scope{ScopeAdmin}, []string{"A"}, ScopeAdmin, "B", false)
	f([]Scope{ScopeAdmin}, []string{"A"}, ScopeAdmin, "", false) // cannot mint tokens for other kinds
	f([]Scope{ScopeAdmin}, []string{"A"}, ScopeRead, "", true)
	// Nothing.
	f(nil, nil, ScopeRead, "", false)
	if (*Principal)(nil).Allows(ScopeRead, "") {
		t.Error("a nil Principal allows reading")
	}
}

func TestPrincipal_AllowsSite(t *testing.T) {
	f := func(scopes []Scope, sites []string, scope Scope, site string, want bool) {
		t.Helper()
		p := &Principal{token: Token{Scopes: scopes, Sites: sites}}
		if got := p.AllowsSite(scope, site); got != want {
			t.Errorf("token %v sites %q: AllowsSite(%s, %q) = %v, want %v", scopes, sites, scope, site, got, want)
		}
	}
	f([]Scope{ScopeRead}, nil, ScopeRead, "a", true)
	f([]Scope{ScopeRead}, nil, ScopeWrite, "a", false)
	f([]Scope{ScopeWrite}, nil, ScopeRead, "a", false)
	f([]Scope{ScopeAdmin}, nil, ScopeAdmin, "", true)
	f([]Scope{ScopeRead}, []string{"a"}, ScopeRead, "a", true)
	f([]Scope{ScopeRead}, []string{"a"}, ScopeRead, "b", false)
	f([]Scope{ScopeRead}, []string{"a"}, ScopeRead, "", true) // list sites, narrowed by the server
	f([]Scope{ScopeWrite}, []string{"a"}, ScopeWrite, "a", true)
	f([]Scope{ScopeWrite}, []string{"a"}, ScopeWrite, "b", false)
	f([]Scope{ScopeAdmin}, []string{"a"}, ScopeAdmin, "a", true)
	f([]Scope{ScopeAdmin}, []string{"a"}, ScopeAdmin, "", false) // cannot create other sites
	f([]Scope{ScopeAdmin}, []string{"a"}, ScopeRead, "b", false)
	f(nil, nil, ScopeRead, "a", false)
	if (*Principal)(nil).AllowsSite(ScopeRead, "a") {
		t.Error("a nil Principal allows reading a site")
	}
}

func TestStore_CreateTokenForSites(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, memDB(t), newClock(), nil)
	secret, tok, err := s.CreateTokenForSites(ctx, "dash", []Scope{ScopeRead}, nil, []string{"a", "a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tok.Sites, []string{"a", "b"}) {
		t.Fatalf("Sites = %q, want [a b]", tok.Sites)
	}
	p, err := s.Authenticate(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if !p.AllowsSite(ScopeRead, "b") || p.AllowsSite(ScopeRead, "c") || !slices.Equal(p.Token().Sites, []string{"a", "b"}) {
		t.Fatalf("principal %+v: sites not kept", p.Token())
	}
	if _, _, err := s.CreateTokenForSites(ctx, "x", []Scope{ScopeRead}, nil, []string{""}); err == nil {
		t.Error("an empty site was accepted")
	}
}

func TestStore_RevokeToken(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, memDB(t), newClock(), nil)
	secret, tok, err := s.CreateToken(ctx, "t", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	keep, _, err := s.CreateToken(ctx, "kept", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); err != nil { // now cached
		t.Fatal(err)
	}
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	// At once, although the token was cached and the clock has not moved.
	if _, err := s.Authenticate(ctx, secret); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("Authenticate after revoke = %v, want ErrUnauthenticated", err)
	}
	if _, err := s.Authenticate(ctx, keep); err != nil {
		t.Fatalf("the other token: %v", err)
	}
	err = s.RevokeToken(ctx, tok.ID)
	if !errors.Is(err, ErrNotFound) || !errors.Is(err, timetable.ErrNotFound) {
		t.Fatalf("second RevokeToken = %v, want ErrNotFound", err)
	}
	if ts, _ := s.Tokens(ctx); len(ts) != 1 || ts[0].Name != "kept" {
		t.Fatalf("Tokens after revoke = %+v", ts)
	}
}

// TestStore_Cache: a token authenticated once is trusted from memory for
// CacheTTL: no read, and a revoke by another Store is seen only once the
// entry is stale.
func TestStore_Cache(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	clk := newClock()
	api := &countingAPI{API: db}
	a := openStore(t, db, clk, nil)  // the process that revokes
	b := openStore(t, api, clk, nil) // another process
	secret, tok, err := a.CreateToken(ctx, "t", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := b.Authenticate(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	if n := api.gets.Load(); n != 1 {
		t.Fatalf("5 authentications cost %d reads, want 1", n)
	}

	if err := a.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	clk.Advance(DefaultCacheTTL - time.Millisecond)
	if _, err := b.Authenticate(ctx, secret); err != nil {
		t.Fatalf("within CacheTTL of another Store's revoke: %v, want the cached token", err)
	}
	clk.Advance(time.Millisecond)
	if _, err := b.Authenticate(ctx, secret); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("CacheTTL after another Store's revoke: %v, want ErrUnauthenticated", err)
	}
	if n := api.gets.Load(); n != 2 {
		t.Fatalf("%d reads, want 2", n)
	}
}

func TestStore_Cache_Off(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	api := &countingAPI{API: db}
	s := openStore(t, api, newClock(), &Options{CacheTTL: -1})
	secret, _, err := s.CreateToken(ctx, "t", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Authenticate(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	if n := api.gets.Load(); n != 3 {
		t.Fatalf("3 authentications without a cache cost %d reads, want 3", n)
	}
}

// TestStore_LastUsed: LastUsed is written on the first use and then at
// most once a minute, however many requests and cache refreshes.
func TestStore_LastUsed(t *testing.T) {
	ctx := context.Background()
	db := memDB(t)
	clk := newClock()
	api := &countingAPI{API: db}
	s := openStore(t, api, clk, nil)
	secret, tok, err := s.CreateToken(ctx, "t", []Scope{ScopeRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := clk.Now()
	for range 12 { // a minute of requests, across several cache refreshes
		if _, err := s.Authenticate(ctx, secret); err != nil {
			t.Fatal(err)
		}
		clk.Advance(5 * time.Second)
	}
	if n := api.updates.Load(); n != 1 {
		t.Fatalf("a minute of requests wrote LastUsed %d times, want 1", n)
	}
	ts, err := s.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !ts[0].LastUsed.Equal(first) {
		t.Fatalf("LastUsed = %v, want %v", ts[0].LastUsed, first)
	}
	if _, err := s.Authenticate(ctx, secret); err != nil { // a minute after the first
		t.Fatal(err)
	}
	if n := api.updates.Load(); n != 2 {
		t.Fatalf("after a minute LastUsed written %d times in all, want 2", n)
	}
	// A revoked token's LastUsed write does not bring its item back.
	clk.Advance(2 * time.Minute)
	c := &cachedToken{token: tok}
	if err := s.RevokeToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	s.touch(ctx, c, clk.Now())
	if ts, _ := s.Tokens(ctx); len(ts) != 0 {
		t.Fatalf("touch after revoke recreated %+v", ts)
	}
}
