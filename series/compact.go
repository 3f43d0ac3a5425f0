package series

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series/internal/chunk"
	"github.com/timetable-db/timetable/table"
)

// Compaction
//
// Each flush writes a new chunk item per series and hour, so with the
// default 5-minute flush an hour of a series is 12 small items and a day
// 288. Compaction merges the chunk items of one series, shard and hour
// into one merged chunk item once the hour ended, written as a new item
// (sort key: its first reading's timestamp and a digest of the readings
// it holds), with a source map (srcmap.go) that keeps every reading's
// position; then deletes the sources. An hour of 1 Hz readings merged is
// some 3 KB, a day 24 items and, for a random walk with two decimals
// moving by up to 10 cents a step, 5 to 6 read units; multi-field and
// high-rate kinds split a merged hour into items of at most maxChunkBytes.
//
// Once the day ended, a second tier merges the day's items of a series
// and shard into one, if they hold at most dayChunkBytes of chunk data
// (sparse series: an item per hour of one-minute readings holds 60, and
// its key and source map weigh as much as its data); denser days keep
// their hourly items. The hour's pass, when done, leaves a marker for its
// day (pk ~COMPACT#SENSOR, sk 123#2024-12-01), and the day's pass
// deletes it. A merged item whose readings span more than one hour (a
// day piece) is keyed at 00:00:00.000 of its day, all others at their
// first reading, within whose hour they lie: readers look back an hour,
// find a day's pieces at its start, and take the chunk items of a day
// that has one as one group, of other days a group per hour
// (groupReader).
//
// Readers need no lock and no snapshot: a merged chunk and its sources
// hold the same readings at the same positions, and readers give each
// position once (readGroup), so a read that sees both, or the merged
// chunk only, or the sources only, returns every reading exactly once.
// What must never happen is a read that sees neither: the read of a group
// (a day) is not atomic on DynamoDB (pages, and Query is not isolated
// from other writes), and its reads are eventually consistent. So sources
// are deleted only Options.CompactGrace after the merged chunk was
// written, by a later pass, and readers read a group again when its pages
// were read more than CompactGrace/2 apart (groupReader).
//
// A transaction (put the merged chunk, delete up to 99 sources) would not
// do better: DynamoDB isolates Query from TransactWriteItems only at read
// committed (a query reading items one by one may see some of a
// transaction's writes and not others), global indexes receive a
// transaction's writes gradually, and reads are eventually consistent.
//
// A pass over a group reads it with a strongly consistent query, then
// ranks its items, merged chunks first, newest first: an item all of whose
// positions are in merged chunks ranked above it is covered, and deleted
// if those were written CompactGrace ago; the items not covered are merged
// if there are several and one of them is a flush's chunk (or two
// overlap). So a crash at any point, a second compactor at the same time,
// or late readings written after a merge, leave items that the next pass
// merges or deletes; merging the same items again writes the same item.
// Writes leave a compaction marker per series and hour (pk ~COMPACT#SENSOR,
// sk 123#2024-12-01-14), or per day for readings of a day that ended
// LateWindow ago (sk 123#2024-12-01), which the pass deletes once the
// hour (day) is one item (or merged items that do not overlap), unless a
// writer marked it again; an hour whose day ended is compacted with its
// day.
//
// With Options.CompactAtClose, Shutdown runs a last pass once the buffer
// is flushed, with no grace: nothing reads the table after it, so a
// group's sources are deleted right after its merged chunk is written,
// and the sources of the Store's earlier merges are deleted first, by
// their keys (see compactdue.go).
//
// Rollups and aggregates read raw readings through the same
// deduplication, so they never count a reading twice.

const compactPrefix = "~COMPACT#"

// Sources that expire
//
// With Options.SourceExpiry on, a flush chunk is written with an expiry
// (the table's time-to-live attribute, the one retention uses): the end
// of its day or its write, whichever is later, plus LateWindow,
// CompactGrace and SourceExpiry, or its retention's expiry if sooner. A
// merge then leaves the flush chunks it covers in place, for the table
// to delete when they expire (no write units on DynamoDB); merged chunks
// that a later merge covers (an hour's in its day's piece) are still
// deleted by key, CompactGrace after, as they carry no such expiry. This
// is sound because readers give each position once whatever items of a
// group they find (readGroup): a covered flush chunk found at any age,
// or gone, changes no read. A late reading in a merged day is a new
// flush chunk with its own expiry, merged by the next pass. A flush
// chunk whose expiry is sooner than its retention's is merged, even
// alone, by any Store, with the option or without (sourceExpiry), so a
// fleet part way through a change of the option loses nothing. The one
// loss: a flush chunk that no pass merges before it expires. A pass
// takes first the periods that ended more than half of SourceExpiry ago
// and are still marked (urgentFirst), and warns of (and counts in
// Stats.SourcesNearExpiry) each group in which it finds a flush chunk
// not merged within half of SourceExpiry of its expiry, which it merges.

