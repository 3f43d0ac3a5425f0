package analytics

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// A hit block holds hits sorted by hitCmp in compressed columns: the
// payload of a HitBucket item. docs/format/hits.md describes its bytes;
// encodeBlock writes them and decodeBlock reads them back, checking every
// length, code and order it meets, so that a damaged block is an error,
// never a crash or an unbounded allocation.

const (
	blockMagic   = "TTHB"
	blockVersion = 1
	// maxBlockRows bounds the hits of one block.
	maxBlockRows = 1 << 20
	// maxBlockRaw bounds the bytes of a block's columns once inflated.
	maxBlockRaw = 64 << 20
)

// The columns of a block, by id, in the order they are stored.
const (
	colTime = 1 + iota
	colVisitor
	colRuns
	colName // first string column
	colPath
	colReferrer
	colSource
	colUTMSource
	colUTMMedium
	colUTMCampaign
	colUTMTerm
	colUTMContent
	colCountry
	colBrowser
	colOS
	colDevice // last string column
	colFlags
	colEngagement
	colScroll
	colProps
	numCols = colProps
)

// numStrCols is the number of string columns, colName to colDevice.
const numStrCols = colDevice - colName + 1

// colSet is a set of columns: bit c for column c.
type colSet uint32

// allCols holds every column.
const allCols colSet = 1<<(numCols+1) - 2

func cols(cs ...int) colSet {
	var s colSet
	for _, c := range cs {
		s |= 1 << c
	}
	return s
}

func (s colSet) has(c int) bool { return s&(1<<c) != 0 }

// Column encodings.
const (
	encStored = 0 // the column's bytes as they are
	encZstd   = 1 // one zstd frame
)

// flagInteractive is bit 0 of a hit's flags.
const flagInteractive = 1

// strField returns the field of h that string column col holds.
func (h *hit) strField(col int) *string {
	switch col {
	case colName:
		return &h.name
	case colPath:
		return &h.path
	case colReferrer:
		return &h.referrer
	case colSource:
		return &h.source
	case colUTMSource:
		return &h.utm.Source
	case colUTMMedium:
		return &h.utm.Medium
	case colUTMCampaign:
		return &h.utm.Campaign
	case colUTMTerm:
		return &h.utm.Term
	case colUTMContent:
		return &h.utm.Content
	case colCountry:
		return &h.country
	case colBrowser:
		return &h.browser
	case colOS:
		return &h.os
	case colDevice:
		return &h.device
	}
	panic(fmt.Sprintf("analytics: column %d holds no string", col))
}

var (
	zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	zstdDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlockRaw))
)

// encodeBlock returns hits, sorted by hitCmp, as a block. It fails on
// hits out of that order by visitor, more than maxBlockRows hits, or a
// negative engagement figure.
func encodeBlock(hits []hit) ([]byte, error) {
	if len(hits) > maxBlockRows {
		return nil, fmt.Errorf("analytics: %d hits in one block, more than %d", len(hits), maxBlockRows)
	}
	cols := make([][]byte, numCols+1)
	var err error
	if cols[colTime], err = timeColumn(hits); err != nil {
		return nil, err
	}
	if cols[colVisitor], cols[colRuns], err = idColumns(len(hits), "hits", func(i int) string { return hits[i].visitor }); err != nil {
		return nil, err
	}
	for c := colName; c <= colDevice; c++ {
		cols[c] = dictColumnOf(len(hits), func(i int) string { return *hits[i].strField(c) })
	}
	flags := make([]byte, len(hits))
	for i := range hits {
		if hits[i].interactive {
			flags[i] = flagInteractive
		}
	}
	cols[colFlags] = flags
	for _, c := range []struct {
		col int
		get func(*hit) int64
	}{{colEngagement, func(h *hit) int64 { return h.engagementMs }}, {colScroll, func(h *hit) int64 { return h.scrollDepth }}} {
		var b []byte
		for i := range hits {
			v := c.get(&hits[i])
			if v < 0 {
				return nil, fmt.Errorf("analytics: hit %d has a negative engagement figure %d", i, v)
			}
			b = binary.AppendUvarint(b, uint64(v))
		}
		cols[c.col] = b
	}
	cols[colProps] = propsColumn(hits)

	return appendColumns([]byte(blockMagic), blockVersion, len(hits), cols), nil
}

