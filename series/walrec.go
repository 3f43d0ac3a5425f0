package series

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// The buffer's write-ahead log holds these records:
//
//	readings  0x01 | uvarint len, kind | uvarint len, id | uvarint n |
//	          n x ( seq uint64 LE | varint ms | uvarint nv | nv x float64 bits LE |
//	                uvarint nt | nt x (uvarint len, bytes) )
//	batch     0x02 | uvarint lsn
//	columns   0x03 | uvarint len, kind | uvarint len, id | uvarint n (>= 1) |
//	          uvarint nv | uvarint nt | seq0 uint64 LE |
//	          uvarint 0 (seq i is seq0+i) or 1 then n-1 x zigzag varint (seq i - seq i-1) |
//	          varint ms0 | n-1 x zigzag varint (ms i - ms i-1) |
//	          n x nv x float64 bits LE | n x nt x (uvarint len, bytes)
//
// A readings or columns record holds readings of one series, as one Write
// gave them; columns is what this version writes for readings that all
// have the same number of values and of tags (as Write's always do): the
// sequence numbers of one Write are consecutive and the times close, so a
// reading of 3 fields takes about 27 bytes instead of 40. Readings records
// are still read, from logs older versions wrote.
//
// A batch record says that the readings records up to lsn (after the
// previous batch record's) were flushed together, so that a replay after a
// crash groups them exactly as the interrupted flush did and writes the
// same items again.

const (
	walReadings = 1
	walBatch    = 2
	walColumns  = 3
)

var errWALRecord = errors.New("series: corrupt write-ahead log record")

// encodeWALReadings returns the record of readings recs of series id of
// kind.
func encodeWALReadings(kind, id string, recs []rec) []byte {
	return appendWALReadings(nil, kind, id, recs)
}

// appendWALReadings appends the record of readings recs of series id of
// kind to dst: a columns record if they can be, a readings record
// otherwise.
func appendWALReadings(dst []byte, kind, id string, recs []rec) []byte {
	if len(recs) == 0 {
		return appendWALRows(dst, kind, id, recs)
	}
	nv, nt := len(recs[0].vals), len(recs[0].tags)
	consecutive := true
	for i := range recs {
		if len(recs[i].vals) != nv || len(recs[i].tags) != nt {
			return appendWALRows(dst, kind, id, recs)
		}
		consecutive = consecutive && recs[i].seq == recs[0].seq+uint64(i)
	}
	dst = slices.Grow(dst, 32+len(kind)+len(id)+len(recs)*(4+8*nv))
	dst = append(dst, walColumns)
	dst = binary.AppendUvarint(dst, uint64(len(kind)))
	dst = append(dst, kind...)
	dst = binary.AppendUvarint(dst, uint64(len(id)))
	dst = append(dst, id...)
	dst = binary.AppendUvarint(dst, uint64(len(recs)))
	dst = binary.AppendUvarint(dst, uint64(nv))
	dst = binary.AppendUvarint(dst, uint64(nt))
	dst = binary.LittleEndian.AppendUint64(dst, recs[0].seq)
	if consecutive {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		for i := 1; i < len(recs); i++ {
			dst = binary.AppendVarint(dst, int64(recs[i].seq-recs[i-1].seq))
		}
	}
	dst = binary.AppendVarint(dst, recs[0].t)
	for i := 1; i < len(recs); i++ {
		dst = binary.AppendVarint(dst, recs[i].t-recs[i-1].t)
	}
	for i := range recs {
		for _, v := range recs[i].vals {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
		}
	}
	if nt > 0 {
		for i := range recs {
			for _, t := range recs[i].tags {
				dst = binary.AppendUvarint(dst, uint64(len(t)))
				dst = append(dst, t...)
			}
		}
	}
	return dst
}

// appendWALRows appends a readings record.
func appendWALRows(b []byte, kind, id string, recs []rec) []byte {
	size := 16 + len(kind) + len(id)
	for i := range recs {
		size += 24 + 8*len(recs[i].vals)
		for _, t := range recs[i].tags {
			size += 2 + len(t)
		}
	}
	b = slices.Grow(b, size)
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
	str := func() (string, bool) {
		s, ok := readString(&b)
		return s, ok && utf8.ValidString(s)
	}
	switch r.typ {
	case walBatch:
		lsn, ok := readUvarint(&b)
		if !ok || len(b) != 0 {
			return fail("bad batch record")
		}
		r.lsn = lsn
		return r, nil
	case walReadings, walColumns:
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
	if r.typ == walColumns {
		if r.recs, ok = decodeWALColumns(b); !ok {
			return fail("bad columns")
		}
		return r, nil
	}
	n, ok := readUvarint(&b)
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
		t, ok := readVarint(&b)
		if !ok || t < minMs || t >= maxMs {
			return fail("bad time")
		}
		x.t = t
		nv, ok := readUvarint(&b)
		if !ok || nv > uint64(len(b))/8 {
			return fail("bad value count")
		}
		x.vals = make([]float64, nv)
		for j := range x.vals {
			x.vals[j] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
		nt, ok := readUvarint(&b)
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

// decodeWALColumns decodes the readings of a columns record, after its id.
func decodeWALColumns(b []byte) ([]rec, bool) {
	n, ok1 := readUvarint(&b)
	nv, ok2 := readUvarint(&b)
	nt, ok3 := readUvarint(&b)
	// Each reading takes at least a byte of time (but the first, which
	// takes at least one more of seq0), 8 per value and one per tag.
	if !ok1 || !ok2 || !ok3 || n == 0 || n > uint64(len(b)) || nv > uint64(len(b))/8 || nt > uint64(len(b)) ||
		n*(1+8*nv+nt) > uint64(len(b))+8 || len(b) < 9 {
		return nil, false
	}
	recs := make([]rec, n)
	recs[0].seq = binary.LittleEndian.Uint64(b)
	mode := b[8]
	b = b[9:]
	switch mode {
	case 0:
		for i := 1; i < len(recs); i++ {
			recs[i].seq = recs[0].seq + uint64(i)
		}
	case 1:
		for i := 1; i < len(recs); i++ {
			d, ok := readVarint(&b)
			if !ok {
				return nil, false
			}
			recs[i].seq = recs[i-1].seq + uint64(d)
		}
	default:
		return nil, false
	}
	for i := range recs {
		d, ok := readVarint(&b)
		if !ok {
			return nil, false
		}
		t := d
		if i > 0 {
			t = recs[i-1].t + d
		}
		if t < minMs || t >= maxMs || (i > 0 && (d < minMs-maxMs || d > maxMs-minMs)) {
			return nil, false
		}
		recs[i].t = t
	}
	if uint64(len(b)) < n*nv*8 {
		return nil, false
	}
	vals := make([]float64, n*nv)
	for j := range vals {
		vals[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
	}
	b = b[n*nv*8:]
	for i := range recs {
		recs[i].vals = vals[uint64(i)*nv : uint64(i+1)*nv : uint64(i+1)*nv]
	}
	if nt > 0 {
		if uint64(len(b)) < n*nt {
			return nil, false
		}
		tags := make([]string, n*nt)
		for j := range tags {
			var ok bool
			if tags[j], ok = readString(&b); !ok || !utf8.ValidString(tags[j]) {
				return nil, false
			}
		}
		for i := range recs {
			recs[i].tags = tags[uint64(i)*nt : uint64(i+1)*nt : uint64(i+1)*nt]
		}
	}
	return recs, len(b) == 0
}
