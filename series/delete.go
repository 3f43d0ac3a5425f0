package series

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/table"
)

// Deleting
//
// Delete removes the readings of a series in a time range from its raw
// items, layout by layout (layout.remove), and then brings what is derived
// from them back in line: the latest-reading item, the rollups, and (by
// the items themselves) the metric index. It runs with the Store's
// flushes held, after a flush, so that it never races with a write of
// this Store, and with its compaction and rollup passes held, so that no
// pass of this Store writes back what it read before the delete.
//
// Crash safety: the rollup markers of the periods at the ends of the
// range are written before any reading is removed, so the rollup pass
// recomputes them whatever happens next; a chunk item or bucket that
// keeps readings is rewritten in place (one Put replaces it), so no read
// ever sees neither the old item nor the new one, and every remaining
// reading keeps its position. A crash (or an error) part way leaves some
// readings of the range removed and others not, rollups of periods
// inside the range possibly removed with readings still there, and
// nothing outside the range lost: Delete again finishes the work.

// Delete removes the readings of series id in [from, to) (bounds as
// Range's: half-open, rounded up to the millisecond; a zero from has no
// lower bound and a zero to no upper bound), on every shard, including
// those of this Store's write buffer and write-ahead log: it flushes the
// buffer first, and the log's release of what was flushed is durable
// before any item is removed, so a restart does not bring them back.
// Readings outside the range stay as they were, at the same positions
// (reads, cursors and the duplicate rule treat them as before). The
// latest-reading item is recomputed (or removed when nothing is left),
// rollup periods that lie whole in the range are removed and those that
// straddle an end recomputed once they ended Options.LateWindow ago
// (before that, the rollup pass computes them as usual, and Aggregate
// reads them from the raw readings); a period whose raw readings have
// expired cannot be recomputed and keeps its rollup.
//
// Concurrency: Delete holds this Store's flushes, compaction and rollup
// passes while it runs (Write still buffers readings, until
// Options.MaxBuffered). Readings this Store accepts after Delete began
// are kept, each write whole: they stay buffered until Delete returns.
// Reads running meanwhile may see the range partly removed. Other
// processes writing, compacting or replaying their write-ahead log into
// the range while Delete runs may keep some readings of the range (Delete
// again removes them), or, for the DayPartitioned layout, hide a reading
// they write into a day of the range that Delete found empty.
//
// On a crash or an error, part of the range may be removed: see the top
// of delete.go; calling Delete again completes it. Delete is idempotent.
func (k *Kind) Delete(ctx context.Context, id string, from, to time.Time) error {
	k, err := k.removing(id)
	if err != nil {
		return err
	}
	lo, hi := span(from, to)
	if lo >= hi {
		return nil
	}
	return k.exclusive(ctx, func() error {
		// The first and last readings of the range (not expired): the
		// rollup periods they are in are those to recompute.
		rlo, rhi, err := k.ends(ctx, id, lo, hi)
		if err != nil {
			return err
		}
		if rlo < rhi {
			if err := k.markEnds(ctx, id, rlo, rhi); err != nil {
				return err
			}
		}
		if err := k.lay.remove(ctx, id, lo, hi); err != nil {
			return fmt.Errorf("series: cannot delete readings of %s: %w", k.entity(id), err)
		}
		if err := k.fixLatest(ctx, id, lo, hi); err != nil {
			return err
		}
		return k.fixRollups(ctx, id, lo, hi, rlo, rhi)
	})
}

