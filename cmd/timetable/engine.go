package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/analytics"
	"github.com/timetable-db/timetable/auth"
	"github.com/timetable-db/timetable/backend"
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
)

// engineOptions say how to open a data folder or a remote backend.
type engineOptions struct {
	// storage is the data folder, memory, or a remote backend with the
	// local folder of the series write-ahead log ("" for none).
	storage storage
	noSync  bool
	// shardLifetime is local.Options.StreamShardLifetime; 0 is its default.
	shardLifetime time.Duration
	table         string
	flushInterval time.Duration
	// rollupInterval and compactInterval are series.Options'
	// RollupInterval and CompactInterval; 0 is their default.
	rollupInterval, compactInterval time.Duration
	// sourceExpiry is series.Options.SourceExpiry on a remote backend
	// that is not the embedded engine, when compactInterval is not
	// negative (this process runs the compaction passes that merge the
	// sources before they expire); elsewhere sources are deleted by key
	// (on the embedded engine a delete costs nothing, and expired items
	// would hold disk space until their expiry).
	sourceExpiry time.Duration
	// compactAtClose, on a data folder, leaves the series table in its
	// compact form at the clean stop (series.Options.CompactAtClose): the
	// folder is this process's alone, and the readers it serves stop
	// before the engine closes.
	compactAtClose bool
	// maxFuture is series.Options.MaxFuture; 0 is its default.
	maxFuture time.Duration
	// minFreeBytes is local.Options.MinFreeBytes; 0 is its default.
	minFreeBytes int64
	// analyticsTable is the web analytics' table; "" opens no analytics
	// store.
	analyticsTable string
	// aggregateEvery is analytics.Options.AggregateEvery, except that 0
	// (or less) runs no background aggregation.
	aggregateEvery time.Duration
	// rebuildRealtime recounts the analytics' realtime counters from the
	// hits when the store opens (see analytics.Store.RebuildRealtime): a
	// process that records hits does, after a crash lost the counters of
	// its last second. On a backend shared with servers recording hits it
	// may count a hit of the moment twice, so a client command there
	// does not.
	rebuildRealtime bool
	auth            bool // open the token store
	// authTable is auth.Options.Table; "" is its default.
	authTable string
	// cacheTTL, on a remote backend, bounds how long this process trusts
	// what it read of the tokens, access keys and sites, so that a change
	// made through another server reaches this one within it; 0 leaves
	// the stores' defaults.
	cacheTTL time.Duration
	logger   *slog.Logger
}

// engine is an opened data folder or remote backend: the API, the series
// store over it and the token store.
type engine struct {
	// db is the embedded engine; nil on a remote backend, which is
	// remote. What only the engine has (disk space, Sync, its metrics)
	// is asked of db and skipped without it.
	db *local.DB
	// compactDB, with db, makes Shutdown compact db's tables once the
	// series store is closed (engineOptions.compactAtClose).
	compactDB bool
	remote    timetable.Backend
	api       timetable.API
	// authDB, on a data folder, holds the tokens and access keys, in an
	// engine of its own (the folder's "auth" subfolder) that the DynamoDB
	// endpoint does not serve: access key secrets must not be readable
	// through it. On a remote backend they are in the backend's auth
	// table, which the DynamoDB endpoint serves to admin keys only.
	authDB *local.DB
	store  *series.Store
	// analytics is the web analytics store; nil unless asked for.
	analytics *analytics.Store
	auth      *auth.Store // nil without authentication
	where     string      // the folder, "memory" or the backend's URL
	logger    *slog.Logger
}

// suggestedSourceExpiry is the --source-expiry that serve's help and the
// docs suggest for a fleet that turns it on: how long after its day a
// merged chunk item's source stays on a remote DynamoDB backend. The
// default is 0 (sources deleted by key): a table whose fleet stops for
// longer than this would lose its unmerged readings, which no default
// may risk.
const suggestedSourceExpiry = 30 * 24 * time.Hour

