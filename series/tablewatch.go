package series

import (
	"context"
	"fmt"
	"time"

	"github.com/timetable-db/timetable/table"
)

// A Store knows whether its table exists, so that a write to a missing
// table fails at once (ErrTableNotFound) instead of being buffered and
// failing at every flush: Open finds out (reading the stored schemas),
// EnsureTable sets it, and any item operation answered with
// ResourceNotFoundException (a table deleted meanwhile) resets it, through
// the table client's hook (tableOptions).

// tableOptions returns the Store's table options, opts with the hook that
// notes a missing table; a hook of opts is called too.
func (s *Store) tableOptions(opts *table.Options) *table.Options {
	var o table.Options
	if opts != nil {
		o = *opts
	}
	theirs := o.OnTableMissing
	o.OnTableMissing = func(op string, err error) {
		s.tableMissing.Store(true)
		if theirs != nil {
			theirs(op, err)
		}
	}
	return &o
}

// tableErr returns err, wrapped with ErrTableNotFound if it says the table
// is missing.
func (s *Store) tableErr(err error) error {
	if err != nil && table.IsTableMissing(err) {
		return fmt.Errorf("%w: %w", s.errTableNotFound(), err)
	}
	return err
}

// errTableNotFound is ErrTableNotFound naming the Store's table.
func (s *Store) errTableNotFound() error {
	return fmt.Errorf("%w: %q does not exist (EnsureTable creates it)", ErrTableNotFound, s.opts.Table)
}

// Ready reports whether the Store takes writes: nil, or ErrClosed, or
// ErrTableNotFound while its table is known to be missing (checked at Open,
// set by EnsureTable, and reset by any call answered ResourceNotFound), or
// the error of the write-ahead log's last commit while it failed (a full
// disk: it matches syscall.ENOSPC, see timetable.IsDiskFull). It makes no
// request; while the log failed it waits for a commit that repairs it.
func (s *Store) Ready() error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.wal != nil {
		ctx, cancel := context.WithTimeout(context.Background(), readyWALWait)
		defer cancel()
		if err := s.wal.Check(ctx); err != nil {
			return fmt.Errorf("series: the write-ahead log cannot take writes: %w", err)
		}
	}
	return s.checkTable()
}

// readyWALWait bounds Ready's wait for a commit of a failed log.
const readyWALWait = 5 * time.Second

// checkTable returns ErrTableNotFound while the table is known to be
// missing.
func (s *Store) checkTable() error {
	if s.tableMissing.Load() {
		return s.errTableNotFound()
	}
	return nil
}
