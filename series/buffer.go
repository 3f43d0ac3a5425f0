package series

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/series/internal/wal"
)

// buffer batches and coalesces the readings of Write: readings of one
// series that arrive between two flushes are written together (one chunk
// item per hour and shard for the Chunks layout; one BatchWriteItem call
// for up to 25 items of any series otherwise).
//
// With a write-ahead log, a Write appends its readings to the log and adds
// them to the open batch while holding gate for reading; a flush seals the
// open batch holding gate for writing, so that no Write is between its
// append and its add, and the sealed batch holds exactly the readings
// records up to the highest LSN it saw. The flush then appends a batch
// record naming that LSN before writing anything to the table, and
// releases the log up to it once the batch is written. A replay after a
// crash rebuilds the same batches from the batch records, so an
// interrupted flush is redone with the same items.
type buffer struct {
	s    *Store
	gate sync.RWMutex

	mu     sync.Mutex
	open   map[seriesKey]*entry
	keys   []seriesKey
	openN  int
	maxLSN uint64
	queue  []*batch
	queued int
	space  chan struct{} // closed when room is made, and when a flush ends
	kick   chan struct{}
	// flushing is set while flush runs: a Write waiting for room is
	// woken when it ends, so it wakes the flusher only when it is idle.
	flushing bool
	// perSeries is the mean number of readings of a series in the last
	// sealed batch (see add).
	perSeries int

	// flushMu is held by a flush (and by what must not run with one);
	// a flush waits for it only until its context ends.
	flushMu ctxMutex
}

// ctxMutex is a mutex whose LockContext gives up when a context ends. Its
// zero value is not usable: make it with newCtxMutex.
type ctxMutex struct{ ch chan struct{} }

func newCtxMutex() ctxMutex { return ctxMutex{ch: make(chan struct{}, 1)} }

// Lock locks m, waiting as long as it takes.
func (m ctxMutex) Lock() { m.ch <- struct{}{} }

