package series

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/timetable-db/timetable/keys"
)

// Kind is one kind of series, described by its Schema, in a Store. It is
// safe for concurrent use.
type Kind struct {
	st  *Store
	s   Schema
	lay kindLayout

	// admitting serializes, per stripe of series ids, the writes of a
	// RejectDifferent kind from the check of what a series holds to the
	// buffer (see admit). A changed kind shares its predecessor's.
	admitting *[admitStripes]sync.Mutex

	// next is the kind that replaced this one (Store.Change), to which
	// the exported methods forward.
	next atomic.Pointer[Kind]
	// dir is the series the Store has put in the kind's directory (see
	// directory.go), shared with the kinds that replace it.
	dir *seriesDir

	apps sync.Pool // *chunk.Appender of the kind's fields, reset

	// proj holds the kind's projections (see projection), by field.
	projMu sync.Mutex
	proj   map[int]*Kind
}

// current returns the kind that k is now: k, or the kind that replaced
// it (Store.Change).
func (k *Kind) current() *Kind {
	for {
		n := k.next.Load()
		if n == nil {
			return k
		}
		k = n
	}
}

// removing returns the kind that k is now, for a call that removes items
// of series id: ErrClosed once the Store is closed, ErrInvalidID for an id
// that cannot be one.
func (k *Kind) removing(id string) (*Kind, error) {
	k = k.current()
	if k.st.closed.Load() {
		return nil, ErrClosed
	}
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	return k, nil
}

// widen pads readings written with an earlier schema of the kind (fewer
// fields and tags) to its fields and tags: absent values and tags. It
// reports false, changing nothing, if one has more than the kind.
func (k *Kind) widen(recs []rec) bool {
	nf, nt := len(k.s.Fields), len(k.s.Tags)
	for i := range recs {
		if len(recs[i].vals) > nf || len(recs[i].tags) > nt {
			return false
		}
	}
	for i := range recs {
		x := &recs[i]
		for len(x.vals) < nf {
			x.vals = append(x.vals, nan)
		}
		if nt > 0 {
			for len(x.tags) < nt {
				x.tags = append(x.tags, "")
			}
		}
	}
	return true
}

// Name returns the kind's name, the entity prefix of its keys.
func (k *Kind) Name() string { return k.s.Name }

// Schema returns the kind's schema with its defaults filled in (after
// the last Change); the slices are the caller's.
func (k *Kind) Schema() Schema {
	k = k.current()
	s := k.s
	s.Fields = slices.Clone(s.Fields)
	s.Tags = slices.Clone(s.Tags)
	s.Rollups = slices.Clone(s.Rollups)
	return s
}

// rec is a reading as the store handles it: milliseconds, a sequence
// number unique in the kind, values padded to the schema's fields.
type rec struct {
	t    int64
	seq  uint64
	vals []float64
	tags []string
}

func (r *rec) reading() Reading {
	return Reading{Time: msTime(r.t), Values: r.vals, Tags: r.tags}
}

