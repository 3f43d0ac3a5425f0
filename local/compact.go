package local

import (
	"context"
	"fmt"
)

// Compact rewrites the engine's tables over every key it holds, so that
// the space of deleted and overwritten items is given back to the disk:
// deletions otherwise take space (a tombstone, and the old value below
// it) until the background compactions reach them. It rewrites the
// whole folder, which takes time in proportion to its size; it stops
// when ctx ends, leaving the tables consistent (what it rewrote stays
// rewritten), and returns ctx's error. In memory it does nothing.
func (db *DB) Compact(ctx context.Context) error {
	return db.onDisk(ctx, func() error { return db.compactAll(ctx) })
}

func (db *DB) compactAll(ctx context.Context) error {
	it, err := db.pdb.NewIter(nil)
	if err != nil {
		return fmt.Errorf("local: cannot read the key range: %w", err)
	}
	var last []byte
	if it.Last() {
		last = append([]byte(nil), it.Key()...)
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("local: cannot read the key range: %w", err)
	}
	if last == nil {
		return nil
	}
	// From the smallest key to one past the last key held.
	if err := db.pdb.Compact(ctx, nil, append(last, 0), true); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("local: cannot compact: %w", err)
	}
	return nil
}
