package ingest

import (
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/timetable-db/timetable/series"
)

// MaxHistogramBounds is the most bounds (le series besides le="+Inf") a
// native histogram of remote write maps to. An exponential histogram
// whose buckets span more is mapped at a lower resolution (a lower
// schema, whose bounds are a subset of its own); a custom-buckets one of
// more custom values is refused.
const MaxHistogramBounds = 256

// maxHistogramBuckets bounds the buckets a native histogram may list
// (deltas or counts, both sides together), whatever its spans say.
const maxHistogramBuckets = 1 << 16

// The schemas of a native histogram: exponential ones (a schema above 8,
// which Prometheus also takes, is read at schema 8 or lower), and custom
// buckets.
const (
	minNativeSchema     = -4
	maxNativeSchema     = 8
	maxReservedSchema   = 52
	customBucketsSchema = -53
)

// nativeHistogram is a native histogram sample of remote write (1.0's
// prometheus.Histogram, 2.0's io.prometheus.write.v2.Histogram, the same
// fields), decoded: its buckets as absolute counts.
type nativeHistogram struct {
	t                    int64
	schema               int32
	float                bool    // counts sent as floats
	count, zero          float64 // observations, in the zero bucket
	intCount, intZero    uint64  // the same, of an integer histogram
	sum, zeroThreshold   float64
	pos, neg             sideBuckets
	custom               []float64
	negSpans, posSpans   []bucketSpan
	negDeltas, posDeltas []int64
}

// bucketSpan is a BucketSpan: buckets length from offset past the last
// span's end (the first's from index 0).
type bucketSpan struct {
	offset int32
	length uint32
}

// sideBuckets are the populated buckets of one side: index and absolute
// count, indexes rising.
type sideBuckets struct {
	idx []int64
	n   []float64
}

// stale reports whether h is Prometheus' staleness marker: a sum of the
// marker's bits.
func (h *nativeHistogram) stale() bool { return math.Float64bits(h.sum) == staleNaN }

// parseHistogram decodes a Histogram message m into h (its slices
// reused): an error says what Prometheus would refuse it for, or why it
// cannot be mapped.
func parseHistogram(m []byte, h *nativeHistogram) error {
	*h = nativeHistogram{
		pos: sideBuckets{h.pos.idx[:0], h.pos.n[:0]}, neg: sideBuckets{h.neg.idx[:0], h.neg.n[:0]},
		custom: h.custom[:0], negSpans: h.negSpans[:0], posSpans: h.posSpans[:0],
		negDeltas: h.negDeltas[:0], posDeltas: h.posDeltas[:0],
	}
	buckets := 0
	for len(m) > 0 {
		f, rest, err := nextField(m)
		if err != nil {
			return fmt.Errorf("malformed histogram: %v", err)
		}
		m = rest
		if want, ok := histogramWireTypes[f.num]; ok && f.typ != want {
			return fmt.Errorf("malformed histogram: field %d of wire type %d", f.num, f.typ)
		}
		switch f.num {
		case 1:
			h.intCount, h.float = f.u, false
		case 2:
			h.count, h.float = math.Float64frombits(f.u), true
		case 3:
			h.sum = math.Float64frombits(f.u)
		case 4:
			h.schema = int32(protowire.DecodeZigZag(f.u & math.MaxUint32))
		case 5:
			h.zeroThreshold = math.Float64frombits(f.u)
		case 6:
			h.intZero = f.u
		case 7:
			h.zero = math.Float64frombits(f.u)
		case 8, 11:
			sp, err := parseSpan(f.b)
			if err != nil {
				return err
			}
			if f.num == 8 {
				h.negSpans = append(h.negSpans, sp)
			} else {
				h.posSpans = append(h.posSpans, sp)
			}
		case 9:
			h.negDeltas, err = appendSint64s(h.negDeltas, f, &buckets)
		case 12:
			h.posDeltas, err = appendSint64s(h.posDeltas, f, &buckets)
		case 10:
			h.neg.n, err = appendDoubles(h.neg.n, f, &buckets)
		case 13:
			h.pos.n, err = appendDoubles(h.pos.n, f, &buckets)
		case 15:
			h.t = int64(f.u)
		case 16:
			h.custom, err = appendDoubles(h.custom, f, &buckets)
		}
		if err != nil {
			return err
		}
	}
	if !h.float {
		h.count, h.zero = float64(h.intCount), float64(h.intZero)
	}
	if h.stale() {
		return nil // a marker: its buckets are not read
	}
	switch {
	case h.schema == customBucketsSchema:
		if err := h.checkCustom(); err != nil {
			return err
		}
	case h.schema < minNativeSchema || h.schema > maxReservedSchema:
		return fmt.Errorf("histogram schema %d: take %d..%d (exponential) or %d (custom buckets)", h.schema, minNativeSchema, maxNativeSchema, customBucketsSchema)
	case len(h.custom) > 0:
		return fmt.Errorf("histogram of exponential schema %d has custom bounds", h.schema)
	}
	inNeg, err := h.side(&h.neg, h.negSpans, h.negDeltas, "negative")
	if err != nil {
		return err
	}
	inPos, err := h.side(&h.pos, h.posSpans, h.posDeltas, "positive")
	if err != nil {
		return err
	}
	if h.float {
		if h.count < 0 || h.zero < 0 {
			return fmt.Errorf("histogram count %v or zero count %v is negative", h.count, h.zero)
		}
		return nil
	}
	// An integer histogram's count is the sum of its buckets, or more
	// with NaN observations (then the sum is NaN).
	if in := h.intZero + inNeg + inPos; in > h.intCount || (in != h.intCount && !math.IsNaN(h.sum)) {
		return fmt.Errorf("%d observations in the buckets of a histogram whose count is %d", in, h.intCount)
	}
	return nil
}

