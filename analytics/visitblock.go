package analytics

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
)

// A visit block holds the visits of a day's hits, formed at the time the
// hit bucket is written (formSessions, the bucket's session timeout, no
// goals), one row a visit in compressed columns: what a query that
// counts whole visits reads instead of the hits (Visits with
// FieldHits and FieldGoals skipped). docs/format/hits.md describes its
// bytes; encodeVisitBlock writes them and decodeVisitBlock reads them
// back, checking every length, code and order it meets, so that a
// damaged block is an error, never a crash or an unbounded allocation.

const (
	visitBlockMagic   = "TTVB"
	visitBlockVersion = 1
)

// The columns of a visit block, by id, in the order they are stored.
const (
	vcolStart = 1 + iota
	vcolVisitor
	vcolRuns
	vcolEntry // first string column
	vcolExit
	vcolSource
	vcolUTMSource
	vcolUTMMedium
	vcolUTMCampaign
	vcolUTMTerm
	vcolUTMContent
	vcolCountry
	vcolBrowser
	vcolOS
	vcolDevice // last string column
	vcolDuration
	vcolPageViews
	vcolEvents
	vcolFlags
	numVCols = vcolFlags
)

const numVStrCols = vcolDevice - vcolEntry + 1

// allVCols holds every column of a visit block.
const allVCols colSet = 1<<(numVCols+1) - 2

// vflagBounce is bit 0 of a visit's flags.
const vflagBounce = 1

// strField returns the field of v that string column col of a visit
// block holds.
func (v *Visit) strField(col int) *string {
	switch col {
	case vcolEntry:
		return &v.EntryPage
	case vcolExit:
		return &v.ExitPage
	case vcolSource:
		return &v.Source
	case vcolUTMSource:
		return &v.UTM.Source
	case vcolUTMMedium:
		return &v.UTM.Medium
	case vcolUTMCampaign:
		return &v.UTM.Campaign
	case vcolUTMTerm:
		return &v.UTM.Term
	case vcolUTMContent:
		return &v.UTM.Content
	case vcolCountry:
		return &v.Country
	case vcolBrowser:
		return &v.Browser
	case vcolOS:
		return &v.OS
	case vcolDevice:
		return &v.Device
	}
	panic(fmt.Sprintf("analytics: visit column %d holds no string", col))
}

// visitColumns returns the columns of a visit block that the fields but
// skip need.
func (skip Field) visitColumns() colSet {
	s := cols(vcolStart, vcolDuration, vcolPageViews, vcolEvents, vcolFlags)
	for f, cs := range map[Field][]int{
		FieldVisitorID: {vcolVisitor}, FieldPages: {vcolEntry, vcolExit},
		FieldSource: {vcolSource}, FieldUTM: {vcolUTMSource, vcolUTMMedium, vcolUTMCampaign, vcolUTMTerm, vcolUTMContent},
		FieldCountry: {vcolCountry}, FieldBrowser: {vcolBrowser}, FieldOS: {vcolOS}, FieldDevice: {vcolDevice},
	} {
		if skip&f == 0 {
			s |= cols(cs...)
		}
	}
	return s
}

