package series

import (
	"context"
	"fmt"
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
// reverse order): readings of several items are sorted by position, and
// copies of a reading (in a merged chunk and its source, while both
// exist) are given once.
func readGroup(items []table.Item, reverse bool, decode func(table.Item) (*rbatch, error)) (*rbatch, error) {
	var group *rbatch
	merged := false
	for _, item := range items {
		b, err := decode(item)
		if err != nil {
			return nil, err
		}
		if _, ok := item[attrSrc]; ok {
			merged = true
		}
		if group == nil {
			group = b
		} else {
			group.appendBatch(b)
		}
	}
	if group == nil {
		return nil, nil
	}
	// One item's readings are in order already; several items of a group
	// may overlap in time.
	if len(items) > 1 || reverse {
		group = group.sort(reverse)
	}
	if merged && len(items) > 1 {
		group.dedupe()
	}
	return group, nil
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
