package series

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/timetable-db/timetable/design"
	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series/internal/chunk"
	"github.com/timetable-db/timetable/table"
)

// chunkLayout is the Chunks layout: the readings of each flush as new
// compressed chunk items, one per series, hour and shard, pk = SENSOR#id
// (#S07), sk = the first reading's timestamp and the batch's sequence
// number; compaction merges them (compact.go).
type chunkLayout struct{ k *Kind }

func (l chunkLayout) puts(id string, recs []rec) ([]table.Item, apos, error) {
	return l.k.chunkItems(id, recs)
}

func (l chunkLayout) stream(id string, sh int, lo, hi int64, reverse bool, pageSize int) *stream {
	ps := 0
	if pageSize > 0 {
		ps = 16
	}
	k := l.k
	return k.groupStream(k.chunkReader(id, sh, lo, hi, reverse, ps, false), k.decodeChunkIn)
}

func (l chunkLayout) decode(item table.Item) (*rbatch, error) { return l.k.decodeChunkItem(item) }

// newKeys is true: a chunk's sort key holds its sequence number.
func (l chunkLayout) newKeys() bool { return true }

// indexFrom is the start of lo's day: a chunk lies within its hour, or
// (a day piece) is keyed at the start of its day (see chunkKeyRange).
func (l chunkLayout) indexFrom(lo int64) int64 { return periodStart(lo, keys.Day) }

func (l chunkLayout) indexed(string) []string { return []string{attrData, attrSrc, attrBase} }

// compact merges the chunk items of a period (compact.go).
func (l chunkLayout) compact(ctx context.Context, id string, g keys.Granularity, start int64, grace time.Duration) (bool, error) {
	return l.k.compactPeriod(ctx, id, g, start, grace)
}

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
//
// The bases are multiples of seqStride (the numbering skips to the next
// one after each chunk), so that a key has the low bits of the Store's
// sequence numbers, its id: the keys of two Stores never meet. A key is
// also at most the largest number of the shard's n readings (base is at
// most seqStride times the readings before the chunk, and n numbers of
// one Store are (n-1)*seqStride apart at least), so it is below the
// numbers of the series' next batch: a Store's keys never meet either.
// (Chunks written before ids had consecutive bases; they read the same.)
//
// It also returns the position of the last of recs, its rank (see
// ranked): the last of its shard's, so of the shard's last chunk.
func (k *Kind) chunkItems(id string, recs []rec) ([]table.Item, apos, error) {
	app, _ := k.apps.Get().(*chunk.Appender)
	if app == nil {
		var err error
		if app, err = chunk.NewAppender(k.s.Fields); err != nil {
			return nil, apos{}, err
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
	var last apos
	lastSh := -1 // the shard of the last reading
	if len(recs) > 0 {
		lastSh = k.shardOf(recs[len(recs)-1].t)
	}
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
			var lastIdx uint32
			if items, base, lastIdx, err = k.chunkGroup(app, id, sh, rs[:n], cseq, base, items); err != nil {
				return nil, apos{}, err
			}
			if n == len(rs) && sh == lastSh {
				last = apos{cseq, lastIdx}
			}
			rs = rs[n:]
		}
	}
	return items, last, nil
}