// DeleteSeries removes everything series id holds: its readings on every
// layout and shard (expired ones too), those of this Store's write buffer
// and write-ahead log (as Delete does), its rollups of every tier, its
// latest-reading item, its rollup and compaction markers and, for the
// DayPartitioned layout, its day directory. Writing to the series again
// afterwards starts it anew. It holds the Store's flushes, compaction and
// rollup passes as Delete does, and is idempotent: after a crash or an
// error, DeleteSeries again finishes it. Day partitions that the day
// directory does not list (a crash of a writer between the two, before
// its write-ahead log replayed) are not found.
func (k *Kind) DeleteSeries(ctx context.Context, id string) error {
	k, err := k.removing(id)
	if err != nil {
		return err
	}
	return k.exclusive(ctx, func() error {
		// Raw items first and the markers last: a crash in between
		// leaves markers whose passes find nothing.
		if err := k.lay.remove(ctx, id, minMs, maxMs); err != nil {
			return fmt.Errorf("series: cannot delete readings of %s: %w", k.entity(id), err)
		}
		for _, g := range []keys.Granularity{keys.Hour, keys.Day, keys.Month} {
			if err := k.removeItems(ctx, &table.Query{Hash: k.rollupPK(id, g)}, nil); err != nil {
				return fmt.Errorf("series: cannot delete rollups of %s: %w", k.entity(id), err)
			}
		}
		if _, err := k.st.tbl.Delete(ctx, table.K(k.latestPK(id), latestSK), nil); err != nil {
			return fmt.Errorf("series: cannot delete the latest reading of %s: %w", k.entity(id), err)
		}
		for _, pk := range []string{k.markerPK(), k.compactPK()} {
			if err := k.removeItems(ctx, &table.Query{Hash: pk, Range: table.BeginsWith(id + keys.Sep)}, nil); err != nil {
				return fmt.Errorf("series: cannot delete markers of %s: %w", k.entity(id), err)
			}
		}
		// The Store no longer trusts that the markers it wrote exist.
		k.st.mark.forget(k.s.Name, id)
		return nil
	})
}

// exclusive runs fn with the Store's flushes held, after flushing the
// buffer and making the log's release of what it flushed durable, and
// with the compaction and rollup passes held.
func (k *Kind) exclusive(ctx context.Context, fn func() error) error {
	b := k.st.buf
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	if err := b.flushLocked(ctx); err != nil {
		return err
	}
	if l := k.st.wal; l != nil {
		// An empty Append returns once the releases made before it are
		// durable: a replay no longer writes the flushed readings again.
		if _, err := l.Append(ctx); err != nil {
			return fmt.Errorf("series: cannot sync the write-ahead log: %w", err)
		}
	}
	k.st.compactMu.Lock()
	defer k.st.compactMu.Unlock()
	k.st.rollupMu.Lock()
	defer k.st.rollupMu.Unlock()
	return fn()
}

// removeItems deletes the items of query q (read strongly consistent)
// that keep (nil: all) selects.
func (k *Kind) removeItems(ctx context.Context, q *table.Query, keep func(table.Item) bool) error {
	q.Consistent = true
	var dels []table.WriteRequest
	pk, _ := q.Hash.(string)
	for item, err := range k.st.tbl.QueryAll(ctx, q) {
		if err != nil {
			return err
		}
		if keep != nil && keep(item) {
			continue
		}
		sk, _ := getS(item, attrSK)
		dels = append(dels, table.DeleteRequest(table.K(pk, sk)))
	}
	return k.st.batchWrite(ctx, dels)
}

// ends returns the time of the first reading of series id in [lo, hi)
// and that of the last plus one; rlo >= rhi if it has none.
func (k *Kind) ends(ctx context.Context, id string, lo, hi int64) (rlo, rhi int64, err error) {
	rlo, rhi = maxMs, minMs
	for _, rev := range []bool{false, true} {
		it := k.iter(ctx, id, Query{From: msTime(lo), To: msTime(hi), Reverse: rev, Limit: 1}, nil)
		if it.Next() {
			if t := it.cur.t[it.ci]; rev {
				rhi = t + 1
			} else {
				rlo = t
			}
		}
		err = it.Err()
		it.Close()
		if err != nil {
			return 0, 0, fmt.Errorf("series: cannot read the readings of %s: %w", k.entity(id), err)
		}
	}
	return rlo, rhi, nil
}