// encodeVisitBlock returns visits, in order of visitor id and then start
// (as formSessions forms them from hits sorted by hitCmp), as a visit
// block. It fails on visits out of that order by visitor, more than
// maxBlockRows of them, or a negative figure.
func encodeVisitBlock(visits []Visit) ([]byte, error) {
	n := len(visits)
	if n > maxBlockRows {
		return nil, fmt.Errorf("analytics: %d visits in one block, more than %d", n, maxBlockRows)
	}
	cs := make([][]byte, numVCols+1)
	var b []byte
	prev := int64(0)
	for i := range visits {
		ms := visits[i].Start.UnixMilli()
		b = binary.AppendVarint(b, ms-prev)
		prev = ms
	}
	cs[vcolStart] = b
	var err error
	if cs[vcolVisitor], cs[vcolRuns], err = idColumns(n, "rows", func(i int) string { return visits[i].VisitorID }); err != nil {
		return nil, err
	}
	for c := vcolEntry; c <= vcolDevice; c++ {
		cs[c] = dictColumnOf(n, func(i int) string { return *visits[i].strField(c) })
	}
	for _, c := range []struct {
		col int
		get func(*Visit) int64
	}{
		{vcolDuration, func(v *Visit) int64 { return v.Duration.Milliseconds() }},
		{vcolPageViews, func(v *Visit) int64 { return v.PageViews }},
		{vcolEvents, func(v *Visit) int64 { return v.Events }},
	} {
		var b []byte
		for i := range visits {
			x := c.get(&visits[i])
			if x < 0 {
				return nil, fmt.Errorf("analytics: visit %d has a negative figure %d", i, x)
			}
			b = binary.AppendUvarint(b, uint64(x))
		}
		cs[c.col] = b
	}
	flags := make([]byte, n)
	for i := range visits {
		if visits[i].Bounce {
			flags[i] = vflagBounce
		}
	}
	cs[vcolFlags] = flags
	return appendColumns([]byte(visitBlockMagic), visitBlockVersion, n, cs), nil
}

// appendColumns appends to out (the magic) the version, the rows, and
// the columns cs[1:] each stored as it is or as one zstd frame, whichever
// is smaller: the container of hit and visit blocks.
func appendColumns(out []byte, version byte, rows int, cs [][]byte) []byte {
	out = append(out, version)
	out = binary.AppendUvarint(out, uint64(rows))
	out = binary.AppendUvarint(out, uint64(len(cs)-1))
	stored := make([][]byte, len(cs))
	for c := 1; c < len(cs); c++ {
		enc, b := byte(encStored), cs[c]
		if z := zstdEncoder.EncodeAll(cs[c], nil); len(z) < len(b) {
			enc, b = encZstd, z
		}
		stored[c] = b
		out = binary.AppendUvarint(out, uint64(c))
		out = append(out, enc)
		out = binary.AppendUvarint(out, uint64(len(cs[c])))
		out = binary.AppendUvarint(out, uint64(len(b)))
	}
	for c := 1; c < len(cs); c++ {
		out = append(out, stored[c]...)
	}
	return out
}

// idColumns returns the visitor ids get gives for rows 0 to n-1 (rows
// names them in the error), which must come in runs in increasing order:
// the ids sorted (a dictionary, or 8 bytes each when every id is 16
// lowercase hex digits, as Store.VisitorID makes them), and the number of
// rows of each one's run.
func idColumns(n int, rows string, get func(i int) string) (ids, runs []byte, err error) {
	var dict []string
	var counts []uint64
	for i := range n {
		v := get(i)
		switch k := len(dict); {
		case k > 0 && dict[k-1] == v:
			counts[k-1]++
		case k > 0 && dict[k-1] > v:
			return nil, nil, fmt.Errorf("analytics: %s out of visitor order at %d (%q after %q)", rows, i, v, dict[k-1])
		default:
			dict = append(dict, v)
			counts = append(counts, 1)
		}
	}
	if slices.IndexFunc(dict, func(v string) bool { return !isHex64(v) }) < 0 {
		ids = append(binary.AppendUvarint([]byte{idsHex64}, uint64(len(dict))), make([]byte, 8*len(dict))...)
		for i, v := range dict {
			hex.Decode(ids[len(ids)-8*(len(dict)-i):], []byte(v))
		}
	} else {
		ids = appendDict([]byte{idsStrings}, dict)
	}
	runs = binary.AppendUvarint(nil, uint64(len(counts)))
	for _, r := range counts {
		runs = binary.AppendUvarint(runs, r)
	}
	return ids, runs, nil
}

// dictColumnOf is the sorted distinct values get gives for rows 0 to n-1,
// the width of a code, and each row's code.
func dictColumnOf(n int, get func(i int) string) []byte {
	index := map[string]uint32{}
	for i := range n {
		index[get(i)] = 0
	}
	dict := make([]string, 0, len(index))
	for v := range index {
		dict = append(dict, v)
	}
	slices.Sort(dict)
	for i, v := range dict {
		index[v] = uint32(i)
	}
	w := codeWidth(len(dict))
	b := appendDict(nil, dict)
	b = append(b, byte(w))
	for i := range n {
		b = appendCode(b, w, index[get(i)])
	}
	return b
}

