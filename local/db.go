package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configure a DB. The zero value and a nil *Options are valid and
// select the defaults documented on each field.
type Options struct {
	// InMemory keeps all data in memory (Pebble on vfs.NewMem); the dir
	// argument of Open is then ignored and nothing survives Close. Since
	// nothing can be made durable, Pebble keeps no write-ahead log, writes
	// are acknowledged once in the memtable (NoSync does not matter) and
	// Sync does nothing. With FS set, InMemory has no effect.
	InMemory bool

	// NoSync acknowledges writes once they are in Pebble's write-ahead log
	// buffer, before it is synced to disk. Pebble writes the buffer to the
	// operating system in the background, so a process crash may lose the
	// writes of the last moments, and an operating system crash or power
	// loss those since the last sync. DB.Sync makes every acknowledged
	// write durable. By default (false) every write is
	// acknowledged only after the log is synced; concurrent writers share
	// syncs (group commit).
	NoSync bool

	// Now returns the current time. It drives TTL expiry and the timestamps
	// of table descriptions. Default: time.Now.
	Now func() time.Time

	// TTLInterval is the period of the background sweeper that deletes
	// items whose TTL attribute has passed. Default: 1 second. A negative
	// value disables the sweeper (SweepExpired can still be called).
	TTLInterval time.Duration

	// StreamShardLifetime is how long a shard of a stream takes new
	// records before it is closed and a child shard follows it, as
	// DynamoDB rolls shards over about every four hours; a shard is
	// rolled over only once it holds a record. Stream consumers must
	// follow a closed shard's child: a short lifetime tests that they do.
	// Default: 4 hours. A negative value never rolls shards over.
	StreamShardLifetime time.Duration

	// Logger receives the engine's own messages (sweeper errors, and
	// Pebble's log at warning level). Default: discard.
	Logger *slog.Logger

	// MinFreeBytes is the space the data folder's disk must have
	// available for a write to be taken: below it, writes are refused
	// with an error matching timetable.ErrDiskFull (a DynamoDB
	// ServiceUnavailable) and resume once space is freed. Pebble's failed
	// writes are fatal to it (see DB.Writable), so this reserve keeps room
	// for the memtables' flushes, compactions and the manifest. Default:
	// 4 × MemTableSize + 16 MiB (32 MiB by default). Negative: no check.
	// In memory there is none.
	MinFreeBytes int64

	// FS, when non-nil, is the file system Pebble uses (for tests that
	// inject faults). It takes precedence over InMemory.
	FS vfs.FS

	// CacheSize is the size in bytes of Pebble's block cache. Default: 64 MiB.
	CacheSize int64

	// MemTableSize is the size in bytes of Pebble's memtable: the latest
	// writes, in memory (and in the write-ahead log), until it fills and
	// is flushed to a new table in L0. A bigger memtable means fewer,
	// bigger L0 tables and fewer compactions, but holds more memory (two
	// memtables while one is flushed) and more versions of items that are
	// overwritten often, which reads skip. Default: 4 MiB, and 256 KiB
	// with InMemory, where a flush costs no disk: a Query over items
	// overwritten 50 times is 3 to 4 times cheaper than with 16 MiB, a
	// write about 10 µs dearer (BenchmarkQuery_Overwritten and
	// BenchmarkPutItem_InMemory with -memtable). It must be at least
	// 64 KiB and less than 4 GiB.
	MemTableSize int64

	// L0CompactionThreshold is the read amplification of L0 (the number of
	// its sublevels of tables) at which L0 is compacted into the lower
	// levels. Each compaction of L0 rewrites the tables below that its
	// keys overlap, all of them when keys are spread over the key space,
	// so waiting for more L0 tables writes less in all; but every read
	// looks into each sublevel. Writes stop while L0 has twice this many
	// sublevels, or 12 if that is more, until compactions catch up.
	// Default: 4. It must be at most 1000; negative values are an error.
	L0CompactionThreshold int

	// L0CompactionFileThreshold is the number of L0 tables at which L0 is
	// compacted, whatever its read amplification. Default: 500. Negative
	// values are an error.
	L0CompactionFileThreshold int
}

// Limits of Options' fields.
const (
	minMemTableSize          = 64 << 10
	inMemoryMemTableSize     = 256 << 10
	maxMemTableSize          = 4<<30 - 1
	maxL0CompactionThreshold = 1000
)

