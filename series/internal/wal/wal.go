package wal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// ErrClosed is returned by calls on a closed Log.
var ErrClosed = errors.New("wal: log closed")

// ErrLocked is returned by Open when another Log (in this process or
// another) has the directory open.
var ErrLocked = errors.New("wal: directory is locked by another log")

// ErrTooLarge is returned by Append for a record larger than MaxRecordSize.
var ErrTooLarge = errors.New("wal: record too large")

// Options configure a Log. The zero value, and a nil *Options, give the
// defaults.
type Options struct {
	// SegmentSize is the size at which the log starts a new segment file.
	// A write that does not fit starts a new segment unless the current one
	// is empty, so a segment can exceed it by one write. Default 64 MiB.
	SegmentSize int64

	// MaxPendingBytes bounds the bytes of records waiting for the next group
	// commit while one is in progress; Append waits (or fails with its
	// context) when the bound is reached. Default 16 MiB.
	MaxPendingBytes int

	// NoSync skips fsync: Append returns once the records are written to the
	// operating system, which survives the process being killed but not a
	// power loss or kernel crash. For tests and benchmarks only.
	NoSync bool

	// RepairCorruption makes Open truncate the log at the first corrupt
	// record (dropping it and everything after it, including later
	// segments, and logging what was dropped) instead of failing with a
	// *CorruptError. A torn final write is always truncated, whatever this
	// says.
	RepairCorruption bool

	// FS is the file system; default OSFS. With OSFS (only) Open locks the
	// directory, on Unix, with flock on a file named LOCK.
	FS FS

	// Logger receives recovery and repair messages; nil discards them.
	Logger *slog.Logger
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.SegmentSize <= 0 {
		v.SegmentSize = 64 << 20
	}
	if v.MaxPendingBytes <= 0 {
		v.MaxPendingBytes = 16 << 20
	}
	if v.FS == nil {
		v.FS = OSFS{}
	}
	if v.Logger == nil {
		v.Logger = slog.New(slog.DiscardHandler)
	}
	return v
}

// Stats are counters of a Log since Open, and its current positions.
type Stats struct {
	Appends  uint64 // Append calls that wrote records
	Records  uint64 // records appended
	Syncs    uint64 // group commits (each one write and one fsync)
	Bytes    uint64 // bytes written to segments, framing included
	Segments int    // segment files retained now

	LastLSN     uint64 // last LSN assigned
	DurableLSN  uint64 // every LSN up to this one is durable
	ReleasedLSN uint64 // records up to this LSN are released, durably
}

// Log is a write-ahead log of records. Appends are group committed: one
// write and one fsync make the records of every Append waiting at that time
// durable. It is safe for concurrent use. One Log at a time may have a
// directory open (see ErrLocked).
type Log struct {
	dir  string
	lock *os.File // nil without a lock
	opts Options
	fs   FS
	log  *slog.Logger

	kick   chan struct{} // wakes the committer; capacity 1
	exited chan struct{} // closed when the committer returns

	mu         sync.Mutex
	next       uint64    // next LSN to assign
	pend       *batch    // frames waiting for the next commit
	inflight   *batch    // the commit in progress
	free       [2][]byte // batch buffers for reuse
	closed     bool
	err        error  // failure of the last commit; the next one repairs the segment first
	releaseReq uint64 // highest LSN Release was called with
	probe      bool   // Check asks the next commit for a marker
	marked     uint64 // highest release written in a marker
	durable    uint64
	released   uint64   // durable release
	segs       []uint64 // base LSNs of retained segments; the last is active
	// lastData is the LSN of the last record (data frame) assigned, or
	// above it after a failed commit; 0 if the log never held one.
	lastData uint64
	// freeBefore is the base of a segment started when every record was
	// released: the segments before it hold nothing that is needed.
	freeBefore uint64
	replaying  int
	stats      Stats

	// Owned by the committer (and Open before it starts).
	f     File
	fsize int64
}

// batch is one group commit: frames written together and synced once.
type batch struct {
	buf    []byte
	first  uint64 // LSN of the first frame
	n      uint32 // frames in buf
	marker uint64 // release written by a marker in this batch, or 0
	done   chan struct{}
	err    error // set before done is closed
}

func (l *Log) path(base uint64) string { return filepath.Join(l.dir, segName(base)) }

