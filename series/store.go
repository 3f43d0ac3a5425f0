package series

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/series/internal/wal"
	"github.com/timetable-db/timetable/table"
)

// DefaultTable is the table name a Store uses when Options.Table is empty.
const DefaultTable = "timetable"

// DefaultMaxFuture is the default of Options.MaxFuture: an hour covers the
// drift of a device's clock that is not kept in time, not a reading
// stamped in another time zone or a wrong year.
const DefaultMaxFuture = time.Hour

// Options configure a Store. A nil *Options and the zero value are valid;
// each field documents its default.
type Options struct {
	// Table is the name of the table; default DefaultTable. Its partition
	// key is "pk" and its sort key "sk", both strings.
	Table string
	// TableOptions configure the table client (retries, backoff).
	TableOptions *table.Options

	// WALDir, if set, makes buffered writes durable: Write returns once
	// its readings are synced to a write-ahead log in this directory, and
	// Open replays what a crash left unflushed. Without it, Write returns
	// once the readings are in memory, and a crash loses those not yet
	// flushed (use WriteSync or Flush where that matters). A flush lets
	// the log drop its readings once the API has acknowledged their
	// writes, after a Sync if the API is a timetable.Syncer: an API that
	// acknowledges writes it may lose otherwise (such as a local.DB
	// wrapped so that its Sync is hidden, opened with NoSync) loses
	// readings in a crash.
	WALDir string
	// WALNoSync skips the log's fsync: Write returns once its readings are
	// written to the operating system, which survives the process being
	// killed (Prometheus' durability) but not a power loss. Flushes still
	// sync an API that is a timetable.Syncer (the embedded engine) once
	// each before the log lets their readings go.
	WALNoSync bool
	// walFS, set by this package's tests, is the log's file system, to
	// inject faults; nil is the operating system's.
	walFS wal.FS

	// FlushInterval is the period at which buffered readings are written to
	// the table; default 5 minutes. Longer intervals make fewer, larger
	// chunk items: a 1 Hz series flushed every 5 minutes costs about 0.012
	// write units per reading, compaction included (flushed every minute,
	// about 0.034, plus 0.018 for compaction: 0.052, over a target of
	// 0.05), and some 20-40 read units per day read until
	// compaction merges each hour (then 5-10 read units); flushed every hour, about 0.002 write
	// units per reading and 5-10 read units per day without compaction
	// (Schema.NoCompaction). The Store's own reads see buffered readings,
	// and WALDir makes them durable, so a long interval costs only the
	// visibility of readings to other processes. A negative value turns
	// the timer off: readings are flushed by size, Flush and Close only.
	FlushInterval time.Duration
	// FlushSize flushes as soon as this many readings are buffered;
	// default 500,000. A flush writes, for each series it holds, a chunk
	// item per hour, the latest-reading item and, for periods that ended
	// LateWindow/2 ago or more, their markers twice: some 2 to 6 items
	// whatever the series' readings, so larger flushes make fewer writes
	// for many series at a high rate (a Prometheus remote-write load of
	// 11,000 series makes half as many as with 200,000).
	FlushSize int
	// MaxBuffered is the number of buffered (unflushed) readings at which
	// Write blocks until a flush makes room (backpressure); default
	// 2 * FlushSize (1,000,000 readings by default, some 100 to 130 MB:
	// a buffered reading of three fields, or of one field and four tags,
	// takes 100 to 130 bytes, the tags of a series' readings kept once).
	MaxBuffered int
	// FlushConcurrency bounds the concurrent requests of a flush, and of
	// scatter-gather reads over shards; default 8. A flush's conditional
	// puts of latest readings, one small item each, run 4 times as many
	// at once.
	FlushConcurrency int

	// LateWindow is how long after a period ends its rollup waits for late
	// readings before it is first computed; default 5 minutes. Readings
	// arriving later still update the rollups (the period is recomputed),
	// at the price of another computation.
	LateWindow time.Duration
	// RollupInterval is the period of the background rollup pass; default
	// 1 minute. A negative value turns it off (call Rollup).
	RollupInterval time.Duration

	// CompactInterval is the period of the background compaction pass,
	// which merges the small chunk items of each series and hour into one
	// (see Store.Compact); default 1 minute. With it on, a flush that
	// writes readings of closed days also starts a pass over those days.
	// A negative value turns both off (call Compact).
	CompactInterval time.Duration
	// CompactGrace is how long the chunk items a compaction merged stay
	// after the merged item is written, before a later pass deletes them;
	// default 10 minutes. Reads see each reading exactly once whether
	// they find the merged item, its sources or both, but a read that
	// took longer than CompactGrace between two pages of one hour (which
	// reads guard against by reading such an hour again), or a replica
	// lagging by as much, could miss readings; it must also exceed the
	// clock difference between processes that compact one table.
	CompactGrace time.Duration
	// CompactAtClose makes Shutdown, once every buffered reading is
	// written, run a last compaction pass that merges the periods due and
	// deletes the chunk items that merged chunks replace at once, without
	// waiting CompactGrace (those of the merges the Store made while it
	// ran included): the table is then left in its compact form (but for
	// the compaction markers of the days merged before, a small item each,
	// which the next passes delete).
	// The pass stops when Shutdown's context ends, or once it has taken
	// half the time the context had left when the pass began, so that the
	// caller has the other half for what follows (compacting the
	// engine's files): what it leaves, the next passes do. Set it only
	// when nothing reads the table once the Store closes (an embedded data folder that only this process opens,
	// the readers it serves stopped first): a read in progress could miss
	// the readings of an item deleted between two of its pages.
	CompactAtClose bool
	// SourceExpiry, when positive, makes the flush chunks that compaction
	// merges expire by the table's time to live instead of being deleted
	// one by one (a delete costs a write unit on DynamoDB, an expiry
	// none): each flush chunk is written with an expiry of the end of its
	// day (or its write, if later) plus LateWindow, CompactGrace and
	// SourceExpiry (or its retention's, if sooner), and a merge leaves
	// its flush chunks in place; readers take a merged chunk and its
	// sources as one, at any age. The risk: the readings of a flush chunk
	// that no compaction pass merged before it expires (no Store ran the
	// passes for SourceExpiry) are lost; a pass takes first the periods
	// that ended more than SourceExpiry/2 ago, and logs a warning (and
	// counts Stats.SourcesNearExpiry) when it merges flush chunks within
	// SourceExpiry/2 of their expiry. Reads of a day also read its
	// sources until they expire (more read units on DynamoDB). 0, the
	// default, deletes merged sources by key. It needs the table's time
	// to live on (EnsureTable turns it on when it creates the table).
	SourceExpiry time.Duration

	// LeaseOwner names this Store in the leases it takes in the table
	// (see fleet.go): the background rollup and compaction passes of each
	// kind, and its sequence-number id. Default table.NewOwner("series"),
	// unique to the Store; two Stores must never share one.
	LeaseOwner string
	// RefreshInterval is the period at which the Store reads the stored
	// schemas again and applies the kinds that other Stores of the table
	// defined or changed, as Open does; default 10 seconds. A negative
	// value turns it off. A write or Store.Kind naming a kind the Store
	// does not know reads them at once (at most once a second).
	RefreshInterval time.Duration

	// MaxFuture bounds how far ahead of Now a reading's time may be:
	// Write, WriteMany, WriteSync and WriteKinds refuse a reading later
	// than Now + MaxFuture with ErrInvalidReading, naming the bound.
	// Default DefaultMaxFuture; a negative value sets no bound (for kinds
	// that hold forecasts or schedules). A reading far in the future would
	// otherwise stay the series' Latest and hide the real readings that
	// follow it.
	MaxFuture time.Duration

	// Now returns the current time, for retention, rollups and tests.
	// Default time.Now.
	Now func() time.Time
	// Logger receives background errors (flush and rollup failures,
	// retried); nil discards them.
	Logger *slog.Logger
}

