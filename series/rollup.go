package series

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// Rollups
//
// A rollup item holds the aggregates of one series over one period of a
// tier (hour, day, month): the number of readings and, per field, count,
// sum, min, max, first and last:
//
//	pk SENSOR#123#H   sk 2024-12-01-14   _n 3600   temperature {count, sum, ...}   ttl
//
// Rollups are recomputed, never accumulated: a period's item is computed
// from its source (the raw readings for the finest tier kept, the next
// finer tier's items otherwise) and put whole, so computing it again, after
// a crash or by two processes at once, gives the same item and never
// counts a reading twice.
//
// Which periods need computing is kept in marker items, one per series and
// period of the finest tier, in one partition per kind
// (pk ~DIRTY#SENSOR, sk 123#2024-12-01-14), written before the raw
// readings of every flush and direct write (and written again after them
// for a period a pass may have computed meanwhile: remarkersFor), so that
// a crash between the two leaves the period marked. The rollup pass
// computes the periods of markers that ended LateWindow ago or more,
// finest tier first (a series-day at a time: the day's marked periods
// from one read of its raw readings, written with the coarser period's
// marker in one batch; and, once per series, repairing its latest
// reading from the raw readings of its marked periods: repairLatest),
// writes a marker for the coarser period each one belongs to, and
// deletes the marker under the condition that no writer has marked it
// again meanwhile. A reading that
// arrives after its period was computed marks it again, and the next pass
// recomputes it (and the coarser periods holding it).

// markCache remembers the markers a Store wrote recently, so that every
// flush into an open period does not write its marker again: per kind
// and series, the last period of each kind of marker (markSlots) it
// wrote. An entry is trusted only until LateWindow/2 after its period
// ends, before the rollup pass may delete the marker. A miss costs one
// idempotent marker put, so the cache keeps one period per series and
// slot (readings mostly arrive in time order), and drops entries that
// are no longer trusted in sweeps made each time it has doubled since
// the last one: its work is constant per lookup, amortized, however many
// series it holds. Past maxMarkCache series it starts again, as the
// directory's set does.
type markCache struct {
	mu    sync.Mutex
	m     map[markKey]*[markSlots]markedPeriod
	sweep int         // size at which set sweeps
	stats *storeStats // counts the entries sweeps visit; may be nil
}

// markKey names a series of a kind in the markCache.
type markKey struct{ kind, id string }

// markedPeriod is a period whose marker was written, trusted until until
// (ms); the zero value is no period.
type markedPeriod struct{ start, until int64 }

// The slots of a markCache entry: the kinds of markers (markSpec.slot).
const (
	rollupSlot = iota
	compactSlot
	markSlots
)

// maxMarkCache is the most series the markCache remembers, and
// minMarkSweep the size of its first sweep.
const (
	maxMarkCache = 1 << 21
	minMarkSweep = 1 << 12
)

// valid reports whether the marker of the period starting at start, of
// slot slot of series id of kind, was written and is trusted at now.
func (c *markCache) valid(kind, id string, slot int, start, now int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[markKey{kind, id}]
	return e != nil && e[slot].start == start && now < e[slot].until
}

// set records that the marker of the period starting at start, of slot
// slot of series id of kind, was written and is trusted until until.
func (c *markCache) set(kind, id string, slot int, start, until, now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := markKey{kind, id}
	e := c.m[key]
	if e == nil {
		if len(c.m) >= c.sweep {
			c.sweepLocked(now)
		}
		e = new([markSlots]markedPeriod)
		c.m[key] = e
	}
	e[slot] = markedPeriod{start, until}
}

// sweepLocked drops the entries no longer trusted at now (every one if
// maxMarkCache remain) and sets the size of the next sweep to twice what
// remains; the caller holds mu.
func (c *markCache) sweepLocked(now int64) {
	if c.stats != nil {
		c.stats.visited(len(c.m))
	}
	for key, e := range c.m {
		stale := true
		for _, p := range e {
			stale = stale && now >= p.until
		}
		if stale {
			delete(c.m, key)
		}
	}
	if c.m == nil || len(c.m) >= maxMarkCache {
		c.m = map[markKey]*[markSlots]markedPeriod{}
	}
	c.sweep = max(2*len(c.m), minMarkSweep)
}