// Open opens the log in dir, creating the directory and an empty log if
// needed, and recovers it: a torn final write (from a crash during a
// commit that was therefore never acknowledged) is truncated away; other
// damage fails with a *CorruptError (errors.Is(err, ErrCorrupt)) unless
// opts.RepairCorruption is set. A nil opts gives the defaults. Call Replay
// to read the records not yet released.
func Open(dir string, opts *Options) (*Log, error) {
	l := &Log{
		dir:    dir,
		opts:   opts.withDefaults(),
		kick:   make(chan struct{}, 1),
		exited: make(chan struct{}),
	}
	l.fs, l.log = l.opts.FS, l.opts.Logger
	if err := l.fs.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("wal: cannot create directory: %w", err)
	}
	if _, ok := l.fs.(OSFS); ok {
		lock, err := lockDir(dir)
		if err != nil {
			return nil, err
		}
		l.lock = lock
	}
	if err := l.recover(); err != nil {
		if l.f != nil {
			l.f.Close()
		}
		l.unlock()
		return nil, err
	}
	go l.committer()
	return l, nil
}

// Append adds records to the log and returns the LSN of the last one once
// all of them are durable; the records of one call get consecutive LSNs.
// Concurrent calls share one fsync. Append does not keep recs.
//
// If ctx ends first, Append returns its error; the records may still become
// durable and be replayed later, so the caller must treat them as not
// acknowledged, not as discarded. If the write or fsync of its commit
// fails (a full disk), Append returns that error and so do the Appends
// waiting for the next commit: none of their records is acknowledged, and
// their LSNs are given again. The next commit first cuts the active
// segment back to its last durable end and syncs it; the log works again
// as soon as that and its own write succeed (once space is freed).
// With no records, Append waits until every record appended and every
// Release called before it is durable, and returns the last LSN assigned.
func (l *Log) Append(ctx context.Context, recs ...[]byte) (uint64, error) {
	size := 0
	for _, r := range recs {
		if len(r) > MaxRecordSize {
			return 0, fmt.Errorf("%w: %d bytes", ErrTooLarge, len(r))
		}
		size += frameHeader + len(r)
	}
	l.mu.Lock()
	for {
		if l.closed {
			l.mu.Unlock()
			return 0, ErrClosed
		}
		if len(recs) == 0 {
			if l.pend == nil && l.releaseReq > l.marked {
				l.pend = l.newBatch()
				l.wake()
			}
			lsn, w := l.next-1, l.pend
			if w == nil {
				w = l.inflight
			}
			l.mu.Unlock()
			if w != nil {
				if err := wait(ctx, w); err != nil {
					return 0, err
				}
			}
			return lsn, nil
		}
		if l.pend == nil || len(l.pend.buf) == 0 || len(l.pend.buf)+size <= l.opts.MaxPendingBytes || l.inflight == nil {
			break
		}
		// Backpressure: wait for the commit in progress to finish.
		w := l.inflight
		l.mu.Unlock()
		select {
		case <-w.done:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		l.mu.Lock()
	}
	b := l.pend
	if b == nil {
		b = l.newBatch()
		l.pend = b
	}
	for _, r := range recs {
		b.buf = appendFrame(b.buf, l.next, b.n, false, r)
		l.next++
		b.n++
	}
	lsn := l.next - 1
	l.lastData = lsn
	l.stats.Appends++
	l.stats.Records += uint64(len(recs))
	l.mu.Unlock()
	l.wake()
	if err := wait(ctx, b); err != nil {
		return 0, err
	}
	return lsn, nil
}

// newBatch returns an empty batch whose first frame gets the next LSN.
// Called with l.mu held.
func (l *Log) newBatch() *batch {
	buf := l.takeBuffer()
	return &batch{buf: buf, first: l.next, done: make(chan struct{})}
}

// takeBuffer returns the largest free batch buffer, or a new one. Called
// with l.mu held.
func (l *Log) takeBuffer() []byte {
	i := 0
	if cap(l.free[1]) > cap(l.free[0]) {
		i = 1
	}
	buf := l.free[i]
	l.free[i] = nil
	if buf == nil {
		buf = make([]byte, 0, 64<<10)
	}
	return buf[:0]
}

// putBuffer keeps a batch buffer for reuse: two are enough, one being
// filled while the other is written; the smaller one gives way. Called with
// l.mu held.
func (l *Log) putBuffer(buf []byte) {
	if cap(buf) > 4*l.opts.MaxPendingBytes {
		return
	}
	i := 0
	if cap(l.free[1]) < cap(l.free[0]) {
		i = 1
	}
	if cap(buf) > cap(l.free[i]) {
		l.free[i] = buf[:0]
	}
}

// wake wakes the committer; it never blocks.
func (l *Log) wake() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func wait(ctx context.Context, b *batch) error {
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release tells the log that every record up to lsn has been applied
// elsewhere and is no longer needed: Replay after this point (and after a
// restart, once the release is durable) starts after lsn, and segments
// whose records are all released are deleted. Release does not wait: the
// release becomes durable with the next commit, which it starts if none is
// pending. Values below an earlier release are ignored; values beyond the
// last LSN assigned are treated as the last LSN assigned.
func (l *Log) Release(lsn uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	lsn = min(lsn, l.next-1)
	if lsn <= l.releaseReq {
		return nil
	}
	l.releaseReq = lsn
	l.wake()
	return nil
}

// Check returns nil if the last commit succeeded. Otherwise it waits for a
// commit that repairs the log (see Append) and writes a release marker
// (the current release again) as a probe, and returns that commit's error:
// nil once the segment is cut back, the marker written and synced. A
// marker is a few bytes, so a nil answer does not promise room for larger
// records. A caller that refused writes while the log failed calls it to
// know when to take them again.
func (l *Log) Check(ctx context.Context) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	if l.err == nil {
		l.mu.Unlock()
		return nil
	}
	if l.pend == nil {
		l.pend = l.newBatch()
	}
	l.probe = true
	w := l.pend
	l.mu.Unlock()
	l.wake()
	return wait(ctx, w)
}

// Stats returns the log's counters and positions.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Segments = len(l.segs)
	s.LastLSN = l.next - 1
	s.DurableLSN = l.durable
	s.ReleasedLSN = l.released
	return s
}

