package series

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/timetable-db/timetable/keys"
	"github.com/timetable-db/timetable/series/internal/chunk"
	"github.com/timetable-db/timetable/table"
)

// Query selects readings of one series.
type Query struct {
	// From and To bound the readings' times: [From, To). A zero From
	// reads from the oldest reading not expired; a zero To has no upper
	// bound. Bounds finer than a millisecond, the store's precision, are
	// rounded up: From = t + 0.5 ms starts after a reading at t, and
	// To = t + 0.5 ms includes it.
	From, To time.Time
	// Reverse returns the newest readings first. Newest N is
	// Query{Reverse: true, Limit: N}.
	Reverse bool
	// Limit is the most readings the read returns in all: Iter and All
	// stop after Limit; a Range page holds at most the Limit left (its
	// cursor carries the count), and a page that reaches it has no
	// cursor. 0: no limit.
	Limit int
	// PageSize is the most readings of one Range page; its Cursor
	// resumes after the page. 0: a page holds all the readings left.
	// Iter and All ignore it.
	PageSize int
	// Filter keeps only the readings that match every filter. Filtered
	// readings are still read (and billed).
	Filter []Filter
	// Cursor resumes after the reading a Page's or an Iter's Cursor was
	// taken from, in the same direction.
	Cursor string
}

// Page is a page of readings, owned by the caller, and the cursor that
// resumes after its last reading; Cursor is "" when no reading follows.
type Page struct {
	Readings []Reading
	Cursor   string
}

const (
	minMs = -62167219200000 // 0000-01-01T00:00:00Z
	maxMs = 253402300800000 // 10000-01-01T00:00:00Z
)

// rawCutoff is the time of the oldest raw reading not expired.
func (k *Kind) rawCutoff() int64 { return k.cutoff(k.s.Retention.Raw) }

// cutoff is the oldest event time that retention ret keeps, now.
func (k *Kind) cutoff(ret time.Duration) int64 {
	if ret == Forever {
		return minMs
	}
	return timeMs(k.st.now().Add(-ret)) + 1
}

// bounds converts [from, to) to milliseconds, unbounded ends to the key
// range, from raised to the raw cutoff.
func (k *Kind) bounds(from, to time.Time) (int64, int64) {
	lo, hi := int64(minMs), int64(maxMs)
	if !from.IsZero() {
		lo = max(lo, timeMs(from))
	}
	if !to.IsZero() {
		hi = min(hi, timeMs(to))
	}
	return max(lo, k.rawCutoff()), hi
}

// stream yields the readings of one shard (partition, or days of
// partitions) in order, batch by batch.
type stream struct {
	fill func(ctx context.Context) (*rbatch, error) // nil batch: the end
	b    *rbatch
	i    int
	done bool
	// table streams skip the readings also in the buffer stream (being
	// flushed): a chunk's sequence number is that of one of its readings.
	table bool
	// queue holds the batches decoded after b (the rest of a group).
	queue []*rbatch
	// later, if set, estimates the readings of the items read from the
	// backend but not decoded yet.
	later func() int
}

// head returns the batch and index of the stream's next reading, or a
// nil batch at its end.
func (s *stream) head(ctx context.Context) (*rbatch, int, error) {
	for (s.b == nil || s.i >= s.b.len()) && !s.done {
		b, err := s.fill(ctx)
		if err != nil {
			return nil, 0, err
		}
		if b == nil {
			s.done = true
		}
		s.b, s.i = b, 0
	}
	if s.b == nil || s.i >= s.b.len() {
		return nil, 0, nil
	}
	return s.b, s.i, nil
}

// Iter iterates over the readings of a Query, in the shape of sql.Rows:
//
//	it := k.Iter(ctx, id, q)
//	defer it.Close()
//	for it.Next() {
//		r := it.Reading()
//	}
//	if err := it.Err(); err != nil { ... }
//
// An Iter is not safe for concurrent use.
type Iter struct {
	ctx     context.Context
	k       *Kind
	streams []*stream
	reverse bool
	lo, hi  int64
	after   *pos // cursor position: skip up to and including it
	filters []compiled
	skip    map[uint64]bool // sequence numbers of the buffered readings
	limit   int
	n       int
	cur     *rbatch // the current reading is cur's ci-th
	ci      int
	has     bool
	err     error
	done    bool
	started bool
	atLimit bool // stopped by the limit, not at the end
}

