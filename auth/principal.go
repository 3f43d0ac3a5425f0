package auth

import (
	"context"
	"slices"
	"unicode/utf8"
)

// Principal is who a request comes from, once authenticated: an API token,
// a DynamoDB access key or a web-analytics shared link. It carries scopes
// and the kinds, sites and tables it is limited to. Allows is the one
// access decision: every face of the server (the series API, the InfluxDB
// endpoints, the analytics routes, the token and key routes, the DynamoDB
// endpoint) asks it. A Principal is immutable and safe for concurrent use.
type Principal struct {
	class  string // "token", "access key", "shared link"
	id     string
	scopes []Scope
	kinds  []string
	sites  []string
	tables []string
	token  Token // a token's description; zero for the others
}

// newTokenPrincipal returns the Principal of a token.
func newTokenPrincipal(t Token) *Principal {
	return &Principal{class: "token", id: t.ID, scopes: t.Scopes, kinds: t.Kinds, sites: t.Sites, token: t}
}

// newKeyPrincipal returns the Principal of an access key. A key stored
// without scopes (made before keys had them) is an unlimited admin, as
// every key was then.
func newKeyPrincipal(k AccessKey) *Principal {
	scopes := k.Scopes
	if len(scopes) == 0 {
		scopes = []Scope{ScopeAdmin}
	}
	return &Principal{class: "access key", id: k.ID, scopes: scopes, tables: k.Tables}
}

// SharedLink returns the Principal of a live shared link of a
// web-analytics site, which the caller has checked: it reads that site
// and nothing else. id is the link's id (not its secret slug).
func SharedLink(site, id string) *Principal {
	return &Principal{class: "shared link", id: id, scopes: []Scope{ScopeRead}, sites: []string{site}}
}

// ID returns the id of the token, access key or shared link: the key for
// rate limits and logs.
func (p *Principal) ID() string { return p.id }

// String names the principal in messages: "token <id>", "access key
// <id>", "shared link <id>".
func (p *Principal) String() string { return p.class + " " + p.id }

// Token returns the token's description (LastUsed as last read), the zero
// Token for an access key or a shared link. The slices are the caller's.
func (p *Principal) Token() Token {
	t := p.token
	t.Scopes = slices.Clone(t.Scopes)
	t.Kinds = slices.Clone(t.Kinds)
	t.Sites = slices.Clone(t.Sites)
	return t
}

// Limited reports whether the principal is limited to some kinds, sites
// or tables. A limited principal reaches only what its limits name.
func (p *Principal) Limited() bool {
	return len(p.kinds) > 0 || len(p.sites) > 0 || len(p.tables) > 0
}

// has reports whether the principal holds scope, or ScopeAdmin, which
// implies the others. ScopeWrite does not imply ScopeRead.
func (p *Principal) has(scope Scope) bool {
	return slices.Contains(p.scopes, scope) || slices.Contains(p.scopes, ScopeAdmin)
}

// area is what a Resource belongs to.
type area uint8

const (
	areaKinds area = iota + 1
	areaSites
	areaTables
	areaAll
)

// Resource is what a request acts on: one kind of series, one
// web-analytics site, one table of the DynamoDB endpoint, "some" of those
// (a listing, which the server narrows to what the principal reaches), or
// Everything.
type Resource struct {
	area area
	name string
}

// Kind is the kind of series name; Kind("") is some kind: a request the
// principal may make if it reaches at least one kind (listing kinds, a
// line-protocol write before its kinds are known).
func Kind(name string) Resource { return Resource{areaKinds, name} }

// Site is the web-analytics site name; Site("") is some site, as
// Kind("").
func Site(name string) Resource { return Resource{areaSites, name} }

// Table is a table of the DynamoDB endpoint; Table("") is some table
// (ListTables, DescribeLimits).
func Table(name string) Resource { return Resource{areaTables, name} }

// Everything is what governs every kind, site and table: tokens, access
// keys, new kinds and sites, the server's metrics. Only an unlimited
// principal reaches it.
var Everything = Resource{area: areaAll}

// SiteName returns the site of a Site resource, "" for any other (or for
// some site).
func (r Resource) SiteName() string {
	if r.area == areaSites {
		return r.name
	}
	return ""
}