// LockContext locks m, or returns ctx's error if ctx ends first.
func (m ctxMutex) LockContext(ctx context.Context) error {
	select {
	case m.ch <- struct{}{}:
		return nil
	default:
	}
	select {
	case m.ch <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock unlocks m, which must be locked.
func (m ctxMutex) Unlock() { <-m.ch }

type seriesKey struct {
	k  *Kind
	id string
}

// batch is a sealed set of entries, written to the table together.
type batch struct {
	entries []entry
	index   map[seriesKey]int // entry of each series
	n       int
	lsn     uint64 // highest readings LSN in the batch; 0 without a log
	marked  bool   // its batch record is durable in the log
}

// walBufs holds buffers for the log records of add, which the log copies.
var walBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledWALBuf is the largest buffer walBufs keeps.
const maxPooledWALBuf = 4 << 20

func newBuffer(s *Store) *buffer {
	return &buffer{s: s, open: map[seriesKey]*entry{}, space: make(chan struct{}), kick: make(chan struct{}, 1), flushMu: newCtxMutex()}
}

// holds reports whether the buffer holds readings of series id of kind
// k in [from, to), open or in a batch not written yet.
func (b *buffer) holds(k *Kind, id string, from, to int64) bool {
	key := seriesKey{k, id}
	in := func(recs []rec) bool {
		return slices.ContainsFunc(recs, func(r rec) bool { return r.t >= from && r.t < to })
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.open[key]; e != nil && in(e.recs) {
		return true
	}
	for _, bt := range b.queue {
		if i, ok := bt.index[key]; ok && in(bt.entries[i].recs) {
			return true
		}
	}
	return false
}

func (b *buffer) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// add buffers a copy of the readings of es (each of one series), after
// waiting for room and, with a log, for the readings to be durable: one
// Append of a record per entry, so that they share a sync. The readings
// of a series are given room for a quarter more than a series had in the
// last batch (up to 4 times what they need), so that most are allocated
// once a batch, however many Writes they come in.
func (b *buffer) add(ctx context.Context, es []entry) error {
	n := 0
	for i := range es {
		n += len(es[i].recs)
	}
	for {
		b.mu.Lock()
		used := b.openN + b.queued
		if used == 0 || used+n <= b.s.opts.MaxBuffered {
			b.mu.Unlock()
			break
		}
		ch := b.space
		flushing := b.flushing
		b.mu.Unlock()
		if !flushing {
			// A flush in progress makes room when it is done (and closes
			// space); waking the flusher now would make it seal the open
			// batch, however small, as soon as it is free.
			b.wake()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("series: write buffer full: %w", ctx.Err())
		}
	}
	b.s.ensureSeqID(ctx)
	// The readings get their sequence numbers under the gate, so that
	// those of a batch are all above those of the batches sealed before
	// it: the order of a chunk's readings among those of one instant is
	// then that of their sequence numbers (see chunkItems).
	b.gate.RLock()
	defer b.gate.RUnlock()
	current(es)
	b.number(es)
	var lsn uint64
	if l := b.s.wal; l != nil {
		var err error
		lsn, err = b.log(ctx, l, es)
		if err != nil {
			return fmt.Errorf("series: cannot log readings: %w", err)
		}
	}
	b.mu.Lock()
	for i := range es {
		x := &es[i]
		key := seriesKey{x.k, x.id}
		e := b.open[key]
		if e == nil {
			e = &entry{k: x.k, id: x.id}
			b.open[key] = e
			b.keys = append(b.keys, key)
			x.k.dir.pend(x.id)
		}
		if need := len(e.recs) + len(x.recs); need > cap(e.recs) {
			c := max(need, min(b.perSeries+b.perSeries/4, 4*need))
			if len(e.recs) > 0 {
				c = max(c, need+need/2) // grow geometrically
			}
			grown := make([]rec, len(e.recs), c)
			copy(grown, e.recs)
			e.recs = grown
		}
		from := len(e.recs)
		e.recs = append(e.recs, x.recs...)
		shareTags(e.recs[max(from, 1)-1:])
	}
	b.openN += n
	b.maxLSN = max(b.maxLSN, lsn)
	full := b.openN >= b.s.opts.FlushSize
	b.mu.Unlock()
	if full {
		b.wake()
	}
	return nil
}

// shareTags makes each reading of recs whose tags equal those of the
// reading before it hold the same slice, so that the buffer keeps one
// copy of a series' tags however many readings (of however many Writes)
// repeat them. Tags are never written in place once buffered.
func shareTags(recs []rec) {
	for i := 1; i < len(recs); i++ {
		p, r := &recs[i-1], &recs[i]
		if len(r.tags) > 0 && len(r.tags) == len(p.tags) && &r.tags[0] != &p.tags[0] && slices.Equal(r.tags, p.tags) {
			r.tags = p.tags
		}
	}
}

// log appends a readings record per entry to l, built in a pooled buffer
// (Append copies them), and returns the last one's LSN once all are
// durable.
func (b *buffer) log(ctx context.Context, l *wal.Log, es []entry) (uint64, error) {
	bp := walBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledWALBuf {
			walBufs.Put(bp)
		}
	}()
	buf := (*bp)[:0]
	if len(es) == 1 {
		buf = appendWALReadings(buf, es[0].k.s.Name, es[0].id, es[0].recs)
		*bp = buf
		return l.Append(ctx, buf)
	}
	ends := make([]int, len(es))
	for i := range es {
		buf = appendWALReadings(buf, es[i].k.s.Name, es[i].id, es[i].recs)
		ends[i] = len(buf)
	}
	*bp = buf
	recs := make([][]byte, len(es))
	for i, end := range ends {
		from := 0
		if i > 0 {
			from = ends[i-1]
		}
		recs[i] = buf[from:end:end]
	}
	return l.Append(ctx, recs...)
}

// number gives the readings of es their sequence numbers, in order.
func (b *buffer) number(es []entry) {
	for i := range es {
		seq := b.s.nextSeqs(len(es[i].recs))
		for j := range es[i].recs {
			es[i].recs[j].seq = seq + uint64(j)*seqStride
		}
	}
}

// seal moves the open batch to the queue.
func (b *buffer) seal() {
	b.gate.Lock()
	b.sealLocked()
	b.gate.Unlock()
}

// sealLocked is seal with the gate held for writing.
func (b *buffer) sealLocked() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openN == 0 {
		return
	}
	bt := &batch{n: b.openN, lsn: b.maxLSN, index: make(map[seriesKey]int, len(b.keys))}
	bt.entries = make([]entry, 0, len(b.keys))
	b.s.stats.visited(len(b.keys))
	for _, k := range b.keys {
		e := *b.open[k]
		e.recs = e.k.settle(e.recs)
		bt.index[k] = len(bt.entries)
		bt.entries = append(bt.entries, e)
	}
	b.queue = append(b.queue, bt)
	b.queued += bt.n
	b.perSeries = bt.n / len(b.keys)
	// The next batch likely holds as many series: sized for them, its
	// map does not grow (rehashing) while Writes wait for mu.
	b.open = make(map[seriesKey]*entry, len(b.keys))
	b.keys = make([]seriesKey, 0, len(b.keys))
	b.openN = 0
}

// writeSync writes the readings of es (each of one series) after the
// buffered ones, as a batch of their own, and returns once they are
// written: it seals the open batch and numbers es with the gate held, so
// that es follow every buffered reading, then flushes. The batch is not
// logged: WriteSync acknowledges only what the table has.
func (b *buffer) writeSync(ctx context.Context, es []entry) error {
	b.s.ensureSeqID(ctx)
	b.gate.Lock()
	b.sealLocked()
	current(es)
	b.number(es)
	bt := &batch{marked: true, index: map[seriesKey]int{}}
	for _, e := range es {
		key := seriesKey{e.k, e.id}
		if i, ok := bt.index[key]; ok {
			bt.entries[i].recs = append(bt.entries[i].recs, e.recs...)
		} else {
			bt.index[key] = len(bt.entries)
			bt.entries = append(bt.entries, entry{k: e.k, id: e.id, recs: slices.Clone(e.recs)})
			e.k.dir.pend(e.id)
		}
		bt.n += len(e.recs)
	}
	for i := range bt.entries {
		bt.entries[i].recs = bt.entries[i].k.settle(bt.entries[i].recs)
	}
	b.mu.Lock()
	b.queue = append(b.queue, bt)
	b.queued += bt.n
	b.mu.Unlock()
	b.gate.Unlock()
	return b.flush(ctx)
}

// flush seals the open batch and writes every queued batch, in order.
// A batch that fails stays queued (with its successors) and is retried by
// the next flush; its writes are idempotent. When ctx ends, flush stops
// at once, waiting for another flush or writing a batch: the batch
// stays queued (and, with a log, logged, for the next Open if the Store
// closes first), and flush returns an error wrapping ctx's.
func (b *buffer) flush(ctx context.Context) (err error) {
	if err := b.flushMu.LockContext(ctx); err != nil {
		return fmt.Errorf("series: waiting for the flush in progress: %w", err)
	}
	defer b.flushMu.Unlock()
	return b.flushLocked(ctx)
}

// flushLocked is flush with flushMu held.
func (b *buffer) flushLocked(ctx context.Context) (err error) {
	start := time.Now()
	wrote := false // a batch was attempted
	defer func() {
		if wrote {
			b.s.stats.flushed(time.Since(start), err)
		}
	}()
	b.mu.Lock()
	b.flushing = true
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.flushing = false
		close(b.space)
		b.space = make(chan struct{})
		b.mu.Unlock()
	}()
	b.seal()
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.mu.Unlock()
			return nil
		}
		bt := b.queue[0]
		b.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("series: flush stopped: %w", err)
		}
		wrote = true
		l := b.s.wal
		if l != nil && !bt.marked {
			if _, err := l.Append(ctx, encodeWALBatch(bt.lsn)); err != nil {
				return fmt.Errorf("series: cannot log a batch: %w", err)
			}
			bt.marked = true
		}
		// With a log, the batch's writes to an API that can defer its
		// syncs share one Sync, made before the log lets the batch go.
		// It is needed with an unsynced log too: the embedded engine
		// acknowledges a deferred write once it is in Pebble's log
		// buffer, which Pebble writes to the operating system in the
		// background, and only a sync makes sure it has.
		actx := ctx
		if l != nil && b.s.syncer != nil && bt.lsn > 0 {
			// (A WriteSync batch is not logged: its writes are synced as
			// they are made.)
			actx = timetable.WithDeferredSync(ctx)
		}
		if err := b.s.apply(actx, bt.entries); err != nil {
			return err
		}
		b.mu.Lock()
		b.queue = b.queue[1:]
		b.queued -= bt.n
		close(b.space)
		b.space = make(chan struct{})
		b.mu.Unlock()
		b.s.recordWritten(bt.entries)
		if l != nil && bt.lsn > 0 {
			if b.s.syncer != nil {
				if err := b.s.syncer.Sync(ctx); err != nil {
					return fmt.Errorf("series: cannot sync the table: %w", err)
				}
			}
			if err := l.Release(b.releasable(l, bt.lsn)); err != nil {
				return fmt.Errorf("series: cannot release the write-ahead log: %w", err)
			}
		}
	}
}