// Iter returns an iterator over the readings of series id that q selects,
// at most q.Limit if set, merged over the kind's shards in time order.
// Readings are read lazily, a backend page at a time. Expired readings are
// never returned.
func (k *Kind) Iter(ctx context.Context, id string, q Query) *Iter {
	var pending []rec
	if validID(id) {
		pending = k.st.buf.pending(k, id)
	}
	return k.iter(ctx, id, q, pending)
}

// iter is Iter over the table and the buffered readings pending (a
// snapshot of the buffer, or nil to read the table only).
func (k *Kind) iter(ctx context.Context, id string, q Query, pending []rec) *Iter {
	it := &Iter{ctx: ctx, k: k, reverse: q.Reverse, limit: q.Limit}
	if !validID(id) {
		it.fail(fmt.Errorf("%w: %q", ErrInvalidID, id))
		return it
	}
	fs, err := k.compileFilters(q.Filter)
	if err != nil {
		it.fail(err)
		return it
	}
	it.filters = fs
	lo, hi := k.bounds(q.From, q.To)
	if q.Cursor != "" {
		rev, pos, err := decodeCursor(q.Cursor)
		if err != nil || rev != q.Reverse {
			it.fail(ErrBadCursor)
			return it
		}
		it.after = pos
		if q.Reverse {
			hi = min(hi, pos.t+1)
		} else {
			lo = max(lo, pos.t)
		}
	}
	if k.s.Layout == DayPartitioned && q.To.IsZero() {
		hi = min(hi, timeMs(k.st.now().Add(24*time.Hour)))
	}
	if k.s.Layout == DayPartitioned && lo == minMs {
		it.fail(fmt.Errorf("%w: kind %s keeps raw readings forever and is day-partitioned: give From", ErrUnbounded, k.s.Name))
		return it
	}
	it.lo, it.hi = lo, hi
	if lo >= hi {
		it.done = true
		return it
	}
	for sh := 0; sh < k.s.Shards; sh++ {
		s := k.newStream(id, sh, lo, hi, q.Reverse, q.Limit, len(fs) > 0)
		s.table = true
		it.streams = append(it.streams, s)
	}
	// Readings still in the write buffer are read too.
	if len(pending) > 0 {
		it.skip = make(map[uint64]bool, len(pending))
		b := k.newBatch(len(pending))
		for i := range pending {
			it.skip[pending[i].seq] = true
			if r := &pending[i]; r.t >= lo && r.t < hi {
				b.add(r, 0)
			}
		}
		if q.Reverse {
			b = b.sort(true)
		}
		it.streams = append(it.streams, &stream{b: b, done: true})
	}
	return it
}

func (it *Iter) fail(err error) {
	it.err = err
	it.done = true
}

// Next advances to the next reading and reports whether there is one.
// It returns false at the end, at the limit and on error (see Err).
func (it *Iter) Next() bool {
	it.has = false
	if it.done {
		return false
	}
	if it.limit > 0 && it.n >= it.limit {
		it.atLimit = true
		return false
	}
	if !it.started {
		it.started = true
		// Fetch the first batch of every shard at once.
		if len(it.streams) > 1 {
			if err := it.k.st.parallel(it.ctx, len(it.streams), func(ctx context.Context, i int) error {
				_, _, err := it.streams[i].head(ctx)
				return err
			}); err != nil {
				it.fail(err)
				return false
			}
		}
	}
	if len(it.streams) == 1 {
		// No merge: walk the one stream's batches.
		s := it.streams[0]
		for {
			b, i := s.b, s.i
			if b == nil || i >= len(b.t) {
				var err error
				if b, i, err = s.head(it.ctx); err != nil {
					it.fail(err)
					return false
				}
				if b == nil {
					it.done = true
					return false
				}
			}
			s.i = i + 1
			if it.accept(s, b, i) {
				return true
			}
		}
	}
	for {
		var best *stream
		var bp pos
		for _, s := range it.streams {
			b, i, err := s.head(it.ctx)
			if err != nil {
				it.fail(err)
				return false
			}
			if b == nil {
				continue
			}
			p := b.pos(i)
			if best == nil || (!it.reverse && cmpPos(p, bp) < 0) || (it.reverse && cmpPos(p, bp) > 0) {
				best, bp = s, p
			}
		}
		if best == nil {
			it.done = true
			return false
		}
		b, i := best.b, best.i
		best.i++
		if it.accept(best, b, i) {
			return true
		}
	}
}

