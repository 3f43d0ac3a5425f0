package promapi

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/timetable-db/timetable/ingest"
	"github.com/timetable-db/timetable/series"
)

// DefaultMaxSeries is the most series a selection selects when
// Queryable.MaxSeries is 0.
const DefaultMaxSeries = 100_000

// ErrTooManySeries is the error of a selection that would select more
// series than Queryable.MaxSeries: the API answers it with 422.
var ErrTooManySeries = errors.New("too many series")

// seriesPage is the number of ids or values a selection lists per page.
const seriesPage = 1000

// Queryable is a storage.Queryable over the kinds of a series.Store, as
// the package doc maps them to metrics. It is safe for concurrent use.
type Queryable struct {
	Store *series.Store
	// Allow reports whether the caller of ctx may read kind; nil allows
	// every kind. A kind it refuses has no metrics for that caller.
	Allow func(ctx context.Context, kind string) bool
	// MaxSeries is the most series a selection selects (0:
	// DefaultMaxSeries), counting the series whose labels it must read
	// to know them, and, in a kind whose label index is still being
	// built, the most series the kind may hold; one that would select
	// more fails with ErrTooManySeries.
	MaxSeries int

	// hasSeries holds the names of the kinds known to have a series (a
	// directory item is never removed).
	hasSeries sync.Map
	// plant, set by this package's tests, plants a bug in the selection
	// that the tests must catch.
	plant plantedBug
}

// plantedBug is a bug a test plants in the selection; the zero value is
// none.
type plantedBug uint8

// firstValueOnly reads the postings of the first value of a matcher only
// (of a regular expression of several).
const firstValueOnly plantedBug = 1

// Querier returns a querier over [mint, maxt], in milliseconds.
func (q *Queryable) Querier(mint, maxt int64) (storage.Querier, error) {
	return &querier{q: q, mint: mint, maxt: maxt}, nil
}

type querier struct {
	q          *Queryable
	mint, maxt int64

	mu      sync.Mutex
	cancels []context.CancelFunc // of the reads of its selections
}

// Close ends the reads of the querier's selections.
func (q *querier) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, c := range q.cancels {
		c()
	}
	q.cancels = nil
	return nil
}

// metric is one field of one kind.
type metric struct {
	kind  *series.Kind
	name  string
	field int
	tags  []string // the kind's tags
	// marks: the kind is a metric of its own (its only field "value"),
	// whose readings without a value are staleness markers (as remote
	// write stores them).
	marks bool
}

// metrics returns the metrics the caller of ctx may read whose names
// match every matcher of ms on __name__.
func (q *querier) metrics(ctx context.Context, ms []*labels.Matcher) []metric {
	var out []metric
	for _, k := range q.q.Store.Kinds() {
		if q.q.Allow != nil && !q.q.Allow(ctx, k.Name()) {
			continue
		}
		sc := k.Schema()
		for i := range sc.Fields {
			name := MetricName(sc.Name, sc.Fields, i)
			if matchesName(ms, name) {
				out = append(out, metric{kind: k, name: name, field: i, tags: sc.Tags, marks: len(sc.Fields) == 1 && sc.Fields[0] == valueField})
			}
		}
	}
	return out
}

func matchesName(ms []*labels.Matcher, name string) bool {
	for _, m := range ms {
		if m.Name == model.MetricNameLabel && !m.Matches(name) {
			return false
		}
	}
	return true
}

// matchesAll reports whether ls matches every matcher of ms.
func matchesAll(ms []*labels.Matcher, ls labels.Labels) bool {
	for _, m := range ms {
		if !m.Matches(ls.Get(m.Name)) {
			return false
		}
	}
	return true
}

// selected is a series a selection found: labels and where its samples
// come from (a read of the store, or samples read already).
type selected struct {
	labels  labels.Labels
	kind    *series.Kind
	id      string
	field   int
	marks   bool  // see metric
	from    int64 // ms, inclusive
	to      int64 // ms, inclusive
	samples samples
	read    bool     // samples holds them all
	fetch   *fetcher // reads the samples otherwise, ahead of the engine
	at      int      // the series' index in fetch
}

func (s *selected) Labels() labels.Labels { return s.labels }

