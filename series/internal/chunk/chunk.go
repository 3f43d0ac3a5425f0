package chunk

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Version is the format version this package writes, the chunk's first
// byte. Open reads versions 1 and 2 (version 1 has no grouped range
// blocks).
const Version = 2

// Limits of a chunk. A DynamoDB item holds at most 400 KB, far less than a
// chunk at these limits could take; they bound what a decoder allocates.
const (
	MaxReadings = 1 << 20 // readings per chunk
	MaxFields   = 1024    // fields per reading
	MaxNameLen  = 255     // bytes in a field name
)

var (
	// ErrCorrupt is returned (wrapped) when bytes are not a chunk this
	// package wrote.
	ErrCorrupt = errors.New("chunk: corrupt chunk")
	// ErrOutOfOrder is returned by Append for a timestamp before the last one.
	ErrOutOfOrder = errors.New("chunk: timestamp out of order")
	// ErrFull is returned by Append when a chunk holds MaxReadings readings.
	ErrFull = errors.New("chunk: chunk full")
)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// field is one field's header and stream in an encoded chunk.
type field struct {
	name   string
	enc    Encoding
	scale  int
	factor int64 // the factor of DecimalFactor fields, else 1
	stream []byte
}

// Chunk is an encoded chunk opened for reading. Its methods are safe for
// concurrent use; each Iterator is not.
type Chunk struct {
	b          []byte
	version    byte
	n          int
	minT, maxT int64
	timeEnc    TimeEncoding
	times      []byte
	fields     []field
}

// Open parses and checks the header of an encoded chunk. The streams are
// checked as they are decoded: Iterator, DecodeAll and the other decoding
// methods return ErrCorrupt for a bad stream. Open keeps b, which must not
// change while the Chunk is in use. Errors wrap ErrCorrupt.
func Open(b []byte) (*Chunk, error) {
	c := &Chunk{b: b}
	if len(b) == 0 {
		return nil, corrupt("empty")
	}
	if b[0] != 1 && b[0] != Version {
		return nil, corrupt("unknown version %d", b[0])
	}
	c.version = b[0]
	p := b[1:]
	uvarint := func(what string) (uint64, error) {
		v, k := binary.Uvarint(p)
		if k <= 0 {
			return 0, corrupt("bad %s", what)
		}
		p = p[k:]
		return v, nil
	}
	n, err := uvarint("reading count")
	if err != nil {
		return nil, err
	}
	if n > MaxReadings {
		return nil, corrupt("%d readings, more than %d", n, MaxReadings)
	}
	k, err := uvarint("field count")
	if err != nil {
		return nil, err
	}
	// Each field takes at least 4 header bytes: check before allocating.
	if k > MaxFields || k > uint64(len(p)/4) {
		return nil, corrupt("%d fields in %d bytes", k, len(b))
	}
	first, m := binary.Varint(p)
	if m <= 0 {
		return nil, corrupt("bad first timestamp")
	}
	p = p[m:]
	span, err := uvarint("time span")
	if err != nil {
		return nil, err
	}
	c.n, c.minT, c.maxT = int(n), first, first+int64(span)
	if c.maxT < c.minT || (n == 0 && (first != 0 || span != 0)) || (n == 1 && span != 0) {
		return nil, corrupt("bad time span")
	}
	if len(p) == 0 || p[0] > byte(DeltaBlocks) {
		return nil, corrupt("bad time encoding")
	}
	c.timeEnc = TimeEncoding(p[0])
	p = p[1:]
	timeLen, err := uvarint("time stream length")
	if err != nil {
		return nil, err
	}
	total := timeLen
	if timeLen > uint64(len(b)) || timeLen*8 < uint64(minTimeBits(c.timeEnc, c.n)) {
		return nil, corrupt("time stream too short")
	}
	lens := make([]uint64, k)
	c.fields = make([]field, k)
	for i := range c.fields {
		f := &c.fields[i]
		nl, err := uvarint("field name length")
		if err != nil {
			return nil, err
		}
		if nl == 0 || nl > MaxNameLen || nl > uint64(len(p)) {
			return nil, corrupt("bad field name length %d", nl)
		}
		f.name = string(p[:nl])
		p = p[nl:]
		if len(p) == 0 {
			return nil, corrupt("missing encoding of field %q", f.name)
		}
		f.enc, f.scale = Encoding(p[0]>>5), int(p[0]&0x1f)
		p = p[1:]
		if f.enc > DecimalFactorPatched || (f.enc == XOR && f.scale != 0) || f.scale > maxScale {
			return nil, corrupt("bad encoding of field %q", f.name)
		}
		f.factor = 1
		if f.enc.factored() {
			g, err := uvarint("factor")
			if err != nil {
				return nil, err
			}
			if g < 2 || g > maxFactor {
				return nil, corrupt("bad factor %d of field %q", g, f.name)
			}
			f.factor = int64(g)
		}
		if lens[i], err = uvarint("stream length"); err != nil {
			return nil, err
		}
		if lens[i] > uint64(len(b)) || lens[i]*8 < uint64(minValueBits(f.enc, c.n)) {
			return nil, corrupt("bad stream length of field %q", f.name)
		}
		total += lens[i]
	}
	if err := uniqueNames(c.fields); err != nil {
		return nil, err
	}
	if total != uint64(len(p)) {
		return nil, corrupt("streams take %d bytes, %d left", total, len(p))
	}
	if c.n == 0 && total != 0 {
		return nil, corrupt("streams in an empty chunk")
	}
	c.times, p = p[:timeLen], p[timeLen:]
	for i := range c.fields {
		c.fields[i].stream, p = p[:lens[i]], p[lens[i]:]
	}
	return c, nil
}

