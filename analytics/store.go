package analytics

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/table"
)

// Errors of the package, matched with errors.Is. A missing site or goal is
// timetable.ErrNotFound.
var (
	// ErrInvalid reports bad input: an id, a path, a time out of range.
	ErrInvalid = errors.New("analytics: invalid")
	// ErrExists reports a site that already exists.
	ErrExists = errors.New("analytics: already exists")
	// ErrExpired reports a day whose raw hits have expired (in part), which
	// cannot be aggregated again.
	ErrExpired = errors.New("analytics: raw hits expired")
)

// FieldError is an ErrInvalid that names the field at fault of a Site,
// Goal, Funnel or shared link given to the Store: its Go name ("ID",
// "Name", "Domains", "TimeZone", "Kind", "Match", "Steps"). Its message is
// the error's; errors.Is(err, ErrInvalid) holds.
type FieldError struct {
	Field string
	err   error
}

func (e *FieldError) Error() string { return e.err.Error() }
func (e *FieldError) Unwrap() error { return e.err }

// invalidField returns a FieldError of field with the message of
// fmt.Errorf(format, args...), which wraps ErrInvalid.
func invalidField(field, format string, args ...any) error {
	return &FieldError{Field: field, err: fmt.Errorf(format, args...)}
}

// idRule says what an id may hold.
const idRule = "want 1 to 64 of a-z, 0-9, '.', '-', '_'"

// DefaultTable is the table name when Options.Table is empty.
const DefaultTable = "analytics"

// Retention says how long each tier lives, counted from its event time
// (the end of a stats period). Zero fields take the defaults; a negative
// duration keeps the tier forever.
type Retention struct {
	// Raw is the life of page views, events and sessions. Default 30 days.
	Raw time.Duration
	// Hourly is the life of hourly stats. Default 90 days.
	Hourly time.Duration
	// Daily is the life of daily stats and top items. Default 2 years
	// (730 days).
	Daily time.Duration
	// Monthly is the life of monthly stats; zero or negative keeps them
	// (the default).
	Monthly time.Duration
	// Buckets is the life of the hit buckets (a day's page views and
	// events in compressed columns, written once the day is over), from
	// the end of their day: what filters, breakdowns by two dimensions,
	// funnels and other questions the aggregates cannot answer read once
	// the raw hits have expired. Default 2 years (730 days).
	Buckets time.Duration
}

