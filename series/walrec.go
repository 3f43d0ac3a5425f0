package series

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// The buffer's write-ahead log holds two kinds of records:
//
//	readings  0x01 | uvarint len, kind | uvarint len, id | uvarint n |
//	          n x ( seq uint64 LE | varint ms | uvarint nv | nv x float64 bits LE |
//	                uvarint nt | nt x (uvarint len, bytes) )
//	batch     0x02 | uvarint lsn
//
// A batch record says that the readings records up to lsn (after the
// previous batch record's) were flushed together, so that a replay after a
// crash groups them exactly as the interrupted flush did and writes the
// same items again.

const (
	walReadings = 1
	walBatch    = 2
)

var errWALRecord = errors.New("series: corrupt write-ahead log record")

func encodeWALReadings(kind, id string, recs []rec) []byte {
	size := 16 + len(kind) + len(id)
	for i := range recs {
		size += 24 + 8*len(recs[i].vals)
		for _, t := range recs[i].tags {
			size += 2 + len(t)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, walReadings)
	b = binary.AppendUvarint(b, uint64(len(kind)))
	b = append(b, kind...)
	b = binary.AppendUvarint(b, uint64(len(id)))
	b = append(b, id...)
	b = binary.AppendUvarint(b, uint64(len(recs)))
	for i := range recs {
		r := &recs[i]
		b = binary.LittleEndian.AppendUint64(b, r.seq)
		b = binary.AppendVarint(b, r.t)
		b = binary.AppendUvarint(b, uint64(len(r.vals)))
		for _, v := range r.vals {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		b = binary.AppendUvarint(b, uint64(len(r.tags)))
		for _, t := range r.tags {
			b = binary.AppendUvarint(b, uint64(len(t)))
			b = append(b, t...)
		}
	}
	return b
}

func encodeWALBatch(lsn uint64) []byte {
	return binary.AppendUvarint([]byte{walBatch}, lsn)
}

// walRecord is a decoded record: readings of one series, or a batch.
type walRecord struct {
	typ      byte
	kind, id string
	recs     []rec
	lsn      uint64
}

// decodeWAL decodes a record. It returns an error, never panics, for
// bytes encodeWAL* did not make.
func decodeWAL(b []byte) (walRecord, error) {
	var r walRecord
	if len(b) == 0 {
		return r, fmt.Errorf("%w: empty", errWALRecord)
	}
	r.typ = b[0]
	b = b[1:]
	fail := func(what string) (walRecord, error) {
		return walRecord{}, fmt.Errorf("%w: %s", errWALRecord, what)
	}
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	str := func() (string, bool) {
		l, ok := uv()
		if !ok || l > uint64(len(b)) {
			return "", false
		}
		s := string(b[:l])
		b = b[l:]
		return s, utf8.ValidString(s)
	}
	switch r.typ {
	case walBatch:
		lsn, ok := uv()
		if !ok || len(b) != 0 {
			return fail("bad batch record")
		}
		r.lsn = lsn
		return r, nil
	case walReadings:
	default:
		return fail("unknown record type")
	}
	var ok bool
	if r.kind, ok = str(); !ok {
		return fail("bad kind")
	}
	if r.id, ok = str(); !ok {
		return fail("bad id")
	}
	n, ok := uv()
	if !ok || n > uint64(len(b))/10 {
		return fail("bad reading count")
	}
	r.recs = make([]rec, n)
	for i := range r.recs {
		x := &r.recs[i]
		if len(b) < 8 {
			return fail("truncated reading")
		}
		x.seq = binary.LittleEndian.Uint64(b)
		b = b[8:]
		t, m := binary.Varint(b)
		if m <= 0 || t < minMs || t >= maxMs {
			return fail("bad time")
		}
		x.t = t
		b = b[m:]
		nv, ok := uv()
		if !ok || nv > uint64(len(b))/8 {
			return fail("bad value count")
		}
		x.vals = make([]float64, nv)
		for j := range x.vals {
			x.vals[j] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
		nt, ok := uv()
		if !ok || nt > uint64(len(b)) {
			return fail("bad tag count")
		}
		if nt > 0 {
			x.tags = make([]string, nt)
			for j := range x.tags {
				if x.tags[j], ok = str(); !ok {
					return fail("bad tag")
				}
			}
		}
	}
	if len(b) != 0 {
		return fail("trailing bytes")
	}
	return r, nil
}
