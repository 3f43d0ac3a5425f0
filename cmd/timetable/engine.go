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
	"github.com/timetable-db/timetable/local"
	"github.com/timetable-db/timetable/series"
)

// engineOptions say how to open a data folder.
type engineOptions struct {
	dir      string
	inMemory bool
	noSync   bool
	// shardLifetime is local.Options.StreamShardLifetime; 0 is its default.
	shardLifetime time.Duration
	table         string
	flushInterval time.Duration
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
	auth           bool // open the token store
	logger         *slog.Logger
}

// engine is an opened data folder: the engine, the series store over it
// and the token store.
type engine struct {
	db  *local.DB
	api timetable.API
	// authDB holds the tokens and access keys, in an engine of its own
	// (the folder's "auth" subfolder) that the DynamoDB endpoint does not
	// serve: access key secrets must not be readable through it.
	authDB *local.DB
	store  *series.Store
	// analytics is the web analytics store; nil unless asked for.
	analytics *analytics.Store
	auth      *auth.Store // nil without authentication
	where     string      // the folder, or "memory"
}

// walDir is the series store's write-ahead log, and authDir the token
// store's engine, inside the data folder.
const (
	walDir  = "series-wal"
	authDir = "auth"
)

// openEngine opens the data folder of o, the series store of its table
// (created if missing) and, if asked, its token store.
func openEngine(ctx context.Context, o engineOptions) (*engine, error) {
	e := &engine{where: o.dir}
	if o.inMemory {
		e.where = "memory"
	} else if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the data folder: %w", err)
	}
	// On disk, the settings README.md gives for an ingest-heavy series
	// store: new chunk items land all over the key space, and with Pebble's
	// defaults each L0 compaction rewrites most of the data below it. In
	// memory, the engine's defaults: a flush costs no disk, and a smaller
	// memtable and fewer L0 tables leave reads fewer overwritten versions
	// and tables to step over.
	lopts := &local.Options{InMemory: o.inMemory, NoSync: o.noSync, StreamShardLifetime: o.shardLifetime, MinFreeBytes: o.minFreeBytes, Logger: o.logger}
	if !o.inMemory {
		lopts.MemTableSize, lopts.L0CompactionThreshold, lopts.L0CompactionFileThreshold = 16<<20, 12, 48
	}
	db, err := local.Open(o.dir, lopts)
	if err != nil {
		return nil, err
	}
	e.db, e.api = db, db
	sopts := &series.Options{Table: o.table, FlushInterval: o.flushInterval, MaxFuture: o.maxFuture, Logger: o.logger}
	if !o.inMemory {
		sopts.WALDir = filepath.Join(o.dir, walDir)
	}
	if e.store, err = series.Open(ctx, db, sopts); err != nil {
		_ = db.Close()
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
		e.analytics, err = analytics.Open(ctx, db, &analytics.Options{Table: o.analyticsTable, AggregateEvery: every, Logger: o.logger})
		if err == nil {
			err = e.analytics.EnsureTable(ctx)
		}
		if err == nil {
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
		if e.authDB, err = local.Open(filepath.Join(o.dir, authDir), &local.Options{InMemory: o.inMemory, Logger: o.logger}); err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("cannot open the token store: %w", err)
		}
		if e.auth, err = auth.Open(ctx, e.authDB, nil); err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("cannot open the token store: %w", err)
		}
	}
	return e, nil
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
	if e.store != nil {
		errs = append(errs, e.store.Shutdown(ctx))
		e.store = nil
	}
	if e.db != nil {
		errs = append(errs, e.db.Sync(context.Background()), e.db.Close())
		e.db = nil
	}
	if e.authDB != nil {
		errs = append(errs, e.authDB.Close())
		e.authDB = nil
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