// timeColumn is the zigzag varint deltas of the hits' Unix milliseconds,
// the first from 0.
func timeColumn(hits []hit) ([]byte, error) {
	var b []byte
	prev := int64(0)
	for i := range hits {
		ms := hits[i].t.UnixMilli()
		b = binary.AppendVarint(b, ms-prev)
		prev = ms
	}
	return b, nil
}

// Encodings of the visitor ids.
const (
	idsStrings = 0 // a dictionary
	idsHex64   = 1 // 16 lowercase hex digits each, as 8 bytes
)

// isHex64 reports whether v is 16 lowercase hex digits.
func isHex64(v string) bool {
	if len(v) != 16 {
		return false
	}
	for i := range len(v) {
		if c := v[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// propsColumn is the sorted distinct property names and values of hits,
// then for each hit its number of properties and their (name, value)
// codes in the order of the names.
func propsColumn(hits []hit) []byte {
	index := map[string]uint32{}
	for i := range hits {
		for k, v := range hits[i].props {
			index[k], index[v] = 0, 0
		}
	}
	dict := slices.Sorted(maps.Keys(index))
	for i, v := range dict {
		index[v] = uint32(i)
	}
	b := appendDict(nil, dict)
	for i := range hits {
		p := hits[i].props
		b = binary.AppendUvarint(b, uint64(len(p)))
		for _, k := range slices.Sorted(maps.Keys(p)) {
			b = binary.AppendUvarint(b, uint64(index[k]))
			b = binary.AppendUvarint(b, uint64(index[p[k]]))
		}
	}
	return b
}

// codeWidth is the bytes of a code of a dictionary of n values.
func codeWidth(n int) int {
	switch {
	case n <= 1<<8:
		return 1
	case n <= 1<<16:
		return 2
	}
	return 4
}

func appendCode(b []byte, w int, c uint32) []byte {
	switch w {
	case 1:
		return append(b, byte(c))
	case 2:
		return binary.LittleEndian.AppendUint16(b, uint16(c))
	}
	return binary.LittleEndian.AppendUint32(b, c)
}

func appendDict(b []byte, dict []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(dict)))
	for _, v := range dict {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

// block is a decoded hit block, or the columns of it that decodeBlock
// was asked for (cols): the others are empty, and must not be read. Its
// strings share one allocation per column; it is read-only once decoded
// and safe for concurrent reads.
type block struct {
	n           int
	cols        colSet
	ms          []int64  // Unix milliseconds
	visitorDict []string // sorted
	visitor     []int32  // code of each hit's visitor
	str         [numStrCols]strColumn
	flags       []byte
	engagement  []int64
	scroll      []int64
	propDict    []string
	propOff     []int32 // hit i's (name, value) codes are propCodes[2*propOff[i] : 2*propOff[i+1]]
	propCodes   []int32
	bufs        *blockBufs // what release gives back
}

// strColumn is a decoded string column: its dictionary and each hit's
// code, w bytes little endian.
type strColumn struct {
	dict  []string
	w     int
	codes []byte
}

func (c *strColumn) code(i int) int {
	switch c.w {
	case 1:
		return int(c.codes[i])
	case 2:
		return int(binary.LittleEndian.Uint16(c.codes[2*i:]))
	}
	return int(binary.LittleEndian.Uint32(c.codes[4*i:]))
}

func (c *strColumn) at(i int) string { return c.dict[c.code(i)] }

// badCode returns the first of the n hits whose code is not less than the
// dictionary's size, or -1.
func (c *strColumn) badCode(n int) int {
	if c.w == 1 {
		if len(c.dict) >= 1<<8 {
			return -1
		}
		lim := byte(len(c.dict))
		for i, x := range c.codes[:n] {
			if x >= lim {
				return i
			}
		}
		return -1
	}
	for i := range n {
		if c.code(i) >= len(c.dict) {
			return i
		}
	}
	return -1
}

// col returns the string column col (colName to colDevice).
func (b *block) col(col int) *strColumn { return &b.str[col-colName] }

// props returns the properties of hit i as a new map, nil if it has none.
func (b *block) props(i int) map[string]string {
	lo, hi := b.propOff[i], b.propOff[i+1]
	if lo == hi {
		return nil
	}
	m := make(map[string]string, hi-lo)
	for j := lo; j < hi; j++ {
		m[b.propDict[b.propCodes[2*j]]] = b.propDict[b.propCodes[2*j+1]]
	}
	return m
}

// visitorID returns the visitor id of hit i, "" if the block was decoded
// without them.
func (b *block) visitorID(i int) string {
	if b.visitorDict == nil {
		return ""
	}
	return b.visitorDict[b.visitor[i]]
}

// hit returns hit i of the block.
func (b *block) hit(i int) hit {
	h := hit{t: time.UnixMilli(b.ms[i]).UTC(), visitor: b.visitorDict[b.visitor[i]], interactive: b.flags[i]&flagInteractive != 0,
		engagementMs: b.engagement[i], scrollDepth: b.scroll[i], props: b.props(i)}
	for c := colName; c <= colDevice; c++ {
		*h.strField(c) = b.col(c).at(i)
	}
	return h
}

// hits returns the hits of the block, in order; b must hold every
// column.
func (b *block) hits() []hit {
	if b.cols != allCols {
		panic("analytics: hits of a block decoded in part")
	}
	out := make([]hit, b.n)
	for i := range out {
		out[i] = b.hit(i)
	}
	return out
}

// errBlock is wrapped by every error of decodeBlock.
var errBlock = errors.New("analytics: bad hit block")

// decodeBlock decodes the columns want (and the times and runs of
// visitors, always) of the block b; it checks the whole header, and the values of
// the columns it decodes. The block it returns shares no memory with b;
// its buffers come from a pool, to which its release gives them back.
func decodeBlock(b []byte, want colSet) (*block, error) {
	want |= cols(colTime, colRuns)
	if !bytes.HasPrefix(b, []byte(blockMagic)) || len(b) < len(blockMagic)+1 {
		return nil, fmt.Errorf("%w: no magic", errBlock)
	}
	if v := b[len(blockMagic)]; v != blockVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", errBlock, v, blockVersion)
	}
	r := &reader{b: b[len(blockMagic)+1:]}
	rows := r.uvarint(maxBlockRows, "rows")
	if r.uvarint(numCols, "columns") != numCols && r.err == nil {
		r.fail("the columns: want %d", numCols)
	}
	type section struct {
		enc            byte
		raw, stored    int
		payload, bytes []byte
	}
	var secs [numCols + 1]section
	total := 0
	for c := 1; c <= numCols && r.err == nil; c++ {
		if id := r.uvarint(numCols, "column id"); id != c && r.err == nil {
			r.fail("column %d where column %d belongs", id, c)
		}
		s := &secs[c]
		s.enc = r.byte("encoding")
		s.raw = r.uvarint(maxBlockRaw, "column length")
		s.stored = r.uvarint(maxBlockRaw, "stored length")
		if total += s.raw; total > maxBlockRaw && r.err == nil {
			r.fail("columns of more than %d bytes", maxBlockRaw)
		}
		if r.err == nil && (s.enc > encZstd || s.enc == encStored && s.stored != s.raw) {
			r.fail("column %d: encoding %d, %d bytes stored for %d", c, s.enc, s.stored, s.raw)
		}
		// Every column but the visitors' and their runs' has a byte or
		// more per hit: this bounds what the rows make the decoder
		// allocate.
		if r.err == nil && c != colVisitor && c != colRuns && s.raw < rows {
			r.fail("column %d: %d bytes for %d hits", c, s.raw, rows)
		}
	}
	for c := 1; c <= numCols && r.err == nil; c++ {
		secs[c].bytes = r.next(secs[c].stored, "column")
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("%d bytes after the last column", len(r.b))
	}
	if r.err != nil {
		return nil, r.err
	}
	// The columns inflate, one after the other, into one buffer of the
	// pool, which the block gives back on release.
	need := 0
	for c := 1; c <= numCols; c++ {
		if want.has(c) {
			need += secs[c].raw
		}
	}
	bl := &block{n: rows, cols: want & allCols, bufs: getBlockBufs()}
	arena := grow(bl.bufs.arena[:0], need)
	for c := 1; c <= numCols; c++ {
		s := &secs[c]
		if !want.has(c) {
			continue
		}
		at := len(arena)
		if s.enc == encStored {
			arena = append(arena, s.bytes...)
		} else {
			p, err := zstdDecoder.DecodeAll(s.bytes, arena[at:at])
			if err != nil {
				bl.release()
				return nil, fmt.Errorf("%w: column %d: %v", errBlock, c, err)
			}
			if len(p) != s.raw || cap(p) != cap(arena[at:at]) {
				bl.release()
				return nil, fmt.Errorf("%w: column %d inflates to %d bytes, not %d", errBlock, c, len(p), s.raw)
			}
			arena = arena[:at+len(p)]
		}
		s.payload = arena[at:len(arena):len(arena)]
	}
	bl.bufs.arena = arena
	for c := 1; c <= numCols; c++ {
		if !want.has(c) {
			continue
		}
		cr := &reader{b: secs[c].payload, col: c}
		switch {
		case c == colTime:
			bl.ms = grow(bl.bufs.ms[:0], rows)[:rows]
			bl.bufs.ms = bl.ms
			prev := int64(0)
			for i := range rows {
				prev += cr.varint()
				bl.ms[i] = prev
			}
		case c == colVisitor:
			switch enc := cr.byte("encoding"); enc {
			case idsStrings:
				bl.visitorDict = cr.dict()
			case idsHex64:
				bl.visitorDict = cr.hex64()
			default:
				cr.fail("encoding %d", enc)
			}
		case c == colRuns:
			n := cr.uvarint(rows, "visitors")
			if want.has(colVisitor) && n != len(bl.visitorDict) && cr.err == nil {
				cr.fail("%d runs for %d visitors", n, len(bl.visitorDict))
			}
			bl.visitor = grow(bl.bufs.visitor[:0], rows)
			for k := range n {
				run := cr.uvarint(rows-len(bl.visitor), "run")
				if run == 0 && cr.err == nil {
					cr.fail("an empty run")
				}
				for range run {
					bl.visitor = append(bl.visitor, int32(k))
				}
			}
			bl.bufs.visitor = bl.visitor
			if len(bl.visitor) != rows && cr.err == nil {
				cr.fail("runs of %d hits, want %d", len(bl.visitor), rows)
			}
		case c >= colName && c <= colDevice:
			sc := bl.col(c)
			sc.dict = cr.dict()
			sc.w = int(cr.byte("code width"))
			if cr.err == nil && sc.w != codeWidth(len(sc.dict)) {
				cr.fail("codes of %d bytes for %d values", sc.w, len(sc.dict))
			}
			sc.codes = cr.next(rows*sc.w, "codes")
			// The codes are checked once read: a column cut short has none.
			if cr.err == nil {
				if i := sc.badCode(rows); i >= 0 {
					cr.fail("hit %d has code %d of %d values", i, sc.code(i), len(sc.dict))
				}
			}
		case c == colFlags:
			bl.flags = cr.next(rows, "flags")
			if cr.err == nil && slices.ContainsFunc(bl.flags, func(f byte) bool { return f&^flagInteractive != 0 }) {
				cr.fail("unknown flags")
			}
		case c == colEngagement || c == colScroll:
			vs := make([]int64, rows)
			for i := range rows {
				vs[i] = int64(cr.uvarint(1<<62, "value"))
			}
			if c == colEngagement {
				bl.engagement = vs
			} else {
				bl.scroll = vs
			}
		case c == colProps:
			bl.propDict = cr.dict()
			bl.propOff = grow(bl.bufs.propOff[:0], rows+1)[:rows+1]
			bl.propOff[0] = 0
			bl.propCodes = bl.bufs.propCodes[:0]
			for i := range rows {
				k := cr.uvarint(maxProps, "properties")
				prev := -1
				for range k {
					name, val := cr.uvarint(len(bl.propDict)-1, "name"), cr.uvarint(len(bl.propDict)-1, "value")
					if name <= prev && cr.err == nil {
						cr.fail("hit %d: property names out of order", i)
					}
					prev = name
					bl.propCodes = append(bl.propCodes, int32(name), int32(val))
				}
				if cr.err != nil {
					break
				}
				bl.propOff[i+1] = bl.propOff[i] + int32(k)
			}
			bl.bufs.propOff, bl.bufs.propCodes = bl.propOff, bl.propCodes
		}
		if cr.err == nil && len(cr.b) > 0 {
			cr.fail("%d bytes after its values", len(cr.b))
		}
		if cr.err != nil {
			bl.release()
			return nil, cr.err
		}
	}
	return bl, nil
}

// blockBufs are the buffers of a decoded block that a pool keeps from one
// block to the next: the inflated columns and the per-hit arrays.
type blockBufs struct {
	arena     []byte
	ms        []int64
	visitor   []int32
	propOff   []int32
	propCodes []int32
}

var blockBufPool = sync.Pool{New: func() any { return new(blockBufs) }}

func getBlockBufs() *blockBufs { return blockBufPool.Get().(*blockBufs) }

// release gives the block's buffers back to the pool: b must not be read
// after. What it gave out (strings, maps) stays valid.
func (b *block) release() {
	if b.bufs == nil {
		return
	}
	bufs := b.bufs
	*b = block{}
	blockBufPool.Put(bufs)
}

// grow returns s with room for n elements in all, without zeroing what
// it keeps.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	return make([]T, len(s), n)
}

// reader reads a block's bytes; its first error sticks, and every read
// after it returns zeros.
type reader struct {
	b   []byte
	col int // the column read, 0 for the header
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err != nil {
		return
	}
	where := "header"
	if r.col > 0 {
		where = fmt.Sprintf("column %d", r.col)
	}
	r.err = fmt.Errorf("%w: %s: %s", errBlock, where, fmt.Sprintf(format, args...))
}

// uvarint reads an unsigned varint of at most max.
func (r *reader) uvarint(max int, what string) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("bad %s", what)
		return 0
	}
	r.b = r.b[n:]
	if v > uint64(max) {
		r.fail("%s %d, more than %d", what, v, max)
		return 0
	}
	return int(v)
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte(what string) byte {
	b := r.next(1, what)
	if b == nil {
		return 0
	}
	return b[0]
}