// Options configure a Store. A nil *Options and the zero value are valid;
// each field documents its default.
type Options struct {
	// Table is the table name. Default DefaultTable.
	Table string
	// TableOptions configure the table client (retries). Default nil.
	TableOptions *table.Options
	// Retention of each tier; see Retention for the defaults.
	Retention Retention
	// SessionTimeout is the idle time that ends a session. Default 30
	// minutes.
	SessionTimeout time.Duration
	// TopN is the number of values of each breakdown of a day or month
	// written as Top items, read by sort key. Default 100.
	TopN int
	// MaxValues bounds the values of each breakdown kept in a stats item;
	// the rest are summed into Other. Default 1000.
	MaxValues int
	// MarkEvery is how often Record marks a day it writes to as pending
	// for aggregation again (once per site and day per interval). Default
	// 1 minute.
	MarkEvery time.Duration
	// SiteCacheTTL is how long Record trusts a site it has read (that it
	// exists, its domains): a change made through another Store reaches
	// this one's Record within it. Default 10 seconds; negative reads the
	// site on every Record.
	SiteCacheTTL time.Duration
	// MaxRawHits bounds the hits of one day that Visits (and so
	// FunnelSteps and the Stats API's queries the aggregates cannot
	// answer) forms at once, and those RawVisits holds in all. Default
	// 2,000,000.
	MaxRawHits int
	// MaxFuture is how far ahead of Now an event may be. Default 5 minutes.
	MaxFuture time.Duration
	// AggregateEvery is how often the Store's background loop, started by
	// Open and stopped by Close, runs AggregatePending (on the real clock,
	// not Now). Default 1 minute; negative runs none, and the caller calls
	// AggregatePending itself.
	AggregateEvery time.Duration
	// LeaseOwner names this Store among the Stores (servers) that share
	// the table: AggregatePending aggregates a site only under the site's
	// lease, an item of the table held by one owner at a time (see
	// "Servers sharing a table" in the package documentation). Every
	// Store needs its own. Default table.NewOwner("analytics"), random.
	LeaseOwner string
	// Now returns the current time. Default time.Now.
	Now func() time.Time
	// Rand is the source of salts and item ids. Default crypto/rand.
	Rand io.Reader
	// Logger receives what the aggregation skips and the failures of the
	// background loop. Default: discard.
	Logger *slog.Logger

	// onDay, when set (by tests), is called by AggregatePending before it
	// aggregates a day of a site under the site's lease; the func it
	// returns, if not nil, is called when that day is done.
	onDay func(owner, site string, day time.Time) (done func())
	// partBytes, when set (by tests), bounds the block of a hit bucket
	// part instead of maxPartBytes.
	partBytes int
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Table == "" {
		r.Table = DefaultTable
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&r.Retention.Raw, 30*24*time.Hour)
	def(&r.Retention.Hourly, 90*24*time.Hour)
	def(&r.Retention.Daily, 730*24*time.Hour)
	def(&r.Retention.Buckets, 730*24*time.Hour)
	def(&r.SessionTimeout, 30*time.Minute)
	def(&r.MarkEvery, time.Minute)
	def(&r.SiteCacheTTL, 10*time.Second)
	def(&r.MaxFuture, 5*time.Minute)
	def(&r.AggregateEvery, time.Minute)
	if r.TopN <= 0 {
		r.TopN = 100
	}
	if r.MaxValues <= 0 {
		r.MaxValues = 1000
	}
	if r.MaxRawHits <= 0 {
		r.MaxRawHits = 2_000_000
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.LeaseOwner == "" {
		r.LeaseOwner = table.NewOwner("analytics")
	}
	if r.Rand == nil {
		r.Rand = rand.Reader
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	return r
}

// Store is the web-analytics store over one table. It is safe for
// concurrent use.
type Store struct {
	t  *table.Table
	o  Options
	bg background // the aggregation loop

	// siteChanges counts the sites created, changed and deleted through
	// this Store (SiteChanges).
	siteChanges atomic.Uint64

	// passMu makes the passes of AggregatePending in this Store run one
	// at a time: they share the Store's LeaseOwner, so the site's lease,
	// which keeps the passes of different Stores apart, lets two of its
	// own through, and the later writer of a day's aggregates would
	// replace them with what it read before the other's.
	passMu sync.Mutex

	mu     sync.Mutex
	sites  map[string]cachedSite // by id, for Record
	marked map[pendingDay]time.Time
	salt   daySalt
	rt     rtBuffer // realtime additions not written yet
}

type cachedSite struct {
	site *Site
	at   time.Time
}

type pendingDay struct{ site, day string }

// Open returns a Store over api and starts its background aggregation
// (Options.AggregateEvery); Close stops it. Open does not contact the
// backend; call EnsureTable to create the table. If ctx is done, Open
// returns its error and no Store.
func Open(ctx context.Context, api timetable.API, o *Options) (*Store, error) {
	opts := o.withDefaults()
	t, err := table.New(api, schema(opts.Table), opts.TableOptions)
	if err != nil {
		return nil, fmt.Errorf("analytics: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &Store{t: t, o: opts, sites: map[string]cachedSite{}, marked: map[pendingDay]time.Time{}}
	s.startBackground()
	return s, nil
}

// Table returns the table client, for its consumed-capacity Stats.
func (s *Store) Table() *table.Table { return s.t }

// EnsureTable creates the table with its two global indexes and turns on
// time to live on the ttl attribute. An existing table is left as it is.
func (s *Store) EnsureTable(ctx context.Context) error {
	if err := s.t.Create(ctx, &table.CreateOptions{TTLAttribute: attrTTL}); err != nil {
		return fmt.Errorf("analytics: cannot create table %s: %w", s.o.Table, err)
	}
	return nil
}

func (s *Store) now() time.Time { return s.o.Now().UTC() }

// ttlAfter returns the epoch seconds of t plus d, or 0 (no ttl) if d is
// negative.
func ttlAfter(t time.Time, d time.Duration) int64 {
	if d < 0 {
		return 0
	}
	return t.Add(d).Unix()
}

func (s *Store) randomID(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(s.o.Rand, b); err != nil {
		return "", fmt.Errorf("analytics: cannot read random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}
