package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timetable-db/timetable/table"
)

// Scope is what a token may do.
type Scope string

// The scopes. ScopeAdmin implies ScopeRead and ScopeWrite; ScopeWrite does
// not imply ScopeRead, so a device can hold a token that writes only.
const (
	ScopeRead  Scope = "read"
	ScopeWrite Scope = "write"
	ScopeAdmin Scope = "admin"
)

// ParseScope returns the scope named s ("read", "write" or "admin"), or an
// error naming s.
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(s); sc {
	case ScopeRead, ScopeWrite, ScopeAdmin:
		return sc, nil
	}
	return "", fmt.Errorf("auth: unknown scope %q (want read, write or admin)", s)
}

// Token describes an API token. The secret is not part of it: only its
// SHA-256 is stored, and CreateToken shows it once.
type Token struct {
	// ID identifies the token; it is the middle part of the secret
	// ("tt_<id>_<random>"), so it is not secret itself.
	ID string
	// Name says what the token is for.
	Name string
	// Scopes are what the token may do.
	Scopes []Scope
	// Kinds limits the token to these kinds; empty means every kind.
	Kinds []string
	// Sites limits the token to these web-analytics sites; empty means
	// every site.
	Sites []string
	// Created is when the token was made.
	Created time.Time
	// LastUsed is when the token last authenticated a request, recorded
	// at most once a minute (so up to a minute late); zero if never.
	LastUsed time.Time
}

// Token secrets: "tt_" + id + "_" + random, in lower-case base32 without
// padding. The id carries 80 random bits, the rest 256.
const (
	tokenPrefix  = "tt_"
	tokenIDBytes = 10
	tokenRandom  = 32
)

var b32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

var (
	tokenIDLen     = b32.EncodedLen(tokenIDBytes)
	tokenRandomLen = b32.EncodedLen(tokenRandom)
	tokenLen       = len(tokenPrefix) + tokenIDLen + 1 + tokenRandomLen
)

// tokenID returns the id part of a token secret, and whether the secret
// has the form of one.
func tokenID(secret string) (string, bool) {
	if len(secret) != tokenLen || !strings.HasPrefix(secret, tokenPrefix) || secret[len(tokenPrefix)+tokenIDLen] != '_' {
		return "", false
	}
	id := secret[len(tokenPrefix) : len(tokenPrefix)+tokenIDLen]
	rnd := secret[len(tokenPrefix)+tokenIDLen+1:]
	if !isB32(id) || !isB32(rnd) {
		return "", false
	}
	return id, true
}

