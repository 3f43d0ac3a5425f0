package chunk

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Appender collects readings and encodes them as a chunk. The zero value is
// not usable; call NewAppender. An Appender is not safe for concurrent use.
type Appender struct {
	names []string
	ts    []int64
	vals  [][]float64 // vals[field][reading]
	aggs  []Aggregate // of the first folded readings
	// folded counts the readings in aggs: Aggregates adds the others.
	folded int

	// Scratch memory of Bytes.
	enc  encoder
	cols []column
}

// NewAppender returns an Appender for readings of the named fields, in
// that order. Names must be distinct, non-empty and at most MaxNameLen
// bytes; there may be up to MaxFields of them, or none (a chunk of bare
// timestamps).
func NewAppender(fields []string) (*Appender, error) {
	if len(fields) > MaxFields {
		return nil, fmt.Errorf("chunk: %d fields, more than %d", len(fields), MaxFields)
	}
	fs := make([]field, len(fields))
	for i, name := range fields {
		if name == "" || len(name) > MaxNameLen {
			return nil, fmt.Errorf("chunk: field name %q is empty or longer than %d bytes", name, MaxNameLen)
		}
		fs[i].name = name
	}
	if err := uniqueNames(fs); err != nil {
		return nil, fmt.Errorf("chunk: duplicate field names in %q", fields)
	}
	return &Appender{
		names: append([]string(nil), fields...),
		vals:  make([][]float64, len(fields)),
		aggs:  make([]Aggregate, len(fields)),
	}, nil
}

// Append adds a reading: a timestamp in milliseconds and one value per
// field, in the order given to NewAppender. Timestamps must not decrease;
// equal timestamps are kept as separate readings, in append order. Append
// copies values. It returns ErrOutOfOrder, ErrFull, or an error for a wrong
// number of values, and then adds nothing.
func (a *Appender) Append(t int64, values []float64) error {
	if len(values) != len(a.names) {
		return fmt.Errorf("chunk: %d values for %d fields", len(values), len(a.names))
	}
	if n := len(a.ts); n > 0 && t < a.ts[n-1] {
		return fmt.Errorf("%w: %d after %d", ErrOutOfOrder, t, a.ts[n-1])
	}
	if len(a.ts) >= MaxReadings {
		return ErrFull
	}
	a.ts = append(a.ts, t)
	for i, v := range values {
		a.vals[i] = append(a.vals[i], v)
	}
	return nil
}

// Len returns the number of readings appended.
func (a *Appender) Len() int { return len(a.ts) }

// Fields returns the field names, in a new slice.
func (a *Appender) Fields() []string { return append([]string(nil), a.names...) }

// MinTime returns the first reading's timestamp; 0 if there is none.
func (a *Appender) MinTime() int64 {
	if len(a.ts) == 0 {
		return 0
	}
	return a.ts[0]
}

// MaxTime returns the last reading's timestamp; 0 if there is none.
func (a *Appender) MaxTime() int64 {
	if len(a.ts) == 0 {
		return 0
	}
	return a.ts[len(a.ts)-1]
}

// Aggregates returns each field's aggregates over the readings appended so
// far, in a new slice.
func (a *Appender) Aggregates() []Aggregate {
	for i, vals := range a.vals {
		a.aggs[i].addAll(a.ts[a.folded:], vals[a.folded:])
	}
	a.folded = len(a.ts)
	return append([]Aggregate(nil), a.aggs...)
}

// Reset drops every reading, keeping the fields and the memory.
func (a *Appender) Reset() {
	a.ts, a.folded = a.ts[:0], 0
	for i := range a.vals {
		a.vals[i] = a.vals[i][:0]
		a.aggs[i] = Aggregate{}
	}
}

// Bytes encodes the readings appended so far, in a new slice owned by the
// caller. Each column gets the smallest of its encodings: timestamps
// DeltaOfDelta or DeltaBlocks, each field XOR or one of the decimal
// encodings.
// The Appender keeps the scratch memory of the encoding (some 30 bytes a
// reading and field) for later calls, also after Reset.
func (a *Appender) Bytes() []byte {
	n := len(a.ts)
	e := &a.enc
	e.buf = e.buf[:0]
	timeEnc, times := e.times(a.ts)
	if cap(a.cols) < len(a.names) {
		a.cols = make([]column, len(a.names))
	}
	cols := a.cols[:len(a.names)]
	for i, vals := range a.vals {
		cols[i] = e.field(vals)
	}

	size := 1 + uvarintLen(uint64(n)) + uvarintLen(uint64(len(a.names))) +
		uvarintLen(zigzag(a.MinTime())) + uvarintLen(uint64(a.MaxTime()-a.MinTime())) +
		1 + uvarintLen(uint64(times.end-times.start)) + times.end - times.start
	for i, c := range cols {
		size += uvarintLen(uint64(len(a.names[i]))) + len(a.names[i]) +
			uvarintLen(uint64(c.stream.end-c.stream.start)) + c.headerBytes()
	}
	b := make([]byte, 0, size)
	b = append(b, Version)
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(a.names)))
	b = binary.AppendVarint(b, a.MinTime())
	b = binary.AppendUvarint(b, uint64(a.MaxTime()-a.MinTime()))
	b = append(b, byte(timeEnc))
	b = binary.AppendUvarint(b, uint64(times.end-times.start))
	for i, name := range a.names {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		b = appendColumnHeader(b, cols[i].code, cols[i].factor, cols[i].stream.end-cols[i].stream.start)
	}
	b = append(b, e.buf[times.start:times.end]...)
	for _, c := range cols {
		b = append(b, e.buf[c.stream.start:c.stream.end]...)
	}
	return b
}

// appendColumnHeader appends what follows a field's name in the header:
// its encoding byte, its factor if the encoding has one, and its stream
// length.
func appendColumnHeader(b []byte, code byte, factor uint64, streamLen int) []byte {
	b = append(b, code)
	if Encoding(code >> 5).factored() {
		b = binary.AppendUvarint(b, factor)
	}
	return binary.AppendUvarint(b, uint64(streamLen))
}

// uvarintLen is the length of binary.AppendUvarint's form of u.
func uvarintLen(u uint64) int { return (bits.Len64(u|1) + 6) / 7 }
