package series

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series/internal/chunk"
	"github.com/timetable-db/timetable/table"
)

// Kind is one kind of series, described by its Schema, in a Store. It is
// safe for concurrent use.
type Kind struct {
	st *Store
	s  Schema

	apps sync.Pool // *chunk.Appender of the kind's fields, reset
}

// Name returns the kind's name, the entity prefix of its keys.
func (k *Kind) Name() string { return k.s.Name }

// Schema returns the kind's schema with its defaults filled in; the slices
// are the caller's.
func (k *Kind) Schema() Schema {
	s := k.s
	s.Fields = slices.Clone(s.Fields)
	s.Tags = slices.Clone(s.Tags)
	s.Rollups = slices.Clone(s.Rollups)
	return s
}

// rec is a reading as the store handles it: milliseconds, a sequence
// number unique in the kind, values padded to the schema's fields.
type rec struct {
	t    int64
	seq  uint64
	vals []float64
	tags []string
}

func (r *rec) reading() Reading {
	return Reading{Time: msTime(r.t), Values: r.vals, Tags: r.tags}
}

func cmpRec(a, b rec) int {
	switch {
	case a.t < b.t:
		return -1
	case a.t > b.t:
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// prepare checks readings of series id and converts them; the buffer
// gives them their sequence numbers.
func (k *Kind) prepare(id string, rs []Reading) ([]rec, error) {
	return k.appendPrepared(nil, id, rs)
}

// appendPrepared appends the readings prepare would return to dst and
// returns the extended slice.
func (k *Kind) appendPrepared(dst []rec, id string, rs []Reading) ([]rec, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	now := timeMs(k.st.now())
	dst = slices.Grow(dst, len(rs))
	out := dst[len(dst) : len(dst)+len(rs)]
	nf, nt := len(k.s.Fields), len(k.s.Tags)
	vals := make([]float64, len(rs)*nf)
	for i, r := range rs {
		t := timeMs(r.Time)
		if t < minMs || t >= maxMs {
			return nil, fmt.Errorf("%w: time %v outside the years 0000-9999", ErrInvalidReading, r.Time)
		}
		if len(r.Values) > nf || len(r.Tags) > nt {
			return nil, fmt.Errorf("%w: %d values and %d tags, kind %s has %d fields and %d tags",
				ErrInvalidReading, len(r.Values), len(r.Tags), k.s.Name, nf, nt)
		}
		if k.s.Retention.Raw != Forever && t+k.s.Retention.Raw.Milliseconds() <= now {
			return nil, fmt.Errorf("%w: %s, kind %s keeps %v", ErrExpired, ts(t), k.s.Name, k.s.Retention.Raw)
		}
		v := vals[i*nf : (i+1)*nf : (i+1)*nf]
		n := copy(v, r.Values)
		for j := range n {
			if v[j] == 0 {
				v[j] = 0 // -0 is stored as 0: DynamoDB's numbers have no sign of zero
			}
		}
		for j := n; j < nf; j++ {
			v[j] = math.NaN()
		}
		var tags []string
		if nt > 0 {
			tags = make([]string, nt)
			copy(tags, r.Tags)
			size := 0
			for j, g := range tags {
				if !utf8.ValidString(g) {
					return nil, fmt.Errorf("%w: tag %q is not UTF-8", ErrInvalidReading, g)
				}
				size += len(k.s.Tags[j]) + len(g)
			}
			if size > maxReadingTagBytes {
				return nil, fmt.Errorf("%w: %d bytes of tags, at most %d", ErrInvalidReading, size, maxReadingTagBytes)
			}
		}
		// Field by field: a struct copy would pay for its pointers'
		// write barriers as a whole.
		o := &out[i]
		o.t, o.seq, o.vals, o.tags = t, 0, v, tags
	}
	return dst[:len(dst)+len(rs)], nil
}

// settle puts readings of one series (of one batch) in order, by time
// then sequence number, and applies the kind's duplicate rule to those of
// one instant: LastWins keeps the last written, RejectDifferent the first,
// KeepAll every one. It returns the readings kept, in recs' array.
func (k *Kind) settle(recs []rec) []rec {
	if !slices.IsSortedFunc(recs, cmpRec) {
		slices.SortFunc(recs, cmpRec)
	}
	if k.s.Duplicates == KeepAll {
		return recs
	}
	out := recs[:0]
	for i := range recs {
		if len(out) > 0 && out[len(out)-1].t == recs[i].t {
			if k.s.Duplicates == LastWins {
				out[len(out)-1] = recs[i]
			}
			continue
		}
		out = append(out, recs[i])
	}
	clear(recs[len(out):])
	return out
}

// Write adds readings to series id through the write buffer, which batches
// and coalesces them into few, large writes (Options.FlushInterval and
// FlushSize). With Options.WALDir, Write returns once the readings are
// durable in the write-ahead log: no acknowledged reading is lost if the
// process dies. Without it they are only in memory until flushed.
// Range, Iter, All, Latest, LatestMany and Aggregate of this Store see
// buffered readings at once; Rollups, MetricRange and other processes see
// them once flushed (and rolled up). Write blocks while Options.MaxBuffered readings
// wait to be flushed, until ctx ends.
//
// Write checks every reading first and writes none if one is invalid
// (ErrInvalidReading, ErrInvalidID, ErrExpired).
func (k *Kind) Write(ctx context.Context, id string, rs ...Reading) error {
	if k.st.closed.Load() {
		return ErrClosed
	}
	if len(rs) == 0 {
		return nil
	}
	sp := getScratch()
	defer putScratch(sp)
	recs, err := k.appendPrepared((*sp)[:0], id, rs)
	if err != nil {
		return err
	}
	*sp = recs
	es, err := k.admit(ctx, []entry{{k: k, id: id, recs: recs}})
	if err != nil || len(es) == 0 {
		return err
	}
	return k.st.buf.add(ctx, es)
}

// scratch holds the readings of Write and WriteMany until the buffer has
// copied them.
var scratch = sync.Pool{New: func() any { return new([]rec) }}

// maxPooledScratch is the most readings of a scratch slice kept.
const maxPooledScratch = 1 << 16

func getScratch() *[]rec { return scratch.Get().(*[]rec) }

// putScratch returns sp's slice to the pool, cleared (up to its capacity:
// a Write that failed may have filled more) so that it keeps no values
// alive.
func putScratch(sp *[]rec) {
	if cap(*sp) > maxPooledScratch {
		return
	}
	*sp = (*sp)[:0]
	clear((*sp)[:cap(*sp)])
	scratch.Put(sp)
}

// WriteMany adds the readings of several series, as Write does for each
// of them, in one call, as an ingest endpoint receiving the readings of
// many series in one request would: with Options.WALDir it returns once
// all of them are durable, and they share the log's sync. A series may
// appear more than once. WriteMany checks every reading of every series
// first and writes none if one is invalid; the error names the series.
func (k *Kind) WriteMany(ctx context.Context, batch []SeriesReadings) error {
	if k.st.closed.Load() {
		return ErrClosed
	}
	sp := getScratch()
	defer putScratch(sp)
	all := (*sp)[:0]
	es := make([]entry, 0, len(batch))
	for _, sr := range batch {
		if len(sr.Readings) == 0 {
			continue
		}
		from := len(all)
		var err error
		if all, err = k.appendPrepared(all, sr.ID, sr.Readings); err != nil {
			*sp = all
			return fmt.Errorf("series %q: %w", sr.ID, err)
		}
		es = append(es, entry{k: k, id: sr.ID, recs: all[from:len(all):len(all)]})
	}
	*sp = all
	es, err := k.admit(ctx, es)
	if err != nil || len(es) == 0 {
		return err
	}
	return k.st.buf.add(ctx, es)
}

// WriteSync writes readings to series id and returns once the table has
// them (raw items, latest reading and rollup markers). It flushes the
// write buffer first, so that readings keep their write order (and their
// duplicate rule) whichever way they were written: with the Chunks layout
// each call writes new chunk items for its series and for every series
// with buffered readings, so batch readings into few calls, or use Write.
// If it fails, its readings stay buffered and later flushes retry them.
func (k *Kind) WriteSync(ctx context.Context, id string, rs ...Reading) error {
	if k.st.closed.Load() {
		return ErrClosed
	}
	if len(rs) == 0 {
		return nil
	}
	recs, err := k.prepare(id, rs)
	if err != nil {
		return err
	}
	es, err := k.admit(ctx, []entry{{k: k, id: id, recs: recs}})
	if err != nil || len(es) == 0 {
		return err
	}
	return k.st.buf.writeSync(ctx, es)
}

// admit applies the RejectDifferent rule to the readings of es, for a
// kind that has it: a reading at an instant its series already holds (in
// the table, the buffer, or earlier in the call) is left out if it has
// the same values and tags, and makes the call fail with ErrConflict
// otherwise. It reads the readings the series holds from the call's
// first instant to its last, once per series. It returns es less the
// readings left out (in place), and none if one conflicts. Two calls
// racing to write different readings at one instant may both be
// accepted; reads then keep the first written.
func (k *Kind) admit(ctx context.Context, es []entry) ([]entry, error) {
	if k.s.Duplicates != RejectDifferent {
		return es, nil
	}
	held := map[string]map[int64]rec{}
	for _, e := range es {
		if held[e.id] != nil || len(e.recs) == 0 {
			continue
		}
		lo, hi := int64(maxMs), int64(minMs)
		for _, x := range es {
			if x.id == e.id {
				for i := range x.recs {
					lo, hi = min(lo, x.recs[i].t), max(hi, x.recs[i].t)
				}
			}
		}
		m := map[int64]rec{}
		it := k.Iter(ctx, e.id, Query{From: msTime(lo), To: msTime(hi + 1)})
		for it.Next() {
			m[it.cur.t[it.ci]] = it.cur.rec(it.ci)
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("series: cannot read the readings %s holds: %w", k.entity(e.id), err)
		}
		held[e.id] = m
	}
	out := es[:0]
	for _, e := range es {
		m := held[e.id]
		kept := e.recs[:0]
		for _, r := range e.recs {
			if h, ok := m[r.t]; ok {
				if !sameRec(h, r) {
					return nil, fmt.Errorf("%w: %s at %s", ErrConflict, k.entity(e.id), ts(r.t))
				}
				continue
			}
			m[r.t] = r
			kept = append(kept, r)
		}
		if len(kept) > 0 {
			e.recs = kept
			out = append(out, e)
		}
	}
	return out, nil
}

// sameRec reports whether two readings have the same values (NaN equal to
// NaN) and tags.
func sameRec(a, b rec) bool {
	if len(a.vals) != len(b.vals) || len(a.tags) != len(b.tags) {
		return false
	}
	for i, v := range a.vals {
		if w := b.vals[i]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
			return false
		}
	}
	return slices.Equal(a.tags, b.tags)
}

// entry is the readings of one series to write.
type entry struct {
	k    *Kind
	id   string
	recs []rec
}

// apply writes entries to the table: raw items, then the latest readings
// and rollup markers. Every write is idempotent (keys come from sequence
// numbers; buckets skip readings they hold; latest readings are
// conditional), so applying the same entries again, after a failure or a
// crash, changes nothing.
//
// The items are built, and written in BatchWriteItem calls of up to 25,
// by up to FlushConcurrency goroutines at once, so that the calls of a
// large flush share the engine's syncs (or DynamoDB's latency) instead of
// waiting for each other.
//
// The readings of each entry are settled (sorted, duplicate rule applied)
// when their batch is sealed.
func (s *Store) apply(ctx context.Context, entries []entry) error {
	// Items of the readings, built by tasks of applyGroup entries.
	tasks := (len(entries) + applyGroup - 1) / applyGroup
	puts := make([][]table.WriteRequest, tasks)
	if err := s.parallel(ctx, tasks, func(_ context.Context, t int) error {
		var ws []table.WriteRequest
		for i := t * applyGroup; i < min(len(entries), (t+1)*applyGroup); i++ {
			e := &entries[i]
			if len(e.recs) == 0 {
				continue
			}
			k := e.k
			switch k.s.Layout {
			case ItemPerReading, DayPartitioned:
				for j := range e.recs {
					ws = append(ws, table.PutRequest(k.readingItem(e.id, &e.recs[j])))
				}
			case Chunks:
				items, err := k.chunkItems(e.id, e.recs)
				if err != nil {
					return err
				}
				for _, it := range items {
					ws = append(ws, table.PutRequest(it))
				}
			}
		}
		puts[t] = ws
		return nil
	}); err != nil {
		return err
	}
	if err := s.batchWrite(ctx, slices.Concat(puts...)); err != nil {
		return fmt.Errorf("series: cannot write readings: %w", err)
	}
	var marks []table.WriteRequest
	var buckets []*bucketOp
	type latestPut struct {
		k    *Kind
		item table.Item
	}
	var latest []latestPut
	for i := range entries {
		e := &entries[i]
		if len(e.recs) == 0 {
			continue
		}
		k := e.k
		if k.s.Layout == Buckets {
			buckets = append(buckets, k.bucketOps(e.id, e.recs)...)
		}
		latest = append(latest, latestPut{k, k.latestItem(e.id, &e.recs[len(e.recs)-1])})
		for _, m := range k.markersFor(e.id, e.recs) {
			marks = append(marks, table.PutRequest(m))
		}
	}
	if err := s.parallel(ctx, len(buckets), func(ctx context.Context, i int) error {
		return buckets[i].k.mergeBucket(ctx, buckets[i])
	}); err != nil {
		return err
	}
	// Each latest reading is a conditional put of one small item, whose
	// time is mostly the wait for its write to be durable: more of them
	// share a sync (or a round trip's time).
	if err := s.parallelN(ctx, len(latest), latestConcurrency*s.opts.FlushConcurrency, func(ctx context.Context, i int) error {
		return s.putLatest(ctx, latest[i].k, latest[i].item)
	}); err != nil {
		return err
	}
	if err := s.batchWrite(ctx, marks); err != nil {
		return fmt.Errorf("series: cannot write rollup markers: %w", err)
	}
	for i := range entries {
		entries[i].k.markedFor(entries[i].id, entries[i].recs)
	}
	return nil
}

// applyGroup is the number of entries whose items one task of apply
// builds.
const applyGroup = 16

// batchWriteSize is the most writes of one BatchWriteItem call.
const batchWriteSize = 25

// batchWrite writes ws in calls of up to batchWriteSize writes, up to
// FlushConcurrency calls at once. Two writes of one key must be the same
// write, as the calls run in any order.
func (s *Store) batchWrite(ctx context.Context, ws []table.WriteRequest) error {
	n := (len(ws) + batchWriteSize - 1) / batchWriteSize
	return s.parallel(ctx, n, func(ctx context.Context, i int) error {
		return s.tbl.BatchWrite(ctx, ws[i*batchWriteSize:min(len(ws), (i+1)*batchWriteSize)])
	})
}

// latestConcurrency is how many times FlushConcurrency the puts of latest
// readings a flush runs at once.
const latestConcurrency = 4

// parallel runs fn(i) for i in [0, n) on up to FlushConcurrency
// goroutines and returns the first error (the others are cancelled).
func (s *Store) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	return s.parallelN(ctx, n, s.opts.FlushConcurrency, fn)
}

