package series

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/timetable-db/timetable/table"
)

// groupReader reads the items of one partition in sort-key order, a group
// at a time: the items whose sort keys share their first prefixLen bytes
// (one hour of chunks, one bucket period). The items of a group may
// overlap in time, and with compaction a merged chunk and its sources may
// both be there, so readers take a group whole.
//
// A compactor deletes the sources of a merged chunk only CompactGrace
// after writing it, so a reader that reads a group's items within that
// time of each other sees each reading at least once (in the merged chunk
// or in its source). A group's items normally come from one backend call,
// or calls made one after the other; when the caller paused between two
// pages of one group (a lazy Iter) for more than spread, the group is read
// again in one go.
type groupReader struct {
	tbl          *table.Table
	q            table.Query // Hash, Range, Reverse, PageSize, Consistent
	loKey, hiKey string      // bounds of q.Range; hiKey "" if unbounded
	prefixLen    int
	now          func() time.Time
	spread       time.Duration // 0: never read a group again

	page   []table.Item
	pageAt time.Time
	cursor string
	end    bool
}

// fetch reads the next page.
func (g *groupReader) fetch(ctx context.Context) error {
	q := g.q
	q.Cursor = g.cursor
	q.Limit = g.q.PageSize
	q.PageSize = 0
	p, err := g.tbl.Query(ctx, &q)
	if err != nil {
		return err
	}
	g.page, g.pageAt, g.cursor = p.Items, g.now(), p.Cursor
	g.end = p.Cursor == ""
	return nil
}

// next returns the items of the next group, nil at the end.
func (g *groupReader) next(ctx context.Context) ([]table.Item, error) {
	var group []table.Item
	var prefix string
	var firstAt time.Time
	for {
		if len(g.page) == 0 {
			if g.end {
				break
			}
			if err := g.fetch(ctx); err != nil {
				return nil, err
			}
			continue
		}
		item := g.page[0]
		sk, _ := getS(item, attrSK)
		if len(sk) < g.prefixLen {
			return nil, fmt.Errorf("series: bad sort key %q in %v", sk, g.q.Hash)
		}
		if group != nil && sk[:g.prefixLen] != prefix {
			break
		}
		if group == nil {
			prefix, firstAt = sk[:g.prefixLen], g.pageAt
		}
		g.page[0] = nil
		g.page = g.page[1:]
		group = append(group, item)
	}
	// The group is what was read between its first item's page and the
	// page that ended it (or the end of the range): g.pageAt.
	if group != nil && g.spread > 0 && g.pageAt.Sub(firstAt) > g.spread {
		return g.reread(ctx, prefix)
	}
	return group, nil
}