func (s *selected) Iterator(it chunkenc.Iterator) chunkenc.Iterator {
	var smp samples
	var err error
	if s.read {
		smp = s.samples
	} else {
		smp, err = s.fetch.take(s.at)
	}
	if si, ok := it.(*sliceIter); ok {
		*si = sliceIter{s: smp, i: -1, err: err}
		return si
	}
	return &sliceIter{s: smp, i: -1, err: err}
}

// readSamples reads the samples of series s (not read already) from the
// store.
func (s *selected) readSamples(ctx context.Context) (samples, error) {
	var c series.Column
	if err := s.kind.ReadColumn(ctx, s.id, s.field, time.UnixMilli(s.from), time.UnixMilli(s.to).Add(time.Millisecond), &c); err != nil {
		return samples{}, err
	}
	return columnSamples(c, s.marks), nil
}

// columnSamples returns the samples of the readings of c (its slices,
// reused), each as storedSample gives it, readings of one instant one sample,
// the last.
func columnSamples(c series.Column, marks bool) samples {
	j := 0
	for i, t := range c.Times {
		v, ok := storedSample(c.Values[i], marks)
		if !ok {
			continue
		}
		if j > 0 && c.Times[j-1] == t {
			c.Values[j-1] = v
			continue
		}
		c.Times[j], c.Values[j] = t, v
		j++
	}
	return samples{t: c.Times[:j], v: c.Values[:j]}
}

// The read-ahead of a selection's samples: the engine iterates the
// series of a selection one after the other, and the next series are
// read meanwhile.
const (
	// readAhead is the most series read ahead of the one the engine asks
	// for: what their samples weigh is the memory read-ahead adds.
	readAhead = 32
	// readers is the most reads of one selection at once.
	readers = 8
	// readBatch is the most series one read takes at once: the first
	// pages of their chunks are read in one call (series.ReadColumns).
	readBatch = 16
)

// fetcher reads the samples of the series of one selection, in the
// order of the series set: when the engine asks for the samples of
// series i, and fewer than readAhead/2 series after it are queued, those
// of series i to i+readAhead not asked for or queued yet are queued, and
// at most readers goroutines read the queue in order, each taking up to
// readBatch series of one kind at a time, so that the store's latency
// and the decoding overlap the engine's work. A goroutine reads batch
// after batch while the queue holds some and ends when it is empty: a
// read goes deep through the store's layers, and a goroutine that has
// grown its stack to that depth once keeps it for the next series (a
// goroutine per series grew a fresh stack each time). The samples of a
// series are handed out once; asked again, the series is read again.
type fetcher struct {
	ctx   context.Context
	sel   []*selected
	slots []fetchSlot

	mu      sync.Mutex
	queue   []int // the slots queued, read from queue[head] on
	head    int
	workers int // goroutines reading
	next    int // the slots before it were queued or taken
}

// fetchSlot is the read of one series.
type fetchSlot struct {
	taken bool
	done  chan struct{} // made when queued, closed once s and err are set
	s     samples
	err   error
}

func newFetcher(ctx context.Context, sel []*selected) *fetcher {
	f := &fetcher{ctx: ctx, sel: sel, slots: make([]fetchSlot, len(sel))}
	for i, s := range sel {
		s.fetch, s.at = f, i
	}
	return f
}

// take returns the samples of series i.
func (f *fetcher) take(i int) (samples, error) {
	f.mu.Lock()
	if sl := &f.slots[i]; (sl.done == nil && !sl.taken) || f.next-i <= readAhead/2 {
		end := min(i+1+readAhead, len(f.slots))
		for j := i; j < end; j++ {
			if sl := &f.slots[j]; sl.done == nil && !sl.taken {
				sl.done = make(chan struct{})
				f.queue = append(f.queue, j)
			}
		}
		f.next = max(f.next, end)
	}
	for f.workers < min(readers, (len(f.queue)-f.head+readBatch-1)/readBatch) {
		f.workers++
		go f.work()
	}
	sl := &f.slots[i]
	again := sl.taken
	sl.taken = true
	f.mu.Unlock()
	if again {
		return f.sel[i].readSamples(f.ctx)
	}
	<-sl.done
	s, err := sl.s, sl.err
	sl.s = samples{} // the iterator's now
	return s, err
}