// visitBlock is a decoded visit block, or the columns of it that
// decodeVisitBlock was asked for (cols): the others are empty, and must
// not be read. It shares no memory with the bytes it was decoded from.
type visitBlock struct {
	n           int
	cols        colSet
	start       []int64 // Unix milliseconds
	visitorDict []string
	visitor     []int32
	str         [numVStrCols]strColumn
	duration    []int64 // milliseconds
	pageViews   []int64
	events      []int64
	flags       []byte
}

func (b *visitBlock) col(c int) *strColumn { return &b.str[c-vcolEntry] }

// visit sets v to visit i of the block: the fields of the columns the
// block holds (the others zero), without its times and figures when
// figures is false.
func (b *visitBlock) visit(i int, v *Visit, figures bool) {
	*v = Visit{}
	if b.cols.has(vcolVisitor) {
		v.VisitorID = b.visitorDict[b.visitor[i]]
	}
	for c := vcolEntry; c <= vcolDevice; c++ {
		if b.cols.has(c) {
			*v.strField(c) = b.col(c).at(i)
		}
	}
	if figures {
		b.figures(i, v)
	}
}

// figures sets the times and figures of v from visit i of the block.
func (b *visitBlock) figures(i int, v *Visit) {
	v.Start = time.UnixMilli(b.start[i]).UTC()
	v.Duration = time.Duration(b.duration[i]) * time.Millisecond
	v.End = time.UnixMilli(b.start[i] + b.duration[i]).UTC()
	v.PageViews, v.Events, v.Bounce = b.pageViews[i], b.events[i], b.flags[i]&vflagBounce != 0
}