// releasable returns how far the log l can be released once the batch
// of readings up to lsn is written: to lsn, or, when no reading is
// buffered any more, to its last record, so that the batch records
// logged after lsn are released too and the log can drop everything (see
// wal.Log.Release). The gate held for writing makes sure no Write is
// between its log record and its add. The caller holds flushMu, so no
// batch record is being logged.
func (b *buffer) releasable(l *wal.Log, lsn uint64) uint64 {
	b.mu.Lock()
	idle := b.openN == 0 && len(b.queue) == 0
	b.mu.Unlock()
	if !idle {
		return lsn
	}
	b.gate.Lock()
	defer b.gate.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openN > 0 || len(b.queue) > 0 {
		return lsn
	}
	return max(lsn, l.Stats().LastLSN)
}

// replay queues the batches of readings the log holds: those a crash left
// unflushed (and those whose release was not durable yet, written again).
func (b *buffer) replay(ctx context.Context) error {
	type logged struct {
		lsn uint64
		e   entry
	}
	var pending []logged
	sealUpTo := func(lsn uint64, marked bool) {
		byKey := map[seriesKey]int{}
		bt := &batch{lsn: lsn, marked: marked, index: byKey}
		rest := pending[:0]
		for _, p := range pending {
			if p.lsn > lsn {
				rest = append(rest, p)
				continue
			}
			key := seriesKey{p.e.k, p.e.id}
			i, ok := byKey[key]
			if !ok {
				i = len(bt.entries)
				byKey[key] = i
				bt.entries = append(bt.entries, entry{k: p.e.k, id: p.e.id})
				p.e.k.dir.pend(p.e.id)
			}
			bt.entries[i].recs = append(bt.entries[i].recs, p.e.recs...)
			bt.n += len(p.e.recs)
		}
		for i := range bt.entries {
			bt.entries[i].recs = bt.entries[i].k.settle(bt.entries[i].recs)
		}
		pending = rest
		if bt.n > 0 {
			b.queue = append(b.queue, bt)
			b.queued += bt.n
		}
	}
	err := b.s.wal.Replay(func(lsn uint64, raw []byte) error {
		r, err := decodeWAL(raw)
		if err != nil {
			return fmt.Errorf("series: write-ahead log record %d: %w", lsn, err)
		}
		if r.typ == walBatch {
			sealUpTo(r.lsn, true)
			return nil
		}
		k := b.s.lookup(r.kind)
		if k == nil {
			return fmt.Errorf("%w: %q in write-ahead log record %d (register its schema to replay it)", ErrUnknownKind, r.kind, lsn)
		}
		for i := range r.recs {
			b.s.seenSeq(r.recs[i].seq)
		}
		if !k.widen(r.recs) {
			return fmt.Errorf("series: write-ahead log record %d does not fit kind %s's schema", lsn, k.s.Name)
		}
		pending = append(pending, logged{lsn: lsn, e: entry{k: k, id: r.id, recs: r.recs}})
		return nil
	})
	if err != nil {
		return fmt.Errorf("series: cannot replay the write-ahead log: %w", err)
	}
	if len(pending) > 0 {
		sealUpTo(pending[len(pending)-1].lsn, false)
	}
	return nil
}

