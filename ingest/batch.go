package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/timetable-db/timetable/series"
)

// Batch is what a decoded request holds, grouped by kind then series, in
// input order. It and every slice and string in it belong to the caller
// (nothing aliases the input or the decoder's buffers; with
// Options.Series, the ids and Tags of remote-write series are shared
// with the cache and other batches, read only); the readings of
// one kind share their Values and Tags arrays, each reading's slices
// capped to its own part, so appending to one never writes over another.
type Batch struct {
	// Kinds holds a KindBatch per kind with readings, in order of first
	// appearance; it is empty when the input holds no reading.
	Kinds []KindBatch
	// Readings is the number of readings in all.
	Readings int
	// Bytes estimates the memory the batch holds (see Options.Reserve);
	// the decoder's buffers come on top, about twice
	// Options.MaxLineBytes at most.
	Bytes int64

	// spare holds the arrays the batch took from spares, and those it
	// made, for Release.
	spare *spare
}

// Release hands the batch's arrays (of readings and of values) to later
// decodes, which reuse them instead of allocating. The caller must hold
// nothing of the batch any more (the readings' Values and the series'
// Readings are reused; ids and tags, strings, are not): it calls Release
// once the store took the readings (series copies what it keeps). A
// batch released twice, or not at all, is not an error.
func (b *Batch) Release() {
	sp := b.spare
	if sp == nil {
		return
	}
	b.spare = nil
	for i := range b.Kinds {
		for j := range b.Kinds[i].Series {
			rs := b.Kinds[i].Series[j].Readings
			if cap(rs) > maxSpareReadings || len(sp.readings) >= maxSpareSeries {
				continue
			}
			clear(rs) // drop the values and tags they point to
			sp.readings = append(sp.readings, rs[:0])
		}
		clear(b.Kinds[i].Series)
	}
	b.Kinds = nil
	spares.Put(sp)
}

// spare is what a released Batch leaves for the next decodes: empty
// arrays of readings, and slabs of values.
type spare struct {
	readings [][]series.Reading
	slabs    [][]float64 // every slab the batch used, spare or made
	free     int         // slabs[:free] are not handed out to the batch yet
}

// spares holds the arrays of released batches.
var spares = sync.Pool{New: func() any { return new(spare) }}

const (
	// maxSpareReadings is the largest array of readings a released batch
	// leaves for reuse; maxSpareSeries the most arrays.
	maxSpareReadings = 4096
	maxSpareSeries   = 1 << 16
)

// takeReadings returns an empty array of readings for a new series of
// the batch, a spare one if any (nil otherwise).
func (sp *spare) takeReadings() []series.Reading {
	n := len(sp.readings)
	if n == 0 {
		return nil
	}
	rs := sp.readings[n-1]
	sp.readings[n-1] = nil
	sp.readings = sp.readings[:n-1]
	return rs
}

// chargedReadings is the number of readings' memory a batch counts for
// the array of a series (in Bytes): its capacity, but at most twice its
// length. An array append grew is charged whole (append at most doubles
// a capacity); a spare one is charged for what the batch uses of it, as
// if the batch had grown it: the rest is memory the spares held before
// the request, which must not make a small request look large to the
// in-flight budget.
func chargedReadings(rs []series.Reading) int64 { return int64(min(cap(rs), 2*len(rs))) }

// takeSlab returns a slab of at least n values, a spare one if one is
// large enough; the batch keeps it until Release.
func (sp *spare) takeSlab(n int) []float64 {
	for i := range sp.free {
		if s := sp.slabs[i]; len(s) >= n {
			// Swap it out of the free part.
			sp.free--
			sp.slabs[i], sp.slabs[sp.free] = sp.slabs[sp.free], s
			return s
		}
	}
	s := make([]float64, n)
	sp.slabs = append(sp.slabs, s)
	return s
}

// KindBatch is the readings of one kind: a series.SeriesReadings per
// series, in order of first appearance, each series' readings in input
// order, ready for series.Kind.WriteMany. Each reading has
// len(Values) == len(Schema.Fields), NaN where the input gave no value,
// and Tags nil when the input gave no tag of the schema, else
// len(Tags) == len(Schema.Tags), "" where absent, of the schema when it
// was decoded: with Options.Grow a kind may grow during the call, and the
// readings decoded before have fewer values and tags (series pads them).
// The readings of one series of a remote-write request share one Tags
// slice. Times are UTC, truncated
// to the millisecond as series keeps them.
type KindBatch struct {
	Kind   string
	Series []series.SeriesReadings
}