// putSourceTTL sets, with Options.SourceExpiry on, the expiry of flush
// chunk item it, whose last reading is at last (see above): it keeps
// the retention's expiry if that is sooner.
func (k *Kind) putSourceTTL(it table.Item, last int64) {
	exp := k.st.opts.SourceExpiry
	if exp <= 0 || !k.compacts() {
		return
	}
	from := max(periodEnd(periodStart(last, keys.Day), keys.Day)+k.st.opts.LateWindow.Milliseconds(), timeMs(k.st.now()))
	v := ttlOf(from, k.st.opts.CompactGrace+exp)
	if old, ok := getInt(it, attrTTL); ok && old > 0 && old <= v {
		return
	}
	it[attrTTL] = intAV(v)
}

// sourcesExpire reports whether the flush chunks of k expire rather than
// being deleted once merged (Options.SourceExpiry).
func (k *Kind) sourcesExpire() bool { return k.st.opts.SourceExpiry > 0 }

func (k *Kind) compactPK() string { return compactPrefix + k.s.Name }

// compacts reports whether the kind's writes leave compaction markers.
func (k *Kind) compacts() bool {
	return k.lay.compactor != nil && !k.s.NoCompaction
}

func (k *Kind) compactMarks() markSpec {
	return markSpec{g: keys.Hour, pk: k.compactPK(), slot: compactSlot, byDay: true}
}

// fullChunkBytes is the size from which a merged chunk is left as it is
// when late readings arrive: they are merged on their own, rather than
// rewriting a large item for a few readings.
const fullChunkBytes = maxChunkBytes / 2

// dayChunkBytes is the most chunk data a day of a series (per shard) may
// hold to be merged into one chunk item by the day's compaction: sparse
// series (a reading a minute: some 2.5 KB a day for three fields) then
// store a day in one item, whose key and source map weigh little per
// reading, while dense ones (1 Hz: some 60 KB a day) keep an item per
// hour. Readers read a day piece whole (see groupReader), so the bound
// is also what a read of part of a day may read beyond its range.
const dayChunkBytes = 32 << 10