// walDir is the series store's write-ahead log, and authDir the token
// store's engine, inside the data folder.
const (
	walDir  = "series-wal"
	authDir = "auth"
)

// openEngine opens the data folder or remote backend of o, the series
// store of its table (created if missing), the analytics store if asked,
// and, if asked, its token store.
func openEngine(ctx context.Context, o engineOptions) (*engine, error) {
	e := &engine{where: o.storage.where(), logger: o.logger}
	if e.logger == nil {
		e.logger = slog.New(slog.DiscardHandler)
	}
	sopts := &series.Options{Table: o.table, FlushInterval: o.flushInterval, RollupInterval: o.rollupInterval, CompactInterval: o.compactInterval, MaxFuture: o.maxFuture, Logger: o.logger}
	if o.storage.remote != "" {
		if err := e.openRemote(ctx, o, sopts); err != nil {
			return nil, err
		}
	} else if err := e.openLocal(o, sopts); err != nil {
		return nil, err
	}
	if o.storage.remote != "" && o.cacheTTL > 0 {
		// Kinds defined or changed through another server reach this one
		// within --cache-ttl (and are writable at once: a write naming an
		// unknown kind reads the stored schemas again).
		sopts.RefreshInterval = o.cacheTTL
	}
	var err error
	if e.store, err = series.Open(ctx, e.api, sopts); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("cannot open the series store: %w", err)
	}
	if err := e.store.EnsureTable(ctx); err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("cannot create the series table: %w", err)
	}
	if o.analyticsTable != "" {
		every := o.aggregateEvery
		if every <= 0 {
			every = -1
		}
		aopts := &analytics.Options{Table: o.analyticsTable, AggregateEvery: every, Logger: o.logger}
		if e.remote != nil {
			aopts.SiteCacheTTL = o.cacheTTL
		}
		e.analytics, err = analytics.Open(ctx, e.api, aopts)
		if err == nil {
			err = e.analytics.EnsureTable(ctx)
		}
		if err == nil && o.rebuildRealtime {
			// The realtime counters of the hits of a crash's last second
			// were in memory: count them again from the hits.
			err = e.analytics.RebuildRealtime(ctx)
		}
		if err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("cannot open the analytics store: %w", err)
		}
	}
	if o.auth {
		if err := e.openAuth(ctx, o); err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("cannot open the token store: %w", err)
		}
	}
	return e, nil
}

// openLocal opens the embedded engine of o's data folder (or memory) and
// sets the series write-ahead log's folder in sopts.
func (e *engine) openLocal(o engineOptions, sopts *series.Options) error {
	if !o.storage.inMemory {
		if err := os.MkdirAll(o.storage.dir, 0o755); err != nil {
			return fmt.Errorf("cannot create the data folder: %w", err)
		}
		sopts.WALDir = filepath.Join(o.storage.dir, walDir)
		sopts.CompactAtClose = o.compactAtClose
	}
	// On disk, the settings README.md gives for an ingest-heavy series
	// store: new chunk items land all over the key space, and with Pebble's
	// defaults each L0 compaction rewrites most of the data below it. In
	// memory, the engine's defaults: a flush costs no disk, and a smaller
	// memtable and fewer L0 tables leave reads fewer overwritten versions
	// and tables to step over.
	lopts := &local.Options{InMemory: o.storage.inMemory, NoSync: o.noSync, StreamShardLifetime: o.shardLifetime, MinFreeBytes: o.minFreeBytes, Logger: o.logger}
	if !o.storage.inMemory {
		lopts.MemTableSize, lopts.L0CompactionThreshold, lopts.L0CompactionFileThreshold = 16<<20, 12, 48
	}
	db, err := local.Open(o.storage.dir, lopts)
	if err != nil {
		return err
	}
	e.db, e.api = db, db
	e.compactDB = o.compactAtClose && !o.storage.inMemory
	return nil
}