const (
	// minMs and maxMs bound the times series stores: the years 0000-9999.
	minMs = -62167219200000 // 0000-01-01T00:00:00Z
	maxMs = 253402300800000 // 10000-01-01T00:00:00Z
	// maxIDBytes is series' limit on a series id.
	maxIDBytes = 512
	// maxTagBytes is series' limit on the tags of a reading (names and
	// values).
	maxTagBytes = 256 << 10
	// slabReadings is the most readings whose values one allocation
	// holds.
	slabReadings = 1024
)

// What a batch holds, estimated for Options.Reserve (the test
// TestBatch_Bytes checks the estimate against the heap): a reading in
// its series' slice, a series in KindBatch.Series, a series' entry in the
// map of the kind's series (besides its id), a distinct string's entry
// in the map of interned strings (besides its bytes).
const (
	readingBytes   = int64(unsafe.Sizeof(series.Reading{}))
	seriesBytes    = int64(unsafe.Sizeof(series.SeriesReadings{}))
	seriesMapBytes = 48
	stringBytes    = 64
	// ReserveStep is the least Options.Reserve is asked for at a time.
	ReserveStep = 256 << 10
)

// builder accumulates the readings of one call into a Batch and checks
// what series would refuse without naming the line: the series id, the
// tags' size and encoding, the time's range, the count.
type builder struct {
	o      *Options
	lookup Lookup
	item   string // Error.Item
	b      Batch
	kinds  map[string]*kind
	last   *kind
	intern map[string]string
	series int // distinct series of all kinds
	// seriesHint is about how many series a kind of the call has, if the
	// decoder knows (0: it does not), to size a kind's map of series.
	seriesHint int
	held       int64 // reserved through Options.Reserve
}

// kind is the state of one kind of the batch.
type kind struct {
	s      series.Schema
	i      int            // index in Batch.Kinds
	fields map[string]int // field name -> index in Values
	tags   map[string]int // tag name -> index in Tags
	series map[string]int // series id -> index in KindBatch.Series
	vals   []float64      // values not yet handed out
	sp     *spare         // the batch's
	tagv   []string       // tags not yet handed out
	nslab  int            // readings of the next slab
	bytes  int64          // of the slabs, not yet in Batch.Bytes
}

func newBuilder(lookup Lookup, o *Options, item string) *builder {
	if o == nil {
		o = &Options{}
	}
	sp := spares.Get().(*spare)
	sp.free = len(sp.slabs)
	return &builder{o: o, lookup: lookup, item: item, kinds: map[string]*kind{}, intern: map[string]string{}, b: Batch{spare: sp}}
}

// errf returns an *Error at line.
func (b *builder) errf(line int, format string, args ...any) *Error {
	return &Error{Line: line, Item: b.item, Reason: fmt.Sprintf(format, args...)}
}

// kind returns the state of the named kind, looking its schema up the
// first time; name is only read.
func (b *builder) kind(name []byte) (*kind, error) {
	if b.last != nil && string(name) == b.last.s.Name {
		return b.last, nil
	}
	if k, ok := b.kinds[string(name)]; ok {
		b.last = k
		return k, nil
	}
	s, err := b.lookup(string(name))
	if err != nil {
		return nil, err
	}
	s.Name = string(name)
	return b.newKind(s), nil
}

// kindS is kind for a name held as a string.
func (b *builder) kindS(name string) (*kind, error) {
	if b.last != nil && name == b.last.s.Name {
		return b.last, nil
	}
	return b.kind([]byte(name))
}

// newKind adds the state of a kind of schema s.
func (b *builder) newKind(s series.Schema) *kind {
	k := &kind{i: len(b.b.Kinds), fields: map[string]int{}, tags: map[string]int{}, series: make(map[string]int, b.seriesHint), nslab: 16, sp: b.b.spare}
	k.setSchema(s)
	b.b.Kinds = append(b.b.Kinds, KindBatch{Kind: k.s.Name})
	b.kinds[k.s.Name] = k
	b.last = k
	return k
}

