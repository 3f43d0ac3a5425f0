package series

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"time"

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
	// Iter and All ignore it. A page resumed from a cursor reads again,
	// and is billed for, the group of items its cursor falls in (a
	// bucket's period, or an hour or a day of chunks, decoded whole since
	// its items may overlap in time): pages much smaller than a group
	// cost that group's read units each. BenchmarkRange_Day: a day at
	// 1 Hz compacted into one item costs 4.5 read units in one page,
	// 392 in pages of 1,000 and 3,888 in pages of 100.
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

// bounds converts [from, to) to milliseconds (see span), from raised to
// the raw cutoff.
func (k *Kind) bounds(from, to time.Time) (int64, int64) {
	lo, hi := span(from, to)
	return max(lo, k.rawCutoff()), hi
}

// span converts [from, to) to milliseconds, rounded up (see ceilMs); a
// zero from is the oldest time a key holds, a zero to the end of time:
// no bound.
func span(from, to time.Time) (int64, int64) {
	lo, hi := int64(minMs), int64(maxMs)
	if !from.IsZero() {
		lo = min(max(lo, ceilMs(from)), maxMs)
	}
	if !to.IsZero() {
		hi = max(min(hi, ceilMs(to)), minMs)
	}
	return lo, hi
}

// ceilMs returns t in milliseconds since the epoch, rounded up: a reading
// (at a whole millisecond m) is at or after t if m >= ceilMs(t), and
// before t if m < ceilMs(t).
func ceilMs(t time.Time) int64 {
	ms := t.UnixMilli()
	if msTime(ms).Before(t) {
		ms++
	}
	return ms
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
	// g, if set, is the reader of the stream's items.
	g *groupReader
	// arenas hold the columns of the group being read (1) and of the one
	// before it (0), if the stream decodes into arenas (groupStream).
	arenas [2]*colArena
}

// release gives the stream's arenas back: its batches are invalid after.
func (s *stream) release() {
	for i, a := range s.arenas {
		a.release()
		s.arenas[i] = nil
	}
	s.b, s.queue = nil, nil
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
	after   *cursor // resume after this reading
	filters []compiled
	skip    map[uint64]bool // sequence numbers of the buffered readings
	left    int             // readings left to return; -1: no limit
	// group holds the readings of one instant, in the order of the
	// iteration, the duplicate rule applied; gi is the next to give.
	group   []ref
	gi      int
	cur     *rbatch // the current reading is cur's ci-th
	ci      int
	ord     uint32 // its rank among the group's readings, oldest written first
	has     bool
	err     error
	done    bool
	started bool
	atLimit bool // stopped by the limit, not at the end
	// slab holds the values Reading copies, slabN of them so far.
	slab  []float64
	slabN int
}

// ref is a reading of a batch.
type ref struct {
	b *rbatch
	i int
}

// Iter returns an iterator over the readings of series id that q selects,
// at most q.Limit if set (or what the cursor's read has left), merged over
// the kind's shards in time order; readings of one instant follow the
// kind's DuplicateRule, in write order. Readings are read lazily, a
// backend page at a time. Expired readings are never returned.
func (k *Kind) Iter(ctx context.Context, id string, q Query) *Iter {
	k = k.current()
	var pending []rec
	if validID(id) {
		pending = k.st.buf.pending(k, id)
	}
	return k.iter(ctx, id, q, pending)
}