// accept makes reading i of b the current one if it is in range, after
// the cursor and matches the filters.
func (it *Iter) accept(s *stream, b *rbatch, i int) bool {
	if t := b.t[i]; t < it.lo || t >= it.hi {
		return false
	}
	if it.skip != nil && s.table && it.skip[b.seq[i]] {
		return false
	}
	if it.after != nil {
		c := cmpPos(b.pos(i), *it.after)
		if (!it.reverse && c <= 0) || (it.reverse && c >= 0) {
			return false
		}
	}
	if len(it.filters) > 0 {
		r := b.rec(i)
		if !it.match(&r) {
			return false
		}
	}
	it.cur, it.ci, it.has = b, i, true
	it.n++
	return true
}

// ahead returns the number of readings decoded from the current one on
// and within the range: a bound of those the iteration returns before it
// reads again.
func (it *Iter) ahead() int {
	n := it.inRange(it.cur, it.ci)
	for _, s := range it.streams {
		for _, b := range s.queue {
			n += it.inRange(b, 0)
		}
	}
	return n
}

// later estimates the readings read from the backend but not decoded yet
// (the rest of a page of chunk items, say), from the items' counts: those
// of items partly outside the range or covered by a merged chunk count
// too.
func (it *Iter) later() int {
	n := 0
	for _, s := range it.streams {
		if s.later != nil {
			n += s.later()
		}
	}
	return n
}

// inRange returns the number of readings of b from i on within [lo, hi);
// b is in order (in reverse order for a reverse iteration).
func (it *Iter) inRange(b *rbatch, i int) int {
	ts := b.t[i:]
	if it.reverse {
		// descending: [first t < hi, first t < lo)
		from := sort.Search(len(ts), func(j int) bool { return ts[j] < it.hi })
		to := sort.Search(len(ts), func(j int) bool { return ts[j] < it.lo })
		return max(to-from, 0)
	}
	from, _ := slices.BinarySearch(ts, it.lo)
	to, _ := slices.BinarySearch(ts, it.hi)
	return max(to-from, 0)
}

// Reading returns the current reading; its slices are the caller's.
func (it *Iter) Reading() Reading {
	if !it.has {
		return Reading{}
	}
	r := it.cur.rec(it.ci)
	return r.reading()
}

// Cursor returns the cursor that resumes the read just after the current
// reading, or "" when there is none.
func (it *Iter) Cursor() string {
	if !it.has {
		return ""
	}
	return encodePos(it.reverse, it.cur.pos(it.ci))
}

// Err returns the error that ended the iteration, nil at a normal end.
func (it *Iter) Err() error { return it.err }

// Close ends the iteration. It returns nil.
func (it *Iter) Close() error {
	it.done, it.has, it.streams, it.cur = true, false, nil, nil
	return nil
}