func cmpRec(a, b rec) int {
	switch {
	case a.t < b.t:
		return -1
	case a.t > b.t:
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// prepare checks readings of series id and converts them; the buffer
// gives them their sequence numbers.
func (k *Kind) prepare(id string, rs []Reading) ([]rec, error) {
	return k.appendPrepared(nil, id, rs)
}

// appendPrepared appends the readings prepare would return to dst and
// returns the extended slice.
func (k *Kind) appendPrepared(dst []rec, id string, rs []Reading) ([]rec, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidID, id)
	}
	now := timeMs(k.st.now())
	latest := int64(maxMs) // the latest time a reading may have, excluded
	if mf := k.st.opts.MaxFuture; mf >= 0 {
		latest = min(latest, now+mf.Milliseconds()+1)
	}
	dst = slices.Grow(dst, len(rs))
	out := dst[len(dst) : len(dst)+len(rs)]
	nf, nt := len(k.s.Fields), len(k.s.Tags)
	vals := make([]float64, len(rs)*nf)
	for i, r := range rs {
		t := timeMs(r.Time)
		if t < minMs || t >= maxMs {
			return nil, fmt.Errorf("%w: time %v outside the years 0000-9999", ErrInvalidReading, r.Time)
		}
		if t >= latest {
			return nil, fmt.Errorf("%w: time %s is more than %v ahead of the clock (%s), the bound on future readings (MaxFuture)",
				ErrInvalidReading, ts(t), k.st.opts.MaxFuture, ts(now))
		}
		if len(r.Values) > nf || len(r.Tags) > nt {
			return nil, fmt.Errorf("%w: %d values and %d tags, kind %s has %d fields and %d tags",
				ErrInvalidReading, len(r.Values), len(r.Tags), k.s.Name, nf, nt)
		}
		if k.s.Retention.Raw != Forever && t+k.s.Retention.Raw.Milliseconds() <= now {
			return nil, fmt.Errorf("%w: %s, kind %s keeps %v", ErrExpired, ts(t), k.s.Name, k.s.Retention.Raw)
		}
		v := vals[i*nf : (i+1)*nf : (i+1)*nf]
		n := copy(v, r.Values)
		for j := range n {
			if v[j] == 0 {
				v[j] = 0 // -0 is stored as 0: DynamoDB's numbers have no sign of zero
			}
		}
		for j := n; j < nf; j++ {
			v[j] = math.NaN()
		}
		var tags []string
		if nt > 0 {
			tags = make([]string, nt)
			copy(tags, r.Tags)
			size := 0
			for j, g := range tags {
				if !utf8.ValidString(g) {
					return nil, fmt.Errorf("%w: tag %q is not UTF-8", ErrInvalidReading, g)
				}
				size += len(k.s.Tags[j]) + len(g)
			}
			if size > maxReadingTagBytes {
				return nil, fmt.Errorf("%w: %d bytes of tags, at most %d", ErrInvalidReading, size, maxReadingTagBytes)
			}
		}
		// Field by field: a struct copy would pay for its pointers'
		// write barriers as a whole.
		o := &out[i]
		o.t, o.seq, o.vals, o.tags = t, 0, v, tags
	}
	return dst[:len(dst)+len(rs)], nil
}

// settle puts readings of one series (of one batch) in order, by time
// then sequence number, and applies the kind's duplicate rule to those of
// one instant: LastWins keeps the last written, RejectDifferent the first,
// KeepAll every one. It returns the readings kept, in recs' array.
func (k *Kind) settle(recs []rec) []rec {
	if !slices.IsSortedFunc(recs, cmpRec) {
		slices.SortFunc(recs, cmpRec)
	}
	if k.s.Duplicates == KeepAll {
		return recs
	}
	out := recs[:0]
	for i := range recs {
		if len(out) > 0 && out[len(out)-1].t == recs[i].t {
			if k.s.Duplicates == LastWins {
				out[len(out)-1] = recs[i]
			}
			continue
		}
		out = append(out, recs[i])
	}
	clear(recs[len(out):])
	return out
}

// Write adds readings to series id through the write buffer, which batches
// and coalesces them into few, large writes (Options.FlushInterval and
// FlushSize). With Options.WALDir, Write returns once the readings are
// durable in the write-ahead log: no acknowledged reading is lost if the
// process dies. Without it they are only in memory until flushed.
// Range, Iter, All, Latest, LatestMany and Aggregate of this Store see
// buffered readings at once; Rollups, MetricRange and other processes see
// them once flushed (and rolled up). Write blocks while Options.MaxBuffered readings
// wait to be flushed, until ctx ends.
//
// Write checks every reading first and writes none if one is invalid
// (ErrInvalidReading, ErrInvalidID, ErrExpired). Every write method
// (Write, WriteMany, WriteSync, Store.WriteKinds) checks in one order:
// ErrClosed once the Store is closed; then a call with no readings
// succeeds, writing nothing; then ErrTableNotFound while the table is
// known to be missing; then the readings (and the kinds they name); then
// the duplicate rule (ErrConflict). A failed write-ahead log is reported
// when the readings are logged.
func (k *Kind) Write(ctx context.Context, id string, rs ...Reading) error {
	return k.st.write(ctx, k, id, rs, &writeReq{})
}

// WriteMany adds the readings of several series, as Write does for each
// of them, in one call, as an ingest endpoint receiving the readings of
// many series in one request would: with Options.WALDir it returns once
// all of them are durable, and they share the log's sync. A series may
// appear more than once. WriteMany checks every reading of every series
// first and writes none if one is invalid; the error names the series.
func (k *Kind) WriteMany(ctx context.Context, batch []SeriesReadings) error {
	return k.st.write(ctx, k, "", nil, &writeReq{many: batch, names: nameSeries})
}