// forget drops what the cache holds of series id of kind.
func (c *markCache) forget(kind, id string) {
	c.mu.Lock()
	delete(c.m, markKey{kind, id})
	c.mu.Unlock()
}

// finest returns the finest rollup tier kept, 0 if none.
func (k *Kind) finest() keys.Granularity {
	if len(k.s.Rollups) == 0 {
		return 0
	}
	return k.s.Rollups[0]
}

// markerItem is the rollup marker of period key period (of any tier) of
// series id.
func (k *Kind) markerItem(id, period string) table.Item {
	return k.markerItemIn(k.markerPK(), id, period)
}

// markerItemIn is a marker item (rollup or compaction) in partition pk.
func (k *Kind) markerItemIn(pk, id, period string) table.Item {
	return table.Item{
		attrPK:  strAV(pk),
		attrSK:  strAV(id + keys.Sep + period),
		attrVer: intAV(int64(k.st.nextSeqs(1) & (1<<62 - 1))),
	}
}

// markSpec is a kind of marker the writes leave: rollup markers for the
// finest tier, compaction markers for hours of chunks.
type markSpec struct {
	g    keys.Granularity // 0: none
	pk   string
	slot int // in the markCache
	// byDay marks the periods of a day that ended LateWindow ago with
	// one marker of the day.
	byDay bool
}

func (k *Kind) rollupMarks() markSpec {
	return markSpec{g: k.markTier(), pk: k.markerPK(), slot: rollupSlot}
}

// markTier is the period of the kind's rollup markers: its finest tier,
// or hours for a kind without rollups, whose markers only lead the rollup
// pass to repair the series' latest readings (see repairLatest).
func (k *Kind) markTier() keys.Granularity {
	if g := k.finest(); g != 0 {
		return g
	}
	return keys.Hour
}

// markersFor returns the markers to write for recs (sorted) of series id,
// before their items: rollup markers, and compaction markers for chunks,
// one per period, unless the cache holds it.
func (k *Kind) markersFor(id string, recs []rec) []table.Item {
	now := timeMs(k.st.now())
	return k.marksWhere(id, recs, func(slot int, start, _ int64) bool { return !k.st.mark.valid(k.s.Name, id, slot, start, now) })
}

// remarkersFor returns the markers to write again for recs (sorted) of
// series id once their items are written: those of periods that ended
// LateWindow/2 ago or more, whose markers a pass may have taken (and
// deleted) between the first write and the items. (A pass takes a marker
// LateWindow after its period ends; the cache trusts one until
// LateWindow/2 after.)
func (k *Kind) remarkersFor(id string, recs []rec) []table.Item {
	now := timeMs(k.st.now())
	half := k.st.opts.LateWindow.Milliseconds() / 2
	return k.marksWhere(id, recs, func(_ int, _, end int64) bool { return now >= end+half })
}

// marksWhere returns the markers of recs (sorted) of series id, rollup
// and compaction, of the periods for which want(cache slot, period start,
// period end) is true.
func (k *Kind) marksWhere(id string, recs []rec, want func(slot int, start, end int64) bool) []table.Item {
	out := k.marksFor(k.rollupMarks(), id, recs, want)
	if k.compacts() {
		out = append(out, k.marksFor(k.compactMarks(), id, recs, want)...)
	}
	return out
}

// markedFor records in the cache the markers written for recs (sorted).
func (k *Kind) markedFor(id string, recs []rec) {
	k.markedIn(k.rollupMarks(), id, recs)
	if k.compacts() {
		k.markedIn(k.compactMarks(), id, recs)
	}
}