// reread reads the group of sort-key prefix again, all its pages at once.
func (g *groupReader) reread(ctx context.Context, prefix string) ([]table.Item, error) {
	lo, hi := max(prefix, g.loKey), prefix+"~"
	if g.hiKey != "" {
		hi = min(hi, g.hiKey)
	}
	q := g.q
	q.Range, q.Cursor, q.Limit = table.Between(lo, hi), "", 0
	var out []table.Item
	for item, err := range g.tbl.QueryAll(ctx, &q) {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// readGroup decodes the items of a group into one batch in order (or
// reverse order): readings of several items are merged by position, and
// copies of a reading (in a merged chunk and its source, while both
// exist) are given once. Items all of whose readings are in merged chunks
// of the group are not read at all (see dropCovered).
func readGroup(items []table.Item, reverse bool, decode func(table.Item) (*rbatch, error)) (*rbatch, error) {
	runs, err := readGroupRuns(items, reverse, decode)
	if err != nil || len(runs) <= 1 {
		if len(runs) == 0 {
			return nil, err
		}
		return runs[0], err
	}
	return concatRuns(runs), nil
}

// readGroupRuns is readGroup giving the group as batches that follow one
// another in order (or reverse order): most groups are items that do not
// overlap in time, whose batches need no copy.
func readGroupRuns(items []table.Item, reverse bool, decode func(table.Item) (*rbatch, error)) ([]*rbatch, error) {
	if len(items) == 0 {
		return nil, nil
	}
	merged := anyMerged(items)
	if merged && len(items) > 1 {
		var err error
		if items, err = dropCovered(items); err != nil {
			return nil, err
		}
	}
	bs := make([]*rbatch, len(items))
	for i, item := range items {
		b, err := decode(item)
		if err != nil {
			return nil, err
		}
		if !b.sorted() {
			b = b.sort(false)
		}
		bs[i] = b
	}
	runs := mergeRuns(bs, merged)
	if reverse {
		slices.Reverse(runs)
		for i, b := range runs {
			runs[i] = b.sort(true)
		}
	}
	return runs, nil
}

// dropCovered returns the chunk items of a group less those whose every
// position is in a merged chunk ranked above them: merged chunks first,
// the larger first. The first item to hold a position is never dropped,
// so every position stays. It reads the items' headers and source maps
// only.
func dropCovered(items []table.Item) ([]table.Item, error) {
	cs := make([]citem, len(items))
	for i, item := range items {
		c, err := parseCItem(item)
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		if cs[x].merged != cs[y].merged {
			if cs[x].merged {
				return -1
			}
			return 1
		}
		return cmp.Compare(cs[y].n, cs[x].n)
	})
	above := coverage{}
	keep := make([]bool, len(cs))
	for _, i := range order {
		keep[i] = !above.contains(cs[i].cov)
		if cs[i].merged && keep[i] {
			above.merge(cs[i].cov)
		}
	}
	var out []table.Item
	for i, item := range items {
		if keep[i] {
			out = append(out, item)
		}
	}
	return out, nil
}

// mergeRuns returns batches, each in order, as batches that follow one
// another in order; with dedupe, a reading at the position of the one
// before it is left out. Batches whose spans overlap (a merged chunk and
// its sources, late readings) are merged reading by reading into one, the
// others kept as they are.
func mergeRuns(bs []*rbatch, dedupe bool) []*rbatch {
	runs := bs[:0:0]
	for _, b := range bs {
		if b.len() > 0 {
			runs = append(runs, b)
		}
	}
	slices.SortStableFunc(runs, func(a, b *rbatch) int { return cmpPos(a.pos(0), b.pos(0)) })
	var out []*rbatch
	for len(runs) > 0 {
		k, last := 1, runs[0].pos(runs[0].len()-1)
		for k < len(runs) && cmpPos(runs[k].pos(0), last) <= 0 {
			if l := runs[k].pos(runs[k].len() - 1); cmpPos(l, last) > 0 {
				last = l
			}
			k++
		}
		if k == 1 {
			out = append(out, runs[0])
		} else {
			out = append(out, mergeOverlapping(runs[:k], dedupe))
		}
		runs = runs[k:]
	}
	return out
}

// batchFor returns an empty batch with room for the readings of runs.
func batchFor(runs []*rbatch) *rbatch {
	n := 0
	for _, b := range runs {
		n += b.len()
	}
	out := &rbatch{nf: runs[0].nf, t: make([]int64, 0, n), seq: make([]uint64, 0, n), idx: make([]uint32, 0, n), vals: make([]float64, 0, n*runs[0].nf)}
	if runs[0].tags != nil {
		out.tags = make([][]string, 0, n)
	}
	return out
}

// concatRuns returns the readings of runs, one after the other, as one
// batch.
func concatRuns(runs []*rbatch) *rbatch {
	out := batchFor(runs)
	for _, b := range runs {
		out.appendBatch(b)
	}
	return out
}

// mergeOverlapping merges runs, each in order, into one batch in order.
func mergeOverlapping(runs []*rbatch, dedupe bool) *rbatch {
	out := batchFor(runs)
	at := make([]int, len(runs))
	for {
		best := -1
		for r, b := range runs {
			if at[r] < b.len() && (best < 0 || cmpPos(b.pos(at[r]), runs[best].pos(at[best])) < 0) {
				best = r
			}
		}
		if best < 0 {
			return out
		}
		b, i := runs[best], at[best]
		at[best]++
		if dedupe && out.len() > 0 && cmpPos(out.pos(out.len()-1), b.pos(i)) == 0 {
			continue
		}
		out.t = append(out.t, b.t[i])
		out.seq = append(out.seq, b.seq[i])
		out.idx = append(out.idx, b.idx[i])
		out.vals = append(out.vals, b.vals[i*b.nf:(i+1)*b.nf]...)
		if out.tags != nil {
			out.tags = append(out.tags, b.tags[i])
		}
	}
}

// anyMerged reports whether one of items is a merged chunk.
func anyMerged(items []table.Item) bool {
	for _, it := range items {
		if _, ok := it[attrSrc]; ok {
			return true
		}
	}
	return false
}
