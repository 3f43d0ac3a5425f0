// Package wal is the write-ahead log behind the series write buffer: a
// reading is acknowledged once it is durable here, the buffer writes
// batches to the table in the background, and then releases them.
//
// # Use
//
//	l, err := wal.Open(dir, nil)
//	// Re-apply what was acknowledged but not yet flushed before a crash.
//	// Applying a record twice must be harmless (the series writes are
//	// idempotent), since a release may not have become durable.
//	err = l.Replay(func(lsn uint64, rec []byte) error { ... })
//	lsn, err := l.Append(ctx, rec1, rec2) // returns once both are fsynced
//	...                                   // flush to the table, then
//	err = l.Release(lsn)                  // records up to lsn are not needed
//
// # Group commit
//
// Append encodes its records into the batch being filled and waits. One
// committer goroutine takes the whole batch, writes it with one write and
// syncs it with one fsync, then wakes every Append in it; Appends arriving
// meanwhile fill the next batch. A lone writer pays one fsync per Append;
// N concurrent writers share one.
//
// # Recovery
//
// Writes are synced one at a time, so a crash can only tear the last write.
// Open truncates a torn or garbled tail of the last segment when no record
// written by a later write follows it; any other damage (in an earlier
// segment, or followed by records that were acknowledged) fails Open with a
// *CorruptError, or with Options.RepairCorruption is cut off and logged.
//
// # Failed commits
//
// A commit whose write or fsync fails (ENOSPC on a full disk, EIO) fails
// its Appends and those of the batch filled meanwhile; none of them is
// acknowledged, and their LSNs are given again. The log stays open: the
// next commit first truncates the active segment to the end of the last
// durable commit and syncs it, so a failed commit leaves nothing behind,
// then writes. Once space is back, Appends succeed again without a reopen.
//
// # Release
//
// Release writes a marker frame with the next commit; Open takes the
// highest marker it finds (or the start of the oldest segment kept) as the
// point replay starts from. Segments whose records are all released are
// deleted once the marker is durable. A marker that releases every record
// starts a new segment first (when no record waits and the active segment
// holds one), so that the old one goes too: a log whose records are all
// released keeps a few bytes, however much it held.
//
// The on-disk format is described in docs/format/wal.md.
package wal