// marksFor returns the markers of spec m for recs (sorted) of series id:
// one per period for which want(m.slot, period start, period end) is true.
func (k *Kind) marksFor(m markSpec, id string, recs []rec, want func(slot int, start, end int64) bool) []table.Item {
	if m.g == 0 {
		return nil
	}
	var out []table.Item
	closed := timeMs(k.st.now()) - k.st.opts.LateWindow.Milliseconds()
	for i := 0; i < len(recs); {
		g := m.g
		if d := periodStart(recs[i].t, keys.Day); m.byDay && periodEnd(d, keys.Day) <= closed {
			g = keys.Day
		}
		start := periodStart(recs[i].t, g)
		end := periodEnd(start, g)
		i = skipPeriod(recs, i, end)
		if want(m.slot, start, end) {
			out = append(out, k.markerItemIn(m.pk, id, periodKey(start, g)))
		}
	}
	return out
}

// skipPeriod returns the index of the first of recs (sorted) from i on
// that is at end or later.
func skipPeriod(recs []rec, i int, end int64) int {
	// Readings before end (i's are) are often many: search.
	n, _ := slices.BinarySearchFunc(recs[i:], end, func(r rec, end int64) int { return cmp.Compare(r.t, end) })
	return i + n
}

// markedIn records in the cache the markers of spec m written for recs
// (sorted). An entry is trusted until LateWindow/2 after its period ends:
// the passes that delete markers wait LateWindow.
func (k *Kind) markedIn(m markSpec, id string, recs []rec) {
	if m.g == 0 {
		return
	}
	now := timeMs(k.st.now())
	for i := 0; i < len(recs); {
		start := periodStart(recs[i].t, m.g)
		end := periodEnd(start, m.g)
		i = skipPeriod(recs, i, end)
		until := end + k.st.opts.LateWindow.Milliseconds()/2
		if now < until {
			k.st.mark.set(k.s.Name, id, m.slot, start, until, now)
		}
	}
}

// marker is a parsed marker item.
type marker struct {
	id         string
	period     string
	g          keys.Granularity
	start, end int64
	ver        int64
}

func parseMarker(item table.Item) (marker, error) {
	sk, _ := getS(item, attrSK)
	i := strings.LastIndexByte(sk, '#')
	if i <= 0 {
		return marker{}, fmt.Errorf("series: bad rollup marker %q", sk)
	}
	start, g, err := keys.ParseTimeSeries(sk[i+1:])
	if err != nil {
		return marker{}, fmt.Errorf("series: bad rollup marker %q: %w", sk, err)
	}
	ver, _ := getInt(item, attrVer)
	s := timeMs(start)
	return marker{id: sk[:i], period: sk[i+1:], g: g, start: s, end: periodEnd(s, g), ver: ver}, nil
}

// markers returns the markers of the kind, or of series id if id is set.
func (k *Kind) markers(ctx context.Context, id string) ([]marker, error) {
	return k.markersIn(ctx, k.markerPK(), id)
}