// setSchema makes s the kind's schema: its own, or one with fields and
// tags appended (Options.Grow).
func (k *kind) setSchema(s series.Schema) {
	for i := len(k.s.Fields); i < len(s.Fields); i++ {
		k.fields[s.Fields[i]] = i
	}
	for i := len(k.s.Tags); i < len(s.Tags); i++ {
		k.tags[s.Tags[i]] = i
	}
	k.s = s
}

// grow returns the state of kind name (k: its state, or nil if the
// builder has none) holding the fields and tags given, and meta if not
// zero, through Options.Grow; line is the entry's.
func (b *builder) grow(k *kind, name string, fields, tags []string, meta series.Meta, line int) (*kind, error) {
	if b.o.Grow == nil {
		return k, nil
	}
	s, err := b.o.Grow(series.Schema{Name: name, Fields: fields, Tags: tags, Meta: meta})
	if err != nil {
		if errors.Is(err, series.ErrLimit) || errors.Is(err, series.ErrInvalidSchema) {
			return nil, &Error{Line: line, Item: b.item, Reason: err.Error(), Err: err}
		}
		return nil, fmt.Errorf("ingest: cannot add to kind %s: %w", name, err)
	}
	if k == nil {
		s.Name = name
		return b.newKind(s), nil
	}
	if len(s.Fields) < len(k.s.Fields) || len(s.Tags) < len(k.s.Tags) ||
		!slices.Equal(s.Fields[:len(k.s.Fields)], k.s.Fields) || !slices.Equal(s.Tags[:len(k.s.Tags)], k.s.Tags) {
		return nil, fmt.Errorf("ingest: kind %s changed under the decoder: fields %v, tags %v", name, s.Fields, s.Tags)
	}
	s.Name = name
	k.setSchema(s)
	return k, nil
}