func uniqueNames(fs []field) error {
	if len(fs) <= 16 {
		for i := range fs {
			for j := range i {
				if fs[i].name == fs[j].name {
					return corrupt("duplicate field %q", fs[i].name)
				}
			}
		}
		return nil
	}
	seen := make(map[string]bool, len(fs))
	for _, f := range fs {
		if seen[f.name] {
			return corrupt("duplicate field %q", f.name)
		}
		seen[f.name] = true
	}
	return nil
}

// Len returns the number of readings.
func (c *Chunk) Len() int { return c.n }

// Size returns the encoded size in bytes.
func (c *Chunk) Size() int { return len(c.b) }

// MinTime returns the first reading's timestamp; 0 for an empty chunk.
func (c *Chunk) MinTime() int64 { return c.minT }

// MaxTime returns the last reading's timestamp; 0 for an empty chunk.
func (c *Chunk) MaxTime() int64 { return c.maxT }

// NumFields returns the number of fields of each reading.
func (c *Chunk) NumFields() int { return len(c.fields) }

// Field returns the name of field i.
func (c *Chunk) Field(i int) string { return c.fields[i].name }

// Fields returns the field names in order, in a new slice.
func (c *Chunk) Fields() []string {
	names := make([]string, len(c.fields))
	for i, f := range c.fields {
		names[i] = f.name
	}
	return names
}

// Index returns the position of the named field, or -1.
func (c *Chunk) Index(name string) int {
	for i, f := range c.fields {
		if f.name == name {
			return i
		}
	}
	return -1
}

// Encoding returns how field i is coded and, for the decimal encodings,
// its scale k: the values are integers divided by 10^k.
func (c *Chunk) Encoding(i int) (enc Encoding, scale int) {
	return c.fields[i].enc, c.fields[i].scale
}

// Factor returns the factor of field i: the common divisor of the deltas
// of its scaled integers for DecimalFactor and DecimalFactorPatched, else
// 1.
func (c *Chunk) Factor(i int) int64 { return c.fields[i].factor }

// TimeEncoding returns how the timestamps are coded.
func (c *Chunk) TimeEncoding() TimeEncoding { return c.timeEnc }

