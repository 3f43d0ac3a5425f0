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
	if !p.Allows(ScopeWrite, Kind("SENSOR")) || p.Allows(ScopeWrite, Kind("OTHER")) || p.Allows(ScopeAdmin, Kind("SENSOR")) {
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
	f := func(scopes []Scope, kinds, sites []string, scope Scope, res Resource, want bool) {
		t.Helper()
		p := newTokenPrincipal(Token{Scopes: scopes, Kinds: kinds, Sites: sites})
		if got := p.Allows(scope, res); got != want {
			t.Errorf("token %v kinds %q sites %q: Allows(%s, %s) = %v, want %v", scopes, kinds, sites, scope, res, got, want)
		}
	}
	all := []Scope{ScopeRead, ScopeWrite, ScopeAdmin}
	// Unlimited.
	f([]Scope{ScopeRead}, nil, nil, ScopeRead, Kind("A"), true)
	f([]Scope{ScopeRead}, nil, nil, ScopeRead, Kind(""), true)
	f([]Scope{ScopeRead}, nil, nil, ScopeRead, Site("a"), true)
	f([]Scope{ScopeRead}, nil, nil, ScopeRead, Everything, true)
	f([]Scope{ScopeRead}, nil, nil, ScopeWrite, Kind("A"), false)
	f([]Scope{ScopeRead}, nil, nil, ScopeAdmin, Everything, false)
	f([]Scope{ScopeWrite}, nil, nil, ScopeWrite, Kind("A"), true)
	f([]Scope{ScopeWrite}, nil, nil, ScopeRead, Kind("A"), false) // write does not imply read
	for _, sc := range all {
		f([]Scope{ScopeAdmin}, nil, nil, sc, Kind("A"), true) // admin implies all
		f([]Scope{ScopeAdmin}, nil, nil, sc, Everything, true)
		f([]Scope{ScopeAdmin}, nil, nil, sc, Table("t"), true)
	}
	// Limited to kind A: no site, no table, not everything.
	f([]Scope{ScopeRead}, []string{"A"}, nil, ScopeRead, Kind("A"), true)
	f([]Scope{ScopeRead}, []string{"A"}, nil, ScopeRead, Kind("B"), false)
	f([]Scope{ScopeRead}, []string{"A"}, nil, ScopeRead, Kind(""), true) // list kinds, narrowed by the server
	f([]Scope{ScopeRead}, []string{"A"}, nil, ScopeRead, Site("a"), false)
	f([]Scope{ScopeRead}, []string{"A"}, nil, ScopeRead, Site(""), false)
	f([]Scope{ScopeWrite}, []string{"A"}, nil, ScopeWrite, Site("a"), false) // finding 3
	f([]Scope{ScopeAdmin}, []string{"A"}, nil, ScopeAdmin, Kind("A"), true)
	f([]Scope{ScopeAdmin}, []string{"A"}, nil, ScopeAdmin, Kind("B"), false)
	f([]Scope{ScopeAdmin}, []string{"A"}, nil, ScopeAdmin, Everything, false)
	f([]Scope{ScopeAdmin}, []string{"A"}, nil, ScopeRead, Table("t"), false)
	// Limited to site a: no kind (finding 2).
	f([]Scope{ScopeRead}, nil, []string{"a"}, ScopeRead, Site("a"), true)
	f([]Scope{ScopeRead}, nil, []string{"a"}, ScopeRead, Site("b"), false)
	f([]Scope{ScopeRead}, nil, []string{"a"}, ScopeRead, Site(""), true)
	f([]Scope{ScopeRead}, nil, []string{"a"}, ScopeRead, Kind("A"), false)
	f([]Scope{ScopeRead}, nil, []string{"a"}, ScopeRead, Kind(""), false)
	f([]Scope{ScopeAdmin}, nil, []string{"a"}, ScopeAdmin, Site("a"), true)
	f([]Scope{ScopeAdmin}, nil, []string{"a"}, ScopeAdmin, Everything, false)
	f([]Scope{ScopeAdmin}, nil, []string{"a"}, ScopeWrite, Kind("A"), false)
	// Limited to both.
	f([]Scope{ScopeRead}, []string{"A"}, []string{"a"}, ScopeRead, Site("a"), true)
	f([]Scope{ScopeRead}, []string{"A"}, []string{"a"}, ScopeRead, Kind("A"), true)
	// Nothing.
	f(nil, nil, nil, ScopeRead, Kind(""), false)
	if (*Principal)(nil).Allows(ScopeRead, Kind("")) {
		t.Error("a nil Principal allows reading")
	}
	// A shared link reads its site only.
	l := SharedLink("a", "01")
	if !l.Allows(ScopeRead, Site("a")) || l.Allows(ScopeRead, Site("b")) || l.Allows(ScopeWrite, Site("a")) || l.Allows(ScopeRead, Kind("")) {
		t.Error("a shared link reaches more than its site")
	}
	// A key stored without scopes is an admin.
	if k := newKeyPrincipal(AccessKey{ID: "K"}); !k.Allows(ScopeAdmin, Table("t")) || !k.Allows(ScopeAdmin, Everything) {
		t.Error("a key without scopes is not an admin")
	}
	if k := newKeyPrincipal(AccessKey{ID: "K", Scopes: []Scope{ScopeRead}, Tables: []string{"t"}}); !k.Allows(ScopeRead, Table("t")) ||
		k.Allows(ScopeRead, Table("u")) || k.Allows(ScopeWrite, Table("t")) || !k.Allows(ScopeRead, Table("")) {
		t.Error("a read key of table t")
	}
}

func TestPrincipal_Covers(t *testing.T) {
	f := func(p *Principal, scopes []Scope, l Limits, want bool) {
		t.Helper()
		if got := p.Covers(scopes, l); got != want {
			t.Errorf("%s: Covers(%v, %+v) = %v, want %v", p, scopes, l, got, want)
		}
	}
	admin := newTokenPrincipal(Token{ID: "admin", Scopes: []Scope{ScopeAdmin}})
	blog := newTokenPrincipal(Token{ID: "blog", Scopes: []Scope{ScopeAdmin}, Sites: []string{"blog"}})
	reader := newTokenPrincipal(Token{ID: "reader", Scopes: []Scope{ScopeRead}})
	f(admin, []Scope{ScopeAdmin}, Limits{}, true)
	f(admin, []Scope{ScopeRead}, Limits{Tables: []string{"t"}}, true)
	f(blog, []Scope{ScopeRead}, Limits{Sites: []string{"blog"}}, true)
	f(blog, []Scope{ScopeRead}, Limits{}, false)                                // unlimited
	f(blog, []Scope{ScopeRead}, Limits{Sites: []string{"blog", "shop"}}, false) // another site
	f(blog, []Scope{ScopeRead}, Limits{Tables: []string{"analytics"}}, false)   // a table
	f(blog, []Scope{ScopeRead}, Limits{Sites: []string{"blog"}, Kinds: []string{"A"}}, false)
	f(reader, []Scope{ScopeWrite}, Limits{}, false)
	f(nil, []Scope{ScopeRead}, Limits{}, false)
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
	if !p.Allows(ScopeRead, Site("b")) || p.Allows(ScopeRead, Site("c")) || !slices.Equal(p.Token().Sites, []string{"a", "b"}) {
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
