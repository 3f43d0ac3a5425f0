package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
	"github.com/timetable-db/timetable/wire"
)

// DefaultTable is the name of the table that holds tokens and access keys.
const DefaultTable = "timetable_auth"

// DefaultCacheTTL is how long an authenticated token, and the set of access
// keys, are trusted from memory before they are read again.
const DefaultCacheTTL = 10 * time.Second

// DefaultMaxClockSkew is how far the date of a signed request may be from
// the server's clock, either way.
const DefaultMaxClockSkew = 15 * time.Minute

// Errors of this package, matched with errors.Is.
var (
	// ErrUnauthenticated is returned by Authenticate for a secret that is
	// malformed, unknown or revoked. The HTTP answer is 401.
	ErrUnauthenticated = errors.New("auth: unauthenticated")
	// ErrPermissionDenied is for the server to return when a Principal
	// does not allow a request. The HTTP answer is 403.
	ErrPermissionDenied = errors.New("auth: permission denied")
	// ErrInvalid is matched (errors.Is) by the errors of a credential
	// asked for with a bad name, scopes or limits. The HTTP answer is 400.
	ErrInvalid = errors.New("auth: invalid credential")
	// ErrNotFound is returned when revoking a token or an access key that
	// does not exist. It is timetable.ErrNotFound.
	ErrNotFound = timetable.ErrNotFound
)

// Options configure a Store. A nil *Options is valid and means the
// defaults.
type Options struct {
	// Table is the name of the table of tokens and access keys, created
	// by Open if missing. Default DefaultTable.
	Table string
	// CacheTTL bounds how long a token or an access key revoked by another
	// process (or another Store) can still be used here. Default
	// DefaultCacheTTL; a negative value turns the cache off (every request
	// costs a read).
	CacheTTL time.Duration
	// MaxClockSkew bounds the difference between a signed request's date
	// and the server's clock. Default DefaultMaxClockSkew.
	MaxClockSkew time.Duration
	// MaxBodyBytes bounds the body of a request that SigV4 hashes; a larger
	// one is answered 413. Default wire.DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives failures to read the table while serving a request
	// and to record a token's last use. Default: discard.
	Logger *slog.Logger
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Table == "" {
		r.Table = DefaultTable
	}
	if r.CacheTTL == 0 {
		r.CacheTTL = DefaultCacheTTL
	}
	if r.MaxClockSkew <= 0 {
		r.MaxClockSkew = DefaultMaxClockSkew
	}
	if r.MaxBodyBytes <= 0 {
		r.MaxBodyBytes = wire.DefaultMaxBodyBytes
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r
}

// Store keeps API tokens and access keys in a table of their own, over any
// timetable.API: the embedded engine or DynamoDB. It is safe for concurrent
// use.
type Store struct {
	t    *table.Table
	opts Options

	mu     sync.Mutex
	tokens map[string]*cachedToken // by token id
	epoch  uint64                  // bumped by every revoke through this Store

	keysMu sync.Mutex
	keys   map[string]AccessKey // by key id; nil until loaded
	keysAt time.Time            // when keys was loaded
}

// Attribute names of the auth table's items.
const (
	attrPK       = "pk"
	attrSK       = "sk"
	attrName     = "name"
	attrHash     = "hash"
	attrScopes   = "scopes"
	attrKinds    = "kinds"
	attrCreated  = "created"
	attrLastUsed = "last_used"
	attrSecret   = "secret"
)

// Partitions of the auth table.
const (
	pkToken     = "TOKEN"
	pkAccessKey = "ACCESS_KEY"
)

// Open returns a Store over api, creating its table (o.Table) if it does
// not exist and waiting until it is active.
func Open(ctx context.Context, api timetable.API, o *Options) (*Store, error) {
	opts := o.withDefaults()
	t, err := table.New(api, table.Schema{Name: opts.Table, HashKey: attrPK, RangeKey: attrSK}, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	if err := t.Create(ctx, nil); err != nil {
		return nil, fmt.Errorf("auth: cannot create table %q: %w", opts.Table, err)
	}
	return &Store{t: t, opts: opts, tokens: map[string]*cachedToken{}}, nil
}

// fresh reports whether something read at 'at' may still be used at now.
func (s *Store) fresh(at, now time.Time) bool {
	return s.opts.CacheTTL > 0 && now.Sub(at) < s.opts.CacheTTL && !now.Before(at)
}

// readAll reads every item of the partition pk (strongly consistent),
// decoded into I.
func readAll[I any](ctx context.Context, s *Store, pk string) ([]I, error) {
	var its []I
	for item, err := range s.t.QueryAll(ctx, &table.Query{Hash: pk, Consistent: true}) {
		if err != nil {
			return nil, fmt.Errorf("auth: cannot read the %s items: %w", pk, err)
		}
		var it I
		if err := table.Unmarshal(item, &it); err != nil {
			return nil, fmt.Errorf("auth: cannot decode a %s item: %w", pk, err)
		}
		its = append(its, it)
	}
	return its, nil
}

// oldestFirst sorts xs by creation time, then id.
func oldestFirst[T any](xs []T, key func(T) (time.Time, string)) {
	slices.SortFunc(xs, func(a, b T) int {
		ta, ia := key(a)
		tb, ib := key(b)
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return strings.Compare(ia, ib)
	})
}

// invalidError is an error of a bad credential request: its message is
// its own, and it matches ErrInvalid.
type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// invalidf returns an error that matches ErrInvalid.
func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}