// Close commits what is pending (including the last release), then closes
// the log. Appends waiting at the time complete; later calls return
// ErrClosed. Close returns the failure of the last commit, if it failed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	l.wake()
	<-l.exited
	err := l.f.Close()
	l.unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if err != nil {
		return fmt.Errorf("wal: cannot close segment: %w", err)
	}
	return nil
}

func (l *Log) unlock() {
	if l.lock != nil {
		l.lock.Close()
	}
}

// committer takes pending batches one at a time, writes and syncs each,
// and completes the Appends waiting on it.
func (l *Log) committer() {
	defer close(l.exited)
	for {
		l.mu.Lock()
		b := l.pend
		needMarker := l.releaseReq > l.marked || l.probe
		l.probe = false
		if b == nil && !needMarker {
			closed := l.closed
			l.mu.Unlock()
			if closed {
				return
			}
			<-l.kick
			continue
		}
		if b == nil {
			b = l.newBatch()
		}
		fresh := false
		if needMarker {
			fresh = l.startFresh(b)
			var p [8]byte
			putUint64(p[:], l.releaseReq)
			b.buf = appendFrame(b.buf, l.next, b.n, true, p[:])
			b.marker = l.releaseReq
			l.marked = l.releaseReq
			l.next++
			b.n++
		}
		l.pend, l.inflight = nil, b
		broken := l.err != nil
		l.mu.Unlock()

		var err error
		if broken {
			err = l.cutFailed()
		}
		if err == nil && fresh {
			if rerr := l.rotate(b.first); rerr != nil {
				// The released records stay until a later release.
				l.log.Warn("wal: cannot start a segment after the last release", "err", rerr)
				fresh = false
			}
		}
		if err == nil {
			err = l.commit(b)
		}

		l.mu.Lock()
		var drop []uint64
		if err != nil {
			if l.err == nil {
				l.log.Error("wal: commit failed; the next commit repairs the log first", "err", err)
			}
			l.err = err
			l.undo(b, err)
		} else {
			if broken {
				l.log.Info("wal: log repaired")
			}
			l.err = nil
			l.durable = b.first + uint64(b.n) - 1
			l.stats.Syncs++
			l.stats.Bytes += uint64(len(b.buf))
			if fresh {
				l.freeBefore = b.first
			}
			if b.marker > l.released || fresh {
				l.released = max(l.released, b.marker)
				drop = l.releasable()
			}
		}
		b.err = err
		l.inflight = nil
		l.putBuffer(b.buf)
		b.buf = nil
		l.mu.Unlock()
		// Removing before waking the batch's waiters lets a barrier Append
		// after Release see the released segments gone.
		l.remove(drop)
		close(b.done)
	}
}

// undo forgets a batch whose commit failed, and the batch filled
// meanwhile, which fail with err: their LSNs are given again and the
// release they carried is written again with the next commit. Called with
// l.mu held, b being the commit in progress.
func (l *Log) undo(b *batch, err error) {
	if p := l.pend; p != nil {
		l.pend = nil
		p.err = err
		l.putBuffer(p.buf)
		p.buf = nil
		close(p.done)
	}
	l.next = b.first
	l.lastData = min(l.lastData, b.first-1)
	l.marked = l.released
}

