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

// field writes the stream of one field's values in the smallest of its
// codings and returns the encoding byte of its header: Decimal or
// DecimalPatched at the scales decimalScan proposes (the first of equal
// size), then XOR if it takes fewer bytes, which xorBits finds out
// without writing it.
func (e *encoder) field(vals []float64) (byte, span) {
	n := len(vals)
	var dec span
	var code byte
	decimal := false
	if n > 0 {
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
				w := e.writer()
				writeDecimal(&w, &e.bw, vals, ms, p)
				s := e.keep(&w)
				if !decimal || s.end-s.start < dec.end-dec.start {
					dec, code, decimal = s, byte(enc)<<5|byte(k), true
				} else {
					e.buf = e.buf[:s.start]
				}
			}
		}
	}
	if decimal {
		limit := 8 * (dec.end - dec.start - 1) // XOR must take fewer bytes
		if xorBits(vals, limit) > limit {
			return code, dec
		}
	}
	w := e.writer()
	writeXOR(&w, vals)
	return byte(XOR), e.keep(&w)
}
