package local

import (
	"context"

	"github.com/cockroachdb/pebble/v2"

	"github.com/timetable-db/timetable"
)

// writeOptions returns the Pebble write options of a write under ctx:
// unsynced under timetable.WithDeferredSync (see Sync), else the DB's.
func (db *DB) writeOptions(ctx context.Context) *pebble.WriteOptions {
	if timetable.DeferredSync(ctx) {
		return pebble.NoSync
	}
	return db.wo
}

// Sync makes durable every write acknowledged before it is called: it
// syncs the write-ahead log (whatever Options.NoSync says). In memory
// (Options.InMemory) there is no log and Sync only checks that the DB is
// open.
//
// Under a context made by timetable.WithDeferredSync, the writes of a DB
// (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems)
// are acknowledged once they are in its write-ahead log buffer, before the
// log is synced: as with Options.NoSync, a crash may lose those not yet
// synced (a process crash, those Pebble has not yet written to the
// operating system, which it does in the background). They are durable
// once Sync returns nil. Writes under other contexts keep the DB's
// durability (Options.NoSync).
func (db *DB) Sync(ctx context.Context) error {
	return db.onDisk(ctx, db.syncLog)
}

// onDisk runs fn, a step of the folder's upkeep, while the DB is held
// open (as guard does), unless ctx has ended; in memory it only checks
// that the DB is open.
func (db *DB) onDisk(ctx context.Context, fn func() error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := db.begin(); err != nil {
		return err
	}
	defer db.end()
	defer recoverFatal(&err)
	if db.noWAL {
		return nil // in memory: no folder
	}
	return fn()
}