// Store is a time-series store over one table. Each registered Schema is a
// Kind of series: those given to Open and those stored in the table
// (Define, Change). A Store is safe for concurrent use.
type Store struct {
	tbl  *table.Table
	opts Options
	now  func() time.Time
	log  *slog.Logger

	kinds    atomic.Pointer[kindSet]
	defineMu sync.Mutex // one Define or Change at a time

	// tableMissing is set while the table is known not to exist (see
	// tablewatch.go).
	tableMissing atomic.Bool
	stats        storeStats

	// seq is the next sequence number (see nextSeqs); seqID is this
	// Store's id among those that share the table, the low bits of its
	// numbers (see fleet.go).
	seq   atomic.Uint64
	seqID atomic.Uint64
	fleet fleetState
	// seqMark is the table's sequence mark as this Store last wrote or
	// read it (see seqmark.go).
	seqMark atomic.Uint64

	buf *buffer
	wal *wal.Log
	// syncer, with a log, is the API when it can defer its syncs: the
	// log holds a flush's readings until the flush is written, so the
	// flush's writes need not be synced one by one (see buffer.flush).
	syncer timetable.Syncer
	mark   markCache
	// pieces holds the recent day-piece lookups that found none.
	pieces pieceCache
	// written holds the closed days flushes wrote, for the next pass of
	// written days; left, the sources merges left (see compactdue.go).
	written *writtenDays
	left    leftSources
	// expiring records what compaction found near its expiry unmerged
	// (Options.SourceExpiry).
	expiring nearExpiry

	compactMu sync.Mutex // one compaction pass (or Kind.Compact, Kind.Delete) at a time
	rollupMu  sync.Mutex // one rollup pass (or Kind.Delete) at a time

	projMu   sync.Mutex
	projDone bool
	proj     *types.Projection // the metric index's, from DescribeTable

	// latestOwnSeq, a test hook, orders the latest-reading items this
	// Store's flushes write by their readings' own sequence numbers, not
	// their ranks: the order before ranks (see ranked), which a test
	// plants to prove it checks Latest against Range.
	latestOwnSeq bool

	closeOnce sync.Once
	closed    atomic.Bool
	stop      chan struct{}
	// bgCtx is the context of the background flushes, cancelled when
	// the context of Shutdown ends before they do.
	bgCtx    context.Context
	cancelBG context.CancelFunc
	bg       sync.WaitGroup
	closeErr error
}

