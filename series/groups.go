package series

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series/internal/chunk"
	"github.com/timetable-db/timetable/table"
)

// groupReader reads the items of one partition in sort-key order, a group
// at a time: the items whose sort keys share their first prefixLen bytes
// (one bucket period; for chunks, see below). The items of a group may
// overlap in time, and with compaction a merged chunk and its sources may
// both be there, so readers take a group whole.
//
// Chunk items lie within the hour of their key, except day pieces (see
// isDayPiece), keyed at 00:00:00.000 of their day: so the chunks of a day
// with a day piece are one group (the day), those of other days a group
// per hour. Reading forward, a day's pieces come first among its items;
// the pieces of the day the range starts in, before the range's first
// hour, are looked up by a query of the keys at the day's start (a
// "lookup"), as are those of each day a reverse read enters. Each group
// comes with the window of time it gives readings of: its hour or day,
// less what the groups before it gave (a day found to have a piece after
// some of its hours were read as hours gives the rest of the day).
//
// A compactor deletes the sources of a merged chunk only CompactGrace
// after writing it, so a reader that reads a group's items (and what it
// knows of its day's pieces) within that time of each other sees each
// reading at least once (in the merged chunk or in its source). A group's
// items normally come from one backend call, or calls made one after the
// other; when the caller paused between two pages of one group (a lazy
// Iter) for more than spread, the group is read again in one go, and a
// day's pieces are looked up again when what is known of them is older
// than spread at a group's first page.
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

	// Chunks only.
	chunks   bool
	headDay  int64       // the day of loKey
	headLook bool        // its pieces precede loKey: look them up
	headDone bool        // its pieces were given in a day group
	pieces   *pieceCache // the Store's, for reads not consistent; or nil
	started  bool
	days     map[int64]*dayInfo
	bound    int64 // end (start, reverse) of the last window given
	// from and to bound the windows given: the range read, [from, to),
	// so that a group's readings outside it are cut off at once.
	from, to int64
	inHours  bool // the last group was an hour of day hoursOf
	hoursOf  int64
}

// dayInfo is what a reader knows of a day's pieces, and since when.
type dayInfo struct {
	at     time.Time
	pieces []table.Item
}

// rgroup is a group of items and the window [lo, hi) of the readings it
// gives.
type rgroup struct {
	items  []table.Item
	lo, hi int64
}

// fetch reads the next page.
func (g *groupReader) fetch(ctx context.Context) error {
	q := g.fetchQuery()
	p, err := g.tbl.Query(ctx, &q)
	if err != nil {
		return err
	}
	g.setPage(p)
	return nil
}

// fetchQuery returns the query of the next page.
func (g *groupReader) fetchQuery() table.Query {
	q := g.q
	q.Cursor = g.cursor
	q.Limit = g.q.PageSize
	if g.chunks && g.cursor == "" {
		// A short read (newest N) needs an hour or two of chunks.
		q.Limit = (q.Limit + 1) / 2
	}
	q.PageSize = 0
	return q
}

// setPage takes p, the answer to fetchQuery just read, as the next page.
func (g *groupReader) setPage(p *table.Page) {
	g.page, g.pageAt, g.cursor = p.Items, g.now(), p.Cursor
	g.end = p.Cursor == ""
}

// unread reports whether g has read nothing yet: its first page may be
// read for it (see Kind.ReadColumns), before any day-piece lookup. A
// page read before a lookup keeps what the lookup tells true of it: the
// lookup sees any merged chunk written before the page was read (see
// groupReader).
func (g *groupReader) unread() bool {
	return !g.started && g.page == nil && g.cursor == "" && !g.end
}

// pending returns the readings of the items of the page read and not
// yet given, by their counts (a merged chunk's from its header), each at
// most chunk.MaxReadings: an estimate to size a page by.
func (g *groupReader) pending() int {
	n := 0
	for _, item := range g.page {
		if c, ok := getInt(item, attrN); ok {
			n += int(min(max(c, 0), chunk.MaxReadings))
		} else if b, ok := getB(item, attrData); ok {
			if c, err := chunk.Open(b); err == nil {
				n += c.Len()
			}
		}
	}
	return n
}

// isDayPiece reports whether a chunk item spans more than the hour of
// its key: a day piece, keyed at the start of its day (see mergedItem).
func isDayPiece(item table.Item) bool {
	sk, _ := getS(item, attrSK)
	end, ok := getInt(item, attrEnd)
	if !ok || len(sk) < hourPrefixLen {
		return false
	}
	h, err := time.Parse(hourFormat, sk[:hourPrefixLen])
	return err == nil && end >= periodEnd(timeMs(h), keys.Hour)
}

const (
	hourFormat = "2006-01-02T15"
	dayFormat  = "2006-01-02"
)