// validate reports the first field of o that has a bad value.
func (o *Options) validate() error {
	switch {
	case o.MemTableSize != 0 && (o.MemTableSize < minMemTableSize || o.MemTableSize > maxMemTableSize):
		return fmt.Errorf("local: Options.MemTableSize is %d: it must be 0 (the default) or between %d and %d", o.MemTableSize, minMemTableSize, int64(maxMemTableSize))
	case o.L0CompactionThreshold < 0 || o.L0CompactionThreshold > maxL0CompactionThreshold:
		return fmt.Errorf("local: Options.L0CompactionThreshold is %d: it must be between 0 (the default) and %d", o.L0CompactionThreshold, maxL0CompactionThreshold)
	case o.L0CompactionFileThreshold < 0:
		return fmt.Errorf("local: Options.L0CompactionFileThreshold is %d: it must not be negative", o.L0CompactionFileThreshold)
	}
	return nil
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.TTLInterval == 0 {
		r.TTLInterval = time.Second
	}
	if r.StreamShardLifetime == 0 {
		r.StreamShardLifetime = defaultShardLifetime
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if r.CacheSize <= 0 {
		r.CacheSize = 64 << 20
	}
	if r.MemTableSize == 0 {
		r.MemTableSize = 4 << 20
		if r.InMemory && r.FS == nil {
			r.MemTableSize = inMemoryMemTableSize
		}
	}
	if r.MinFreeBytes == 0 {
		r.MinFreeBytes = 4*r.MemTableSize + 16<<20
	}
	if r.L0CompactionThreshold == 0 {
		r.L0CompactionThreshold = 4
	}
	if r.L0CompactionFileThreshold == 0 {
		r.L0CompactionFileThreshold = 500
	}
	return r
}

// DB is the embedded engine: DynamoDB's API over one Pebble database. Its
// methods have the signatures of aws-sdk-go-v2's *dynamodb.Client and return
// the same errors, wrapped in a *smithy.OperationError. The optFns arguments
// are accepted for compatibility and ignored.
//
// A DB is safe for concurrent use by multiple goroutines.
type DB struct {
	opts Options
	pdb  *pebble.DB
	wo   *pebble.WriteOptions
	// noWAL is set in memory, where Pebble keeps no write-ahead log: a
	// synced write would fail, and wo is NoSync.
	noWAL bool

	// closeMu is held for reading by every operation and for writing by
	// Close, so that Close waits for operations in flight.
	closeMu sync.RWMutex
	closed  bool
	closing atomic.Bool // set when Close starts

	catMu  sync.RWMutex // guards tables and nextID
	tables map[string]*table
	nextID uint32

	locks stripes

	tokens tokenCache

	streams streamSet
	seqMu   sync.Mutex // held to give stream records sequence numbers and commit them
	nextSeq uint64     // the next sequence number of a stream record; guarded by seqMu

	// failure is the fatal failure of Pebble's storage, if any (see
	// failure.go).
	failure *failure
	// space refuses writes while the disk is nearly full.
	space spaceGuard

	stop chan struct{}
	wg   sync.WaitGroup

	sweeps atomic.Int64 // completed TTL sweeps, for tests
}

// Open opens (creating if needed) the database in directory dir, or an
// in-memory database if opts.InMemory is set. It starts the TTL sweeper.
// The caller must Close the DB.
func Open(dir string, opts *Options) (_ *DB, err error) {
	defer recoverFatal(&err) // a failed write while loading the catalog
	if opts != nil {
		if err := opts.validate(); err != nil {
			return nil, err
		}
	}
	o := opts.withDefaults()
	fail := newFailure()
	popts := &pebble.Options{
		Logger:                    pebbleLogger{o.Logger, fail},
		MemTableSize:              uint64(o.MemTableSize),
		L0CompactionThreshold:     o.L0CompactionThreshold,
		L0CompactionFileThreshold: o.L0CompactionFileThreshold,
		L0StopWritesThreshold:     max(12, 2*o.L0CompactionThreshold),
		// A failed flush or compaction (ENOSPC: Pebble retries it) and a
		// stalled disk write, which Pebble does not log itself.
		EventListener: &pebble.EventListener{
			BackgroundError: func(err error) {
				o.Logger.Error("local: pebble background work failed; it is retried", "err", err)
			},
			DiskSlow: func(info pebble.DiskSlowInfo) {
				o.Logger.Warn("local: disk write slow", "op", info.OpType.String(), "path", info.Path, "took", info.Duration)
			},
		},
	}
	cache := pebble.NewCache(o.CacheSize)
	defer cache.Unref()
	popts.Cache = cache
	switch {
	case o.FS != nil:
		popts.FS = o.FS
	case o.InMemory:
		popts.FS = vfs.NewMem()
		dir = ""
		// A log in memory recovers nothing: it would only cost each write
		// a copy and, synced, a wait for the log's writer.
		popts.DisableWAL = true
	}
	popts.EnsureDefaults()
	// Bloom filters make the point reads of the write path (the item a
	// write replaces, often absent) cheap. Tables above L5 are not
	// compressed: they hold a few percent of the data, are rewritten soon
	// (L0 is every memtable flush), and compressing them costs CPU on
	// every write, most of all for data that is compressed already (the
	// series store's chunks); L5 and L6 keep Snappy.
	for i := range popts.Levels {
		popts.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		popts.Levels[i].FilterType = pebble.TableFilter
		if i < 5 {
			popts.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
		}
	}
	pdb, err := pebble.Open(dir, popts)
	if err != nil {
		if heldElsewhere(err) {
			return nil, fmt.Errorf("%w: %s is open in another timetable process (a running timetable serve?): stop it, or talk to it with --server", ErrInUse, dir)
		}
		return nil, fmt.Errorf("local: cannot open pebble in %q: %w", dir, err)
	}
	db := &DB{
		opts:    o,
		pdb:     pdb,
		wo:      pebble.Sync,
		noWAL:   popts.DisableWAL,
		tables:  map[string]*table{},
		failure: fail,
		stop:    make(chan struct{}),
	}
	if !db.noWAL && o.MinFreeBytes > 0 {
		db.space = spaceGuard{fs: popts.FS, dir: dir, min: uint64(o.MinFreeBytes)}
	}
	if o.NoSync || db.noWAL {
		db.wo = pebble.NoSync
	}
	if err := db.loadCatalog(); err != nil {
		pdb.Close()
		return nil, err
	}
	if err := db.loadStreams(); err != nil {
		pdb.Close()
		return nil, err
	}
	if o.TTLInterval > 0 {
		db.wg.Add(1)
		go db.sweeper()
	}
	return db, nil
}

// Close stops the TTL sweeper, waits for operations in flight and closes
// the database. Operations after Close return ErrClosed. Close is
// idempotent.
//
// After a failure of the storage (see Writable), writes in flight may be
// stuck in Pebble for good: Close then stops waiting for them, leaves
// Pebble open and returns the failure; every write acknowledged before it
// is in Pebble's log, which the next Open (in a new process: the data
// folder stays locked until this one exits) recovers.
func (db *DB) Close() error {
	db.closing.Store(true)
	locked := make(chan struct{})
	go func() {
		db.closeMu.Lock()
		close(locked)
	}()
	select {
	case <-locked:
	case <-db.failure.done:
		return db.failure.get()
	}
	if db.closed {
		db.closeMu.Unlock()
		return nil
	}
	db.closed = true
	close(db.stop)
	db.closeMu.Unlock()
	db.wg.Wait()
	if err := db.failure.get(); err != nil {
		return err
	}
	return db.pdb.Close()
}

// begin marks the start of an operation. It returns ErrClosed after Close;
// otherwise the caller must call db.end when done.
func (db *DB) begin() error {
	if db.closing.Load() {
		// Not waiting for the lock: Close may never get it (see Close).
		return ErrClosed
	}
	db.closeMu.RLock()
	if db.closed {
		db.closeMu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (db *DB) end() { db.closeMu.RUnlock() }

// guard runs fn while the database is held open: after Close it returns
// ErrClosed without calling fn, and Close waits until fn has returned. A
// fatal failure of Pebble's storage in fn is returned as its error (see
// failure.go).
func guard[T any](db *DB, fn func() (out T, err error)) (out T, err error) {
	if err := db.begin(); err != nil {
		var zero T
		return zero, err
	}
	defer db.end()
	defer recoverFatal(&err)
	return fn()
}

// operation runs fn as the DynamoDB operation named op; every operation of
// DB is one. fn runs under guard, and its error (or ErrClosed) is wrapped as
// the SDK client wraps errors (see opError).
func operation[Out any](db *DB, op string, fn func() (Out, error)) (Out, error) {
	out, err := guard(db, fn)
	return out, opError(op, err)
}

// tableOperation is operation for the operations on the one table that a
// request names: fn gets the table, looked up with namedTable.
func tableOperation[Out any](db *DB, op string, name *string, fn func(t *table) (Out, error)) (Out, error) {
	return operation(db, op, func() (Out, error) {
		t, err := db.namedTable(name)
		if err != nil {
			var zero Out
			return zero, err
		}
		return fn(t)
	})
}

// run is operation for an operation that one method of db serves: fn
// gets ctx and the request in.
func run[In, Out any](ctx context.Context, db *DB, op string, in In, fn func(context.Context, In) (Out, error)) (Out, error) {
	return operation(db, op, func() (Out, error) { return fn(ctx, in) })
}

// tableRun is tableOperation for an operation that one method of db
// serves: fn gets the table that name names, and the request in.
func tableRun[In, Out any](db *DB, op string, name *string, in In, fn func(*table, In) (Out, error)) (Out, error) {
	return tableOperation(db, op, name, func(t *table) (Out, error) { return fn(t, in) })
}

func (db *DB) now() time.Time { return db.opts.Now() }

// pebbleLogger forwards Pebble's messages to slog, and its fatal errors
// to f (see failure.go).
type pebbleLogger struct {
	l *slog.Logger
	f *failure
}

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...))
}

func (p pebbleLogger) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	p.l.Error("local: the storage failed; writes are refused until a restart", "err", msg)
	p.f.fatal(msg, args)
}

// heldElsewhere reports whether Pebble could not open a folder because
// another DB holds its lock: one in this process, or another process
// (flock answers EAGAIN, EWOULDBLOCK on some systems).
func heldElsewhere(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) ||
		strings.Contains(err.Error(), "lock held by current process")
}

// Metrics returns Pebble's metrics of the data folder: LSM levels,
// compactions, caches, write-ahead log and disk space; nil after a fatal
// failure of the storage (see Writable), when Pebble's lock for them may
// be held for good.
func (db *DB) Metrics() *pebble.Metrics {
	if db.failure.get() != nil {
		return nil
	}
	return db.pdb.Metrics()
}