// Open returns a Store over api, with one Kind per schema given and one
// per schema stored in the table (by Define and Change). A schema given
// that differs from the stored one of its name by changes Change allows
// is applied (and stored); one that differs otherwise makes Open fail
// with ErrSchemaChange. With Options.WALDir it opens the write-ahead log
// there and queues the readings a crash left unflushed, with the kinds'
// schemas as they are now; they are written to the table by the next
// flush. Open needs no table: on a missing one it has no stored schemas,
// and writes fail with ErrTableNotFound until EnsureTable creates it. The
// caller closes the Store.
func Open(ctx context.Context, api timetable.API, o *Options, schemas ...Schema) (*Store, error) {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Table == "" {
		opts.Table = DefaultTable
	}
	if opts.FlushInterval == 0 {
		opts.FlushInterval = 5 * time.Minute
	}
	if opts.FlushSize <= 0 {
		opts.FlushSize = 500_000
	}
	if opts.MaxBuffered <= 0 {
		opts.MaxBuffered = 2 * opts.FlushSize
	}
	if opts.FlushConcurrency <= 0 {
		opts.FlushConcurrency = 8
	}
	if opts.LateWindow <= 0 {
		opts.LateWindow = 5 * time.Minute
	}
	if opts.RollupInterval == 0 {
		opts.RollupInterval = time.Minute
	}
	if opts.CompactInterval == 0 {
		opts.CompactInterval = time.Minute
	}
	if opts.CompactGrace <= 0 {
		opts.CompactGrace = 10 * time.Minute
	}
	if opts.MaxFuture == 0 {
		opts.MaxFuture = DefaultMaxFuture
	}
	if opts.LeaseOwner == "" {
		opts.LeaseOwner = table.NewOwner("series")
	}
	if opts.RefreshInterval == 0 {
		opts.RefreshInterval = DefaultRefreshInterval
	}
	s := &Store{opts: opts, now: opts.Now, log: opts.Logger, stop: make(chan struct{}), written: newWrittenDays()}
	s.mark.stats = &s.stats
	s.bgCtx, s.cancelBG = context.WithCancel(context.Background())
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	given, err := normalizeAll(schemas)
	if err != nil {
		return nil, err
	}
	if api == nil {
		return nil, errors.New("series: Open needs an API")
	}
	// The table client always knows the metric index, which a kind
	// defined later may need; EnsureTable creates it only for kinds that
	// ask for it.
	ts := table.Schema{Name: opts.Table, HashKey: attrPK, RangeKey: attrSK,
		Indexes: []table.Index{{Name: metricIndex, HashKey: attrMPK, RangeKey: attrMSK}}}
	tbl, err := table.New(api, ts, s.tableOptions(opts.TableOptions))
	if err != nil {
		return nil, err
	}
	s.tbl = tbl
	changed, err := s.openKinds(ctx, given)
	if err != nil {
		return nil, err
	}
	for _, sc := range changed {
		if err := s.putSchema(ctx, sc, table.Cond{}); err != nil {
			return nil, err
		}
	}
	if err := s.loadSeqMark(ctx); err != nil {
		return nil, err
	}
	if err := s.claimSeqID(ctx); err != nil {
		return nil, err
	}
	s.buf = newBuffer(s)
	if opts.WALDir != "" {
		l, err := wal.Open(opts.WALDir, &wal.Options{NoSync: opts.WALNoSync, Logger: opts.Logger, FS: opts.walFS})
		if err != nil {
			return nil, fmt.Errorf("series: cannot open the write-ahead log: %w", err)
		}
		s.wal = l
		s.syncer, _ = api.(timetable.Syncer)
		if err := s.buf.replay(ctx); err != nil {
			l.Close()
			return nil, err
		}
	}
	if !s.tableMissing.Load() {
		s.readyIndexes(ctx)
	}
	s.startBackground()
	return s, nil
}