// lookup reads the day pieces of the day that starts at day, or takes
// the Store's recent lookup that found none (see pieceCache).
func (g *groupReader) lookup(ctx context.Context, day int64) (*dayInfo, error) {
	info := &dayInfo{at: g.now()}
	pk, _ := g.q.Hash.(string)
	if g.pieces != nil {
		if at, ok := g.pieces.none(pk, day, info.at, g.spread); ok {
			info.at = at
			g.days[day] = info
			return info, nil
		}
	}
	q := table.Query{Hash: g.q.Hash, Range: table.Between(ts(day), ts(day)+"#~"), Consistent: g.q.Consistent}
	for item, err := range g.tbl.QueryAll(ctx, &q) {
		if err != nil {
			return nil, err
		}
		if isDayPiece(item) {
			info.pieces = append(info.pieces, item)
		}
	}
	if g.pieces != nil {
		g.pieces.found(pk, day, len(info.pieces), info.at, g.spread)
	}
	g.days[day] = info
	return info, nil
}

// dayInfo returns what is known of the pieces of the day that starts at
// day, looked up again if older than spread at time at.
func (g *groupReader) dayInfo(ctx context.Context, day int64, at time.Time) (*dayInfo, error) {
	if info := g.days[day]; info != nil && (g.spread <= 0 || (at.Sub(info.at) <= g.spread && info.at.Sub(at) <= g.spread)) {
		return info, nil
	}
	return g.lookup(ctx, day)
}

// next returns the items of the next group, nil at the end.
func (g *groupReader) next(ctx context.Context) (rgroup, error) {
	if !g.chunks {
		items, prefix, firstAt, err := g.collect(ctx, nil, "", g.prefixLen, nil)
		if err == nil && items != nil && g.spread > 0 && g.pageAt.Sub(firstAt) > g.spread {
			items, err = g.reread(ctx, prefix)
		}
		return rgroup{items: items, lo: minMs, hi: maxMs}, err
	}
	if !g.started {
		g.started = true
		g.days = map[int64]*dayInfo{}
		g.bound = minMs
		if g.q.Reverse {
			g.bound = maxMs
		}
	}
	if g.inHours {
		// Leaving a day read as hours: if it has a piece now (written
		// since), the piece gives the rest of the day.
		sk, err := g.peek(ctx)
		if err != nil {
			return rgroup{}, err
		}
		// The day's text in a buffer of the stack: made a string only
		// when used.
		var buf [len(dayFormat) + 8]byte
		if d := msTime(g.hoursOf).AppendFormat(buf[:0], dayFormat); sk == "" || sk[:len(dayFormat)] != string(d) {
			g.inHours = false
			info, err := g.dayInfo(ctx, g.hoursOf, g.pageAt)
			if err != nil {
				return rgroup{}, err
			}
			if len(info.pieces) > 0 {
				return g.window(info.pieces, string(d), g.hoursOf), nil
			}
		}
	}
	var (
		items   []table.Item
		prefix  string
		plen    = hourPrefixLen
		firstAt time.Time
		day     int64
		info    *dayInfo
	)
	if g.headLook && !g.q.Reverse && !g.headDone {
		// The pieces of the first day precede the range.
		g.headDone = true
		var err error
		if info, err = g.lookup(ctx, g.headDay); err != nil {
			return rgroup{}, err
		}
		if len(info.pieces) > 0 {
			day, plen, firstAt = g.headDay, len(dayFormat), info.at
			prefix = msTime(day).Format(dayFormat)
			items = append(items, info.pieces...)
		}
	}
	// first decides the group of its first item: its day if the day has
	// a piece, else its hour.
	first := func(ctx context.Context, sk string) (int, error) {
		d, err := time.Parse(dayFormat, sk[:len(dayFormat)])
		if err != nil {
			return 0, fmt.Errorf("series: bad sort key %q in %v", sk, g.q.Hash)
		}
		day = timeMs(d)
		switch known := g.days[day]; {
		case g.q.Reverse || known != nil:
			if info, err = g.dayInfo(ctx, day, g.pageAt); err != nil {
				return 0, err
			}
		default:
			// Forward, a day's pieces come first among its items: the
			// page that holds its first item tells.
			info = &dayInfo{at: g.pageAt}
			g.days[day] = info
		}
		if len(info.pieces) > 0 {
			return len(dayFormat), nil
		}
		return hourPrefixLen, nil
	}
	seeded, seedAt := prefix != "", firstAt
	var err error
	items, prefix, firstAt, err = g.collect(ctx, items, prefix, plen, first)
	if err != nil {
		return rgroup{}, err
	}
	if seeded {
		firstAt = seedAt
	}
	if prefix == "" {
		// The end. Reverse, the first day's pieces precede the range.
		if !g.headLook || !g.q.Reverse || g.headDone {
			return rgroup{}, nil
		}
		g.headDone = true
		if info, err = g.dayInfo(ctx, g.headDay, g.now()); err != nil || len(info.pieces) == 0 {
			return rgroup{}, err
		}
		day, firstAt = g.headDay, info.at
		prefix = msTime(day).Format(dayFormat)
		items = append(items, info.pieces...)
	}
	if g.spread > 0 && (g.pageAt.Sub(firstAt) > g.spread || g.pageAt.Sub(info.at) > g.spread) {
		if items, err = g.reread(ctx, prefix); err != nil {
			return rgroup{}, err
		}
		if info, err = g.lookup(ctx, day); err != nil {
			return rgroup{}, err
		}
	}
	// The day's pieces, once.
	have := make(map[string]bool, len(items))
	for _, it := range items {
		sk, _ := getS(it, attrSK)
		have[sk] = true
	}
	for _, it := range info.pieces {
		if sk, _ := getS(it, attrSK); !have[sk] {
			items = append(items, it)
		}
	}
	g.inHours, g.hoursOf = len(prefix) == hourPrefixLen, day
	return g.window(items, prefix, day), nil
}