// openRemote opens o's remote backend and, with a local folder, sets the
// series write-ahead log's folder in sopts: the readings a write
// acknowledged before they are flushed to the backend.
func (e *engine) openRemote(ctx context.Context, o engineOptions, sopts *series.Options) error {
	if dir := o.storage.dir; dir != "" {
		if err := claimLocalDir(dir, o.storage.remote, sopts.Table); err != nil {
			return err
		}
		sopts.WALDir = filepath.Join(dir, walDir)
	}
	b, err := backend.Open(ctx, o.storage.remote)
	if err != nil {
		return err
	}
	e.remote, e.api = b, b
	sopts.SourceExpiry = sourceExpiry(b, o)
	return nil
}

// sourceExpiry is series.Options.SourceExpiry on backend b (see
// engineOptions.sourceExpiry): o's on a backend other than the embedded
// engine when o runs compaction passes, else 0.
func sourceExpiry(b timetable.Backend, o engineOptions) time.Duration {
	if _, embedded := b.(*local.DB); embedded || o.compactInterval < 0 || o.sourceExpiry <= 0 {
		return 0
	}
	return o.sourceExpiry
}

// openAuth opens the token store: on a data folder, in its own engine in
// the "auth" subfolder; on a remote backend, in the backend's auth table.
func (e *engine) openAuth(ctx context.Context, o engineOptions) error {
	aopts := &auth.Options{Table: o.authTable, Logger: o.logger}
	api := e.api
	if e.remote != nil {
		aopts.CacheTTL = o.cacheTTL
	} else {
		var err error
		if e.authDB, err = local.Open(filepath.Join(o.storage.dir, authDir), &local.Options{InMemory: o.storage.inMemory, Logger: o.logger}); err != nil {
			return err
		}
		api = e.authDB
	}
	var err error
	e.auth, err = auth.Open(ctx, api, aopts)
	return err
}

// Close flushes the series store, syncs and closes the folder. It may be
// called more than once.
func (e *engine) Close() error { return e.Shutdown(context.Background()) }

// Shutdown is Close with the series store's flush bounded by ctx (see
// series.Store.Shutdown): when ctx ends first, the readings not flushed
// stay in the store's write-ahead log for the next start, and the error
// wraps ctx's.
func (e *engine) Shutdown(ctx context.Context) error {
	var errs []error
	if e.analytics != nil {
		// Stops the aggregation and writes the realtime counters of the
		// last second, gathered in memory.
		errs = append(errs, e.analytics.Close())
		e.analytics = nil
	}
	flushed := false
	if e.store != nil {
		t0 := time.Now()
		err := e.store.Shutdown(ctx)
		errs = append(errs, err)
		flushed = err == nil
		e.store = nil
		e.logger.Info("series store closed", "took", time.Since(t0).Round(time.Millisecond), "err", err)
	}
	if e.db != nil && e.compactDB && flushed {
		// The series store's last compaction deleted the chunks it
		// merged: their space goes back to the disk. Bounded by ctx, like
		// the flush; what it leaves, the background compactions do.
		t0 := time.Now()
		err := e.db.Compact(ctx)
		took := time.Since(t0).Round(time.Millisecond)
		switch {
		case err == nil:
			e.logger.Info("engine's tables compacted", "took", took)
		case ctx.Err() != nil:
			e.logger.Warn("engine's compaction cut short by the shutdown deadline: the background compactions of later starts do the rest", "took", took)
		default:
			errs = append(errs, err)
		}
	}
	if e.db != nil {
		errs = append(errs, e.db.Sync(context.Background()), e.db.Close())
		e.db = nil
	}
	if e.authDB != nil {
		errs = append(errs, e.authDB.Close())
		e.authDB = nil
	}
	if e.remote != nil {
		errs = append(errs, e.remote.Close())
		e.remote = nil
	}
	return errors.Join(errs...)
}

// newLogger returns the log of a command: text or JSON, at info or debug.
func newLogger(w io.Writer, format string, verbose bool) (*slog.Logger, error) {
	o := &slog.HandlerOptions{Level: slog.LevelInfo}
	if verbose {
		o.Level = slog.LevelDebug
	}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// moduleVersion is the version of the binary's module ("(devel)" for a
// build from a checkout).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}