// iter is Iter over the table and the buffered readings pending (a
// snapshot of the buffer, or nil to read the table only).
func (k *Kind) iter(ctx context.Context, id string, q Query, pending []rec) *Iter {
	it := &Iter{ctx: ctx, k: k, reverse: q.Reverse, left: -1}
	if q.Limit > 0 {
		it.left = q.Limit
	}
	if !validID(id) {
		it.fail(fmt.Errorf("%w: %q", ErrInvalidID, id))
		return it
	}
	if q.Limit < 0 || q.PageSize < 0 {
		it.fail(fmt.Errorf("%w: negative Limit or PageSize", ErrInvalidQuery))
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
		c, err := decodeCursor(q.Cursor)
		if err != nil || c.reverse != q.Reverse {
			it.fail(ErrBadCursor)
			return it
		}
		it.after = c
		if c.left > 0 {
			it.left = int(c.left)
		}
		if q.Reverse {
			hi = min(hi, c.t+1)
		} else {
			lo = max(lo, c.t)
		}
	}
	it.lo, it.hi = lo, hi
	if lo >= hi {
		it.done = true
		return it
	}
	want := it.left
	if q.PageSize > 0 && (want < 0 || q.PageSize < want) {
		want = q.PageSize
	}
	for sh := 0; sh < k.s.Shards; sh++ {
		s := k.newStream(id, sh, lo, hi, q.Reverse, want, len(fs) > 0)
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

// newest returns the time of the newest reading of series id, the
// buffered ones pending included, or minMs if it has none.
func (k *Kind) newest(ctx context.Context, id string, pending []rec) (int64, error) {
	t := int64(minMs)
	if n := len(pending); n > 0 {
		t = pending[n-1].t
	}
	r, found, err := k.latestStored(ctx, id)
	if err != nil {
		return 0, err
	}
	if found {
		t = max(t, r.t)
	}
	return t, nil
}

// oldest returns the time of the oldest unexpired reading of series id,
// or maxMs if it has none.
func (k *Kind) oldest(ctx context.Context, id string) (int64, error) {
	it := k.Iter(ctx, id, Query{Limit: 1})
	defer it.Close()
	if it.Next() {
		return it.cur.t[it.ci], nil
	}
	return maxMs, it.Err()
}

func (it *Iter) fail(err error) {
	it.err = err
	it.done = true
	it.release()
}

// release gives the streams' arenas back (see colArena) once the
// iteration has ended: Next returns no reading after, so none is held.
// An iteration read to its end thus reuses its columns even if not
// closed.
func (it *Iter) release() {
	for _, s := range it.streams {
		s.release()
	}
}

// Next advances to the next reading and reports whether there is one.
// It returns false at the end, at the limit and on error (see Err).
func (it *Iter) Next() bool {
	it.has = false
	if it.done {
		return false
	}
	if it.left == 0 {
		it.atLimit = true
		it.release()
		return false
	}
	if !it.started {
		it.started = true
		// Fetch the first batch of every shard at once. The streams
		// read under it.ctx, which outlives the parallel calls.
		if len(it.streams) > 1 {
			if err := it.k.st.parallel(it.ctx, len(it.streams), func(_ context.Context, i int) error {
				_, _, err := it.streams[i].head(it.ctx)
				return err
			}); err != nil {
				it.fail(err)
				return false
			}
		}
	}
	if len(it.streams) == 1 && it.gi >= len(it.group) {
		// One stream (no shards, nothing buffered): a reading whose
		// successor in its batch is at another instant is a group of
		// one, given at once.
		s := it.streams[0]
		for {
			b, i := s.b, s.i
			if b == nil || i+1 >= len(b.t) {
				break // a batch's last reading: its successor is not at hand
			}
			if t := b.t[i]; t < it.lo || t >= it.hi {
				s.i++
				continue
			} else if b.t[i+1] == t {
				break
			}
			s.i++
			if it.after == nil && len(it.filters) == 0 {
				// accept, with nothing to check
				if it.cur != b {
					it.cur = b
				}
				it.ci, it.ord, it.has = i, 0, true
				if it.left > 0 {
					it.left--
				}
				return true
			}
			if it.accept(b, i, 0) {
				return true
			}
		}
	}
	for {
		if it.gi < len(it.group) {
			r := it.group[it.gi]
			ord := it.gi
			if it.reverse {
				ord = len(it.group) - 1 - it.gi
			}
			it.gi++
			if it.accept(r.b, r.i, uint32(ord)) {
				return true
			}
			continue
		}
		if !it.nextGroup() {
			return false
		}
	}
}

// nextGroup reads the readings of the next instant into group, the
// duplicate rule applied. It returns false at the end or on error.
func (it *Iter) nextGroup() bool {
	b, i, err := it.pull(true)
	if err != nil || b == nil {
		if err != nil {
			it.fail(err)
		}
		it.done = true
		it.release()
		return false
	}
	t := b.t[i]
	it.group = append(it.group[:0], ref{b, i})
	it.gi = 0
	for {
		nb, ni, err := it.pull(false)
		if err != nil {
			it.fail(err)
			return false
		}
		if nb == nil || nb.t[ni] != t {
			break
		}
		it.pull(true)
		it.group = append(it.group, ref{nb, ni})
	}
	if n := len(it.group); n > 1 {
		// The group is oldest written first, or newest first in reverse.
		keepFirst := it.k.s.Duplicates == RejectDifferent
		switch {
		case it.k.s.Duplicates == KeepAll:
		case keepFirst != it.reverse:
			it.group = it.group[:1]
		default:
			it.group[0] = it.group[n-1]
			it.group = it.group[:1]
		}
	}
	return true
}

// pull returns the next reading of the merged streams within the range
// and not in the buffer twice, nil at the end; take consumes it.
func (it *Iter) pull(take bool) (*rbatch, int, error) {
	for {
		var best *stream
		if len(it.streams) == 1 {
			s := it.streams[0]
			if b, _, err := s.head(it.ctx); err != nil || b == nil {
				return nil, 0, err
			}
			best = s
		} else {
			var bp pos
			for _, s := range it.streams {
				b, i, err := s.head(it.ctx)
				if err != nil {
					return nil, 0, err
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
				return nil, 0, nil
			}
		}
		b, i := best.b, best.i
		if t := b.t[i]; t < it.lo || t >= it.hi || (best.table && it.skip != nil && it.skip[b.seq[i]]) {
			best.i++
			continue
		}
		if take {
			best.i++
		}
		return b, i, nil
	}
}

// accept makes reading i of b, of rank ord among its instant's, the
// current one if it follows the cursor and matches the filters.
func (it *Iter) accept(b *rbatch, i int, ord uint32) bool {
	if a := it.after; a != nil && b.t[i] == a.t && ((!it.reverse && ord <= a.ord) || (it.reverse && ord >= a.ord)) {
		return false
	}
	if len(it.filters) > 0 {
		r := b.rec(i)
		if !it.match(&r) {
			return false
		}
	}
	if it.cur != b {
		it.cur = b // a pointer write, once per batch
	}
	it.ci, it.ord, it.has = i, ord, true
	if it.left > 0 {
		it.left--
	}
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
	// The batch's columns are reused (see colArena): the values are
	// copied, into a slab shared by the readings given after.
	b, i := it.cur, it.ci
	nf := b.nf
	if len(it.slab)-it.slabN < nf {
		it.slab, it.slabN = make([]float64, max(slabReadings*nf, nf)), 0
	}
	l := it.slabN
	it.slabN += nf
	v := it.slab[l : l+nf : l+nf]
	copy(v, b.vals[i*nf:(i+1)*nf])
	r := Reading{Time: msTime(b.t[i]), Values: v}
	if b.tags != nil {
		r.Tags = b.tags[i]
	}
	return r
}

// slabReadings is the readings whose values Reading copies into one
// allocation.
const slabReadings = 256

// view returns the current reading, its slices aliasing the iterator's
// batch: valid until the next call of Next or Close.
func (it *Iter) view() Reading {
	b, i := it.cur, it.ci
	r := Reading{Time: msTime(b.t[i]), Values: b.vals[i*b.nf : (i+1)*b.nf : (i+1)*b.nf]}
	if b.tags != nil {
		r.Tags = b.tags[i]
	}
	return r
}

// ranked returns the current reading with its rank (see ranked); its
// slices alias the iterator's batch.
func (it *Iter) ranked() ranked {
	return ranked{it.cur.rec(it.ci), apos{it.cur.seq[it.ci], it.cur.idx[it.ci]}}
}

// Cursor returns the cursor that resumes the read just after the current
// reading (with the limit left), or "" when there is none (no current
// reading, or the limit reached).
func (it *Iter) Cursor() string {
	if !it.has || it.left == 0 {
		return ""
	}
	return it.cursorHere(it.left)
}

// cursorHere is the cursor after the current reading with left readings
// left to return (-1: no limit).
func (it *Iter) cursorHere(left int) string {
	c := cursor{reverse: it.reverse, t: it.cur.t[it.ci], ord: it.ord}
	if left > 0 {
		c.left = uint32(min(left, math.MaxUint32))
	}
	return c.encode()
}

// Err returns the error that ended the iteration, nil at a normal end.
func (it *Iter) Err() error { return it.err }

// Close ends the iteration and gives its decoding buffers back for
// later reads (an iteration read to its end, or to its limit, does so by
// itself). It returns nil.
func (it *Iter) Close() error {
	it.release()
	it.done, it.has, it.streams, it.cur, it.group = true, false, nil, nil, nil
	return nil
}

// Range returns one page of the readings of series id that q selects:
// the first q.PageSize after q.Cursor (all of them if 0), within what
// q.Limit (or the cursor's read) has left. The page's Cursor resumes
// after its last reading; it is "" when no reading follows or the limit
// is reached. The cursor is built from the last reading returned, so a
// filtered page never skips a reading, and flushes and compactions
// between pages neither skip nor repeat one.
func (k *Kind) Range(ctx context.Context, id string, q Query) (*Page, error) {
	p := &Page{}
	cur, err := k.page(ctx, id, q, nil, &p.Readings)
	if err != nil {
		return nil, err
	}
	p.Cursor = cur
	return p, nil
}

// RangeFunc reads the page Range returns, handing its readings to fn one
// at a time, in order, instead of collecting them, and returns the
// page's Cursor. The Values and Tags of a reading fn is given belong to
// the store and are valid during the call only: fn copies what it keeps.
// An error of fn ends the read and is returned.
func (k *Kind) RangeFunc(ctx context.Context, id string, q Query, fn func(Reading) error) (string, error) {
	return k.page(ctx, id, q, fn, nil)
}

// page iterates over the page of q (see Range), handing each of its
// readings to fn (see view) or, if fn is nil, appending it to *out, and
// returns the page's cursor.
func (k *Kind) page(ctx context.Context, id string, q Query, fn func(Reading) error, out *[]Reading) (string, error) {
	k = k.current()
	it := k.Iter(ctx, id, q)
	defer it.Close()
	size := q.PageSize
	if it.left >= 0 && (size == 0 || it.left < size) {
		size = it.left
	}
	var rs []Reading // *out, local while it grows
	defer func() {
		if out != nil {
			*out = rs
		}
	}()
	n := 0
	for (size == 0 || n < size) && it.Next() {
		if fn != nil {
			if err := fn(it.view()); err != nil {
				return "", err
			}
			n++
			continue
		}
		if len(rs) == cap(rs) && len(it.filters) == 0 {
			// Room for the readings decoded and those read but not yet
			// decoded (a day of chunks, decoded an hour at a time, say)
			// at once: growing a day of readings by appends costs more
			// than reading it. The page at least doubles, so that one
			// read over many backend pages copies it a few times only.
			m := max(it.ahead()+it.later(), len(rs))
			if size > 0 {
				m = min(m, size-len(rs))
			}
			rs = slices.Grow(rs, m)
			// Their values, copied by Reading, in one allocation.
			if nf := it.cur.nf; len(it.slab)-it.slabN < m*nf {
				it.slab, it.slabN = make([]float64, m*nf), 0
			}
		}
		rs = append(rs, it.Reading())
		n++
	}
	if err := it.Err(); err != nil {
		return "", err
	}
	if size > 0 && n == size && it.left != 0 {
		left := it.left
		last := it.cursorHere(left)
		if it.Next() {
			return last, nil
		} else if err := it.Err(); err != nil {
			return "", err
		}
	}
	return "", nil
}

// All returns the readings of series id that q selects, at most q.Limit
// if set, as an iter.Seq2. An error ends the sequence as its last pair.
func (k *Kind) All(ctx context.Context, id string, q Query) iter.Seq2[Reading, error] {
	k = k.current()
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

// cursor is where a read resumes: after the reading at time t of rank ord
// among the readings of its instant (oldest written first: readings
// written later at that instant rank after it), in the direction reverse,
// with left readings left to return (0: no limit).
//
// Encoded: "c", '0' or '1' for the direction, then t (int64), ord and left
// (uint32), big-endian, in base64url.
type cursor struct {
	reverse bool
	t       int64
	ord     uint32
	left    uint32
}

const cursorLen = 2 + 8 + 4 + 4

func (c cursor) encode() string {
	b := make([]byte, 2, cursorLen)
	b[0], b[1] = 'c', '0'
	if c.reverse {
		b[1] = '1'
	}
	b = binary.BigEndian.AppendUint64(b, uint64(c.t))
	b = binary.BigEndian.AppendUint32(b, c.ord)
	b = binary.BigEndian.AppendUint32(b, c.left)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (*cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != cursorLen || b[0] != 'c' || (b[1] != '0' && b[1] != '1') {
		return nil, ErrBadCursor
	}
	c := &cursor{reverse: b[1] == '1', t: int64(binary.BigEndian.Uint64(b[2:])), ord: binary.BigEndian.Uint32(b[10:]), left: binary.BigEndian.Uint32(b[14:])}
	if c.t < minMs || c.t >= maxMs {
		return nil, ErrBadCursor
	}
	return c, nil
}

// newStream returns the stream of shard sh of series id over [lo, hi).
// limit and filtered size the backend pages.
func (k *Kind) newStream(id string, sh int, lo, hi int64, reverse bool, limit int, filtered bool) *stream {
	pageSize := 0
	if limit > 0 && !filtered {
		pageSize = limit + 1
	}
	return k.lay.stream(id, sh, lo, hi, reverse, pageSize)
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
//
// decode decodes an item, into arena a if it takes one (see colArena).
// The stream decodes each group into one of its two arenas, in turn: a
// group's readings stay valid while the next group's are read (the
// readings of an instant, which lie in one group, may be held while the
// stream looks one reading ahead), and are overwritten by the group
// after it. Iter.Close gives the arenas back.
func (k *Kind) groupStream(g *groupReader, decode func(item table.Item, a *colArena) (*rbatch, error)) *stream {
	s := &stream{later: g.pending, g: g}
	s.fill = func(ctx context.Context) (*rbatch, error) {
		if len(s.queue) == 0 {
			// A new group: the one before the last is no longer held.
			s.arenas[0], s.arenas[1] = s.arenas[1], s.arenas[0]
		}
		for len(s.queue) == 0 {
			grp, err := g.next(ctx)
			if err != nil || grp.items == nil {
				return nil, err
			}
			a := s.arenas[1]
			if a == nil {
				a = newArena()
				s.arenas[1] = a
			}
			// A group left empty by its window is held by no one.
			a.reset()
			in := func(item table.Item) (*rbatch, error) { return decode(item, a) }
			if s.queue, err = readGroupRuns(grp.items, g.q.Reverse, in); err != nil {
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
	return &groupReader{tbl: k.st.tbl, q: *q, loKey: loKey, hiKey: hiKey, prefixLen: prefixLen, now: k.st.now, from: minMs, to: maxMs}
}
