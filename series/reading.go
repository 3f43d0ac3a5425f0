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

// agg accumulates one field's aggregate, times in milliseconds.
type agg struct {
	n             int64
	sum, min, max float64
	first, last   float64
	firstT, lastT int64
}

func (a *agg) add(t int64, v float64) {
	if math.IsNaN(v) {
		return
	}
	if a.n == 0 {
		a.n, a.sum, a.min, a.max, a.first, a.last, a.firstT, a.lastT = 1, v, v, v, v, v, t, t
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
	if t < a.firstT {
		a.first, a.firstT = v, t
	}
	if t >= a.lastT {
		a.last, a.lastT = v, t
	}
}

// merge adds b's values; of equal first (last) times a's (b's) wins.
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
	if b.firstT < a.firstT {
		a.first, a.firstT = b.first, b.firstT
	}
	if b.lastT >= a.lastT {
		a.last, a.lastT = b.last, b.lastT
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

func (u *unit) addReading(t int64, vals []float64) {
	u.n++
	for i := range u.fields {
		v := math.NaN()
		if i < len(vals) {
			v = vals[i]
		}
		u.fields[i].add(t, v)
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
