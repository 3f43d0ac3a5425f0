package chunk

// encoder is the scratch memory of Appender.Bytes, kept between calls:
// the streams written so far, back to back in buf, and the buffers of the
// candidate codings.
type encoder struct {
	buf    []byte
	bw     blockWriter
	dec    decimalScan
	ms     []int64
	patch  []bool
	deltas []int64
	// noFactors leaves out DecimalFactor and DecimalFactorPatched, and
	// xorOnly every decimal encoding, to measure the encoder without them.
	noFactors, xorOnly bool
}

// span is a stream's bytes in encoder.buf.
type span struct{ start, end int }

// writer returns a bitWriter that appends to buf.
func (e *encoder) writer() bitWriter { return bitWriter{b: e.buf} }

// keep finishes w, makes its bytes part of buf and returns their span,
// w having been made by writer.
func (e *encoder) keep(w *bitWriter) span {
	start := len(e.buf)
	e.buf = w.finish()
	return span{start, len(e.buf)}
}

// times writes the timestamp stream in the smaller of its codings:
// DeltaBlocks only if it takes fewer bits than DeltaOfDelta, whose size
// dodBits gives without writing it.
func (e *encoder) times(ts []int64) (TimeEncoding, span) {
	w := e.writer()
	e.deltas = writeDeltaBlocks(&w, ts, &e.bw, e.deltas)
	if w.bitLen()-8*len(e.buf) < dodBits(ts) {
		return DeltaBlocks, e.keep(&w)
	}
	w = bitWriter{b: w.b[:len(e.buf)]} // drop the blocks, keep the memory
	writeDoD(&w, ts)
	return DeltaOfDelta, e.keep(&w)
}

// column is how a field's values are coded: its encoding byte (the
// encoding and scale), its factor (1 but for the factored encodings) and
// its stream.
type column struct {
	code   byte
	factor uint64
	stream span
}

// headerBytes is the size of what the column adds to the chunk besides
// its name and stream length: the encoding byte, the factor and the
// stream.
func (c column) headerBytes() int {
	n := 1 + c.stream.end - c.stream.start
	if Encoding(c.code >> 5).factored() {
		n += uvarintLen(c.factor)
	}
	return n
}

// field writes the stream of one field's values in the smallest of its
// codings: Decimal or DecimalPatched at the scales decimalScan proposes,
// each also as DecimalFactor or DecimalFactorPatched if the deltas of its
// integers share a factor (the first of equal size), then XOR if it takes
// fewer bytes, which xorBits finds out without writing it. Sizes include
// the factor's bytes in the header.
func (e *encoder) field(vals []float64) column {
	n := len(vals)
	var dec column
	decimal := false
	keep := func(w *bitWriter, enc Encoding, k int, g uint64) {
		c := column{byte(enc)<<5 | byte(k), g, e.keep(w)}
		if !decimal || c.headerBytes() < dec.headerBytes() {
			dec, decimal = c, true
		} else {
			e.buf = e.buf[:c.stream.start]
		}
	}
	if n > 0 && !e.xorOnly {
		if best, all, ok := e.dec.scan(vals); ok {
			if cap(e.ms) < n {
				e.ms, e.patch = make([]int64, n), make([]bool, n)
			}
			ms, patch := e.ms[:n], e.patch[:n]
			for j, k := range [2]int{best, all} {
				if k < 0 || (j == 1 && k == best) {
					continue
				}
				enc, p := Decimal, []bool(nil)
				if np := e.dec.scaleAt(vals, k, ms, patch); np > 0 {
					enc, p = DecimalPatched, patch
				}
				g := deltaFactor(ms)
				w := e.writer()
				writeDecimal(&w, &e.bw, vals, ms, p)
				keep(&w, enc, k, 1)
				if g < 2 || e.noFactors {
					continue
				}
				for i := 1; i < n; i++ {
					ms[i] /= int64(g)
				}
				w = e.writer()
				writeDecimal(&w, &e.bw, vals, ms, p)
				keep(&w, enc+DecimalFactor-Decimal, k, g)
			}
		}
	}
	if decimal {
		limit := 8 * (dec.headerBytes() - 2) // XOR must take fewer bytes
		if xorBits(vals, limit) > limit {
			return dec
		}
	}
	w := e.writer()
	writeXOR(&w, vals)
	return column{byte(XOR), 1, e.keep(&w)}
}