func (r Resource) String() string {
	what := map[area]string{areaKinds: "kind", areaSites: "site", areaTables: "table"}[r.area]
	switch {
	case r.area == areaAll:
		return "everything (tokens, access keys, new kinds and sites, metrics)"
	case r.name == "":
		return "any " + what
	}
	return what + " " + r.name
}

// Allows reports whether the principal may act with scope need on res.
// It is the one access rule of the server:
//
//   - the principal needs the scope need, or ScopeAdmin, which implies the
//     others (ScopeWrite does not imply ScopeRead: a device may hold a
//     token that only writes);
//   - an unlimited principal (no kinds, sites or tables) reaches every
//     resource, Everything included;
//   - a limited principal reaches only what its limits name: a token
//     limited to kinds reaches no site and a token limited to sites no
//     kind's series; a key limited to tables reaches those tables only;
//     Kind(""), Site("") and Table("") need at least one kind, site or
//     table; Everything is never reached.
//
// A nil Principal allows nothing.
func (p *Principal) Allows(need Scope, res Resource) bool {
	if p == nil || !p.has(need) {
		return false
	}
	if !p.Limited() {
		return true
	}
	var limits []string
	switch res.area {
	case areaKinds:
		limits = p.kinds
	case areaSites:
		limits = p.sites
	case areaTables:
		limits = p.tables
	default:
		return false
	}
	if res.name == "" {
		return len(limits) > 0
	}
	return slices.Contains(limits, res.name)
}

// Limits are what a credential is limited to; all empty means every
// kind, site and table.
type Limits struct {
	Kinds  []string
	Sites  []string
	Tables []string
}

func (l Limits) limited() bool { return len(l.Kinds) > 0 || len(l.Sites) > 0 || len(l.Tables) > 0 }

// Covers reports whether the principal may mint a credential with scopes
// and limits: one that can do nothing it cannot. Every scope must be held
// (ScopeAdmin covers all); a limited principal mints only credentials
// limited within its own limits.
func (p *Principal) Covers(scopes []Scope, l Limits) bool {
	if p == nil {
		return false
	}
	for _, sc := range scopes {
		if !p.has(sc) {
			return false
		}
	}
	if !p.Limited() {
		return true
	}
	if !l.limited() {
		return false
	}
	within := func(xs, of []string) bool {
		for _, x := range xs {
			if !slices.Contains(of, x) {
				return false
			}
		}
		return true
	}
	return within(l.Kinds, p.kinds) && within(l.Sites, p.sites) && within(l.Tables, p.tables)
}

type principalKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the Principal of ctx, nil if there is none.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// Bounds of what a credential names.
const (
	maxNameBytes  = 256  // a token's or key's name
	maxLimitBytes = 256  // a kind, site or table it is limited to
	maxLimits     = 1000 // kinds, sites or tables it is limited to
)

// cleanScopes checks scopes (at least one) and returns them once each, as
// stored.
func cleanScopes(scopes []Scope) ([]string, error) {
	if len(scopes) == 0 {
		return nil, invalidf("auth: a credential needs at least one scope (read, write, admin)")
	}
	var out []string
	for _, sc := range scopes {
		if _, err := ParseScope(string(sc)); err != nil {
			return nil, invalidf("%v", err)
		}
		if !slices.Contains(out, string(sc)) {
			out = append(out, string(sc))
		}
	}
	return out, nil
}

// cleanLimits checks the names of one limit (what: "kind", "site",
// "table") and returns them once each.
func cleanLimits(what string, xs []string) ([]string, error) {
	if len(xs) > maxLimits {
		return nil, invalidf("auth: a credential may be limited to at most %d %ss, not %d", maxLimits, what, len(xs))
	}
	var out []string
	for _, x := range xs {
		if x == "" || len(x) > maxLimitBytes || !utf8.ValidString(x) {
			return nil, invalidf("auth: a %s must be 1 to %d bytes of UTF-8, not %q", what, maxLimitBytes, x)
		}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out, nil
}

// scopesOf converts stored scopes.
func scopesOf(ss []string) []Scope {
	out := make([]Scope, 0, len(ss))
	for _, s := range ss {
		out = append(out, Scope(s))
	}
	return out
}
