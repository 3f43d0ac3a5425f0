package series

import (
	"errors"
	"os"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a Store's counters, for monitoring (the server's
// /metrics). Counters are cumulative since Open; each is read atomically,
// the snapshot as a whole is not.
type Stats struct {
	// ReadingsAccepted counts the readings of the writes (Write,
	// WriteMany, WriteSync) that returned nil: buffered (and logged), or
	// written by WriteSync. A RejectDifferent kind's repeat of a stored
	// reading is accepted (and written once).
	ReadingsAccepted uint64
	// ReadingsRefused counts the readings of the writes that returned an
	// error, whatever the cause; the three fields after it count them by
	// cause and add up to it.
	ReadingsRefused uint64
	// RefusedInvalid: ErrInvalidReading, ErrInvalidID or ErrExpired.
	RefusedInvalid uint64
	// RefusedConflict: ErrConflict (a RejectDifferent kind).
	RefusedConflict uint64
	// RefusedOther: anything else (ErrTableNotFound, ErrClosed, a full
	// buffer until the context ended, a log or table failure).
	RefusedOther uint64
	// Buffered is the number of readings buffered now, not yet known to
	// be written to the table.
	Buffered int

	// Flushes counts the flushes that had readings to write and wrote
	// them all; FlushErrors those that failed (their readings stay
	// buffered and are retried).
	Flushes, FlushErrors uint64
	// FlushSeconds is the total time of those flushes, successful or
	// not; LastFlush the time of the last one.
	FlushSeconds float64
	LastFlush    time.Duration

	// WALBytes counts the bytes written to the write-ahead log (framing
	// included); WALSize is the size of its files now. Both are 0
	// without Options.WALDir.
	WALBytes uint64
	WALSize  int64

	// ReadUnits and WriteUnits are the capacity units the table reported
	// consumed by the Store's calls (see table.Stats; the embedded engine
	// and DynamoDB report them).
	ReadUnits, WriteUnits float64

	// RollupPasses and CompactionPasses count the passes of Store.Rollup
	// and Store.Compact (the background ones and direct calls),
	// successful or not.
	RollupPasses, CompactionPasses uint64

	// SourcesNearExpiry counts the groups (series, shard and hour or
	// day) in which compaction found flush chunks not merged within
	// Options.SourceExpiry/2 of their expiry (a flush chunk that expires
	// unmerged loses its readings); it merged them.
	SourcesNearExpiry uint64
}

// storeStats are the counters of Stats that the Store keeps itself.
type storeStats struct {
	accepted, invalid, conflict, other atomic.Uint64
	flushes, flushErrors               atomic.Uint64
	flushNanos, lastFlush              atomic.Int64
	rollups, compactions               atomic.Uint64
	nearExpiry                         atomic.Uint64
	// steps counts the elements that the per-series bookkeeping of
	// flushes and rollup passes visits: entries sealed and applied,
	// series looked up in the directory and marker sets, entries a sweep
	// of the marker cache scans, markers grouped and handed to a
	// recomputation. Every loop of those paths over a collection that
	// grows with the number of series adds its iterations, so that tests
	// can check that the work of a flush of n new series grows as n, not
	// as n squared (see TestFlush_WorkLinearInSeries).
	steps atomic.Uint64
}

// visited counts n elements visited by per-series bookkeeping.
func (st *storeStats) visited(n int) { st.steps.Add(uint64(n)) }

// wrote counts the n readings of a write that returned err.
func (st *storeStats) wrote(n int, err error) {
	c := &st.accepted
	switch {
	case err == nil:
	case errors.Is(err, ErrInvalidReading), errors.Is(err, ErrInvalidID), errors.Is(err, ErrExpired):
		c = &st.invalid
	case errors.Is(err, ErrConflict):
		c = &st.conflict
	default:
		c = &st.other
	}
	c.Add(uint64(n))
}

// flushed counts a flush of duration d that returned err.
func (st *storeStats) flushed(d time.Duration, err error) {
	if err != nil {
		st.flushErrors.Add(1)
	} else {
		st.flushes.Add(1)
	}
	st.flushNanos.Add(int64(d))
	st.lastFlush.Store(int64(d))
}

// Stats returns the Store's counters. It is safe to call at any time,
// also after Close; it reads the size of the log's files.
func (s *Store) Stats() Stats {
	c := &s.stats
	out := Stats{
		ReadingsAccepted: c.accepted.Load(),
		RefusedInvalid:   c.invalid.Load(),
		RefusedConflict:  c.conflict.Load(),
		RefusedOther:     c.other.Load(),
		Flushes:          c.flushes.Load(),
		FlushErrors:      c.flushErrors.Load(),
		FlushSeconds:     time.Duration(c.flushNanos.Load()).Seconds(),
		LastFlush:        time.Duration(c.lastFlush.Load()),
		RollupPasses:     c.rollups.Load(),
		CompactionPasses: c.compactions.Load(),

		SourcesNearExpiry: c.nearExpiry.Load(),
	}
	out.ReadingsRefused = out.RefusedInvalid + out.RefusedConflict + out.RefusedOther
	s.buf.mu.Lock()
	out.Buffered = s.buf.openN + s.buf.queued
	s.buf.mu.Unlock()
	if s.wal != nil {
		out.WALBytes = s.wal.Stats().Bytes
		if es, err := os.ReadDir(s.opts.WALDir); err == nil {
			for _, e := range es {
				if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
					out.WALSize += info.Size()
				}
			}
		}
	}
	ts := s.tbl.Stats()
	out.ReadUnits, out.WriteUnits = ts.ReadUnits, ts.WriteUnits
	return out
}