// decodeVisitBlock decodes the columns want (and the starts, always) of
// the visit block b; it checks the whole header, and the values of the
// columns it decodes. Its errors wrap errBlock.
func decodeVisitBlock(b []byte, want colSet) (*visitBlock, error) {
	want = (want | cols(vcolStart)) & allVCols
	if want.has(vcolVisitor) {
		want |= cols(vcolRuns)
	}
	if !bytes.HasPrefix(b, []byte(visitBlockMagic)) || len(b) < len(visitBlockMagic)+1 {
		return nil, fmt.Errorf("%w: no visit block magic", errBlock)
	}
	if v := b[len(visitBlockMagic)]; v != visitBlockVersion {
		return nil, fmt.Errorf("%w: visit block version %d, want %d", errBlock, v, visitBlockVersion)
	}
	r := &reader{b: b[len(visitBlockMagic)+1:]}
	rows := r.uvarint(maxBlockRows, "rows")
	if r.uvarint(numVCols, "columns") != numVCols && r.err == nil {
		r.fail("the columns: want %d", numVCols)
	}
	type section struct {
		enc         byte
		raw, stored int
		bytes       []byte
	}
	var secs [numVCols + 1]section
	total := 0
	for c := 1; c <= numVCols && r.err == nil; c++ {
		if id := r.uvarint(numVCols, "column id"); id != c && r.err == nil {
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
		// more per row: this bounds what the rows make the decoder
		// allocate.
		if r.err == nil && c != vcolVisitor && c != vcolRuns && s.raw < rows {
			r.fail("column %d: %d bytes for %d visits", c, s.raw, rows)
		}
	}
	for c := 1; c <= numVCols && r.err == nil; c++ {
		secs[c].bytes = r.next(secs[c].stored, "column")
	}
	if r.err == nil && len(r.b) > 0 {
		r.fail("%d bytes after the last column", len(r.b))
	}
	if r.err != nil {
		return nil, r.err
	}
	bl := &visitBlock{n: rows, cols: want}
	for c := 1; c <= numVCols; c++ {
		if !want.has(c) {
			continue
		}
		s := &secs[c]
		payload := s.bytes
		if s.enc == encZstd {
			p, err := zstdDecoder.DecodeAll(s.bytes, make([]byte, 0, s.raw))
			if err != nil {
				return nil, fmt.Errorf("%w: visit column %d: %v", errBlock, c, err)
			}
			if len(p) != s.raw {
				return nil, fmt.Errorf("%w: visit column %d inflates to %d bytes, not %d", errBlock, c, len(p), s.raw)
			}
			payload = p
		}
		cr := &reader{b: payload, col: c}
		switch {
		case c == vcolStart:
			bl.start = make([]int64, rows)
			prev := int64(0)
			for i := range rows {
				prev += cr.varint()
				bl.start[i] = prev
			}
		case c == vcolVisitor:
			switch enc := cr.byte("encoding"); enc {
			case idsStrings:
				bl.visitorDict = cr.dict()
			case idsHex64:
				bl.visitorDict = cr.hex64()
			default:
				cr.fail("encoding %d", enc)
			}
		case c == vcolRuns:
			n := cr.uvarint(rows, "visitors")
			if n != len(bl.visitorDict) && cr.err == nil {
				cr.fail("%d runs for %d visitors", n, len(bl.visitorDict))
			}
			bl.visitor = make([]int32, 0, rows)
			for k := range n {
				run := cr.uvarint(rows-len(bl.visitor), "run")
				if run == 0 && cr.err == nil {
					cr.fail("an empty run")
				}
				for range run {
					bl.visitor = append(bl.visitor, int32(k))
				}
			}
			if len(bl.visitor) != rows && cr.err == nil {
				cr.fail("runs of %d visits, want %d", len(bl.visitor), rows)
			}
		case c >= vcolEntry && c <= vcolDevice:
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
					cr.fail("visit %d has code %d of %d values", i, sc.code(i), len(sc.dict))
				}
			}
		case c == vcolDuration || c == vcolPageViews || c == vcolEvents:
			vs := make([]int64, rows)
			for i := range rows {
				vs[i] = int64(cr.uvarint(1<<62, "value"))
			}
			switch c {
			case vcolDuration:
				bl.duration = vs
			case vcolPageViews:
				bl.pageViews = vs
			default:
				bl.events = vs
			}
		case c == vcolFlags:
			bl.flags = cr.next(rows, "flags")
			if cr.err == nil && slices.ContainsFunc(bl.flags, func(f byte) bool { return f&^vflagBounce != 0 }) {
				cr.fail("unknown flags")
			}
		}
		if cr.err == nil && len(cr.b) > 0 {
			cr.fail("%d bytes after its values", len(cr.b))
		}
		if cr.err != nil {
			return nil, fmt.Errorf("visit block: %w", cr.err)
		}
	}
	// A visit's end, its start plus its duration, must not overflow.
	if want.has(vcolDuration) {
		for i := range rows {
			if bl.duration[i] > 1<<40 {
				return nil, fmt.Errorf("%w: visit block: visit %d lasts %d ms", errBlock, i, bl.duration[i])
			}
		}
	}
	return bl, nil
}

// visitsOf returns the visits of a day's hits, sorted by hitCmp, as the
// visit block stores them: formed with timeout, without goals, hits or
// properties.
func visitsOfHits(hits []hit, timeout time.Duration) []Visit {
	d := &dayVisits{}
	formVisits(d, rawHits{h: hits, gi: newGoalIndex(nil)}, timeout, &VisitOptions{Skip: FieldGoals | FieldHits | FieldProps})
	return d.visits
}

// encodeVisitParts returns visits as visit blocks of at most max bytes and
// maxBlockRows visits each, in order: halved until each fits.
func encodeVisitParts(visits []Visit, max int) ([][]byte, error) {
	if len(visits) == 0 {
		return nil, nil
	}
	if len(visits) <= maxBlockRows {
		b, err := encodeVisitBlock(visits)
		if err != nil || len(b) <= max {
			return [][]byte{b}, err
		}
	}
	if len(visits) == 1 {
		return nil, fmt.Errorf("analytics: one visit makes a block of more than %d bytes", max)
	}
	mid := len(visits) / 2
	a, err := encodeVisitParts(visits[:mid], max)
	if err != nil {
		return nil, err
	}
	b, err := encodeVisitParts(visits[mid:], max)
	return append(a, b...), err
}