// parallelN is parallel on up to workers goroutines.
func (s *Store) parallelN(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	if n == 0 {
		return nil
	}
	if n == 1 {
		return fn(ctx, 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	workers = min(n, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := fn(ctx, i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// readingItem is the item of one reading in the ItemPerReading and
// DayPartitioned layouts.
func (k *Kind) readingItem(id string, r *rec) table.Item {
	sh := k.shardOf(r.t)
	it := table.Item{}
	if k.s.Layout == DayPartitioned {
		tod := keys.TimeOfDay(msTime(r.t))
		it[attrPK] = strAV(k.dayPK(id, sh, periodKey(r.t, keys.Day)))
		it[attrSK] = strAV(tod + keys.Sep + hex16(r.seq))
	} else {
		it[attrPK] = strAV(k.rawPK(id, sh))
		it[attrSK] = strAV(orderKey(r.t, r.seq))
	}
	putValues(it, &k.s, r.vals, r.tags)
	k.putTTL(it, r.t, k.s.Retention.Raw)
	k.putMetric(it, id, r.t, r.seq)
	return it
}

func (k *Kind) putTTL(it table.Item, ms int64, ret time.Duration) {
	if v := ttlOf(ms, ret); v != 0 {
		it[attrTTL] = intAV(v)
	}
}

// putMetric adds the metric index keys of a raw item whose data starts at
// ms, if the kind has the index.
func (k *Kind) putMetric(it table.Item, id string, ms int64, seq uint64) {
	if !k.s.MetricIndex {
		return
	}
	it[attrMPK] = strAV(k.metricPK(periodKey(ms, keys.Day), keys.ShardIndex(id, k.s.IndexShards)))
	it[attrMSK] = strAV(ts(ms) + keys.Sep + id + keys.Sep + hex16(seq))
}

func (k *Kind) metricPK(day string, sh int) string {
	pk := k.s.Name + keys.Sep + day
	if k.s.IndexShards > 1 {
		pk += keys.Sep + keys.ShardSuffix(sh, k.s.IndexShards)
	}
	return pk
}

// maxReadingTagBytes bounds the tags of one reading (names and values),
// so that every item holding one reading fits in DynamoDB's 400 KB.
const maxReadingTagBytes = 256 << 10

// maxChunkBytes bounds the encoded data and tags of one chunk item, well
// under DynamoDB's 400 KB per item.
const maxChunkBytes = 300 << 10

// chunkItems encodes the readings of one batch entry of series id
// (sorted, settled) as chunk items: one per hour and shard, split further
// if too large. The readings of each shard are numbered in order from 0;
// a chunk holds a run of them, from its index base (attribute _i, omitted
// when 0), and its readings' positions are (the shard's smallest sequence
// number, base + i). Its sort key is its first reading's timestamp and
// that sequence number plus the base, unique in the partition, so writing
// the same entry again writes the same items.
func (k *Kind) chunkItems(id string, recs []rec) ([]table.Item, error) {
	app, _ := k.apps.Get().(*chunk.Appender)
	if app == nil {
		var err error
		if app, err = chunk.NewAppender(k.s.Fields); err != nil {
			return nil, err
		}
	}
	defer k.apps.Put(app)
	shards := [][]rec{recs}
	if k.s.Shards > 1 {
		shards = make([][]rec, k.s.Shards)
		for _, r := range recs {
			sh := k.shardOf(r.t)
			shards[sh] = append(shards[sh], r)
		}
	}
	var items []table.Item
	for sh, rs := range shards {
		if len(rs) == 0 {
			continue
		}
		cseq := rs[0].seq
		for i := range rs {
			cseq = min(cseq, rs[i].seq)
		}
		base := 0
		for len(rs) > 0 {
			// the readings of one hour
			end := periodEnd(rs[0].t, keys.Hour)
			n := skipPeriod(rs, 0, end)
			var err error
			if items, err = k.chunkGroup(app, id, sh, rs[:n], cseq, base, items); err != nil {
				return nil, err
			}
			base += n
			rs = rs[n:]
		}
	}
	return items, nil
}

// chunkGroup appends to items the chunk item(s) of recs, all in one hour
// and shard, at positions (cseq, base + i), encoded with app (an appender
// of the kind's fields, which it resets first).
func (k *Kind) chunkGroup(app *chunk.Appender, id string, sh int, recs []rec, cseq uint64, base int, items []table.Item) ([]table.Item, error) {
	app.Reset()
	for i := range recs {
		if err := app.Append(recs[i].t, recs[i].vals); err != nil {
			return nil, fmt.Errorf("series: cannot encode a chunk: %w", err)
		}
	}
	data := app.Bytes()
	var tagCol []byte
	if len(k.s.Tags) > 0 {
		tagCol = encodeTags(len(recs), len(k.s.Tags), func(i, j int) string { return recs[i].tags[j] })
	}
	if len(data)+len(tagCol) > maxChunkBytes && len(recs) > 1 {
		half := len(recs) / 2
		items, err := k.chunkGroup(app, id, sh, recs[:half], cseq, base, items)
		if err != nil {
			return nil, err
		}
		return k.chunkGroup(app, id, sh, recs[half:], cseq, base+half, items)
	}
	first, last := recs[0].t, recs[len(recs)-1].t
	key := cseq + uint64(base)
	// pk, sk, data, end, base, tags, n, the fields, TTL and the metric keys.
	it := make(table.Item, 10+len(k.s.Fields))
	it[attrPK] = strAV(k.rawPK(id, sh))
	it[attrSK] = strAV(orderKey(first, key))
	it[attrData] = binAV(data)
	it[attrEnd] = intAV(last)
	if base > 0 {
		it[attrBase] = intAV(int64(base))
	}
	if tagCol != nil {
		it[attrTags] = binAV(tagCol)
	}
	u := newUnit(len(k.s.Fields))
	u.n = int64(len(recs))
	for i, a := range app.Aggregates() {
		u.fields[i] = fromChunkAgg(a)
	}
	putUnit(it, &k.s, u)
	k.putTTL(it, last, k.s.Retention.Raw)
	k.putMetric(it, id, first, key)
	return append(items, it), nil
}

func fromChunkAgg(a chunk.Aggregate) agg {
	if a.Count == 0 {
		return agg{}
	}
	return agg{n: int64(a.Count), sum: a.Sum, min: a.Min, max: a.Max, first: a.First, last: a.Last, firstT: a.FirstTime, lastT: a.LastTime}
}

// latestItem is the latest-reading item of series id holding r.
func (k *Kind) latestItem(id string, r *rec) table.Item {
	// pk, sk, time, seq, ord, the fields and tags, TTL.
	it := make(table.Item, 6+len(k.s.Fields)+len(k.s.Tags))
	it[attrPK] = strAV(k.latestPK(id))
	it[attrSK] = strAV(latestSK)
	// The time and sequence number are the parts of the order key.
	ord := orderKey(r.t, r.seq)
	it[attrTime] = strAV(ord[:keys.TimestampLen])
	it[attrSeq] = strAV(ord[keys.TimestampLen+len(keys.Sep):])
	it[attrOrd] = strAV(ord)
	putValues(it, &k.s, r.vals, r.tags)
	k.putTTL(it, r.t, k.s.Retention.Raw)
	return it
}

// latestCondNames are the names of latestCond, shared by every put.
var latestCondNames = map[string]string{"#o": attrOrd}

// firstCondNames are the names of firstCond.
var firstCondNames = map[string]string{"#t": attrTime, "#q": attrSeq}

// latestCond is the condition of putLatest: the stored item is older than
// it (k.newer), or there is none.
func (k *Kind) latestCond(it table.Item) table.Cond {
	if k.s.Duplicates == RejectDifferent {
		// Of one instant, the first written stays.
		return table.Expr("attribute_not_exists(#t) OR #t < :t OR (#t = :t AND #q > :q)", firstCondNames,
			map[string]types.AttributeValue{":t": it[attrTime], ":q": it[attrSeq]})
	}
	return table.Expr("attribute_not_exists(#o) OR #o < :o", latestCondNames, map[string]types.AttributeValue{":o": it[attrOrd]})
}

// putLatest writes a latest-reading item of kind k unless the stored one
// is as new or newer.
func (s *Store) putLatest(ctx context.Context, k *Kind, it table.Item) error {
	_, err := s.tbl.Put(ctx, it, &table.PutOptions{If: k.latestCond(it)})
	if err != nil && !table.IsConditionFailed(err) {
		return fmt.Errorf("series: cannot write the latest reading: %w", err)
	}
	return nil
}