// histogramWireTypes are the wire types of a Histogram's scalar fields.
var histogramWireTypes = map[protowire.Number]protowire.Type{
	1: protowire.VarintType, 2: protowire.Fixed64Type, 3: protowire.Fixed64Type, 4: protowire.VarintType,
	5: protowire.Fixed64Type, 6: protowire.VarintType, 7: protowire.Fixed64Type, 8: protowire.BytesType,
	11: protowire.BytesType, 14: protowire.VarintType, 15: protowire.VarintType, 17: protowire.VarintType,
}

// checkCustom checks the fields of a custom-buckets histogram.
func (h *nativeHistogram) checkCustom() error {
	if len(h.custom) > MaxHistogramBounds {
		return fmt.Errorf("histogram of %d custom bounds, more than %d", len(h.custom), MaxHistogramBounds)
	}
	for i, c := range h.custom {
		switch {
		case math.IsNaN(c) || math.IsInf(c, 0):
			return fmt.Errorf("histogram custom bound %v is not finite", c)
		case i > 0 && c <= h.custom[i-1]:
			return fmt.Errorf("histogram custom bounds %v, %v do not rise", h.custom[i-1], c)
		}
	}
	if h.zeroThreshold != 0 || h.zero != 0 || len(h.negSpans) > 0 || len(h.negDeltas) > 0 || len(h.neg.n) > 0 {
		return fmt.Errorf("histogram of custom buckets has a zero bucket or negative buckets")
	}
	for _, sp := range h.posSpans {
		if sp.offset < 0 {
			return fmt.Errorf("histogram of custom buckets has a span of negative offset %d", sp.offset)
		}
	}
	return nil
}

// side sets s to the buckets of one side, from its spans and either
// deltas (an integer histogram) or counts (a float one: s.n already),
// and returns the observations of an integer side: the spans must cover
// as many buckets as are given (a span's length is compared, never
// allocated), every count be at least 0, every index an int32 (for
// custom buckets, a custom bound's or that of +Inf).
func (h *nativeHistogram) side(s *sideBuckets, spans []bucketSpan, deltas []int64, name string) (uint64, error) {
	n := len(deltas)
	if h.float {
		n = len(s.n)
	} else {
		s.n = s.n[:0]
	}
	var covered int64
	for i, sp := range spans {
		if i > 0 && sp.offset < 0 {
			return 0, fmt.Errorf("histogram %s span %d has a negative offset %d", name, i+1, sp.offset)
		}
		if covered += int64(sp.length); covered > int64(n) {
			break
		}
	}
	if covered != int64(n) {
		return 0, fmt.Errorf("histogram %s spans cover more or fewer buckets than the %d given", name, n)
	}
	s.idx = s.idx[:0]
	var idx, abs int64
	var total uint64
	j := 0
	for i, sp := range spans {
		if i == 0 {
			idx = int64(sp.offset)
		} else {
			idx += int64(sp.offset)
		}
		for range sp.length {
			if idx < math.MinInt32 || idx > math.MaxInt32 ||
				h.schema == customBucketsSchema && idx > int64(len(h.custom)) {
				return 0, fmt.Errorf("histogram %s bucket index %d out of range", name, idx)
			}
			if h.float {
				if c := s.n[j]; c < 0 {
					return 0, fmt.Errorf("histogram %s bucket %d has a negative count %v", name, j+1, c)
				}
			} else {
				if abs += deltas[j]; abs < 0 {
					return 0, fmt.Errorf("histogram %s bucket %d has a negative count %d", name, j+1, abs)
				}
				s.n = append(s.n, float64(abs))
				total += uint64(abs)
			}
			s.idx = append(s.idx, idx)
			idx++
			j++
		}
	}
	return total, nil
}

