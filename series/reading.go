package series

import (
	"math"
	"time"
)

// Reading is one reading of a series: an instant, stored to the
// millisecond in UTC, and the values of the schema's fields and tags.
type Reading struct {
	// Time is when the reading was taken (event time). It is kept to the
	// millisecond, in UTC.
	Time time.Time
	// Values holds the schema's fields, in Schema.Fields order. NaN means
	// absent; a shorter slice leaves the last fields absent.
	Values []float64
	// Tags holds the schema's tags, in Schema.Tags order. "" means absent;
	// a shorter slice leaves the last tags absent.
	Tags []string
}

// SeriesReadings is readings of one series, for Kind.WriteMany.
type SeriesReadings struct {
	ID       string
	Readings []Reading
}

// Aggregate summarises the values of one field over a period. NaN values
// count as absent. When Count is 0 the other figures are zero.
type Aggregate struct {
	Count               int64
	Sum, Min, Max       float64
	First, Last         float64
	FirstTime, LastTime time.Time
}

// Mean returns Sum / Count, or NaN when Count is 0.
func (a Aggregate) Mean() float64 {
	if a.Count == 0 {
		return math.NaN()
	}
	return a.Sum / float64(a.Count)
}

// Period is the aggregates of one period of a series: a rollup item,
// a bucket, or a step of an Aggregate.
type Period struct {
	// Start and End bound the period: [Start, End).
	Start, End time.Time
	// Count is the number of readings in the period.
	Count int64
	// Fields holds one Aggregate per field, in Schema.Fields order.
	Fields []Aggregate
}

// Field returns the aggregate of the field at index i, the zero Aggregate
// if i is out of range.
func (p Period) Field(i int) Aggregate {
	if i < 0 || i >= len(p.Fields) {
		return Aggregate{}
	}
	return p.Fields[i]
}

// Tier is where aggregates come from: the raw readings or a rollup tier.
type Tier uint8

const (
	Raw Tier = iota
	Hourly
	Daily
	Monthly
)

// String returns "raw", "hourly", "daily" or "monthly".
func (t Tier) String() string {
	switch t {
	case Raw:
		return "raw"
	case Hourly:
		return "hourly"
	case Daily:
		return "daily"
	case Monthly:
		return "monthly"
	}
	return "Tier(?)"
}

// agg accumulates one field's aggregate, times in milliseconds. Of
// readings at one instant, first and last are those first and last in the
// order of the store's reads (time, then position: firstP and lastP), so
// that the figures do not depend on the order units are merged in (shards
// read in parallel, chunks before or after compaction). Units read back
// from rollup items have no positions; their periods never share an
// instant.
type agg struct {
	n             int64
	sum, min, max float64
	first, last   float64
	firstT, lastT int64
	firstP, lastP apos
}

// apos is a reading's position after its time: sequence number and index.
type apos struct {
	seq uint64
	idx uint32
}

// before reports whether (t, p) comes before (u, q).
func before(t int64, p apos, u int64, q apos) bool {
	switch {
	case t != u:
		return t < u
	case p.seq != q.seq:
		return p.seq < q.seq
	}
	return p.idx < q.idx
}

func (a *agg) add(t int64, p apos, v float64) {
	if math.IsNaN(v) {
		return
	}
	if a.n == 0 {
		a.n, a.sum, a.min, a.max, a.first, a.last, a.firstT, a.lastT = 1, v, v, v, v, v, t, t
		a.firstP, a.lastP = p, p
		return
	}
	a.n++
	a.sum += v
	if v < a.min {
		a.min = v
	}
	if v > a.max {
		a.max = v
	}
	if before(t, p, a.firstT, a.firstP) {
		a.first, a.firstT, a.firstP = v, t, p
	}
	if !before(t, p, a.lastT, a.lastP) {
		a.last, a.lastT, a.lastP = v, t, p
	}
}

// merge adds b's values; of equal first (last) times and positions a's
// (b's) wins.
func (a *agg) merge(b agg) {
	if b.n == 0 {
		return
	}
	if a.n == 0 {
		*a = b
		return
	}
	a.n += b.n
	a.sum += b.sum
	if b.min < a.min {
		a.min = b.min
	}
	if b.max > a.max {
		a.max = b.max
	}
	if before(b.firstT, b.firstP, a.firstT, a.firstP) {
		a.first, a.firstT, a.firstP = b.first, b.firstT, b.firstP
	}
	if !before(b.lastT, b.lastP, a.lastT, a.lastP) {
		a.last, a.lastT, a.lastP = b.last, b.lastT, b.lastP
	}
}

func (a agg) public() Aggregate {
	if a.n == 0 {
		return Aggregate{}
	}
	return Aggregate{Count: a.n, Sum: a.sum, Min: a.min, Max: a.max, First: a.first, Last: a.last,
		FirstTime: msTime(a.firstT), LastTime: msTime(a.lastT)}
}

// unit is the aggregates of a span of readings: the readings' count and
// one agg per field.
type unit struct {
	n      int64
	fields []agg
}

func newUnit(nf int) unit { return unit{fields: make([]agg, nf)} }

// addReading adds the reading at time t and position p.
func (u *unit) addReading(t int64, p apos, vals []float64) {
	u.n++
	for i := range u.fields {
		v := math.NaN()
		if i < len(vals) {
			v = vals[i]
		}
		u.fields[i].add(t, p, v)
	}
}

// atChunk sets the positions of the aggregates of the flushed chunk whose
// readings are at positions (seq, base) to (seq, base+n-1), in order.
func (u *unit) atChunk(seq uint64, base uint32) {
	for i := range u.fields {
		u.fields[i].firstP = apos{seq, base}
		u.fields[i].lastP = apos{seq, base + uint32(max(u.n, 1)-1)}
	}
}

func (u *unit) merge(b unit) {
	u.n += b.n
	for i := range u.fields {
		if i < len(b.fields) {
			u.fields[i].merge(b.fields[i])
		}
	}
}

func (u unit) period(start, end time.Time) Period {
	p := Period{Start: start, End: end, Count: u.n, Fields: make([]Aggregate, len(u.fields))}
	for i, a := range u.fields {
		p.Fields[i] = a.public()
	}
	return p
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func timeMs(t time.Time) int64 { return t.UnixMilli() }