// Table returns the table client, for its Stats of consumed units.
func (s *Store) Table() *table.Table { return s.tbl }

// Flush writes every buffered reading to the table and returns when they
// are written (and, with a write-ahead log, released from it).
func (s *Store) Flush(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return s.buf.flush(ctx)
}

// Close flushes the buffer, stops the background flush and rollup passes
// and closes the write-ahead log. Readings it cannot flush stay in the log
// (with Options.WALDir) for the next Open; without a log they are lost and
// Close returns the error. Calls after Close return ErrClosed. Close
// waits for the flush however long it takes: Shutdown bounds the wait.
func (s *Store) Close() error { return s.Shutdown(context.Background()) }

// Shutdown is Close with its wait bounded by ctx: when ctx ends, the
// flush in progress (a background one, or Shutdown's own) stops between
// two calls to the table and Shutdown returns at once, with an error
// wrapping ctx's. With Options.WALDir nothing acknowledged is lost: the
// readings not written stay in the log, and the next Open queues them
// again (the writes a stopped flush made are idempotent); without a log
// they are lost. Only the first call of Close or Shutdown closes the
// Store; later ones wait for it and return its error.
func (s *Store) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		stopBG := context.AfterFunc(ctx, s.cancelBG)
		close(s.stop)
		s.bg.Wait()
		stopBG()
		s.cancelBG()
		err := s.buf.flush(ctx)
		if err == nil && s.opts.CompactAtClose {
			cctx, cancel := halfTimeLeft(ctx)
			s.compactAtClose(cctx)
			cancel()
		}
		s.releaseLeases(ctx, err == nil)
		if s.wal != nil {
			err = errors.Join(err, s.wal.Close())
		}
		s.closeErr = err
	})
	return s.closeErr
}

// halfTimeLeft returns a context that ends with ctx, or once half the
// time ctx has left has passed if ctx has a deadline.
func halfTimeLeft(ctx context.Context) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, time.Until(d)/2)
}