// WriteSync writes readings to series id and returns once the table has
// them (raw items, latest reading and rollup markers). It flushes the
// write buffer first, so that readings keep their write order (and their
// duplicate rule) whichever way they were written: with the Chunks layout
// each call writes new chunk items for its series and for every series
// with buffered readings, so batch readings into few calls, or use Write.
// If it fails, its readings stay buffered and later flushes retry them.
// Its readings are not in the write-ahead log: if the process dies during
// the call, the readings that reached the table stay, and the rollup pass
// brings the rollups and the latest reading in line with them (see
// Store.apply for the order of the writes).
func (k *Kind) WriteSync(ctx context.Context, id string, rs ...Reading) error {
	return k.st.write(ctx, k, id, rs, &writeReq{sync: true})
}

// admitStripes is the number of locks a RejectDifferent kind spreads its
// series over.
const admitStripes = 64

// admitted passes es to write once the duplicate rule admits them (see
// admit), nothing if it admits no reading. For a RejectDifferent kind it
// holds the locks of the series of es meanwhile, so that of two calls of
// this Store racing to write different readings at one instant one is
// refused.
func (k *Kind) admitted(ctx context.Context, es []entry, write func(context.Context, []entry) error) error {
	if k.s.Duplicates != RejectDifferent {
		if len(es) == 0 {
			return nil
		}
		return write(ctx, es)
	}
	var stripes []int
	for _, e := range es {
		stripes = append(stripes, keys.ShardIndex(e.id, admitStripes))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		k.admitting[i].Lock()
		defer k.admitting[i].Unlock()
	}
	es, err := k.admit(ctx, es)
	if err != nil || len(es) == 0 {
		return err
	}
	return write(ctx, es)
}

// admit applies the RejectDifferent rule to the readings of es, for a
// kind that has it: a reading at an instant its series already holds (in
// the table, the buffer, or earlier in the call) is left out if it has
// the same values and tags, and makes the call fail with ErrConflict
// otherwise. It reads the readings the series holds from the call's
// first instant to its last, once per series. It returns es less the
// readings left out (in place), and none if one conflicts. Two Stores
// racing to write different readings at one instant may both accept
// theirs; reads then keep the first written.
func (k *Kind) admit(ctx context.Context, es []entry) ([]entry, error) {
	if k.s.Duplicates != RejectDifferent {
		return es, nil
	}
	// The span of each series' readings in the call (a series may have
	// several entries), found in one pass.
	spans := make(map[string][2]int64, len(es))
	for _, e := range es {
		if len(e.recs) == 0 {
			continue
		}
		lo, hi := int64(maxMs), int64(minMs)
		if sp, ok := spans[e.id]; ok {
			lo, hi = sp[0], sp[1]
		}
		for i := range e.recs {
			lo, hi = min(lo, e.recs[i].t), max(hi, e.recs[i].t)
		}
		spans[e.id] = [2]int64{lo, hi}
	}
	k.st.stats.visited(len(es))
	held := map[string]map[int64]rec{}
	for _, e := range es {
		if held[e.id] != nil || len(e.recs) == 0 {
			continue
		}
		lo, hi := spans[e.id][0], spans[e.id][1]
		m := map[int64]rec{}
		it := k.Iter(ctx, e.id, Query{From: msTime(lo), To: msTime(hi + 1)})
		for it.Next() {
			// Kept past Next: the batch's columns are reused.
			r := it.cur.rec(it.ci)
			r.vals = slices.Clone(r.vals)
			m[r.t] = r
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("series: cannot read the readings %s holds: %w", k.entity(e.id), err)
		}
		held[e.id] = m
	}
	out := es[:0]
	for _, e := range es {
		m := held[e.id]
		kept := e.recs[:0]
		for _, r := range e.recs {
			if h, ok := m[r.t]; ok {
				if !sameRec(h, r) {
					return nil, fmt.Errorf("%w: %s at %s", ErrConflict, k.entity(e.id), ts(r.t))
				}
				continue
			}
			m[r.t] = r
			kept = append(kept, r)
		}
		if len(kept) > 0 {
			e.recs = kept
			out = append(out, e)
		}
	}
	return out, nil
}

// sameRec reports whether two readings have the same values (NaN equal to
// NaN) and tags.
func sameRec(a, b rec) bool {
	if len(a.vals) != len(b.vals) || len(a.tags) != len(b.tags) {
		return false
	}
	for i, v := range a.vals {
		if w := b.vals[i]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
			return false
		}
	}
	return slices.Equal(a.tags, b.tags)
}

// entry is the readings of one series to write.
type entry struct {
	k    *Kind
	id   string
	recs []rec
}
