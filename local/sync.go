package local

import (
	"context"

	"github.com/cockroachdb/pebble/v2"
)

// deferredSyncKey marks a context made by WithDeferredSync.
type deferredSyncKey struct{}

// WithDeferredSync returns a context under which the writes of a DB
// (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems)
// are acknowledged once they are in its write-ahead log buffer, before the
// log is synced: as with Options.NoSync, a crash may lose those not yet
// synced (a process crash, those Pebble has not yet written to the
// operating system, which it does in the background). Sync makes them
// durable.
//
// It is for callers that keep their own durable record of the writes
// until they call Sync, such as the series store's log: many writes then
// share one sync instead of one each. Writes under other contexts keep
// the DB's durability (Options.NoSync).
func WithDeferredSync(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferredSyncKey{}, true)
}

// writeOptions returns the Pebble write options of a write under ctx.
func (db *DB) writeOptions(ctx context.Context) *pebble.WriteOptions {
	if ctx != nil && ctx.Value(deferredSyncKey{}) != nil {
		return pebble.NoSync
	}
	return db.wo
}

// Sync makes durable every write acknowledged before it is called: it
// syncs the write-ahead log (whatever Options.NoSync says). Writes made
// under WithDeferredSync are durable once Sync returns nil.
func (db *DB) Sync(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := db.begin(); err != nil {
		return err
	}
	defer db.end()
	return db.pdb.LogData(nil, pebble.Sync)
}
