package series

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// apply writes entries to the table: first the rollup and compaction
// markers of their periods and the directory and label index items of
// series new to the Store, then the raw items, then the latest readings, then again the
// markers a pass may have taken meanwhile (remarkersFor). Every write is
// idempotent (keys come from sequence numbers; buckets skip readings they
// hold; latest readings are conditional), so applying the same entries
// again, after a failure or a crash, changes nothing.
//
// The order leaves, wherever a crash stops it, a state the next passes
// repair, whether or not the entries are in the write-ahead log (a
// WriteSync's are not; without a log a flush's are not): a reading in the
// table has its period's marker, so the rollup pass computes the period
// again (and the compaction pass merges its hour), and the rollup pass,
// computing a period from the raw readings, puts the latest reading the
// period holds if the stored one is older (repairLatest): a crash before
// the latest readings are written leaves them stale only until their
// period is rolled up. A crash before the items leaves markers whose
// periods are computed again for nothing.
//
// The items are built, and written in BatchWriteItem calls of up to
// table.MaxBatchWrite, by up to FlushConcurrency goroutines at once, so that the calls of a
// large flush share the engine's syncs (or DynamoDB's latency) instead of
// waiting for each other.
//
// The readings of each entry are settled (sorted, duplicate rule applied)
// when their batch is sealed.
func (s *Store) apply(ctx context.Context, entries []entry) error {
	// Each loop over entries below visits each once (see storeStats.steps):
	// the markers, latest readings and mergers; the directory; the items;
	// the markers again; the marker cache.
	s.stats.visited(5 * len(entries))
	if err := s.markSeqs(ctx, entries); err != nil {
		return err
	}
	var marks []table.WriteRequest
	var merges []*entry // of layouts that are mergers
	for i := range entries {
		e := &entries[i]
		if len(e.recs) == 0 {
			continue
		}
		k := e.k
		if k.lay.merger != nil {
			merges = append(merges, e)
		}
		for _, m := range k.markersFor(e.id, e.recs) {
			marks = append(marks, table.PutRequest(m))
		}
	}
	dir, added := dirPuts(entries)
	marks = append(marks, dir...)
	if err := s.batchWrite(ctx, marks); err != nil {
		return fmt.Errorf("series: cannot write rollup markers and series directory and label index items: %w", err)
	}
	// Items of the readings, built by tasks of applyGroup entries, and
	// the latest-reading item of each entry, at the rank its items give
	// its last reading.
	tasks := (len(entries) + applyGroup - 1) / applyGroup
	puts := make([][]table.WriteRequest, tasks)
	fresh := make([][]table.WriteRequest, tasks) // of layouts whose keys are new
	type latestPut struct {
		k    *Kind
		item table.Item
	}
	latest := make([]latestPut, len(entries))
	if err := s.parallel(ctx, tasks, func(_ context.Context, t int) error {
		var ws, fs []table.WriteRequest
		for i := t * applyGroup; i < min(len(entries), (t+1)*applyGroup); i++ {
			e := &entries[i]
			if len(e.recs) == 0 {
				continue
			}
			items, last, err := e.k.lay.puts(e.id, e.recs)
			if err != nil {
				return err
			}
			dst := &ws
			if e.k.lay.newKeys() {
				dst = &fs
			}
			for _, it := range items {
				*dst = append(*dst, table.PutRequest(it))
			}
			if s.latestOwnSeq {
				last = apos{seq: e.recs[len(e.recs)-1].seq}
			}
			latest[i] = latestPut{e.k, e.k.latestItem(e.id, ranked{e.recs[len(e.recs)-1], last})}
		}
		puts[t], fresh[t] = ws, fs
		return nil
	}); err != nil {
		return err
	}
	latest = slices.DeleteFunc(latest, func(p latestPut) bool { return p.item == nil })
	if err := s.batchWrite(ctx, slices.Concat(puts...)); err != nil {
		return fmt.Errorf("series: cannot write readings: %w", err)
	}
	if err := s.batchWrite(timetable.WithNewItems(ctx), slices.Concat(fresh...)); err != nil {
		return fmt.Errorf("series: cannot write readings: %w", err)
	}
	if err := s.parallel(ctx, len(merges), func(ctx context.Context, i int) error {
		e := merges[i]
		return e.k.lay.merger.merge(ctx, e.id, e.recs)
	}); err != nil {
		return err
	}
	// Each latest reading is a conditional put of one small item, whose
	// time is mostly the wait for its write to be durable: more of them
	// share a sync (or a round trip's time).
	if err := s.parallelN(ctx, len(latest), latestConcurrency*s.opts.FlushConcurrency, func(ctx context.Context, i int) error {
		return latest[i].k.putLatest(ctx, latest[i].item)
	}); err != nil {
		return err
	}
	var remarks []table.WriteRequest
	for i := range entries {
		for _, m := range entries[i].k.remarkersFor(entries[i].id, entries[i].recs) {
			remarks = append(remarks, table.PutRequest(m))
		}
	}
	if err := s.batchWrite(ctx, remarks); err != nil {
		return fmt.Errorf("series: cannot write rollup markers again: %w", err)
	}
	for d, ids := range added {
		d.add(ids)
	}
	for i := range entries {
		entries[i].k.markedFor(entries[i].id, entries[i].recs)
	}
	return nil
}

// applyGroup is the number of entries whose items one task of apply
// builds.
const applyGroup = 16

// batchWrite writes ws with up to FlushConcurrency BatchWriteItem calls
// at once (table.BatchWriteOptions). Two writes of one key must be the
// same write, as the calls run in any order.
func (s *Store) batchWrite(ctx context.Context, ws []table.WriteRequest) error {
	return s.tbl.BatchWriteWith(ctx, ws, &table.BatchWriteOptions{Concurrency: s.opts.FlushConcurrency})
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
				// An ended ctx stops the work between calls, whether or
				// not fn heeds it.
				err := ctx.Err()
				if err == nil {
					err = fn(ctx, i)
				}
				if err != nil {
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

// latestItem is the latest-reading item of series id holding r, ordered
// by its rank (see ranked).
func (k *Kind) latestItem(id string, r ranked) table.Item {
	// pk, sk, time, rank, ord, the fields and tags, TTL.
	it := make(table.Item, 6+len(k.s.Fields)+len(k.s.Tags))
	it[attrPK] = strAV(k.latestPK(id))
	it[attrSK] = strAV(latestSK)
	// The time and rank are the parts of the order key.
	ord := latestOrd(r.t, r.p)
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
// it (k.newer), or there is none. Ranks compare as strings (appendRank).
func (k *Kind) latestCond(it table.Item) table.Cond {
	if k.s.Duplicates == RejectDifferent {
		// Of one instant, the first ranked stays.
		return table.Expr("attribute_not_exists(#t) OR #t < :t OR (#t = :t AND #q > :q)", firstCondNames,
			map[string]types.AttributeValue{":t": it[attrTime], ":q": it[attrSeq]})
	}
	return table.Expr("attribute_not_exists(#o) OR #o < :o", latestCondNames, map[string]types.AttributeValue{":o": it[attrOrd]})
}

// putLatest writes a latest-reading item (latestItem) of kind k unless
// the stored one is as new or newer.
func (k *Kind) putLatest(ctx context.Context, it table.Item) error {
	_, err := k.st.tbl.Put(ctx, it, &table.PutOptions{If: k.latestCond(it)})
	if err != nil && !table.IsConditionFailed(err) {
		return fmt.Errorf("series: cannot write the latest reading: %w", err)
	}
	return nil
}