// window returns the group of items of sort-key prefix (an hour or the
// day that starts at day) with its window: its hour or day less what the
// groups before it gave.
func (g *groupReader) window(items []table.Item, prefix string, day int64) rgroup {
	if len(prefix) == len(dayFormat) && day == g.headDay {
		g.headDone = true
	}
	lo, hi := day, periodEnd(day, keys.Day)
	if len(prefix) == hourPrefixLen {
		h, _ := time.Parse(hourFormat, prefix)
		lo = timeMs(h)
		hi = periodEnd(lo, keys.Hour)
	}
	if g.q.Reverse {
		hi = min(hi, g.bound)
		g.bound = lo
	} else {
		lo = max(lo, g.bound)
		g.bound = hi
	}
	return rgroup{items: items, lo: max(lo, g.from), hi: min(hi, g.to)}
}

// peek returns the sort key of the next item, "" at the end.
func (g *groupReader) peek(ctx context.Context) (string, error) {
	for len(g.page) == 0 {
		if g.end {
			return "", nil
		}
		if err := g.fetch(ctx); err != nil {
			return "", err
		}
	}
	sk, _ := getS(g.page[0], attrSK)
	if len(sk) < hourPrefixLen {
		return "", fmt.Errorf("series: bad sort key %q in %v", sk, g.q.Hash)
	}
	return sk, nil
}

// collect appends to group the items of the next group, of sort-key
// prefix (of length plen) if given, else that of the next item, whose
// length first decides if not nil (a chunk item that is a day piece read
// forward makes its group the day). It returns the group, its prefix and
// when the page of its first item was read.
func (g *groupReader) collect(ctx context.Context, group []table.Item, prefix string, plen int, first func(context.Context, string) (int, error)) ([]table.Item, string, time.Time, error) {
	firstAt := g.pageAt
	for {
		if len(g.page) == 0 {
			if g.end {
				break
			}
			if err := g.fetch(ctx); err != nil {
				return nil, "", firstAt, err
			}
			continue
		}
		item := g.page[0]
		sk, _ := getS(item, attrSK)
		if len(sk) < max(plen, g.prefixLen) {
			return nil, "", firstAt, fmt.Errorf("series: bad sort key %q in %v", sk, g.q.Hash)
		}
		if prefix == "" {
			if first != nil {
				var err error
				if plen, err = first(ctx, sk); err != nil {
					return nil, "", firstAt, err
				}
			}
			prefix, firstAt = sk[:plen], g.pageAt
		} else if sk[:plen] != prefix {
			break
		}
		if first != nil && !g.q.Reverse && plen == hourPrefixLen && isDayPiece(item) {
			// A day piece, first among its day's items: the group is
			// the day.
			plen = len(dayFormat)
			prefix = prefix[:plen]
			if d, err := time.Parse(dayFormat, prefix); err == nil {
				info := g.days[timeMs(d)]
				if info == nil {
					info = &dayInfo{at: g.pageAt}
					g.days[timeMs(d)] = info
				}
				info.pieces = append(info.pieces, item)
			}
		}
		g.page[0] = nil
		g.page = g.page[1:]
		group = append(group, item)
	}
	return group, prefix, firstAt, nil
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

// trimRuns returns the readings of runs (in order, or in reverse order)
// within [lo, hi).
func trimRuns(runs []*rbatch, lo, hi int64, reverse bool) []*rbatch {
	out := runs[:0]
	for _, b := range runs {
		var from, to int
		if reverse {
			from = sort.Search(b.len(), func(j int) bool { return b.t[j] < hi })
			to = sort.Search(b.len(), func(j int) bool { return b.t[j] < lo })
		} else {
			from, _ = slices.BinarySearch(b.t, lo)
			to, _ = slices.BinarySearch(b.t, hi)
		}
		if from >= to {
			continue
		}
		if from > 0 || to < b.len() {
			b = b.slice(from, to)
		}
		out = append(out, b)
	}
	return out
}

// slice returns readings [from, to) of b, sharing its arrays.
func (b *rbatch) slice(from, to int) *rbatch {
	out := &rbatch{nf: b.nf, t: b.t[from:to], seq: b.seq[from:to], idx: b.idx[from:to], vals: b.vals[from*b.nf : to*b.nf]}
	if b.tags != nil {
		out.tags = b.tags[from:to]
	}
	return out
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