// parseSpan reads a BucketSpan {1: sint32 offset, 2: uint32 length}.
func parseSpan(m []byte) (bucketSpan, error) {
	var sp bucketSpan
	err := eachField(m, func(g pbField) error {
		switch {
		case g.num == 1 && g.typ == protowire.VarintType:
			sp.offset = int32(protowire.DecodeZigZag(g.u & math.MaxUint32))
		case g.num == 2 && g.typ == protowire.VarintType:
			sp.length = uint32(g.u)
		}
		return nil
	})
	if err != nil {
		return sp, fmt.Errorf("malformed histogram span: %v", err)
	}
	return sp, nil
}

// appendSint64s appends the sint64 values of a repeated field (packed or
// not) to to, counting them in *n against maxHistogramBuckets.
func appendSint64s(to []int64, f pbField, n *int) ([]int64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(to, protowire.DecodeZigZag(f.u)), countBucket(n, 1)
	case protowire.BytesType:
		for p := f.b; len(p) > 0; {
			x, k := protowire.ConsumeVarint(p)
			if k < 0 {
				return to, fmt.Errorf("malformed histogram deltas: %v", protowire.ParseError(k))
			}
			if err := countBucket(n, 1); err != nil {
				return to, err
			}
			to = append(to, protowire.DecodeZigZag(x))
			p = p[k:]
		}
		return to, nil
	}
	return to, fmt.Errorf("malformed histogram deltas: wire type %d", f.typ)
}

// appendDoubles appends the double values of a repeated field (packed or
// not) to to, counting them in *n against maxHistogramBuckets.
func appendDoubles(to []float64, f pbField, n *int) ([]float64, error) {
	switch f.typ {
	case protowire.Fixed64Type:
		return append(to, math.Float64frombits(f.u)), countBucket(n, 1)
	case protowire.BytesType:
		if len(f.b)%8 != 0 {
			return to, fmt.Errorf("malformed histogram doubles: %d bytes", len(f.b))
		}
		if err := countBucket(n, len(f.b)/8); err != nil {
			return to, err
		}
		for p := f.b; len(p) > 0; p = p[8:] {
			x, _ := protowire.ConsumeFixed64(p)
			to = append(to, math.Float64frombits(x))
		}
		return to, nil
	}
	return to, fmt.Errorf("malformed histogram doubles: wire type %d", f.typ)
}

// countBucket adds k to the values *n a histogram lists, refusing more
// than maxHistogramBuckets.
func countBucket(n *int, k int) error {
	*n += k
	if *n > maxHistogramBuckets {
		return fmt.Errorf("histogram of more than %d buckets", maxHistogramBuckets)
	}
	return nil
}

// classicBound is one bound of the classic histogram a native histogram
// maps to: le and the observations at or below it.
type classicBound struct {
	le  float64
	cum float64
}

// classicBounds appends to out the bounds, rising, of the classic
// histogram h maps to, le="+Inf" (the count) aside:
//
//   - custom buckets: each custom value, as the classic histogram they
//     were made from had them;
//   - exponential: each negative bucket's upper edge -base^(index-1), from
//     the most negative; the zero threshold through the zero bucket; each
//     positive bucket's upper edge base^index; base being 2^(2^-schema).
//     Every bucket from a side's lowest populated index to its highest
//     has a bound, empty ones between spans too (so the classic series
//     of a bound does not come and go as the bucket fills), and so has
//     the outer edge of the side's outermost bucket (so that
//     histogram_quantile interpolates within that bucket, not from the
//     zero bucket or -Inf), at a schema lowered until they number at
//     most MaxHistogramBounds. A bound that is not finite or does not
//     rise above the one before is left out, its observations counted
//     in the next.
func (h *nativeHistogram) classicBounds(out []classicBound) []classicBound {
	if h.schema == customBucketsSchema {
		var cum float64
		j := 0
		for i, le := range h.custom {
			for ; j < len(h.pos.idx) && h.pos.idx[j] <= int64(i); j++ {
				cum += h.pos.n[j]
			}
			out = append(out, classicBound{le, cum})
		}
		return out
	}
	schema := min(h.schema, maxNativeSchema)
	negLo, negHi := clampIndexes(h.neg.idx, h.schema)
	posLo, posHi := clampIndexes(h.pos.idx, h.schema)
	shift := h.schema - schema
	for {
		n := int64(1) // the zero bucket's
		if len(h.neg.idx) > 0 {
			n += lowered(negHi, shift) - lowered(negLo, shift) + 2
		}
		if len(h.pos.idx) > 0 {
			n += lowered(posHi, shift) - lowered(posLo, shift) + 2
		}
		if n <= MaxHistogramBounds {
			break
		}
		shift++
		schema--
	}
	add := func(le, cum float64) {
		if math.IsInf(le, 0) || math.IsNaN(le) || len(out) > 0 && le <= out[len(out)-1].le {
			return
		}
		out = append(out, classicBound{le, cum})
	}
	var cum float64
	if k := len(h.neg.idx); k > 0 {
		p := k - 1
		add(-expBound(schema, lowered(negHi, shift)), 0) // the lower edge of the most negative bucket
		for j := lowered(negHi, shift); j >= lowered(negLo, shift); j-- {
			for ; p >= 0 && lowered(h.neg.idx[p], shift) >= j; p-- {
				cum += h.neg.n[p]
			}
			add(-expBound(schema, j-1), cum)
		}
		for ; p >= 0; p-- { // below the clamped range: nearer zero
			cum += h.neg.n[p]
		}
	}
	cum += h.zero
	add(math.Abs(h.zeroThreshold), cum)
	if len(h.pos.idx) > 0 {
		p := 0
		add(expBound(schema, lowered(posLo, shift)-1), cum) // the lower edge of the lowest bucket
		for j := lowered(posLo, shift); j <= lowered(posHi, shift); j++ {
			for ; p < len(h.pos.idx) && lowered(h.pos.idx[p], shift) <= j; p++ {
				cum += h.pos.n[p]
			}
			add(expBound(schema, j), cum)
		}
	}
	return out
}