// current moves the entries of es whose kind was changed (see
// Store.Change) to the changed kind, widening their readings; the caller
// holds the gate, so that a change is not under way.
func current(es []entry) {
	for i := range es {
		if k := es[i].k.current(); k != es[i].k {
			es[i].k = k
			k.widen(es[i].recs)
		}
	}
}

// rekey makes the buffered readings of kind old those of nw, a change of
// its schema, widening them; the caller holds flushMu, the gate for
// writing and mu.
func (b *buffer) rekey(old, nw *Kind) {
	move := func(key seriesKey) seriesKey {
		if key.k == old {
			key.k = nw
		}
		return key
	}
	open := make(map[seriesKey]*entry, len(b.open))
	for i, key := range b.keys {
		e := b.open[key]
		if key.k == old {
			e.k = nw
			nw.widen(e.recs)
		}
		b.keys[i] = move(key)
		open[b.keys[i]] = e
	}
	b.open = open
	for _, bt := range b.queue {
		index := make(map[seriesKey]int, len(bt.index))
		for key, i := range bt.index {
			index[move(key)] = i
		}
		bt.index = index
		for i := range bt.entries {
			if e := &bt.entries[i]; e.k == old {
				e.k = nw
				nw.widen(e.recs)
			}
		}
	}
}

// pending returns a copy of the readings of series id of kind k that
// are buffered (not yet known to be written), in order.
func (b *buffer) pending(k *Kind, id string) []rec {
	key := seriesKey{k, id}
	b.mu.Lock()
	var out []rec
	batches := 0
	for _, bt := range b.queue {
		if i, ok := bt.index[key]; ok {
			out = append(out, bt.entries[i].recs...)
			batches++
		}
	}
	if e := b.open[key]; e != nil {
		out = append(out, e.recs...)
		batches++
	}
	b.mu.Unlock()
	if batches > 0 && !slices.IsSortedFunc(out, cmpRec) {
		slices.SortFunc(out, cmpRec)
	}
	return out
}

// latest returns the newest buffered reading of series id of kind k, as
// Kind.newer orders them.
func (b *buffer) latest(k *Kind, id string) (rec, bool) {
	rs := b.pending(k, id)
	if len(rs) == 0 {
		return rec{}, false
	}
	r := rs[len(rs)-1]
	if k.s.Duplicates == RejectDifferent {
		// The first written of the newest instant.
		for i := len(rs) - 2; i >= 0 && rs[i].t == r.t; i-- {
			r = rs[i]
		}
	}
	return r, true
}