// DecodeTimes writes the timestamps to dst[:c.Len()]. It returns an error
// if dst is shorter, or ErrCorrupt (wrapped) if the stream is bad, in which
// case dst holds garbage.
func (c *Chunk) DecodeTimes(dst []int64) error {
	if len(dst) < c.n {
		return fmt.Errorf("chunk: %d timestamps do not fit %d", c.n, len(dst))
	}
	d := newTimeDecoder(c.timeEnc, c.times, c.n, c.minT, c.version)
	if c.n > 0 {
		dst[0] = c.minT
		var scratch [blockLen]int64
		for i := 1; i < c.n; {
			win := dst[i : i+d.blocks.nextLen()]
			d.window(win, &scratch)
			i += len(win)
		}
	}
	return c.checkTimes(&d)
}

func (c *Chunk) checkTimes(d *timeDecoder) error {
	if err := checkStream(&d.blocks.r, "timestamp"); err != nil {
		return err
	}
	if d.bad || (c.n > 0 && d.t != c.maxT) {
		return corrupt("timestamps do not match the header")
	}
	return nil
}

func checkStream(r *bitReader, what string) error {
	if r.err {
		return corrupt("%s stream ends early or holds a bad code", what)
	}
	if r.rest() >= 8 {
		return corrupt("%d bytes after the %s stream", r.rest()/8, what)
	}
	return nil
}

// DecodeField writes the values of field i to dst[:c.Len()]. It returns an
// error if dst is shorter, or ErrCorrupt (wrapped) if the stream is bad, in
// which case dst holds garbage.
func (c *Chunk) DecodeField(i int, dst []float64) error {
	if len(dst) < c.n {
		return fmt.Errorf("chunk: %d values do not fit %d", c.n, len(dst))
	}
	f := &c.fields[i]
	d := newValueDecoder(f, c.n, c.version)
	if c.n > 0 {
		dst[0] = d.first()
		var scratch [blockLen]int64
		for j := 1; j < c.n; {
			win := dst[j : j+d.blocks.nextLen()]
			d.window(win, &scratch)
			j += len(win)
		}
	}
	return checkStream(&d.blocks.r, "field "+f.name)
}

// DecodeAll decodes every reading into the caller's slices: timestamps to
// ts[:c.Len()] and the values of field i to values[i][:c.Len()]. A nil ts,
// a nil values[i], or values shorter than NumFields skip those columns, so
// a caller decodes only what it needs. It allocates nothing. It returns an
// error if a slice is too short, or ErrCorrupt (wrapped) if a stream is bad.
func (c *Chunk) DecodeAll(ts []int64, values [][]float64) error {
	if len(values) > len(c.fields) {
		return fmt.Errorf("chunk: %d value slices for %d fields", len(values), len(c.fields))
	}
	if ts != nil {
		if err := c.DecodeTimes(ts); err != nil {
			return err
		}
	}
	for i, v := range values {
		if v == nil {
			continue
		}
		if err := c.DecodeField(i, v); err != nil {
			return err
		}
	}
	return nil
}

// Aggregates decodes the chunk and returns each field's aggregates, the
// same as those of the Appender that wrote it.
func (c *Chunk) Aggregates() ([]Aggregate, error) {
	ts := make([]int64, c.n)
	if err := c.DecodeTimes(ts); err != nil {
		return nil, err
	}
	vals := make([]float64, c.n)
	aggs := make([]Aggregate, len(c.fields))
	for i := range c.fields {
		if err := c.DecodeField(i, vals); err != nil {
			return nil, err
		}
		for j, v := range vals {
			aggs[i].add(ts[j], v)
		}
	}
	return aggs, nil
}

// String describes the chunk for debugging.
func (c *Chunk) String() string {
	s := fmt.Sprintf("chunk{%d readings, %d bytes, times %s", c.n, len(c.b), c.timeEnc)
	for _, f := range c.fields {
		s += fmt.Sprintf(", %s %s", f.name, f.enc)
		if f.enc != XOR {
			s += fmt.Sprintf("/1e%d", f.scale)
		}
		if f.factor != 1 {
			s += fmt.Sprintf(" steps of %d", f.factor)
		}
	}
	return s + "}"
}
