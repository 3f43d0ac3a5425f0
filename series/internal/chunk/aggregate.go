package chunk

import "math"

// Aggregate summarises one field of a chunk. NaN values count as absent:
// they are left out of every figure. Min and Max compare with <, so of -0
// and +0 the one seen first stays. Sum adds in time order (infinities can
// make it ±Inf or NaN; DynamoDB numbers hold neither, so a store writing
// aggregates as number attributes must treat those apart). When Count is
// 0 all figures are zero.
type Aggregate struct {
	Count     int     // values that are not NaN
	Sum       float64 // their sum in time order
	Min, Max  float64
	First     float64 // the earliest value (of equal timestamps, the first appended)
	Last      float64 // the latest value (of equal timestamps, the last appended)
	FirstTime int64   // timestamp of First
	LastTime  int64   // timestamp of Last
}

func (a *Aggregate) add(t int64, v float64) {
	if math.IsNaN(v) {
		return
	}
	if a.Count == 0 {
		*a = Aggregate{Count: 1, Sum: v, Min: v, Max: v, First: v, Last: v, FirstTime: t, LastTime: t}
		return
	}
	a.Count++
	a.Sum += v
	if v < a.Min {
		a.Min = v
	}
	if v > a.Max {
		a.Max = v
	}
	a.Last, a.LastTime = v, t
}

// addAll adds vals, at times ts, as add would one by one.
func (a *Aggregate) addAll(ts []int64, vals []float64) {
	j := 0
	if a.Count == 0 {
		for j < len(vals) && math.IsNaN(vals[j]) {
			j++
		}
		if j == len(vals) {
			return
		}
		a.add(ts[j], vals[j])
		j++
	}
	count, sum, lo, hi := a.Count, a.Sum, a.Min, a.Max
	last := -1
	for ; j < len(vals); j++ {
		v := vals[j]
		if math.IsNaN(v) {
			continue
		}
		count++
		sum += v
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
		last = j
	}
	a.Count, a.Sum, a.Min, a.Max = count, sum, lo, hi
	if last >= 0 {
		a.Last, a.LastTime = vals[last], ts[last]
	}
}

// Merge returns the aggregate of a's values and b's values together, for
// rollups of several chunks. Of equal timestamps, a's are taken to come
// first. Sum is a.Sum + b.Sum.
func (a Aggregate) Merge(b Aggregate) Aggregate {
	if b.Count == 0 {
		return a
	}
	if a.Count == 0 {
		return b
	}
	m := a
	m.Count += b.Count
	m.Sum += b.Sum
	if b.Min < m.Min {
		m.Min = b.Min
	}
	if b.Max > m.Max {
		m.Max = b.Max
	}
	if b.FirstTime < a.FirstTime {
		m.First, m.FirstTime = b.First, b.FirstTime
	}
	if b.LastTime >= a.LastTime {
		m.Last, m.LastTime = b.Last, b.LastTime
	}
	return m
}