// markEnds writes the rollup markers of the finest tier's periods that
// hold rlo and rhi-1, the first and last readings of a range to delete,
// so that the rollup pass recomputes them (and the coarser periods
// holding them) whatever happens to the delete.
func (k *Kind) markEnds(ctx context.Context, id string, rlo, rhi int64) error {
	f := k.finest()
	if f == 0 {
		return nil
	}
	ws := []table.WriteRequest{table.PutRequest(k.markerItem(id, periodKey(rlo, f)))}
	if p := periodKey(rhi-1, f); p != periodKey(rlo, f) {
		ws = append(ws, table.PutRequest(k.markerItem(id, p)))
	}
	if err := k.st.batchWrite(ctx, ws); err != nil {
		return fmt.Errorf("series: cannot write rollup markers: %w", err)
	}
	return nil
}

// fixRollups removes the rollups of series id whose periods lie whole in
// [lo, hi), and recomputes those holding rlo or rhi-1 (the first and last
// readings deleted) that straddle an end and ended LateWindow ago, finest
// tier first. The markers markEnds wrote stay: the rollup pass computes
// the periods again, as it does after any write.
func (k *Kind) fixRollups(ctx context.Context, id string, lo, hi, rlo, rhi int64) error {
	if k.finest() == 0 {
		return nil
	}
	for _, g := range k.s.Rollups {
		q := &table.Query{Hash: k.rollupPK(id, g), Range: table.Between(periodKey(lo, g), periodKey(hi-1, g))}
		err := k.removeItems(ctx, q, func(item table.Item) bool {
			sk, _ := getS(item, attrSK)
			st, _, err := keys.ParseTimeSeries(sk)
			s := timeMs(st)
			return err != nil || s < lo || periodEnd(s, g) > hi
		})
		if err != nil {
			return fmt.Errorf("series: cannot delete rollups of %s: %w", k.entity(id), err)
		}
	}
	if rlo >= rhi {
		return nil
	}
	ms, err := k.markers(ctx, id)
	if err != nil {
		return err
	}
	now, late := timeMs(k.st.now()), k.st.opts.LateWindow.Milliseconds()
	for _, g := range k.s.Rollups {
		for i, p := range []int64{periodStart(rlo, g), periodStart(rhi-1, g)} {
			inside := p >= lo && periodEnd(p, g) <= hi
			if inside || now < periodEnd(p, g)+late || (i == 1 && p == periodStart(rlo, g)) {
				continue
			}
			if err := k.recompute(ctx, id, g, p, ms); err != nil {
				return err
			}
		}
	}
	return nil
}

// fixLatest recomputes the latest-reading item of series id if its
// reading is in [lo, hi), which Delete removed: the newest reading left,
// or no item. It writes only if the item did not change meanwhile.
func (k *Kind) fixLatest(ctx context.Context, id string, lo, hi int64) error {
	old, found, err := k.latestStored(ctx, id)
	if err != nil || !found || old.t < lo || old.t >= hi {
		return err
	}
	cond := table.Expr("#o = :o", latestCondNames, map[string]types.AttributeValue{":o": strAV(latestOrd(old.t, old.p))})
	it := k.iter(ctx, id, Query{Reverse: true, Limit: 1}, nil)
	defer it.Close()
	if it.Next() {
		_, err = k.st.tbl.Put(ctx, k.latestItem(id, it.ranked()), &table.PutOptions{If: cond})
	} else if err = it.Err(); err == nil {
		_, err = k.st.tbl.Delete(ctx, table.K(k.latestPK(id), latestSK), &table.DeleteOptions{If: cond})
	}
	if err != nil && !table.IsConditionFailed(err) {
		return fmt.Errorf("series: cannot rewrite the latest reading of %s: %w", k.entity(id), err)
	}
	return nil
}
