package wal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ErrCorrupt is matched by errors.Is for every *CorruptError.
var ErrCorrupt = errors.New("wal: corrupt log")

// CorruptError reports damage to the log that is not a torn final write:
// a bad record that acknowledged records follow, or damage in a segment
// other than the last.
type CorruptError struct {
	Segment string // file name of the segment
	Offset  int64  // byte offset of the first bad frame in the segment
	LSN     uint64 // the LSN the bad frame should have had
	Reason  string // what is wrong
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("wal: corrupt log: segment %s offset %d (lsn %d): %s", e.Segment, e.Offset, e.LSN, e.Reason)
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// damage describes the first bad frame a scan met.
type damage struct {
	off    int64
	lsn    uint64
	reason string
}

// scanResult is what a scan of one segment found.
type scanResult struct {
	end        int64  // offset just past the last good frame
	last       uint64 // lsn of the last good frame, base-1 if none
	maxRelease uint64 // highest LSN released by a marker in the segment
	lastData   uint64 // lsn of the last good record (not a marker), 0 if none
	dmg        *damage
}

// scanSegment reads the frames of a segment whose header is valid, from the
// header up to limit bytes, and calls fn (if not nil) for each good frame in
// order. fn must not keep payload. A scan stops at the first bad frame and
// describes it in the result; it returns an error only for I/O errors and
// errors from fn.
func scanSegment(r io.ReaderAt, limit int64, base uint64, fn func(h frameHdr, payload []byte) error) (scanResult, error) {
	res := scanResult{end: segHeaderSize, last: base - 1}
	if limit <= segHeaderSize {
		return res, nil
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, segHeaderSize, limit-segHeaderSize), 64<<10)
	var (
		hdr     [frameHeader]byte
		payload []byte
		off     = int64(segHeaderSize)
		expect  = base
	)
	bad := func(reason string, args ...any) (scanResult, error) {
		res.dmg = &damage{off: off, lsn: expect, reason: fmt.Sprintf(reason, args...)}
		return res, nil
	}
	for off < limit {
		rem := limit - off
		if rem < frameHeader {
			return bad("truncated frame header (%d of %d bytes)", rem, frameHeader)
		}
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return res, err
		}
		h := decodeFrameHdr(hdr[:])
		switch {
		case h.lsn != expect:
			return bad("frame has lsn %d", h.lsn)
		case int64(h.length) > rem-frameHeader:
			return bad("frame length %d exceeds the %d bytes left", h.length, rem-frameHeader)
		case uint64(h.index) > h.lsn-base:
			return bad("frame index %d before the segment start", h.index)
		case h.release && h.length != 8:
			return bad("release marker of length %d", h.length)
		}
		if cap(payload) < int(h.length) {
			payload = make([]byte, h.length)
		}
		payload = payload[:h.length]
		if _, err := io.ReadFull(br, payload); err != nil {
			return res, err
		}
		if frameCRC(hdr[:], payload) != h.crc {
			return bad("checksum mismatch")
		}
		if h.release {
			if rel := binary.LittleEndian.Uint64(payload); rel > res.maxRelease {
				res.maxRelease = rel
			}
		} else {
			res.lastData = h.lsn
		}
		if fn != nil {
			if err := fn(h, payload); err != nil {
				return res, err
			}
		}
		off += frameHeader + int64(h.length)
		res.end, res.last = off, h.lsn
		expect++
	}
	return res, nil
}

// laterWrite looks past damage at offset off of a segment of the given size
// for a good frame written by a later write than the damaged frame's, one
// whose write began after lsn dmgLSN. Such a frame proves the damaged write
// had been synced (writes are synced one at a time, in order), so the damage
// is corruption rather than a torn final write. It returns the offset and
// lsn of the first such frame, or ok false.
func laterWrite(r io.ReaderAt, size, off int64, base, dmgLSN uint64) (int64, uint64, bool, error) {
	if size-off <= frameHeader {
		return 0, 0, false, nil
	}
	rest := make([]byte, size-off)
	if _, err := r.ReadAt(rest, off); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, false, err
	}
	for o := 1; o+frameHeader <= len(rest); o++ {
		h := decodeFrameHdr(rest[o:])
		left := len(rest) - o - frameHeader
		// A frame o bytes past the damaged one has at most o/frameHeader
		// frames between them, so its LSN is at most dmgLSN+o/frameHeader.
		if h.lsn < dmgLSN || h.lsn-dmgLSN > uint64(o)/frameHeader+1 ||
			int64(h.length) > int64(left) || uint64(h.index) > h.lsn-base ||
			(h.release && h.length != 8) {
			continue
		}
		if frameCRC(rest[o:], rest[o+frameHeader:o+frameHeader+int(h.length)]) != h.crc {
			continue
		}
		if h.lsn-uint64(h.index) > dmgLSN {
			return off + int64(o), h.lsn, true, nil
		}
		o += frameHeader + int(h.length) - 1
	}
	return 0, 0, false, nil
}