// markersIn returns the markers of partition pk, or those of series id if
// id is set.
func (k *Kind) markersIn(ctx context.Context, pk, id string) ([]marker, error) {
	q := &table.Query{Hash: pk, Consistent: true}
	if id != "" {
		q.Range = table.BeginsWith(id + keys.Sep)
	}
	var out []marker
	for item, err := range k.st.tbl.QueryAll(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("series: cannot read the markers %s: %w", pk, err)
		}
		m, err := parseMarker(item)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Rollup runs one rollup pass over every kind: it computes the rollup
// periods that received readings and ended Options.LateWindow ago or more,
// finest tier first, and the coarser periods that hold them. The Store runs
// it every Options.RollupInterval; running it again, or from several
// processes, is harmless. It returns the errors of the periods it could not
// compute (they stay marked and are retried by the next pass).
func (s *Store) Rollup(ctx context.Context) error {
	defer s.stats.rollups.Add(1)
	s.rollupMu.Lock()
	defer s.rollupMu.Unlock()
	var errs []error
	for _, k := range s.Kinds() {
		if err := k.rollupPass(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rollupDeleteBatch is how many computed periods' markers the rollup
// pass deletes after each Sync of a Syncer.
const rollupDeleteBatch = 1024

// rollupPass computes the marked periods of kind k. On a Syncer (with a
// log: Store.syncer) its writes are deferred (timetable.WithDeferredSync)
// and the markers of computed periods are deleted in batches, each after
// a Sync has made their rollups (and the coarser markers) durable, so
// that a crash never keeps a marker's delete and loses what it marked:
// one Sync per batch instead of one per write.
//
// The finest tier is computed a series-day at a time (rollDay): the due
// periods of a day from one read of its raw readings, written with the
// coarser period's marker in one batch; the series' latest reading is
// repaired once per pass, over all its due periods.
func (k *Kind) rollupPass(ctx context.Context) error {
	ms, err := k.markers(ctx, "")
	if err != nil {
		return err
	}
	now := timeMs(k.st.now())
	late := k.st.opts.LateWindow.Milliseconds()
	var errs []error
	wctx := ctx
	if k.st.syncer != nil {
		wctx = timetable.WithDeferredSync(ctx)
	}
	var done []marker // computed periods whose markers are not yet deleted
	computed := false
	release := func() {
		if len(done) == 0 {
			return
		}
		if k.st.syncer != nil {
			if err := k.st.syncer.Sync(ctx); err != nil {
				errs = append(errs, fmt.Errorf("series: cannot sync the rollups: %w", err))
				return
			}
		}
		for _, m := range done {
			_, err := k.st.tbl.Delete(wctx, table.K(k.markerPK(), m.id+keys.Sep+m.period), &table.DeleteOptions{If: table.Attr(attrVer).Eq(m.ver)})
			if err != nil && !table.IsConditionFailed(err) {
				errs = append(errs, fmt.Errorf("series: cannot delete a rollup marker: %w", err))
			}
		}
		done = done[:0]
	}
	stopped := func() error {
		if err := ctx.Err(); err != nil {
			return errors.Join(append(errs, fmt.Errorf("series: rollup pass stopped: %w", err))...)
		}
		return nil
	}
	for ti, g := range k.s.Rollups {
		coarser := k.s.coarser(g)
		written := map[string]bool{} // coarser markers written in this pass
		// The markers of each series, which its recomputations need:
		// grouped once, as the pass may hold those of many series.
		byID := make(map[string][]marker)
		for _, m := range ms {
			byID[m.id] = append(byID[m.id], m)
		}
		k.st.stats.visited(len(ms))
		var next, due []marker
		for _, m := range ms {
			if m.g != g {
				next = append(next, m)
				continue
			}
			if now < m.end+late {
				continue
			}
			due = append(due, m)
		}
		if ti == 0 {
			// The finest tier, from the raw readings: by series, then
			// by day.
			slices.SortFunc(due, func(a, b marker) int {
				return cmp.Or(strings.Compare(a.id, b.id), cmp.Compare(a.start, b.start))
			})
			for i := 0; i < len(due); {
				id := due[i].id
				j := i + 1
				for j < len(due) && due[j].id == id {
					j++
				}
				mine := due[i:j]
				i = j
				if err := stopped(); err != nil {
					return err
				}
				if err := k.repairLatest(wctx, id, mine[0].start, mine[len(mine)-1].end); err != nil {
					errs = append(errs, err)
					continue
				}
				for a := 0; a < len(mine); {
					day := periodStart(mine[a].start, keys.Day)
					b := a + 1
					for b < len(mine) && periodStart(mine[b].start, keys.Day) == day {
						b++
					}
					grp := mine[a:b]
					a = b
					if err := stopped(); err != nil {
						return err
					}
					cm, err := k.rollDay(wctx, id, g, coarser, grp, written)
					if err != nil {
						errs = append(errs, err)
						continue
					}
					if cm != nil {
						next = append(next, *cm)
					}
					computed = true
					if done = append(done, grp...); len(done) >= rollupDeleteBatch {
						release()
					}
				}
			}
			release()
			ms = next
			continue
		}
		for _, m := range due {
			if err := stopped(); err != nil {
				return err
			}
			if err := k.recompute(wctx, m.id, g, m.start, byID[m.id]); err != nil {
				errs = append(errs, err)
				continue
			}
			if coarser != 0 {
				cp := periodKey(m.start, coarser)
				key := m.id + "\x00" + cp
				if !written[key] {
					item := k.markerItem(m.id, cp)
					if _, err := k.st.tbl.Put(wctx, item, nil); err != nil {
						errs = append(errs, fmt.Errorf("series: cannot write a rollup marker: %w", err))
						continue
					}
					written[key] = true
					cm, _ := parseMarker(item)
					next = append(next, cm)
				}
			}
			computed = true
			if done = append(done, m); len(done) >= rollupDeleteBatch {
				release()
			}
		}
		release()
		ms = next
	}
	// Markers of a kind without rollups, and of tiers no longer kept. The
	// hour markers of a kind without rollups lead to its series' latest
	// readings, repaired once per series.
	repaired := map[string]error{}
	if k.finest() == 0 {
		span := map[string][2]int64{}
		for _, m := range ms {
			if m.g != keys.Hour || now < m.end+late {
				continue
			}
			s, ok := span[m.id]
			if !ok {
				s = [2]int64{m.start, m.end}
			}
			span[m.id] = [2]int64{min(s[0], m.start), max(s[1], m.end)}
		}
		for id, s := range span {
			repaired[id] = k.repairLatest(ctx, id, s[0], s[1])
			if err := repaired[id]; err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, m := range ms {
		if k.s.hasTier(m.g) {
			continue
		}
		if k.finest() == 0 && m.g == keys.Hour {
			if now < m.end+late || repaired[m.id] != nil {
				continue
			}
		}
		k.st.tbl.Delete(ctx, table.K(k.markerPK(), m.id+keys.Sep+m.period), &table.DeleteOptions{If: table.Attr(attrVer).Eq(m.ver)})
	}
	// The last batch's deletes are synced too: a pass that returns
	// leaves nothing to recompute after a crash.
	if k.st.syncer != nil && computed {
		if err := k.st.syncer.Sync(ctx); err != nil {
			errs = append(errs, fmt.Errorf("series: cannot sync the rollups: %w", err))
		}
	}
	return errors.Join(errs...)
}

// rollDay computes the periods of the finest tier g that ms (markers of
// series id, of one day, sorted by time) mark, from one read of the raw
// readings from the first to the end of the last, and writes them with
// the marker of the coarser period holding them (unless written holds
// it: it then records it) in one batch. It returns that marker, nil if
// none was written. On an error nothing is known written: the markers
// stay.
func (k *Kind) rollDay(ctx context.Context, id string, g, coarser keys.Granularity, ms []marker, written map[string]bool) (*marker, error) {
	starts := make([]int64, len(ms))
	for i, m := range ms {
		starts[i] = m.start
	}
	ws, err := k.finestWrites(ctx, id, g, starts)
	if err != nil {
		return nil, err
	}
	var cm *marker
	key := ""
	if coarser != 0 {
		cp := periodKey(ms[0].start, coarser)
		key = id + "\x00" + cp
		if !written[key] {
			item := k.markerItem(id, cp)
			ws = append(ws, table.PutRequest(item))
			m, _ := parseMarker(item)
			cm = &m
		}
	}
	if err := k.st.tbl.BatchWrite(ctx, ws); err != nil {
		return nil, fmt.Errorf("series: cannot write the %s rollups of %s on %s: %w", tierOf(g), k.entity(id), periodKey(ms[0].start, keys.Day), err)
	}
	if cm != nil {
		written[key] = true
	}
	return cm, nil
}

// finestWrites computes the periods of the finest tier g starting at
// starts (sorted, distinct) of series id from one read of the raw
// readings over [starts[0], end of the last period), the readings of
// periods not in starts skipped, and returns the write of each: a put of
// its rollup item, or a delete of it where the period holds no reading.
// Periods whose raw readings have (partly) expired are left out: their
// source can no longer tell the whole truth.
func (k *Kind) finestWrites(ctx context.Context, id string, g keys.Granularity, starts []int64) ([]table.WriteRequest, error) {
	cut := k.cutoff(k.s.retentionOf(k.s.finer(g)))
	i, _ := slices.BinarySearch(starts, cut)
	starts = starts[i:]
	if len(starts) == 0 {
		return nil, nil
	}
	lo, hi := starts[0], periodEnd(starts[len(starts)-1], g)
	units := make(map[int64]*unit, len(starts))
	for _, s := range starts {
		u := newUnit(len(k.s.Fields))
		units[s] = &u
	}
	bucket := func(t int64) int64 { return periodStart(t, g) }
	err := k.rawUnits(ctx, id, lo, hi, nil, bucket, func(start int64, v unit) {
		if u := units[start]; u != nil {
			u.merge(v)
		}
	})
	if err != nil {
		if len(starts) == 1 {
			return nil, fmt.Errorf("series: cannot compute the %s rollup %s of %s: %w", tierOf(g), periodKey(lo, g), k.entity(id), err)
		}
		return nil, fmt.Errorf("series: cannot compute the %s rollups %s to %s of %s: %w", tierOf(g), periodKey(lo, g), periodKey(starts[len(starts)-1], g), k.entity(id), err)
	}
	pk := k.rollupPK(id, g)
	now := timeMs(k.st.now())
	ws := make([]table.WriteRequest, 0, len(starts)+1)
	for _, s := range starts {
		u := units[s]
		sk := periodKey(s, g)
		if u.n == 0 {
			ws = append(ws, table.DeleteRequest(table.K(pk, sk)))
			continue
		}
		end := periodEnd(s, g)
		item := table.Item{attrPK: strAV(pk), attrSK: strAV(sk)}
		putUnit(item, &k.s, *u)
		if now >= end {
			item[attrDone] = &types.AttributeValueMemberBOOL{Value: true}
		}
		k.putTTL(item, end, k.s.retentionOf(g))
		ws = append(ws, table.PutRequest(item))
	}
	return ws, nil
}

// tierOf maps a rollup granularity to its Tier.
func tierOf(g keys.Granularity) Tier {
	switch g {
	case keys.Hour:
		return Hourly
	case keys.Day:
		return Daily
	case keys.Month:
		return Monthly
	}
	return Raw
}

// recompute computes the period of tier g starting at start of series id
// from its source and puts it, replacing what was there. A period whose
// source has (partly) expired is left as it is: its source can no longer
// tell the whole truth.
//
// ms are the markers known of series id (those of other series are left
// out): finer periods still marked are computed from their own sources.
func (k *Kind) recompute(ctx context.Context, id string, g keys.Granularity, start int64, ms []marker) error {
	end := periodEnd(start, g)
	src := k.s.finer(g)
	if start < k.cutoff(k.s.retentionOf(src)) {
		return nil
	}
	if src == 0 {
		ws, err := k.finestWrites(ctx, id, g, []int64{start})
		if err != nil {
			return err
		}
		if err := k.repairLatest(ctx, id, start, end); err != nil {
			return err
		}
		for _, w := range ws {
			if w.Put != nil {
				if _, err := k.st.tbl.Put(ctx, w.Put, nil); err != nil {
					return fmt.Errorf("series: cannot write the %s rollup %s of %s: %w", tierOf(g), periodKey(start, g), k.entity(id), err)
				}
			} else if _, err := k.st.tbl.Delete(ctx, w.Delete, nil); err != nil {
				return fmt.Errorf("series: cannot delete an empty rollup: %w", err)
			}
		}
		return nil
	}
	u := newUnit(len(k.s.Fields))
	var mine []marker
	for _, m := range ms {
		if m.id == id {
			mine = append(mine, m)
		}
	}
	k.st.stats.visited(len(ms))
	c := &collector{k: k, id: id, markers: mine, haveMarkers: true, bucket: func(int64) int64 { return start },
		fn: func(_ int64, v unit) { u.merge(v) }}
	err := c.collect(ctx, src, start, end)
	if err != nil {
		return fmt.Errorf("series: cannot compute the %s rollup %s of %s: %w", tierOf(g), periodKey(start, g), k.entity(id), err)
	}
	key := table.K(k.rollupPK(id, g), periodKey(start, g))
	if u.n == 0 {
		if _, err := k.st.tbl.Delete(ctx, key, nil); err != nil {
			return fmt.Errorf("series: cannot delete an empty rollup: %w", err)
		}
		return nil
	}
	item := table.Item{attrPK: strAV(k.rollupPK(id, g)), attrSK: strAV(periodKey(start, g))}
	putUnit(item, &k.s, u)
	if now := timeMs(k.st.now()); now >= end {
		item[attrDone] = &types.AttributeValueMemberBOOL{Value: true}
	}
	k.putTTL(item, end, k.s.retentionOf(g))
	if _, err := k.st.tbl.Put(ctx, item, nil); err != nil {
		return fmt.Errorf("series: cannot write the %s rollup %s of %s: %w", tierOf(g), periodKey(start, g), k.entity(id), err)
	}
	return nil
}

// repairLatest puts the newest reading series id holds in [start, end)
// as its latest reading if the stored one is older (or missing): a write
// that a crash stopped after its raw items and before its latest reading
// left it stale, and the period's marker, written before the items, led
// the rollup pass here. It costs a GetItem, and a Query of one reading
// only if the stored latest reading is older than end.
func (k *Kind) repairLatest(ctx context.Context, id string, start, end int64) error {
	stored, found, err := k.latestStored(ctx, id)
	if err != nil {
		return err
	}
	if found && stored.t >= end {
		return nil
	}
	if found {
		start = max(start, stored.t)
	}
	it := k.iter(ctx, id, Query{From: msTime(start), To: msTime(end), Reverse: true, Limit: 1}, nil)
	defer it.Close()
	if !it.Next() {
		return it.Err()
	}
	r := it.ranked()
	if found && !k.newer(r, stored) {
		return nil
	}
	return k.putLatest(ctx, k.latestItem(id, r))
}

// Recompute recomputes the rollups of series id over [from, to), every
// tier, finest first, from their sources: for backfills, or after
// changing the tiers. A zero from starts at the oldest raw reading not
// expired (older periods cannot be recomputed from raw readings); a zero
// to has no bound. Periods that have not ended LateWindow ago are left
// to the rollup pass. It is idempotent.
func (k *Kind) Recompute(ctx context.Context, id string, from, to time.Time) error {
	k = k.current()
	if !validID(id) {
		return fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	lo, hi := span(from, to)
	if from.IsZero() {
		oldest, err := k.oldest(ctx, id)
		if err != nil {
			return err
		}
		lo = max(lo, oldest)
	}
	ms, err := k.markers(ctx, id)
	if err != nil {
		return err
	}
	now, late := timeMs(k.st.now()), k.st.opts.LateWindow.Milliseconds()
	for _, g := range k.s.Rollups {
		for p := periodStart(lo, g); p < hi && now >= periodEnd(p, g)+late; p = periodEnd(p, g) {
			var rest []marker
			for _, m := range ms {
				if m.g != g || m.start != p {
					rest = append(rest, m)
				}
			}
			ms = rest
			if err := k.recompute(ctx, id, g, p, ms); err != nil {
				return err
			}
		}
	}
	return nil
}

// Rollups returns the stored rollup periods of tier t (Hourly, Daily or
// Monthly) of series id that start in [from, to) (a zero from or to: no
// bound), in time order, leaving out expired ones. Periods whose readings were not rolled up yet (within
// LateWindow of their end, or waiting for the next pass) are missing or
// stale; Aggregate fills those in from finer data.
func (k *Kind) Rollups(ctx context.Context, id string, t Tier, from, to time.Time) ([]Period, error) {
	k = k.current()
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	g := granOf(t)
	if g == 0 || !k.s.hasTier(g) {
		return nil, fmt.Errorf("series: kind %s keeps no %s rollups", k.s.Name, t)
	}
	var out []Period
	lo, hi := span(from, to)
	err := k.readRollups(ctx, id, g, lo, hi, func(start int64, u unit) {
		out = append(out, u.period(msTime(start), msTime(periodEnd(start, g))))
	})
	return out, err
}

func granOf(t Tier) keys.Granularity {
	switch t {
	case Hourly:
		return keys.Hour
	case Daily:
		return keys.Day
	case Monthly:
		return keys.Month
	}
	return 0
}

// readRollups calls fn for each stored, unexpired rollup of tier g of
// series id starting in [lo, hi), in time order.
func (k *Kind) readRollups(ctx context.Context, id string, g keys.Granularity, lo, hi int64, fn func(start int64, u unit)) error {
	if lo >= hi {
		return nil
	}
	lo = max(lo, minMs)
	hi = min(hi, maxMs)
	q := &table.Query{Hash: k.rollupPK(id, g), Range: table.Between(periodKey(lo, g), periodKey(hi-1, g))}
	ret := k.s.retentionOf(g)
	now := k.st.now()
	for item, err := range k.st.tbl.QueryAll(ctx, q) {
		if err != nil {
			return fmt.Errorf("series: cannot read %s rollups of %s: %w", tierOf(g), k.entity(id), err)
		}
		sk, _ := getS(item, attrSK)
		st, _, err := keys.ParseTimeSeries(sk)
		if err != nil {
			return fmt.Errorf("series: bad rollup key %q: %w", sk, err)
		}
		start := timeMs(st)
		if start < lo {
			continue
		}
		if ret != Forever && !msTime(periodEnd(start, g)).Add(ret).After(now) {
			continue // expired
		}
		u, err := getUnit(item, &k.s)
		if err != nil {
			return fmt.Errorf("series: bad rollup %q: %w", sk, err)
		}
		fn(start, u)
	}
	return nil
}

// ctxCheckEvery is how many readings a loop over readings folds between
// checks of its context: often enough to stop within milliseconds, seldom
// enough to cost nothing.
const ctxCheckEvery = 4096

// rawUnits folds the raw readings of series id in [lo, hi) into units
// keyed by bucket(t), calling fn once per reading (or, for a layout that
// is a unitReader, per stored aggregate it can use), the duplicate rule
// applied. pending are buffered readings to count too, in place of their
// copies in the table if their flush wrote them already (nil for
// rollups, which are computed from what is stored). fn must not keep u
// past its call: its fields may be reused.
func (k *Kind) rawUnits(ctx context.Context, id string, lo, hi int64, pending []rec, bucket func(int64) int64, fn func(start int64, u unit)) error {
	lo = max(lo, k.rawCutoff())
	if lo >= hi {
		return nil
	}
	if k.lay.units != nil {
		return k.lay.units.units(ctx, id, lo, hi, pending, bucket, fn)
	}
	it := k.iter(ctx, id, Query{From: msTime(lo), To: msTime(hi)}, pending)
	defer it.Close()
	u := newUnit(len(k.s.Fields))
	for n := 1; it.Next(); n++ {
		if n%ctxCheckEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("series: aggregating %s stopped: %w", k.entity(id), context.Cause(ctx))
		}
		u.n = 0
		clear(u.fields)
		r := it.cur.rec(it.ci)
		u.addReading(r.t, apos{r.seq, it.cur.idx[it.ci]}, r.vals)
		fn(bucket(r.t), u)
	}
	return it.Err()
}