// chunkGroup appends to items the chunk item(s) of recs, all in one hour
// and shard, at positions (cseq, base + i), encoded with app (an appender
// of the kind's fields, which it resets first). base is a multiple of
// seqStride; it returns the next one after the positions it used, and
// the index of the last of recs (a chunk split in two moves the second
// half's indexes on).
func (k *Kind) chunkGroup(app *chunk.Appender, id string, sh int, recs []rec, cseq uint64, base int, items []table.Item) ([]table.Item, int, uint32, error) {
	app.Reset()
	for i := range recs {
		if err := app.Append(recs[i].t, recs[i].vals); err != nil {
			return nil, 0, 0, fmt.Errorf("series: cannot encode a chunk: %w", err)
		}
	}
	data := app.Bytes()
	var tagCol []byte
	if len(k.s.Tags) > 0 {
		tagCol = encodeTags(len(recs), len(k.s.Tags), func(i, j int) string { return recs[i].tags[j] })
	}
	if len(data)+len(tagCol) > maxChunkBytes && len(recs) > 1 {
		half := len(recs) / 2
		items, next, _, err := k.chunkGroup(app, id, sh, recs[:half], cseq, base, items)
		if err != nil {
			return nil, 0, 0, err
		}
		return k.chunkGroup(app, id, sh, recs[half:], cseq, next, items)
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
	k.putSourceTTL(it, last)
	k.putMetric(it, id, first, key)
	return append(items, it), int(alignSeq(uint64(base+len(recs)), 0)), uint32(base + len(recs) - 1), nil
}

func fromChunkAgg(a chunk.Aggregate) agg {
	if a.Count == 0 {
		return agg{}
	}
	return agg{n: int64(a.Count), sum: a.Sum, min: a.Min, max: a.Max, first: a.First, last: a.Last, firstT: a.FirstTime, lastT: a.LastTime}
}

// chunkReader returns a reader of the groups of chunk items of shard sh
// of series id that may hold readings of [lo, hi): an hour of chunks, or
// a day of a day that has a day piece (see groupReader). pageSize is the
// items of a backend page (0: as many as fit).
func (k *Kind) chunkReader(id string, sh int, lo, hi int64, reverse bool, pageSize int, consistent bool) *groupReader {
	loKey, hiKey := k.chunkKeyRange(lo, hi)
	q := &table.Query{Hash: k.rawPK(id, sh), Range: skRange(loKey, hiKey, hi), Reverse: reverse, PageSize: pageSize, Consistent: consistent}
	g := k.groupReader(q, loKey, hiKey, hourPrefixLen)
	g.chunks = true
	g.from, g.to = lo, hi
	// Compaction deletes a merged chunk's sources CompactGrace after
	// writing it: a group read over a longer time is read again.
	g.spread = k.st.opts.CompactGrace / 2
	if !consistent {
		g.pieces = &k.st.pieces
	}
	g.headDay = periodStart(lo, keys.Day)
	g.headLook = loKey > ts(g.headDay)
	return g
}

// hourPrefixLen is the length of the hour prefix of a chunk's sort key,
// "2024-12-01T14".
const hourPrefixLen = len("2024-12-01T14")

// chunkKeyRange returns the sort-key range of the chunk items that may
// hold readings of [lo, hi), day pieces aside: a chunk item other than a
// day piece lies within the hour of its first reading, its key (a flush's
// chunk never spans two hours; compaction merges an hour's items), and a
// day piece is keyed at the start of its day (see groupReader). hiKey is
// "" when hi is unbounded.
func (k *Kind) chunkKeyRange(lo, hi int64) (loKey, hiKey string) {
	loKey = ts(periodStart(lo, keys.Hour))
	if hi < maxMs {
		hiKey = ts(hi-1) + "#~"
	}
	return loKey, hiKey
}

// decodeChunkItem decodes a chunk item's readings. Fields are found by
// name, so chunks written before a field was added read it as absent.
func (k *Kind) decodeChunkItem(item table.Item) (*rbatch, error) {
	b, _, err := decodeChunk(item, k.s.Fields, len(k.s.Tags), nil)
	return b, err
}

// decodeChunkIn is decodeChunkItem with the batch's columns carved from
// arena a (see colArena).
func (k *Kind) decodeChunkIn(item table.Item, a *colArena) (*rbatch, error) {
	b, _, err := decodeChunk(item, k.s.Fields, len(k.s.Tags), a)
	return b, err
}

// chunkPosition returns the position of the first reading of a flushed
// chunk item: its sequence number and index (see chunkItems).
func chunkPosition(item table.Item) (seq uint64, base uint32, err error) {
	sk, _ := getS(item, attrSK)
	_, key, err := keys.ParseUnique(sk)
	if err != nil {
		return 0, 0, fmt.Errorf("series: bad chunk key %q: %w", sk, err)
	}
	if b, ok := getInt(item, attrBase); ok {
		if b < 0 || b >= 1<<31 || uint64(b) > key {
			return 0, 0, fmt.Errorf("series: chunk %q: bad index base %d", sk, b)
		}
		base = uint32(b)
	}
	return key - uint64(base), base, nil
}

// decodeChunk decodes the readings of a chunk item (small or merged) into
// a batch of the fields named fields (absent ones NaN) and nt tags, each
// reading with its position. It also returns the merged item's source
// map (nil for a chunk written by a flush). The batch's columns are
// carved from arena a if not nil, else allocated.
func decodeChunk(item table.Item, fields []string, nt int, a *colArena) (*rbatch, *srcMap, error) {
	sk, _ := getS(item, attrSK)
	cseq, base, err := chunkPosition(item)
	if err != nil {
		return nil, nil, err
	}
	data, ok := getB(item, attrData)
	if !ok {
		return nil, nil, fmt.Errorf("series: chunk %q has no data", sk)
	}
	c, err := chunk.Open(data)
	if err != nil {
		return nil, nil, fmt.Errorf("series: chunk %q: %w", sk, err)
	}
	n := c.Len()
	nf := len(fields)
	var b *rbatch
	if a != nil {
		b = a.batch(n, nf)
	} else {
		b = &rbatch{nf: nf, t: make([]int64, n), seq: make([]uint64, n), idx: make([]uint32, n), vals: make([]float64, n*nf)}
	}
	if err := c.DecodeTimes(b.t); err != nil {
		return nil, nil, fmt.Errorf("series: chunk %q: %w", sk, err)
	}
	var sm *srcMap
	if raw, ok := getB(item, attrSrc); ok {
		m, err := decodeSrcMap(raw, n)
		if err != nil {
			return nil, nil, fmt.Errorf("series: chunk %q: %w", sk, err)
		}
		m.positions(b.seq, b.idx)
		sm = &m
	} else {
		for i := range b.seq {
			b.seq[i], b.idx[i] = cseq, base+uint32(i)
		}
	}
	var col []float64
	for j, f := range fields {
		ci := c.Index(f)
		if ci < 0 {
			for i := 0; i < n; i++ {
				b.vals[i*nf+j] = nan
			}
			continue
		}
		if nf == 1 {
			if err := c.DecodeField(ci, b.vals); err != nil {
				return nil, nil, fmt.Errorf("series: chunk %q: %w", sk, err)
			}
			continue
		}
		if col == nil {
			if a != nil {
				col = a.scratch(n)
			} else {
				col = make([]float64, n)
			}
		}
		if err := c.DecodeField(ci, col); err != nil {
			return nil, nil, fmt.Errorf("series: chunk %q: %w", sk, err)
		}
		for i, v := range col {
			b.vals[i*nf+j] = v
		}
	}
	if nt > 0 {
		if raw, ok := getB(item, attrTags); ok {
			b.tags, err = decodeTags(raw, n, nt)
			if err != nil {
				return nil, nil, fmt.Errorf("series: chunk %q: %w", sk, err)
			}
		} else {
			b.tags = make([][]string, n)
			empty := make([]string, nt)
			for i := range b.tags {
				b.tags[i] = empty
			}
		}
	}
	return b, sm, nil
}

func (l chunkLayout) describe(r *rawDesign) ([]design.Entity, error) {
	k := r.d.k
	hour, aggs, raw, rawPK := r.hour, r.aggs, r.raw, r.rawPK
	e := design.Entity{
		Name:        "Chunk",
		Description: "The readings of one series, hour and shard written by one flush, compressed (delta-of-delta timestamps, XOR or decimal floats), with their aggregates as plain attributes. Written once as a new item, never updated in place. Compaction merges the chunks of an hour into one, and then those of a day into one if they hold at most 32 KB of chunk data: a chunk never spans two days.",
		Keys:        map[string]design.Template{attrPK: rawPK, attrSK: design.Template(phStart + keys.Sep + phSeq)},
		Attributes: append(append([]design.Attribute{idAttr,
			tsAttr("start", "Time of the chunk's first reading."),
			seqAttr, dayAttr,
			{Name: attrData, Type: "B", Description: "The compressed readings."},
			{Name: attrTags, Type: "B", Description: "The tag column, if the kind has tags."},
			{Name: attrN, Type: "N", Description: "Readings in the chunk."},
			{Name: attrEnd, Type: "N", Description: "Time of the last reading, Unix milliseconds."},
			{Name: attrBase, Type: "N", Description: "Of a flushed chunk, when not 0: the index of its first reading among its batch's readings of the shard (the sort key's suffix is the batch's sequence number plus it)."},
			{Name: attrSrc, Type: "B", Description: "Of a merged chunk (compaction): the position of each reading in the chunks it was first written in."},
		}, aggs...), ttlAttr),
		TTL:       attrTTL,
		Retention: raw + " (raw tier) after its last reading.",
	}
	real := map[string]string{attrPK: k.rawPK(designID, 0), attrSK: orderKey(hour, designSeq)}
	r.d.metricKeys(e.Keys, real, "start", hour, designSeq)
	if err := example(&e, real, "day", periodKey(hour, keys.Day)); err != nil {
		return nil, err
	}
	raws := []design.Entity{e}
	r.rangePattern.Key = "pk = " + string(rawPK) + " AND sk BETWEEN {fromDay} AND {to}#~"
	r.rangePattern.Params = []design.Attribute{
		{Name: "fromDay", Format: design.LayoutTimestamp, Description: "Start of the day of from: a chunk that starts earlier in that day may hold readings of the range."},
		{Name: "to", Format: design.LayoutTimestamp, Description: "The last millisecond of the range; #~ sorts after every suffix."},
	}
	r.rangePattern.Returns = []string{"Chunk"}
	r.newest.Key = "pk = " + string(rawPK)
	r.newest.Returns, r.newest.Limit = []string{"Chunk"}, 16
	return raws, nil
}

// units folds the readings of [lo, hi) (within the raw cutoff) as
// Kind.rawUnits does. Chunks that lie whole in one bucket, have not partly
// expired and share no instant with another item or a pending reading
// contribute their stored aggregates without being decoded.
func (l chunkLayout) units(ctx context.Context, id string, lo, hi int64, pending []rec, bucket func(int64) int64, fn func(start int64, u unit)) error {
	k := l.k
	nf := len(k.s.Fields)
	// A chunk whose sequence number is that of a pending reading is being
	// flushed: pending holds all its readings.
	var skip map[uint64]bool
	// The pending readings in range, by shard; a group of chunks that
	// shares an instant with some takes them (used).
	pend := make([][]rec, k.s.Shards)
	used := make([][]bool, k.s.Shards)
	if len(pending) > 0 {
		skip = make(map[uint64]bool, len(pending))
		for i := range pending {
			r := pending[i]
			skip[r.seq] = true
			if r.t >= lo && r.t < hi {
				sh := k.shardOf(r.t)
				pend[sh] = append(pend[sh], r)
			}
		}
		for sh := range pend {
			used[sh] = make([]bool, len(pend[sh]))
		}
	}
	var mu sync.Mutex
	// scratch is the unit of one reading, reused (under mu): fn keeps
	// none.
	scratch := newUnit(nf)
	// fold folds the readings of b (in order) in [wlo, whi) (a group's
	// window) and [lo, hi), the duplicate rule applied.
	fold := func(b *rbatch, wlo, whi int64) {
		b = k.resolve(b)
		wlo, whi = max(wlo, lo), min(whi, hi)
		mu.Lock()
		defer mu.Unlock()
		for i, t := range b.t {
			if t >= wlo && t < whi {
				scratch.n = 0
				clear(scratch.fields)
				scratch.addReading(t, apos{b.seq[i], b.idx[i]}, b.vals[i*nf:(i+1)*nf])
				fn(bucket(t), scratch)
			}
		}
	}
	err := k.st.parallel(ctx, k.s.Shards, func(ctx context.Context, sh int) error {
		g := k.chunkReader(id, sh, lo, hi, false, 0, false)
		for {
			grp, err := g.next(ctx)
			if err != nil {
				return fmt.Errorf("series: cannot read chunks of %s: %w", k.entity(id), err)
			}
			if grp.items == nil {
				return nil
			}
			type span struct {
				first, last int64
				seq         uint64
				base        uint32
			}
			var items []table.Item
			var spans []span
			for _, item := range grp.items {
				sk, _ := getS(item, attrSK)
				first, _, err := keys.ParseUnique(sk)
				if err != nil {
					return fmt.Errorf("series: bad chunk key %q: %w", sk, err)
				}
				seq, base, err := chunkPosition(item)
				if err != nil {
					return err
				}
				if _, merged := item[attrSrc]; !merged && skip[seq] {
					continue
				}
				last, ok := getInt(item, attrEnd)
				if !ok {
					last = maxMs
				}
				items = append(items, item)
				spans = append(spans, span{timeMs(first), last, seq, base})
			}
			// Does an instant hold readings of two items, or of an item
			// and a pending reading? Then the group is decoded whole.
			whole := len(items) > 1 && anyMerged(items)
			for i := 0; i < len(spans) && !whole; i++ {
				for j := i + 1; j < len(spans) && !whole; j++ {
					whole = spans[i].first <= spans[j].last && spans[j].first <= spans[i].last
				}
			}
			wlo, whi := max(grp.lo, lo), min(grp.hi, hi)
			var mine *rbatch
			for i, r := range pend[sh] {
				if used[sh][i] || r.t < wlo || r.t >= whi {
					continue
				}
				for _, sp := range spans {
					if r.t >= sp.first && r.t <= sp.last {
						if mine == nil {
							mine = k.newBatch(1)
						}
						mine.add(&pend[sh][i], 0)
						used[sh][i] = true
						break
					}
				}
			}
			if whole || mine != nil {
				b, err := readGroup(items, false, k.decodeChunkItem)
				if err != nil {
					return err
				}
				if mine != nil {
					if b == nil {
						b = mine
					} else {
						b = concatRuns(mergeRuns([]*rbatch{b, mine}, false))
					}
				}
				if b != nil {
					fold(b, grp.lo, grp.hi)
				}
				continue
			}
			for i, item := range items {
				sp := spans[i]
				if sp.first >= wlo && sp.last < whi && bucket(sp.first) == bucket(sp.last) {
					u, err := getUnit(item, &k.s)
					if err == nil {
						u.atChunk(sp.seq, sp.base)
						mu.Lock()
						fn(bucket(sp.first), u)
						mu.Unlock()
						continue
					}
				}
				b, err := k.decodeChunkItem(item)
				if err != nil {
					return err
				}
				fold(b, grp.lo, grp.hi)
			}
		}
	})
	if err != nil {
		return err
	}
	// The pending readings no group took.
	for sh := range pend {
		b := k.newBatch(len(pend[sh]))
		for i := range pend[sh] {
			if !used[sh][i] {
				b.add(&pend[sh][i], 0)
			}
		}
		if b.len() > 0 {
			fold(b.sort(false), minMs, maxMs)
		}
	}
	return nil
}

// remove removes the readings of [lo, hi) from the chunk items that may
// hold some (those of the hours of the range, and the day pieces of its
// first day): an item with readings of the range only is deleted, one
// with others too rewritten in place as a merged chunk that keeps each
// remaining reading's position in its source map (see mergedItem), its
// sort key and metric index keys unchanged. Its key's time may then be
// before its first reading, within its hour (or, for a day piece, at the
// start of its day): readers and compaction read the key as a lower
// bound.
func (l chunkLayout) remove(ctx context.Context, id string, lo, hi int64) error {
	k := l.k
	now := timeMs(k.st.now())
	for sh := 0; sh < k.s.Shards; sh++ {
		pk := k.rawPK(id, sh)
		_, hiKey := k.chunkKeyRange(lo, hi)
		q := &table.Query{Hash: pk, Range: skRange(ts(periodStart(lo, keys.Day)), hiKey, hi), Consistent: true}
		var puts, dels []table.WriteRequest
		for item, err := range k.st.tbl.QueryAll(ctx, q) {
			if err != nil {
				return err
			}
			sk, _ := getS(item, attrSK)
			start, _, err := keys.ParseUnique(sk)
			if err != nil {
				return fmt.Errorf("series: bad chunk key %q: %w", sk, err)
			}
			end, ok := getInt(item, attrEnd)
			if !ok {
				end = maxMs
			}
			switch {
			case end < lo || timeMs(start) >= hi:
				continue
			case timeMs(start) >= lo && end < hi:
				dels = append(dels, table.DeleteRequest(table.K(pk, sk)))
				continue
			}
			it, err := k.withoutRange(id, sh, item, lo, hi, now)
			if err != nil {
				return err
			}
			switch {
			case it == nil:
				dels = append(dels, table.DeleteRequest(table.K(pk, sk)))
			case it[attrSK] != nil:
				puts = append(puts, table.PutRequest(it))
			}
		}
		// Rewritten items first: a crash before the deletes leaves items
		// that are removed by a second Delete.
		if err := k.st.batchWrite(ctx, puts); err != nil {
			return err
		}
		if err := k.st.batchWrite(ctx, dels); err != nil {
			return err
		}
	}
	return nil
}

// withoutRange returns chunk item item (of shard sh of series id) less
// its readings in [lo, hi), as a merged chunk under the same keys: nil if
// none is left, an empty item if none was in the range.
func (k *Kind) withoutRange(id string, sh int, item table.Item, lo, hi, now int64) (table.Item, error) {
	fields, nt, err := k.chunkColumns([]table.Item{item})
	if err != nil {
		return nil, err
	}
	b, sm, err := decodeChunk(item, fields, nt, nil)
	if err != nil {
		return nil, err
	}
	kept := filterBatch(b, func(i int) bool { return b.t[i] < lo || b.t[i] >= hi })
	switch {
	case kept.len() == 0:
		return nil, nil
	case kept.len() == b.len():
		return table.Item{}, nil
	}
	created := now
	if sm != nil {
		created = sm.created
	}
	it, _, err := k.mergedItem(id, sh, fields, nt, kept, 0, kept.len(), created)
	if err != nil {
		return nil, err
	}
	for _, a := range []string{attrSK, attrMPK, attrMSK} {
		delete(it, a)
		if v, ok := item[a]; ok {
			it[a] = v
		}
	}
	return it, nil
}

// filterBatch returns the readings i of b that keep(i) selects, in order,
// with their positions.
func filterBatch(b *rbatch, keep func(i int) bool) *rbatch {
	out := &rbatch{nf: b.nf}
	if b.tags != nil {
		out.tags = [][]string{}
	}
	for i := range b.t {
		if keep(i) {
			r := b.rec(i)
			out.add(&r, b.idx[i])
		}
	}
	return out
}