// work reads the queued slots, in order, until none is left: a run of
// consecutive slots of one kind and field (up to readBatch) at a time.
func (f *fetcher) work() {
	var batch []int
	for {
		f.mu.Lock()
		if f.head == len(f.queue) {
			f.queue, f.head = f.queue[:0], 0
			f.workers--
			f.mu.Unlock()
			return
		}
		batch = append(batch[:0], f.queue[f.head])
		f.head++
		for f.head < len(f.queue) && len(batch) < readBatch && f.sameRead(batch[0], f.queue[f.head]) {
			batch = append(batch, f.queue[f.head])
			f.head++
		}
		f.mu.Unlock()
		f.read(batch)
	}
}

// sameRead reports whether the series of slots i and j are read
// together: of one kind and field, over one range.
func (f *fetcher) sameRead(i, j int) bool {
	a, b := f.sel[i], f.sel[j]
	return a.kind == b.kind && a.field == b.field && a.from == b.from && a.to == b.to && a.marks == b.marks
}

// read reads the series of slots js (see sameRead) and fills their
// slots.
func (f *fetcher) read(js []int) {
	if err := f.ctx.Err(); err != nil || len(js) == 1 {
		for _, j := range js {
			sl := &f.slots[j]
			if sl.err = err; err == nil {
				sl.s, sl.err = f.sel[j].readSamples(f.ctx)
			}
			close(sl.done)
		}
		return
	}
	s := f.sel[js[0]]
	ids := make([]string, len(js))
	for n, j := range js {
		ids[n] = f.sel[j].id
	}
	s.kind.ReadColumns(f.ctx, ids, s.field, time.UnixMilli(s.from), time.UnixMilli(s.to).Add(time.Millisecond), func(n int, c series.Column, err error) {
		sl := &f.slots[js[n]]
		if sl.err = err; err == nil {
			sl.s = columnSamples(c, s.marks)
		}
		close(sl.done)
	})
}