// values returns a reading's values, all NaN (absent); nil if the kind
// has no field.
func (k *kind) values() []float64 {
	nf := len(k.s.Fields)
	if nf == 0 {
		return nil
	}
	if len(k.vals) < nf {
		// A spare slab larger than asked is used, and charged, for the
		// part asked: the rest is memory the spares held before.
		n := nf * k.nslab
		k.vals = k.sp.takeSlab(n)[:n]
		k.bytes += int64(8 * n)
		k.nslab = min(2*k.nslab, slabReadings)
	}
	v := k.vals[:nf:nf]
	k.vals = k.vals[nf:]
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// newTags returns a reading's tags, all "" (absent).
func (k *kind) newTags() []string {
	nt := len(k.s.Tags)
	if len(k.tagv) < nt {
		k.tagv = make([]string, nt*k.nslab)
		k.bytes += int64(16 * len(k.tagv))
	}
	t := k.tagv[:nt:nt]
	k.tagv = k.tagv[nt:]
	return t
}

// str returns s as a string, one copy per distinct value in the batch.
func (b *builder) str(s []byte) string {
	if v, ok := b.intern[string(s)]; ok {
		return v
	}
	v := string(s)
	b.intern[v] = v
	b.b.Bytes += int64(len(v)) + stringBytes
	return v
}

// strS is str for a string: it keeps a copy, so that the batch does not
// hold the larger string s may be part of.
func (b *builder) strS(s string) string {
	if v, ok := b.intern[s]; ok {
		return v
	}
	v := strings.Clone(s)
	b.intern[v] = v
	b.b.Bytes += int64(len(v)) + stringBytes
	return v
}

// add appends r to series id of kind k, from the input at line. id is
// only read. It checks the id, the tags and the count.
func (b *builder) add(k *kind, id []byte, r series.Reading, line int) error {
	return b.addTo(k, id, "", r, line, false)
}

// addTo is add with sid, when not "", the id as a string, which the
// batch then keeps as the series' id if the series is new to it (id may
// then be nil if known). known says that the id and the tags were checked
// before (the tags of every reading of a series are then the same).
func (b *builder) addTo(k *kind, id []byte, sid string, r series.Reading, line int, known bool) error {
	if b.o.MaxReadings > 0 && b.b.Readings >= b.o.MaxReadings {
		e := b.errf(line, "more than %d readings", b.o.MaxReadings)
		e.Err = ErrTooManyReadings
		return e
	}
	if r.Tags != nil && !known {
		size := 0
		for i, t := range r.Tags {
			if t == "" {
				continue
			}
			if !utf8.ValidString(t) {
				return b.errf(line, "tag %q: %s is not UTF-8", k.s.Tags[i], clip(t))
			}
			size += len(k.s.Tags[i]) + len(t)
		}
		if size > maxTagBytes {
			return b.errf(line, "%d bytes of tags, at most %d", size, maxTagBytes)
		}
	}
	kb := &b.b.Kinds[k.i]
	var i int
	var ok bool
	if sid != "" {
		i, ok = k.series[sid]
	} else {
		i, ok = k.series[string(id)]
	}
	if !ok {
		if !known {
			if reason := badID(id); reason != "" {
				return b.errf(line, "%s", reason)
			}
		}
		if b.o.MaxSeries > 0 && b.series >= b.o.MaxSeries {
			e := b.errf(line, "more than %d series", b.o.MaxSeries)
			e.Err = ErrTooManySeries
			return e
		}
		if sid == "" {
			sid = string(id)
		}
		i = len(kb.Series)
		k.series[sid] = i
		c := cap(kb.Series)
		kb.Series = append(kb.Series, series.SeriesReadings{ID: sid, Readings: b.b.spare.takeReadings()})
		b.series++
		b.b.Bytes += int64(len(sid)) + seriesMapBytes + int64(cap(kb.Series)-c)*seriesBytes
	}
	rs := &kb.Series[i].Readings
	charged := chargedReadings(*rs)
	*rs = append(*rs, r)
	b.b.Bytes += (chargedReadings(*rs)-charged)*readingBytes + k.bytes
	k.bytes = 0
	b.b.Readings++
	return b.reserve(line)
}

// reserve asks Options.Reserve for the memory the batch holds beyond
// what it reserved, in steps of at least ReserveStep.
func (b *builder) reserve(line int) error {
	if b.o.Reserve == nil || b.b.Bytes <= b.held {
		return nil
	}
	n := max(b.b.Bytes-b.held, ReserveStep)
	if err := b.o.Reserve(n); err != nil {
		return &Error{Line: line, Item: b.item, Reason: err.Error(), Err: err}
	}
	b.held += n
	return nil
}

// badID says why series refuses id, "" if it takes it.
func badID(id []byte) string {
	switch {
	case len(id) == 0:
		return "series id is empty"
	case len(id) > maxIDBytes:
		return fmt.Sprintf("series id %s is longer than %d bytes", clip(string(id)), maxIDBytes)
	case !utf8.Valid(id):
		return fmt.Sprintf("series id %s is not UTF-8", clip(string(id)))
	case strings.Contains(string(id), "#"):
		return fmt.Sprintf("series id %s holds '#'", clip(string(id)))
	}
	return ""
}

// HashedIDPrefix starts the series id of a tag or label set longer than
// series takes (see shortID): such a series' labels are its readings'
// tags only.
const HashedIDPrefix = series.HashedIDPrefix

// shortID returns the series id of a tag or label set written as id: id
// itself if series takes its length, else "~sha256:" and the hex SHA-256
// of id, which no tag set written out takes (it has no '=').
func shortID(id []byte) []byte {
	if len(id) <= maxIDBytes {
		return id
	}
	sum := sha256.Sum256(id)
	return hex.AppendEncode(append(id[:0], HashedIDPrefix...), sum[:])
}

// clip quotes s for an error message, cut to 64 bytes.
func clip(s string) string {
	const n = 64
	if len(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q...", s[:n])
}

// batch returns the batch built, without the kinds that got no reading
// (JSON and CSV look their kind up before reading any).
func (b *builder) batch() *Batch {
	b.b.Kinds = slices.DeleteFunc(b.b.Kinds, func(k KindBatch) bool { return len(k.Series) == 0 })
	return &b.b
}

// toMs returns t in UTC truncated to the millisecond, as series keeps it.
func toMs(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// msTime returns the time of ms milliseconds since the epoch, and
// whether series can store it (the years 0000-9999).
func msTime(ms int64) (time.Time, bool) {
	if ms < minMs || ms >= maxMs {
		return time.Time{}, false
	}
	return time.UnixMilli(ms).UTC(), true
}

// checkTime returns t truncated to the millisecond in UTC, and whether
// series can store it.
func checkTime(t time.Time) (time.Time, bool) {
	// Compare seconds first: UnixMilli overflows past about 292 million
	// years.
	if s := t.Unix(); s < minMs/1000-1 || s > maxMs/1000+1 {
		return time.Time{}, false
	}
	return msTime(t.UnixMilli())
}