// startBackground starts the flush timer, the rollup and compaction
// passes (each kind's under its lease), the schema refresh and the
// renewal of the sequence-number id.
func (s *Store) startBackground() {
	s.bg.Add(6)
	go s.every(s.opts.RollupInterval, "rollup", s.leasedRollup, nil, nil)
	go s.every(s.opts.RollupInterval, "label index", s.leasedIndex, nil, nil)
	go s.every(s.opts.CompactInterval, "compaction", s.leasedCompact, s.written.kick, s.leasedCompactWritten)
	go s.every(s.opts.RefreshInterval, "schema refresh", s.refreshKinds, nil, nil)
	go s.every(seqIDRenew, "sequence id renewal", s.renewSeqID, nil, nil)
	go func() {
		defer s.bg.Done()
		var tick <-chan time.Time
		if s.opts.FlushInterval > 0 {
			t := time.NewTicker(s.opts.FlushInterval)
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-s.stop:
				return
			case <-tick:
			case <-s.buf.kick:
			}
			if err := s.buf.flush(s.bgCtx); err != nil {
				if s.bgCtx.Err() != nil {
					return // stopped by Shutdown
				}
				s.log.Warn("series: flush failed; the readings stay buffered and are retried", "err", err)
				select {
				case <-s.stop:
					return
				case <-time.After(time.Second):
				}
			}
		}
	}()
}

// every runs pass every interval (none if negative) until the Store
// closes, logging its errors, and kicked (with interval not negative)
// each time kick receives.
func (s *Store) every(interval time.Duration, what string, pass func(context.Context) error, kick <-chan struct{}, kicked func(context.Context) error) {
	defer s.bg.Done()
	if interval < 0 {
		return
	}
	// A pass in progress stops when the Store closes.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-s.stop
		cancel()
	}()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		run := pass
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-kick:
			run = kicked
		}
		if err := run(ctx); err != nil && !errors.Is(err, ErrClosed) && ctx.Err() == nil {
			s.log.Warn("series: "+what+" pass failed; it is retried", "err", err)
		}
	}
}

// Sequence numbers order the readings of a series that share an instant,
// in write order, and name the items of readings and chunks. They follow
// the clock: a number is at least the clock's milliseconds shifted left by
// seqClockShift, its low seqIDBits bits are the Store's id (seqID, held
// under a lease in the table while the Store runs: see fleet.go), and it
// is above every number the Store gave before (a replayed log's included)
// and every number of a reading in the table when it opened (its sequence
// mark). So they increase across the calls, flushes and restarts of one
// Store (as long as its clock does not go back by more than it ran
// ahead), two Stores writing at once get numbers ordered by their clocks,
// and never the same number: their ids differ. A Store's consecutive
// numbers are seqStride apart; they run ahead of the clock only past
// 2^(seqClockShift-seqIDBits) readings a millisecond (2,048), and after a
// restart within a second of the last write (the table's sequence mark,
// seqmark.go, keeps a restarted Store's numbers above those its
// predecessors wrote).
//
// Numbers written before ids (a random 20-bit salt in the low bits and
// consecutive numbers) keep their meaning: a number is only compared
// with others, and new ones are above them.
const (
	seqClockShift = 21
	seqIDBits     = 10
	seqStride     = 1 << seqIDBits
)

// alignSeq returns the smallest number at least x whose low bits are id.
func alignSeq(x, id uint64) uint64 {
	y := x&^(seqStride-1) | id
	if y < x {
		y += seqStride
	}
	return y
}

// nextSeqs reserves n sequence numbers and returns the first; the i-th is
// first + i*seqStride.
func (s *Store) nextSeqs(n int) uint64 {
	id := s.seqID.Load()
	floor := uint64(max(timeMs(s.now()), 0)) << seqClockShift
	for {
		old := s.seq.Load()
		start := alignSeq(max(old, floor), id)
		if s.seq.CompareAndSwap(old, start+uint64(n)*seqStride) {
			return start
		}
	}
}

// seenSeq makes the next sequence numbers larger than seq (a replayed
// reading's).
func (s *Store) seenSeq(seq uint64) {
	for {
		old := s.seq.Load()
		if old > seq || s.seq.CompareAndSwap(old, seq+1) {
			return
		}
	}
}