// next returns the next n bytes.
func (r *reader) next(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.fail("%s: %d bytes wanted, %d left", what, n, len(r.b))
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

// hex64 reads visitor ids of 8 bytes each, strictly increasing, as
// strings of 16 hex digits, which share one allocation.
func (r *reader) hex64() []string {
	n := r.uvarint(len(r.b)/8, "visitors")
	raw := r.next(8*n, "visitor ids")
	if r.err != nil {
		return nil
	}
	buf := make([]byte, 16*n)
	hex.Encode(buf, raw)
	all := string(buf)
	out := make([]string, n)
	for i := range n {
		out[i] = all[16*i : 16*i+16]
		if i > 0 && bytes.Compare(raw[8*i:8*i+8], raw[8*i-8:8*i]) <= 0 {
			r.fail("visitor ids out of order at %d", i)
			return nil
		}
	}
	return out
}

// dict reads a dictionary: strictly increasing strings, which share one
// allocation.
func (r *reader) dict() []string {
	n := r.uvarint(len(r.b), "dictionary size")
	if r.err != nil {
		return nil
	}
	// Read the lengths first, to copy the strings into one allocation.
	start := r.b
	lens := make([]int, n)
	total := 0
	for i := range n {
		lens[i] = r.uvarint(len(r.b), "value length")
		r.next(lens[i], "value")
		total += lens[i]
	}
	if r.err != nil {
		return nil
	}
	buf := make([]byte, 0, total)
	rb := &reader{b: start}
	for i := range n {
		rb.uvarint(len(rb.b), "")
		buf = append(buf, rb.next(lens[i], "")...)
	}
	all := string(buf)
	out := make([]string, n)
	off := 0
	for i := range n {
		out[i] = all[off : off+lens[i]]
		off += lens[i]
		if i > 0 && out[i] <= out[i-1] {
			r.fail("dictionary out of order at %d", i)
			return nil
		}
	}
	return out
}