func isB32(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

// randomString returns n random bytes from crypto/rand in enc.
func randomString(enc interface{ EncodeToString([]byte) string }, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return enc.EncodeToString(b)
}

// tokenItem is a token as the auth table stores it. Times are Unix
// milliseconds.
type tokenItem struct {
	PK       string   `dynamodbav:"pk"`
	SK       string   `dynamodbav:"sk"`
	Name     string   `dynamodbav:"name"`
	Hash     []byte   `dynamodbav:"hash"`
	Scopes   []string `dynamodbav:"scopes"`
	Kinds    []string `dynamodbav:"kinds,omitempty"`
	Sites    []string `dynamodbav:"sites,omitempty"`
	Created  int64    `dynamodbav:"created"`
	LastUsed int64    `dynamodbav:"last_used,omitempty"`
}

func (it *tokenItem) token() Token {
	return Token{ID: it.SK, Name: it.Name, Scopes: scopesOf(it.Scopes), Kinds: it.Kinds, Sites: it.Sites,
		Created: fromMillis(it.Created), LastUsed: fromMillis(it.LastUsed)}
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// checkName checks the name of a token or an access key.
func checkName(name string) error {
	if name == "" || len(name) > maxNameBytes || !utf8.ValidString(name) {
		return invalidf("auth: a name must be 1 to %d bytes of UTF-8, not %q", maxNameBytes, name)
	}
	return nil
}

// CreateToken makes a token with the given scopes (at least one), limited
// to kinds unless kinds is empty, and returns its secret with its
// description. The secret, "tt_<id>_<random>" with 256 random bits, is not
// stored (only its SHA-256 is) and cannot be shown again. Repeated scopes
// and kinds are kept once.
func (s *Store) CreateToken(ctx context.Context, name string, scopes []Scope, kinds []string) (secret string, t Token, err error) {
	return s.CreateTokenForSites(ctx, name, scopes, kinds, nil)
}

// CreateTokenForSites is CreateToken with the token also limited to the
// web-analytics sites (ids of 1 to 256 bytes of UTF-8) unless sites is
// empty.
func (s *Store) CreateTokenForSites(ctx context.Context, name string, scopes []Scope, kinds, sites []string) (secret string, t Token, err error) {
	if err := checkName(name); err != nil {
		return "", Token{}, err
	}
	it := tokenItem{PK: pkToken, Name: name}
	var err1, err2 error
	if it.Scopes, err = cleanScopes(scopes); err != nil {
		return "", Token{}, err
	}
	it.Kinds, err1 = cleanLimits("kind", kinds)
	it.Sites, err2 = cleanLimits("site", sites)
	if err := errors.Join(err1, err2); err != nil {
		return "", Token{}, err
	}
	it.SK = randomString(b32, tokenIDBytes)
	secret = tokenPrefix + it.SK + "_" + randomString(b32, tokenRandom)
	sum := sha256.Sum256([]byte(secret))
	it.Hash = sum[:]
	it.Created = millis(s.opts.Now())
	// The id has 80 random bits: a collision is not expected, but it must
	// not replace a token.
	_, err = s.t.Put(ctx, it, &table.PutOptions{If: table.Attr(attrPK).NotExists()})
	if err != nil {
		return "", Token{}, fmt.Errorf("auth: cannot store token %q: %w", name, err)
	}
	return secret, it.token(), nil
}

// Tokens returns every token, oldest first. LastUsed is as recorded in the
// table.
func (s *Store) Tokens(ctx context.Context) ([]Token, error) {
	its, err := readAll[tokenItem](ctx, s, pkToken)
	if err != nil {
		return nil, err
	}
	ts := make([]Token, len(its))
	for i := range its {
		ts[i] = its[i].token()
	}
	oldestFirst(ts, func(t Token) (time.Time, string) { return t.Created, t.ID })
	return ts, nil
}

// RevokeToken deletes the token with the given id, or returns ErrNotFound.
// This Store refuses the token as soon as RevokeToken returns; other
// Stores (other processes) refuse it within their CacheTTL.
func (s *Store) RevokeToken(ctx context.Context, id string) error {
	old, err := s.t.Delete(ctx, table.K(pkToken, id), nil)
	// Forget the token after the delete: a read that could still see the
	// item began before this point and will not fill the cache.
	s.mu.Lock()
	delete(s.tokens, id)
	s.epoch++
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("auth: cannot revoke token %s: %w", id, err)
	}
	if old == nil {
		return fmt.Errorf("auth: token %s: %w", id, ErrNotFound)
	}
	return nil
}

// cachedToken is a token read from the table at 'at'. used is when its last
// use was recorded (guarded by Store.mu).
type cachedToken struct {
	token Token
	hash  []byte
	at    time.Time
	used  time.Time
}

// lastUseInterval is how often a token's LastUsed is written at most.
const lastUseInterval = time.Minute

// Authenticate returns the Principal of a token secret, or
// ErrUnauthenticated if the secret is malformed, unknown or revoked. The
// token is found by the id in the secret and the secret's SHA-256 is
// compared with the stored one in constant time. A token read from the
// table is trusted for CacheTTL, so most requests cost no read; a token
// revoked through this Store is refused at once. The token's LastUsed is
// written at most once a minute. Other errors are failures to read the
// table.
func (s *Store) Authenticate(ctx context.Context, secret string) (*Principal, error) {
	id, ok := tokenID(secret)
	if !ok {
		return nil, ErrUnauthenticated
	}
	sum := sha256.Sum256([]byte(secret))
	now := s.opts.Now()

	s.mu.Lock()
	c, epoch := s.tokens[id], s.epoch
	s.mu.Unlock()
	if c == nil || !s.fresh(c.at, now) {
		var it tokenItem
		err := s.t.GetInto(ctx, table.K(pkToken, id), &it, &table.GetOptions{Consistent: true})
		if errors.Is(err, table.ErrNotFound) {
			s.mu.Lock()
			delete(s.tokens, id)
			s.mu.Unlock()
			return nil, ErrUnauthenticated
		}
		if err != nil {
			return nil, fmt.Errorf("auth: cannot read token %s: %w", id, err)
		}
		c = &cachedToken{token: it.token(), hash: it.Hash, at: now, used: fromMillis(it.LastUsed)}
		s.mu.Lock()
		if old := s.tokens[id]; old != nil && old.used.After(c.used) {
			c.used = old.used
		}
		if s.epoch == epoch && s.opts.CacheTTL > 0 {
			s.tokens[id] = c
		}
		s.mu.Unlock()
	}
	if subtle.ConstantTimeCompare(c.hash, sum[:]) != 1 {
		return nil, ErrUnauthenticated
	}
	s.touch(ctx, c, now)
	return newTokenPrincipal(c.token), nil
}

// touch records now as c's last use if the last record is a minute old.
// A failure is logged, not returned: it must not fail the request.
func (s *Store) touch(ctx context.Context, c *cachedToken, now time.Time) {
	s.mu.Lock()
	if now.Sub(c.used) < lastUseInterval {
		s.mu.Unlock()
		return
	}
	c.used = now
	s.mu.Unlock()
	u := table.NewUpdate().Set(attrLastUsed, millis(now))
	_, err := s.t.Update(ctx, table.K(pkToken, c.token.ID), u, &table.UpdateOptions{If: table.Attr(attrPK).Exists()})
	if err != nil && !table.IsConditionFailed(err) {
		s.opts.Logger.Warn("auth: cannot record the last use of a token", "token", c.token.ID, "err", err)
	}
}