// startFresh reports whether the marker about to be added to batch b
// should go to a new segment: b holds no record, the marker releases
// every record, and the active segment holds one. The segments before the
// new one then hold nothing that is needed, and are deleted once the
// marker is durable, so that a log whose records are all released keeps
// a segment of a few bytes, not the records' size. Called with l.mu held.
func (l *Log) startFresh(b *batch) bool {
	return b.n == 0 && l.replaying == 0 && l.lastData > 0 &&
		l.releaseReq >= l.lastData && l.lastData >= l.segs[len(l.segs)-1]
}

// cutFailed cuts the active segment back to the end of its last durable
// commit, dropping whatever part of a failed commit reached it, and syncs
// it, so that the next commit follows durable frames only. After a failed
// fsync the kernel may have dropped the failed pages, so it is the sync
// after the truncation that makes the segment's state known again.
func (l *Log) cutFailed() error {
	if err := l.f.Truncate(l.fsize); err != nil {
		return fmt.Errorf("wal: cannot cut a failed commit off the segment: %w", err)
	}
	if !l.opts.NoSync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("wal: cannot sync the segment after a failed commit: %w", err)
		}
	}
	return nil
}

// releasable removes from l.segs and returns the segments (never the active
// one) whose records are all released. Called with l.mu held.
func (l *Log) releasable() []uint64 {
	if l.replaying > 0 {
		return nil
	}
	n := 0
	for n+1 < len(l.segs) && (l.segs[n+1]-1 <= l.released || l.segs[n+1] <= l.freeBefore) {
		n++
	}
	if n == 0 {
		return nil
	}
	drop := slices.Clone(l.segs[:n])
	l.segs = slices.Delete(l.segs, 0, n)
	return drop
}

// remove deletes segment files. A failure is logged, not fatal: the files
// are released and a later Open deletes them.
func (l *Log) remove(drop []uint64) {
	if len(drop) == 0 {
		return
	}
	for _, base := range drop {
		if err := l.fs.Remove(l.path(base)); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.log.Warn("wal: cannot remove released segment", "segment", segName(base), "err", err)
		}
	}
	if !l.opts.NoSync {
		if err := l.fs.SyncDir(l.dir); err != nil {
			l.log.Warn("wal: cannot sync directory", "err", err)
		}
	}
}

// commit writes a batch to the active segment, starting a new segment
// first if the batch does not fit, and syncs it.
func (l *Log) commit(b *batch) error {
	if l.fsize > segHeaderSize && l.fsize+int64(len(b.buf)) > l.opts.SegmentSize {
		if err := l.rotate(b.first); err != nil {
			return err
		}
	}
	if len(b.buf) > 0 {
		if _, err := l.f.Write(b.buf); err != nil {
			return fmt.Errorf("wal: cannot write segment: %w", err)
		}
	}
	if !l.opts.NoSync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("wal: cannot sync segment: %w", err)
		}
	}
	// Only now: a failed commit is cut off at the size before it.
	l.fsize += int64(len(b.buf))
	return nil
}

// rotate closes the active segment (already synced) and makes a new one
// whose first LSN is base the active one.
func (l *Log) rotate(base uint64) error {
	f, err := l.createSegment(base)
	if err != nil {
		return err
	}
	if err := l.f.Close(); err != nil {
		l.log.Warn("wal: cannot close segment", "err", err)
	}
	l.f, l.fsize = f, segHeaderSize
	l.mu.Lock()
	l.segs = append(l.segs, base)
	l.mu.Unlock()
	return nil
}

// createSegment creates a segment file holding only its header and makes
// it durable, so that a crash never leaves a segment with a torn header
// behind records.
func (l *Log) createSegment(base uint64) (File, error) {
	f, err := l.fs.OpenFile(l.path(base), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("wal: cannot create segment: %w", err)
	}
	_, err = f.Write(appendSegHeader(nil, base))
	if err == nil && !l.opts.NoSync {
		err = f.Sync()
		if err == nil {
			err = l.fs.SyncDir(l.dir)
		}
	}
	if err != nil {
		f.Close()
		// A later commit tries this name again.
		if rerr := l.fs.Remove(l.path(base)); rerr != nil {
			l.log.Warn("wal: cannot remove a segment that failed to be made", "segment", segName(base), "err", rerr)
		}
		return nil, fmt.Errorf("wal: cannot create segment %s: %w", segName(base), err)
	}
	return f, nil
}

func putUint64(b []byte, v uint64) {
	_ = b[7]
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}