// Compact runs one compaction pass over every kind of the Chunks layout:
// for each series and hour that received readings and ended
// Options.LateWindow ago, it merges the hour's chunk items into one, and
// deletes the items a merged chunk written Options.CompactGrace ago
// replaces. The Store runs it every Options.CompactInterval. Running it
// again, or from several processes at once, is harmless; it returns the
// errors of the hours it could not compact, which stay marked and are
// retried by the next pass. Reads are correct throughout.
func (s *Store) Compact(ctx context.Context) error {
	if s.closed.Load() {
		return ErrClosed
	}
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	defer s.stats.compactions.Add(1)
	var errs []error
	for _, k := range s.Kinds() {
		if k.compacts() {
			if err := k.compactPass(ctx, s.opts.CompactGrace, nil); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// compactAtClose is the last compaction pass of Shutdown (see
// Options.CompactAtClose): the readings are flushed and nothing reads the
// table any more, so merged chunks replace their sources at once. Its
// errors are logged: the markers it leaves are the next passes' work.
func (s *Store) compactAtClose(ctx context.Context) {
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	defer s.stats.compactions.Add(1)
	cleared, err := s.deleteLeftSources(ctx)
	if err != nil {
		if ctx.Err() != nil {
			s.log.Info("series: compaction at close stopped by the shutdown deadline; the next start goes on")
			return
		}
		s.log.Warn("series: compaction at close could not delete merged sources; the next passes do", "err", err)
		cleared = nil
	}
	for _, k := range s.Kinds() {
		if !k.compacts() {
			continue
		}
		// The days whose sources were just deleted hold their merged
		// items (and no later readings of this Store's): their markers
		// are the next start's passes' to check and delete.
		skip := func(id string, day int64) bool {
			key := dayKey{k.s.Name, id, day}
			_, ok := cleared[key]
			return ok && !s.written.has(k.s.Name, id, day)
		}
		if err := k.compactPass(ctx, 0, skip); err != nil {
			if ctx.Err() != nil {
				s.log.Info("series: compaction at close stopped by the shutdown deadline; the next start goes on", "kind", k.s.Name)
				return
			}
			s.log.Warn("series: compaction at close failed; the next start goes on", "kind", k.s.Name, "err", err)
		}
	}
}

// compactPass is a compaction pass over kind k's markers, with grace
// (see Options.CompactGrace). It leaves the days for which skip (if set)
// is true, markers and all.
func (k *Kind) compactPass(ctx context.Context, grace time.Duration, skip func(id string, day int64) bool) error {
	ms, err := k.markersIn(ctx, k.compactPK(), "")
	if err != nil {
		return err
	}
	now := timeMs(k.st.now())
	late := k.st.opts.LateWindow.Milliseconds()
	// The hours and days due, each with its markers: an hour marker whose
	// day is due is done by the day's compaction.
	type unit struct {
		id      string
		g       keys.Granularity
		start   int64
		markers []marker
	}
	var due []*unit
	days := map[string]*unit{}
	for _, m := range ms {
		if (m.g != keys.Hour && m.g != keys.Day) || now < m.end+late {
			continue
		}
		if ds := periodStart(m.start, keys.Day); now >= periodEnd(ds, keys.Day)+late {
			if skip != nil && skip(m.id, ds) {
				continue
			}
			key := m.id + keys.Sep + periodKey(ds, keys.Day)
			u := days[key]
			if u == nil {
				u = &unit{id: m.id, g: keys.Day, start: ds}
				days[key] = u
				due = append(due, u)
			}
			u.markers = append(u.markers, m)
			continue
		}
		if m.g == keys.Hour {
			due = append(due, &unit{id: m.id, g: keys.Hour, start: m.start, markers: []marker{m}})
		}
	}
	urgentFirst(k, due, func(u *unit) (int64, keys.Granularity) { return u.start, u.g }, now)
	defer k.st.warnNearExpiry()
	var (
		mu   sync.Mutex
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	k.st.parallel(ctx, len(due), func(ctx context.Context, i int) error {
		u := due[i]
		done := true
		if periodEnd(u.start, u.g) > k.rawCutoff() {
			var err error
			if done, err = k.lay.compactor.compact(ctx, u.id, u.g, u.start, grace); err != nil {
				fail(err)
				return nil
			}
			// An hour done waits for its day's compaction.
			if done && u.g == keys.Hour {
				if _, err := k.st.tbl.Put(ctx, k.markerItemIn(k.compactPK(), u.id, periodKey(periodStart(u.start, keys.Day), keys.Day)), nil); err != nil {
					fail(fmt.Errorf("series: cannot write a compaction marker: %w", err))
					return nil
				}
			}
		}
		if done {
			for _, m := range u.markers {
				_, err := k.st.tbl.Delete(ctx, table.K(k.compactPK(), m.id+keys.Sep+m.period), &table.DeleteOptions{If: table.Attr(attrVer).Eq(m.ver)})
				if err != nil && !table.IsConditionFailed(err) {
					fail(fmt.Errorf("series: cannot delete a compaction marker: %w", err))
				}
			}
		}
		return nil
	})
	return errors.Join(errs...)
}

// Compact compacts the chunks of series id in the hours that start in
// [from, to) (a zero from or to: no bound) and ended Options.LateWindow ago, whatever the markers say:
// it merges each hour's chunk items (each day's, for the days that ended
// LateWindow ago), and deletes those that a merged chunk written
// Options.CompactGrace ago replaces (so a second call after CompactGrace
// finishes what the first began). It is idempotent, safe with concurrent
// reads, writes and compactions, and needs the Chunks layout (it does
// nothing for others). The markers of the hours are left to
// Store.Compact.
func (k *Kind) Compact(ctx context.Context, id string, from, to time.Time) error {
	k, err := k.removing(id)
	if err != nil {
		return err
	}
	if k.lay.compactor == nil {
		return nil
	}
	k.st.compactMu.Lock()
	defer k.st.compactMu.Unlock()
	defer k.st.warnNearExpiry()
	lo, hi := k.bounds(from, to)
	if from.IsZero() {
		oldest, err := k.oldest(ctx, id)
		if err != nil {
			return err
		}
		lo = max(lo, oldest)
	}
	now, late := timeMs(k.st.now()), k.st.opts.LateWindow.Milliseconds()
	for p := periodStart(lo, keys.Hour); p < hi && now >= periodEnd(p, keys.Hour)+late; {
		if d := periodStart(p, keys.Day); now >= periodEnd(d, keys.Day)+late {
			if _, err := k.lay.compactor.compact(ctx, id, keys.Day, d, k.st.opts.CompactGrace); err != nil {
				return err
			}
			p = periodEnd(d, keys.Day)
			continue
		}
		if _, err := k.lay.compactor.compact(ctx, id, keys.Hour, p, k.st.opts.CompactGrace); err != nil {
			return err
		}
		p = periodEnd(p, keys.Hour)
	}
	return nil
}

// urgentFirst, with Options.SourceExpiry on, moves to the front of due
// (in time order) the periods that ended more than SourceExpiry/2 before
// now: the flush chunks nearest to expiring unmerged are among theirs (see
// putSourceTTL). start returns a period's start and granularity.
func urgentFirst[U any](k *Kind, due []U, start func(U) (int64, keys.Granularity), now int64) {
	exp := k.st.opts.SourceExpiry
	if exp <= 0 {
		return
	}
	old := now - (exp / 2).Milliseconds()
	urgent := func(u U) (int64, bool) {
		s, g := start(u)
		return s, periodEnd(s, g) <= old
	}
	slices.SortStableFunc(due, func(a, b U) int {
		sa, ua := urgent(a)
		sb, ub := urgent(b)
		switch {
		case ua && ub:
			return cmp.Compare(sa, sb)
		case ua:
			return -1
		case ub:
			return 1
		}
		return 0
	})
}

// warnWithin is how near its expiry an unmerged flush chunk is warned
// of: half of SourceExpiry, or of the value serve suggests (30 days) on
// a Store without it that compacts another's flush chunks.
func (k *Kind) warnWithin() time.Duration {
	if e := k.st.opts.SourceExpiry; e > 0 {
		return e / 2
	}
	return 15 * 24 * time.Hour
}

// nearExpiry records the groups that compaction found holding flush
// chunks not merged within SourceExpiry/2 of their expiry, for one
// warning after the pass.
type nearExpiry struct {
	mu    sync.Mutex
	n     int
	first string // the group of the soonest expiry
	ttl   int64  // its expiry, epoch seconds
}

// note records group what, whose soonest unmerged flush chunk expires at
// ttl, and counts it in Stats.SourcesNearExpiry.
func (s *Store) noteNearExpiry(what string, ttl int64) {
	s.stats.nearExpiry.Add(1)
	e := &s.expiring
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.n == 0 || ttl < e.ttl {
		e.first, e.ttl = what, ttl
	}
	e.n++
}

// warnNearExpiry logs what noteNearExpiry recorded since the last call.
func (s *Store) warnNearExpiry() {
	e := &s.expiring
	e.mu.Lock()
	n, first, ttl := e.n, e.first, e.ttl
	e.n = 0
	e.mu.Unlock()
	if n > 0 {
		s.log.Warn("series: compaction found flush chunks unmerged within half of SourceExpiry of their expiry, which loses their readings if they expire unmerged: merged them now; a pass must run more often than SourceExpiry",
			"groups", n, "soonest", first, "expires", time.Unix(ttl, 0).UTC())
	}
}

// compactPeriod compacts the hour or day (g) starting at start of series
// id, every shard, and reports whether it is done: each shard holds one
// item, or merged items that do not overlap, and nothing waits to be
// deleted.
func (k *Kind) compactPeriod(ctx context.Context, id string, g keys.Granularity, start int64, grace time.Duration) (bool, error) {
	done := true
	for sh := 0; sh < k.s.Shards; sh++ {
		d, err := k.compactGroup(ctx, id, sh, g, start, grace)
		if err != nil {
			return false, fmt.Errorf("series: cannot compact %s of %s: %w", periodKey(start, g), k.entity(id), err)
		}
		done = done && d
	}
	return done, nil
}

// citem is a chunk item of a group being compacted.
type citem struct {
	item    table.Item
	sk      string
	merged  bool
	created int64 // merged chunks: when written (ms)
	size    int   // bytes of chunk data
	n       int   // readings
	ttl     int64 // expiry, epoch seconds; 0 if none
	cov     coverage
}

// parseCItem reads what compaction needs of a chunk item.
func parseCItem(item table.Item) (citem, error) {
	sk, _ := getS(item, attrSK)
	c := citem{item: item, sk: sk, cov: coverage{}}
	c.ttl, _ = getInt(item, attrTTL)
	seq, base, err := chunkPosition(item)
	if err != nil {
		return c, err
	}
	data, ok := getB(item, attrData)
	if !ok {
		return c, fmt.Errorf("series: chunk %q has no data", sk)
	}
	ch, err := chunk.Open(data)
	if err != nil {
		return c, fmt.Errorf("series: chunk %q: %w", sk, err)
	}
	c.size, c.n = len(data), ch.Len()
	raw, ok := getB(item, attrSrc)
	if !ok {
		if ch.Len() > 0 {
			c.cov.add(seq, base, base+uint32(ch.Len()))
		}
		return c, nil
	}
	m, err := decodeSrcMap(raw, ch.Len())
	if err != nil {
		return c, fmt.Errorf("series: chunk %q: %w", sk, err)
	}
	c.merged, c.created = true, m.created
	for _, e := range m.entries {
		c.cov.add(e.seq, e.start, e.start+e.count)
	}
	c.cov.normalize()
	return c, nil
}

// compactGroup compacts the chunk items of one hour or day (g, from
// start) of shard sh of series id; see the comment at the top of this
// file. It reports whether the group is done.
func (k *Kind) compactGroup(ctx context.Context, id string, sh int, g keys.Granularity, start int64, grace time.Duration) (bool, error) {
	pk := k.rawPK(id, sh)
	q := &table.Query{Hash: pk, Range: table.Between(ts(start), ts(periodEnd(start, g)-1)+"#~"), Consistent: true}
	var items []citem
	for item, err := range k.st.tbl.QueryAll(ctx, q) {
		if err != nil {
			return false, err
		}
		c, err := parseCItem(item)
		if err != nil {
			return false, err
		}
		items = append(items, c)
	}
	expires := k.expiresSoon(timeMs(k.st.now()))
	if len(items) == 0 || len(items) == 1 && !k.sourceExpiry(&items[0]) {
		// (A lone flush chunk that expires is merged: into an item that
		// does not.)
		return true, nil
	}
	// Merged chunks first, newest first: an item may be replaced only by
	// items ranked above it, so no two items replace each other.
	slices.SortFunc(items, func(a, b citem) int {
		if a.merged != b.merged {
			if a.merged {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.created, a.created); c != 0 {
			return c
		}
		return cmp.Compare(b.sk, a.sk)
	})
	now := timeMs(k.st.now())
	oldBy := now - grace.Milliseconds()
	above, aboveOld := coverage{}, coverage{}
	var dels []table.WriteRequest
	var live []*citem
	pending, liveBytes := 0, 0
	var soonest int64 // the soonest expiry of a flush chunk not merged
	for i := range items {
		c := &items[i]
		switch {
		case expires(c) && above.contains(c.cov):
			// Left to expire (see putSourceTTL).
		case aboveOld.contains(c.cov):
			dels = append(dels, table.DeleteRequest(table.K(pk, c.sk)))
		case above.contains(c.cov):
			pending++
		default:
			live = append(live, c)
			liveBytes += c.size
			if k.sourceExpiry(c) && (soonest == 0 || c.ttl < soonest) {
				soonest = c.ttl
			}
		}
		if c.merged {
			above.merge(c.cov)
			if c.created <= oldBy {
				aboveOld.merge(c.cov)
			}
		}
	}
	if soonest > 0 && soonest*1000-now < k.warnWithin().Milliseconds() {
		k.st.noteNearExpiry(k.entity(id)+" "+periodKey(start, g), soonest)
	}
	// The items to merge together: a small day's in one piece; else those
	// of each hour, as mergeSet picks them.
	var sets [][]*citem
	if g == keys.Day && liveBytes <= dayChunkBytes {
		if len(live) > 1 || len(live) == 1 && k.sourceExpiry(live[0]) {
			sets = append(sets, live)
		}
	} else {
		slices.SortFunc(live, func(a, b *citem) int { return cmp.Compare(a.sk, b.sk) })
		for len(live) > 0 {
			n := 1
			for n < len(live) && live[n].sk[:hourPrefixLen] == live[0].sk[:hourPrefixLen] {
				n++
			}
			if in := mergeSet(live[:n], k.sourceExpiry); in != nil {
				sets = append(sets, in)
			}
			live = live[n:]
		}
	}
	var puts []table.WriteRequest
	written := map[string]bool{}
	for _, in := range sets {
		p, err := k.mergeItems(id, sh, in, now)
		if err != nil {
			return false, err
		}
		for _, w := range p {
			sk, _ := getS(w.Put.(table.Item), attrSK)
			written[sk] = true
		}
		puts = append(puts, p...)
	}
	if len(puts) > 0 {
		if err := k.st.tbl.BatchWrite(ctx, puts); err != nil {
			return false, fmt.Errorf("cannot write a merged chunk: %w", err)
		}
		if g == keys.Day {
			k.st.pieces.forget(pk, start)
		}
	}
	// The sources of the merge (but for an item the merge wrote again,
	// the same readings under the same key). Their keys are copied: the
	// Store may remember them for the grace (leftSources), and a key read
	// from the table may share the memory of its whole item.
	var left []string
	for _, in := range sets {
		for _, c := range in {
			if !written[c.sk] && !expires(c) {
				left = append(left, strings.Clone(c.sk))
			}
		}
	}
	if grace <= 0 {
		// No reader waits for the sources: they go with the merge.
		for _, sk := range left {
			dels = append(dels, table.DeleteRequest(table.K(pk, sk)))
		}
		sets = nil
	} else if len(left) > 0 {
		sg := sourceGroup{pk: pk, sks: left, created: now}
		if g == keys.Day {
			sg.day = &dayKey{k.s.Name, id, start}
		}
		k.st.left.add(sg, now, grace.Milliseconds())
	}
	if len(dels) > 0 {
		if err := k.st.tbl.BatchWrite(ctx, dels); err != nil {
			return false, fmt.Errorf("cannot delete merged chunks: %w", err)
		}
	}
	return pending == 0 && len(sets) == 0, nil
}

// sourceExpiry reports whether chunk item c is a flush chunk written
// with a source expiry (see putSourceTTL): one that expires before its
// readings' retention ends, so it must be merged, whatever the options
// of the Store that compacts it.
func (k *Kind) sourceExpiry(c *citem) bool {
	if c.merged || c.ttl <= 0 {
		return false
	}
	end, ok := getInt(c.item, attrEnd)
	if !ok {
		return false
	}
	ret := ttlOf(end, k.s.Retention.Raw)
	return ret == 0 || c.ttl < ret
}

// expiresSoon returns whether a flush chunk that a merged chunk covers
// is left to expire rather than deleted by key: one written with a
// source expiry, or, with Options.SourceExpiry on, one whose (retention's)
// expiry is no later than a source expiry given now. A flush chunk whose
// retention outlasts that is deleted by key, as merged chunks are.
func (k *Kind) expiresSoon(now int64) func(c *citem) bool {
	if !k.sourcesExpire() {
		return k.sourceExpiry
	}
	o := &k.st.opts
	bound := ttlOf(now, 24*time.Hour+o.LateWindow+o.CompactGrace+o.SourceExpiry)
	return func(c *citem) bool { return !c.merged && c.ttl > 0 && c.ttl <= bound || k.sourceExpiry(c) }
}

// mergeSet returns the items of live (items of one hour not replaced) to
// merge, nil if none: all but the full merged chunks that overlap none of
// the others, if at least two remain and one of them is a flush's chunk
// or two overlap, or if one of them is a flush chunk written with a
// source expiry (must; see putSourceTTL), which must not stay unmerged.
func mergeSet(live []*citem, must func(*citem) bool) []*citem {
	var in []*citem
	for i, c := range live {
		keep := !c.merged || c.size < fullChunkBytes
		for j, o := range live {
			if keep {
				break
			}
			keep = j != i && c.cov.overlaps(o.cov)
		}
		if keep {
			in = append(in, c)
		}
	}
	if slices.ContainsFunc(in, must) {
		return in
	}
	if len(in) < 2 {
		return nil
	}
	for i, c := range in {
		if !c.merged {
			return in
		}
		for _, o := range in[i+1:] {
			if c.cov.overlaps(o.cov) {
				return in
			}
		}
	}
	return nil
}

// mergeItems decodes the chunk items in and returns the put requests of
// the merged chunk items holding their readings, each once, in order:
// one item, or several if one would pass maxChunkBytes. Fields and tags
// that the kind's schema no longer has are kept.
func (k *Kind) mergeItems(id string, sh int, in []*citem, now int64) ([]table.WriteRequest, error) {
	items := make([]table.Item, len(in))
	for i, c := range in {
		items[i] = c.item
	}
	fields, nt, err := k.chunkColumns(items)
	if err != nil {
		return nil, err
	}
	var all *rbatch
	for _, c := range in {
		b, _, err := decodeChunk(c.item, fields, nt, nil)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = b
		} else {
			all.appendBatch(b)
		}
	}
	all = all.sort(false)
	all.dedupe()
	var out []table.WriteRequest
	var piece func(from, to int) error
	piece = func(from, to int) error {
		it, size, err := k.mergedItem(id, sh, fields, nt, all, from, to, now)
		if err != nil {
			return err
		}
		if size > maxChunkBytes && to-from > 1 {
			mid := from + (to-from)/2
			if err := piece(from, mid); err != nil {
				return err
			}
			return piece(mid, to)
		}
		out = append(out, table.PutRequest(it))
		return nil
	}
	if err := piece(0, all.len()); err != nil {
		return nil, err
	}
	return out, nil
}

// mergedItem returns the merged chunk item of readings [from, to) of b,
// and the bytes of its data, tags and source map.
func (k *Kind) mergedItem(id string, sh int, fields []string, nt int, b *rbatch, from, to int, created int64) (table.Item, int, error) {
	app, err := chunk.NewAppender(fields)
	if err != nil {
		return nil, 0, err
	}
	nf := b.nf
	for i := from; i < to; i++ {
		if err := app.Append(b.t[i], b.vals[i*nf:(i+1)*nf]); err != nil {
			return nil, 0, fmt.Errorf("series: cannot encode a merged chunk: %w", err)
		}
	}
	data := app.Bytes()
	m := buildSrcMap(created, b.seq[from:to], b.idx[from:to])
	src := m.encode()
	mid := m.id()
	first, last := b.t[from], b.t[to-1]
	if last >= periodEnd(first, keys.Hour) {
		// A day piece: keyed at the start of its day (see groupReader).
		first = periodStart(first, keys.Day)
	}
	it := table.Item{
		attrPK:   strAV(k.rawPK(id, sh)),
		attrSK:   strAV(orderKey(first, mid)),
		attrData: binAV(data),
		attrEnd:  intAV(last),
		attrSrc:  binAV(src),
	}
	size := len(data) + len(src)
	if nt > 0 {
		tagCol := encodeTags(to-from, nt, func(i, j int) string {
			if t := b.tags[from+i]; j < len(t) {
				return t[j]
			}
			return ""
		})
		it[attrTags] = binAV(tagCol)
		size += len(tagCol)
	}
	k.putTTL(it, last, k.s.Retention.Raw)
	k.putMetric(it, id, first, mid)
	return it, size, nil
}

// chunkColumns returns the fields and the number of tags to decode chunk
// items with: the kind's, then those that only the items hold (fields
// and tags that the kind's schema no longer has are kept).
func (k *Kind) chunkColumns(items []table.Item) ([]string, int, error) {
	fields := append([]string(nil), k.s.Fields...)
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f] = true
	}
	nt := len(k.s.Tags)
	for _, item := range items {
		sk, _ := getS(item, attrSK)
		data, _ := getB(item, attrData)
		ch, err := chunk.Open(data)
		if err != nil {
			return nil, 0, fmt.Errorf("series: chunk %q: %w", sk, err)
		}
		for _, f := range ch.Fields() {
			if !seen[f] {
				seen[f] = true
				fields = append(fields, f)
			}
		}
		if raw, ok := getB(item, attrTags); ok {
			nt = max(nt, tagColumnCount(raw))
		}
	}
	if len(fields) > chunk.MaxFields {
		return nil, 0, fmt.Errorf("series: %d fields to merge, more than %d", len(fields), chunk.MaxFields)
	}
	return fields, nt, nil
}

// tagColumnCount returns the number of tags a tag column holds, 0 if it
// cannot tell.
func tagColumnCount(b []byte) int {
	if len(b) < 1 || b[0] != 1 {
		return 0
	}
	_, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return 0
	}
	t, m := binary.Uvarint(b[1+n:])
	if m <= 0 || t > 1<<16 {
		return 0
	}
	return int(t)
}