// Range returns one page of the readings of series id that q selects: the
// first q.Limit after q.Cursor (all of them if q.Limit is 0). The page's
// Cursor resumes after its last reading and is "" when none follows. The
// cursor is built from the last reading returned, so a filtered page never
// skips a reading.
func (k *Kind) Range(ctx context.Context, id string, q Query) (*Page, error) {
	it := k.Iter(ctx, id, q)
	defer it.Close()
	p := &Page{}
	for it.Next() {
		if len(p.Readings) == cap(p.Readings) && len(it.filters) == 0 {
			// Room for the readings decoded and those read but not yet
			// decoded (a day of chunks, decoded an hour at a time, say)
			// at once: growing a day of readings by appends costs more
			// than reading it. The page at least doubles, so that one
			// read over many backend pages copies it a few times only.
			n := max(it.ahead()+it.later(), len(p.Readings))
			if q.Limit > 0 {
				n = min(n, q.Limit-len(p.Readings))
			}
			p.Readings = slices.Grow(p.Readings, n)
		}
		p.Readings = append(p.Readings, it.Reading())
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	if q.Limit > 0 && len(p.Readings) == q.Limit {
		last := it.cur.pos(it.ci)
		it.limit = 0
		if it.atLimit && it.Next() {
			p.Cursor = encodePos(q.Reverse, last)
		} else if err := it.Err(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// All returns the readings of series id that q selects, at most q.Limit
// if set, as an iter.Seq2. An error ends the sequence as its last pair.
func (k *Kind) All(ctx context.Context, id string, q Query) iter.Seq2[Reading, error] {
	return func(yield func(Reading, error) bool) {
		it := k.Iter(ctx, id, q)
		defer it.Close()
		for it.Next() {
			if !yield(it.Reading(), nil) {
				return
			}
		}
		if err := it.Err(); err != nil {
			yield(Reading{}, err)
		}
	}
}

// A cursor is "s", '0' or '1' for the direction, then the position of
// the last reading returned (time, sequence number, index; big-endian),
// in base64url.
func encodePos(reverse bool, r pos) string {
	b := make([]byte, 2, 22)
	b[0], b[1] = 's', '0'
	if reverse {
		b[1] = '1'
	}
	b = binary.BigEndian.AppendUint64(b, uint64(r.t))
	b = binary.BigEndian.AppendUint64(b, r.seq)
	b = binary.BigEndian.AppendUint32(b, r.idx)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(c string) (bool, *pos, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 22 || b[0] != 's' || (b[1] != '0' && b[1] != '1') {
		return false, nil, ErrBadCursor
	}
	r := &pos{t: int64(binary.BigEndian.Uint64(b[2:])), seq: binary.BigEndian.Uint64(b[10:]), idx: binary.BigEndian.Uint32(b[18:])}
	if r.t < minMs || r.t >= maxMs {
		return false, nil, ErrBadCursor
	}
	return b[1] == '1', r, nil
}

// newStream returns the stream of shard sh of series id over [lo, hi).
// limit and filtered size the backend pages.
func (k *Kind) newStream(id string, sh int, lo, hi int64, reverse bool, limit int, filtered bool) *stream {
	pageSize := 0
	if limit > 0 && !filtered {
		pageSize = limit + 1
	}
	tbl := k.st.tbl
	single := func(r rec) *rbatch {
		b := k.newBatch(1)
		b.add(&r, 0)
		return b
	}
	switch k.s.Layout {
	case ItemPerReading:
		q := &table.Query{Hash: k.rawPK(id, sh), Range: skRange(ts(lo), ts(hi-1)+"#~", hi), Reverse: reverse, PageSize: pageSize}
		var it *table.Iter
		return &stream{fill: func(ctx context.Context) (*rbatch, error) {
			if it == nil {
				it = tbl.QueryIter(ctx, q)
			}
			if !it.Next() {
				return nil, it.Err()
			}
			r, err := k.decodeReadingItem(it.Item())
			if err != nil {
				return nil, err
			}
			return single(r), nil
		}}
	case DayPartitioned:
		// One partition per day, in order.
		first, last := periodStart(lo, keys.Day), periodStart(hi-1, keys.Day)
		day := first
		if reverse {
			day = last
		}
		var it *table.Iter
		return &stream{fill: func(ctx context.Context) (*rbatch, error) {
			for {
				if it == nil {
					if day < first || day > last {
						return nil, nil
					}
					dk := periodKey(day, keys.Day)
					loK, hiK := "00:00:00.000", "23:59:59.999#~"
					if day == first {
						loK = keys.TimeOfDay(msTime(lo))
					}
					if day == last {
						hiK = keys.TimeOfDay(msTime(hi-1)) + "#~"
					}
					it = tbl.QueryIter(ctx, &table.Query{Hash: k.dayPK(id, sh, dk), Range: table.Between(loK, hiK), Reverse: reverse, PageSize: pageSize})
					if reverse {
						day = timeMs(msTime(day).AddDate(0, 0, -1))
					} else {
						day = periodEnd(day, keys.Day)
					}
				}
				if it.Next() {
					r, err := k.decodeReadingItem(it.Item())
					if err != nil {
						return nil, err
					}
					return single(r), nil
				}
				if err := it.Err(); err != nil {
					return nil, err
				}
				it = nil
			}
		}}
	case Chunks:
		ps := 0
		if pageSize > 0 {
			ps = 16
		}
		return k.groupStream(k.chunkReader(id, sh, lo, hi, reverse, ps, false), k.decodeChunkItem)
	case Buckets:
		g := k.s.BucketPeriod
		loKey, hiKey := periodKey(periodStart(lo, g), g), periodKey(hi-1, g)+"#~"
		if hi >= maxMs {
			hiKey = ""
		}
		q := &table.Query{Hash: k.rawPK(id, sh), Range: skRange(loKey, hiKey, hi), Reverse: reverse, PageSize: 4}
		return k.groupStream(k.groupReader(q, loKey, hiKey, g.Len()), k.decodeBucketBatch)
	}
	return &stream{fill: func(context.Context) (*rbatch, error) { return nil, fmt.Errorf("series: unknown layout") }}
}

// skRange is Between(lo, hi), or Gte(lo) when the range has no upper
// bound.
func skRange(lo, hiKey string, hi int64) table.KeyCond {
	if hi >= maxMs {
		return table.Gte(lo)
	}
	return table.Between(lo, hiKey)
}

// groupStream reads the items of g and yields their readings a group at
// a time: the items of a group (a bucket period, an hour or a day of
// chunks) may overlap in time, so a group is decoded whole and put in
// order before its readings (those of the group's window) are yielded
// (see groupReader).
func (k *Kind) groupStream(g *groupReader, decode func(table.Item) (*rbatch, error)) *stream {
	s := &stream{later: g.pending}
	s.fill = func(ctx context.Context) (*rbatch, error) {
		for len(s.queue) == 0 {
			grp, err := g.next(ctx)
			if err != nil || grp.items == nil {
				return nil, err
			}
			if s.queue, err = readGroupRuns(grp.items, g.q.Reverse, decode); err != nil {
				return nil, err
			}
			if grp.lo > minMs || grp.hi < maxMs {
				s.queue = trimRuns(s.queue, grp.lo, grp.hi, g.q.Reverse)
			}
		}
		b := s.queue[0]
		s.queue = s.queue[1:]
		return b, nil
	}
	return s
}

// groupReader returns a reader of the groups of q, of items whose sort
// keys share their first prefixLen bytes; see groupReader.
func (k *Kind) groupReader(q *table.Query, loKey, hiKey string, prefixLen int) *groupReader {
	g := &groupReader{tbl: k.st.tbl, q: *q, loKey: loKey, hiKey: hiKey, prefixLen: prefixLen, now: k.st.now}
	if k.s.Layout == Chunks {
		g.spread = k.st.opts.CompactGrace / 2
	}
	return g
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

// decodeReadingItem decodes an item of the ItemPerReading or
// DayPartitioned layout.
func (k *Kind) decodeReadingItem(item table.Item) (rec, error) {
	sk, _ := getS(item, attrSK)
	var t time.Time
	var seq uint64
	var err error
	if k.s.Layout == DayPartitioned {
		pk, _ := getS(item, attrPK)
		i := strings.LastIndexByte(pk, '#')
		tod, sq, ok := strings.Cut(sk, keys.Sep)
		var day time.Time
		var off time.Duration
		if i >= 0 {
			day, _, err = keys.ParseTimeSeries(pk[i+1:])
		}
		if err == nil && ok {
			off, err = keys.ParseTimeOfDay(tod)
		}
		s, ok2 := parseHex16(sq)
		if i < 0 || !ok || !ok2 || err != nil {
			return rec{}, fmt.Errorf("series: bad day-partitioned key %q %q", pk, sk)
		}
		t, seq = day.Add(off), s
	} else {
		t, seq, err = keys.ParseUnique(sk)
		if err != nil {
			return rec{}, fmt.Errorf("series: bad sort key %q: %w", sk, err)
		}
	}
	vals, tags, err := getValues(item, &k.s)
	if err != nil {
		return rec{}, fmt.Errorf("series: item %q: %w", sk, err)
	}
	return rec{t: timeMs(t), seq: seq, vals: vals, tags: tags}, nil
}

// decodeBucketBatch decodes a bucket item's readings.
func (k *Kind) decodeBucketBatch(item table.Item) (*rbatch, error) {
	p, err := k.decodeBucket(item)
	if err != nil {
		return nil, err
	}
	b := k.newBatch(len(p.recs))
	for i := range p.recs {
		b.add(&p.recs[i], 0)
	}
	return b, nil
}

// decodeChunkItem decodes a chunk item's readings. Fields are found by
// name, so chunks written before a field was added read it as absent.
func (k *Kind) decodeChunkItem(item table.Item) (*rbatch, error) {
	b, _, err := decodeChunk(item, k.s.Fields, len(k.s.Tags))
	return b, err
}

// decodeChunk decodes the readings of a chunk item (small or merged) into
// a batch of the fields named fields (absent ones NaN) and nt tags, each
// reading with its position. It also returns the merged item's source
// map (nil for a chunk written by a flush).
func decodeChunk(item table.Item, fields []string, nt int) (*rbatch, *srcMap, error) {
	sk, _ := getS(item, attrSK)
	_, cseq, err := keys.ParseUnique(sk)
	if err != nil {
		return nil, nil, fmt.Errorf("series: bad chunk key %q: %w", sk, err)
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
	b := &rbatch{nf: nf, t: make([]int64, n), seq: make([]uint64, n), idx: make([]uint32, n), vals: make([]float64, n*nf)}
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
			b.seq[i], b.idx[i] = cseq, uint32(i)
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
			col = make([]float64, n)
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