// clampIndexes returns the lowest and highest of the rising indexes idx
// of a side of schema, within the indexes whose bound is a float64 other
// than 0 and +Inf (a bucket past them is counted in the first bound, or
// in le="+Inf").
func clampIndexes(idx []int64, schema int32) (lo, hi int64) {
	if len(idx) == 0 {
		return 0, 0
	}
	// base^i = 2^(i / 2^schema): finite and above 0 for i / 2^schema in
	// [-1074, 1024).
	minI, maxI := int64(-1075), int64(1024)
	if schema >= 0 {
		minI, maxI = minI<<schema, maxI<<schema
	} else {
		minI, maxI = minI>>-schema, (maxI>>-schema)+1
	}
	return min(max(idx[0], minI), maxI), max(min(idx[len(idx)-1], maxI), minI)
}

// lowered returns the index, shift schemas lower, of the bucket holding
// bucket i: bucket i covers (base^(i-1), base^i].
func lowered(i int64, shift int32) int64 { return ((i - 1) >> shift) + 1 }

// histogram writes the n-th series' native histogram h, of labels
// d.base, as a classic histogram: name_bucket{le=...} per bound of
// classicBounds and le="+Inf" of the count, name_count and name_sum. A
// staleness marker ends name_count, name_sum and name_bucket{le="+Inf"}
// (the other bounds end with the lookback).
func (d *rwDecoder) histogram(n int, meta series.Meta, name []byte, h *nativeHistogram) error {
	if h.stale() {
		v := math.Float64frombits(staleNaN)
		if err := d.histogramSeries(n, meta, name, "_count", "", h.t, v); err != nil {
			return err
		}
		if err := d.histogramSeries(n, meta, name, "_sum", "", h.t, v); err != nil {
			return err
		}
		return d.histogramSeries(n, meta, name, "_bucket", "+Inf", h.t, v)
	}
	if err := d.histogramSeries(n, meta, name, "_count", "", h.t, h.count); err != nil {
		return err
	}
	if err := d.histogramSeries(n, meta, name, "_sum", "", h.t, h.sum); err != nil {
		return err
	}
	d.bounds = h.classicBounds(d.bounds[:0])
	for _, b := range d.bounds {
		if err := d.histogramSeries(n, meta, name, "_bucket", leValue(b.le), h.t, b.cum); err != nil {
			return err
		}
	}
	return d.histogramSeries(n, meta, name, "_bucket", "+Inf", h.t, h.count)
}

// histogramSeries puts the sample v at t of the series of labels d.base
// named name+suffix, with le="le" unless le is "".
func (d *rwDecoder) histogramSeries(n int, meta series.Meta, name []byte, suffix, le string, t int64, v float64) error {
	d.name = append(append(d.name[:0], name...), suffix...)
	d.labels = d.labels[:0]
	for _, l := range d.base {
		switch {
		case string(l.name) == "__name__":
			l.value = d.name
		case le != "" && string(l.name) == "le":
			continue
		}
		d.labels = append(d.labels, l)
	}
	if le != "" {
		d.labels = append(d.labels, label{[]byte("le"), []byte(le)})
	}
	d.samples = append(d.samples[:0], sample{v: v, t: t})
	return d.put(n, meta, false)
}

// leValue is the le label of a bound: the shortest decimal without an
// exponent, as Prometheus' OTLP translation writes bounds.
func leValue(le float64) string { return strconv.FormatFloat(le, 'f', -1, 64) }