// collect finds the series that ms select whose samples lie in [from,
// to]: the candidates of each matching kind (see select.go), labelled
// from their ids, and, for those whose readings' tags give labels, split
// by those tags (which it reads for that, in the range). Series whose
// labels the id gives whole are not read here.
func (q *querier) collect(ctx context.Context, from, to int64, ms []*labels.Matcher) ([]*selected, error) {
	sel := q.newSelection(ms)
	var out []*selected
	for _, m := range q.metrics(ctx, ms) {
		cs, err := sel.candidates(ctx, m)
		if err != nil {
			return nil, err
		}
		got, err := q.selectOf(ctx, m, cs, from, to, ms)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	slices.SortFunc(out, func(a, b *selected) int { return labels.Compare(a.labels, b.labels) })
	return out, nil
}

// selectOf returns the series of metric m among candidates cs that ms
// select, reading those whose readings give labels over [from, to].
func (q *querier) selectOf(ctx context.Context, m metric, cs []candidate, from, to int64, ms []*labels.Matcher) ([]*selected, error) {
	var out []*selected
	for _, c := range cs {
		b := labels.NewBuilder(c.labels)
		b.Set(model.MetricNameLabel, m.name)
		if len(c.extra) == 0 {
			if ls := b.Labels(); matchesAll(ms, ls) {
				out = append(out, &selected{labels: ls, kind: m.kind, id: c.id, field: m.field, marks: m.marks, from: from, to: to})
			}
			continue
		}
		split, err := q.readSplit(ctx, m, c.id, b, c.extra, from, to)
		if err != nil {
			return nil, err
		}
		for _, s := range split {
			if matchesAll(ms, s.labels) {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// extraTags returns the indexes of the tags of a kind that the id's
// labels do not name: their values come from the readings.
func extraTags(tags []string, idl labels.Labels) []int {
	var out []int
	for i, t := range tags {
		if l := ingest.LabelOfTag(t); l != model.MetricNameLabel && !idl.Has(l) {
			out = append(out, i)
		}
	}
	return out
}

// readSplit reads series id of m in [from, to] and returns a series per
// combination of the values of its extra tags.
func (q *querier) readSplit(ctx context.Context, m metric, id string, b *labels.Builder, extra []int, from, to int64) ([]*selected, error) {
	it := m.kind.Iter(ctx, id, series.Query{From: time.UnixMilli(from), To: time.UnixMilli(to).Add(time.Millisecond)})
	defer it.Close()
	groups := map[string]*selected{}
	var order []string
	var key strings.Builder
	for it.Next() {
		r := it.Reading()
		v, ok := sampleValue(r, m.field, m.marks)
		if !ok {
			continue
		}
		key.Reset()
		for _, ti := range extra {
			if ti < len(r.Tags) {
				key.WriteString(r.Tags[ti])
			}
			key.WriteByte(0)
		}
		g, ok := groups[key.String()]
		if !ok {
			for _, ti := range extra {
				val := ""
				if ti < len(r.Tags) {
					val = r.Tags[ti]
				}
				b.Set(ingest.LabelOfTag(m.tags[ti]), val) // "" deletes
			}
			g = &selected{labels: b.Labels(), read: true}
			groups[key.String()] = g
			order = append(order, key.String())
		}
		g.samples.add(r.Time.UnixMilli(), v)
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	out := make([]*selected, 0, len(order))
	for _, k := range order {
		out = append(out, groups[k])
	}
	return out, nil
}

// samples are the samples of a series, in time order.
type samples struct {
	t []int64
	v []float64
}

// add appends t, v, replacing the last sample if it has time t (readings
// of one instant kept by KeepAll: the last written wins).
func (s *samples) add(t int64, v float64) {
	if n := len(s.t); n > 0 && s.t[n-1] == t {
		s.v[n-1] = v
		return
	}
	s.t = append(s.t, t)
	s.v = append(s.v, v)
}

// sampleValue returns the sample of field i of r (see storedSample);
// a reading without field i has it absent.
func sampleValue(r series.Reading, i int, marks bool) (float64, bool) {
	if i < len(r.Values) {
		return storedSample(r.Values[i], marks)
	}
	return storedSample(math.NaN(), marks)
}

// storedSample returns the sample of a stored value v: v itself; a NaN
// for a value stored as a NaN sample (ingest.SampleNaNBits); Prometheus'
// staleness marker for one stored as such; and, when the value is
// absent (any other NaN), the staleness marker if marks is set (see
// metric) and no sample otherwise.
func storedSample(v float64, marks bool) (float64, bool) {
	switch {
	case !math.IsNaN(v), value.IsStaleNaN(v):
		return v, true
	case math.Float64bits(v) == ingest.SampleNaNBits:
		return math.Float64frombits(value.NormalNaN), true
	case marks:
		return math.Float64frombits(value.StaleNaN), true
	}
	return 0, false
}

// bounds returns the range of a selection: the hints' if given, else the
// querier's.
func (q *querier) bounds(h *storage.SelectHints) (int64, int64) {
	if h != nil && (h.Start != 0 || h.End != 0) {
		return h.Start, h.End
	}
	return q.mint, q.maxt
}

// Select returns the series that ms select, sorted by labels; series of
// one label set (two kinds whose metric names meet) are merged.
func (q *querier) Select(ctx context.Context, _ bool, h *storage.SelectHints, ms ...*labels.Matcher) storage.SeriesSet {
	from, to := q.bounds(h)
	sel, err := q.collect(ctx, from, to, ms)
	if err != nil {
		return storage.ErrSeriesSet(err)
	}
	var out []storage.Series
	n := 0 // the series of sel in out
	for i := 0; i < len(sel); {
		if h != nil && h.Limit > 0 && len(out) == h.Limit {
			break
		}
		j := i + 1
		for j < len(sel) && labels.Equal(sel[i].labels, sel[j].labels) {
			j++
		}
		if j == i+1 {
			out = append(out, sel[i])
		} else {
			group := make([]storage.Series, 0, j-i)
			for _, s := range sel[i:j] {
				group = append(group, s)
			}
			out = append(out, storage.ChainedSeriesMerge(group...))
		}
		i, n = j, j
	}
	var lazy []*selected
	for _, s := range sel[:n] {
		if !s.read {
			lazy = append(lazy, s)
		}
	}
	if len(lazy) > 0 {
		rctx, cancel := context.WithCancel(ctx)
		q.mu.Lock()
		q.cancels = append(q.cancels, cancel)
		q.mu.Unlock()
		newFetcher(rctx, lazy)
	}
	return &seriesSet{s: out, i: -1}
}

// LabelValues returns the values of label name in the series ms select.
// Without matchers on other labels than __name__, they are read from the
// label index where it can (see lookup.go); else from the series
// selected.
func (q *querier) LabelValues(ctx context.Context, name string, h *storage.LabelHints, ms ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	if !onLabels(ms) {
		set, err := q.indexValues(ctx, name, h, ms)
		return limited(set, h), nil, err
	}
	sel, err := q.collect(ctx, q.mint, q.maxt, ms)
	if err != nil {
		return nil, nil, err
	}
	set := map[string]struct{}{}
	for _, s := range sel {
		if v := s.labels.Get(name); v != "" {
			set[v] = struct{}{}
		}
	}
	return limited(set, h), nil, nil
}

// LabelNames returns the names of the labels of the series ms select,
// from the label index or the series as LabelValues does.
func (q *querier) LabelNames(ctx context.Context, h *storage.LabelHints, ms ...*labels.Matcher) ([]string, annotations.Annotations, error) {
	if !onLabels(ms) {
		set, err := q.indexNames(ctx, ms)
		return limited(set, h), nil, err
	}
	sel, err := q.collect(ctx, q.mint, q.maxt, ms)
	if err != nil {
		return nil, nil, err
	}
	set := map[string]struct{}{}
	for _, s := range sel {
		s.labels.Range(func(l labels.Label) { set[l.Name] = struct{}{} })
	}
	return limited(set, h), nil, nil
}

// limited returns the sorted members of set, at most h.Limit.
func limited(set map[string]struct{}, h *storage.LabelHints) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	if h != nil && h.Limit > 0 && len(out) > h.Limit {
		out = out[:h.Limit]
	}
	return out
}

// seriesSet is a storage.SeriesSet over a slice.
type seriesSet struct {
	s []storage.Series
	i int
}

func (s *seriesSet) Next() bool                        { s.i++; return s.i < len(s.s) }
func (s *seriesSet) At() storage.Series                { return s.s[s.i] }
func (s *seriesSet) Err() error                        { return nil }
func (s *seriesSet) Warnings() annotations.Annotations { return nil }

// millis is a time in Unix milliseconds: the parameter of Seek, named so
// that go vet does not take the iterators' Seek for io.Seeker's.
type millis = int64

// floatIter holds what the float-only iterators share.
type floatIter struct{}

func (floatIter) AtHistogram(*histogram.Histogram) (int64, *histogram.Histogram) {
	return 0, nil
}

func (floatIter) AtFloatHistogram(*histogram.FloatHistogram) (int64, *histogram.FloatHistogram) {
	return 0, nil
}

func (floatIter) AtST() int64 { return 0 }

// sliceIter iterates samples read already (or the error that ended
// their read).
type sliceIter struct {
	floatIter
	s   samples
	i   int
	err error
}

func (it *sliceIter) Next() chunkenc.ValueType {
	if it.i+1 >= len(it.s.t) {
		it.i = len(it.s.t)
		return chunkenc.ValNone
	}
	it.i++
	return chunkenc.ValFloat
}

func (it *sliceIter) Seek(t millis) chunkenc.ValueType {
	if it.i < 0 {
		it.i = 0
	}
	if it.i >= len(it.s.t) {
		return chunkenc.ValNone
	}
	if it.s.t[it.i] >= t {
		return chunkenc.ValFloat
	}
	j, _ := slices.BinarySearch(it.s.t[it.i:], t)
	it.i += j
	if it.i >= len(it.s.t) {
		return chunkenc.ValNone
	}
	return chunkenc.ValFloat
}

func (it *sliceIter) At() (int64, float64) { return it.s.t[it.i], it.s.v[it.i] }
func (it *sliceIter) AtT() int64           { return it.s.t[it.i] }
func (it *sliceIter) Err() error           { return it.err }
