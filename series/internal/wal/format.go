package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// On-disk format; docs/format/wal.md describes it for humans.
//
// A segment file is named by the LSN of its first frame as 16 lowercase hex
// digits plus ".wal". It starts with a segment header:
//
//	magic "TTWL" | version uint32 | base LSN uint64 | crc32c of the 16 bytes before
//
// followed by frames:
//
//	crc uint32 | length uint32 | lsn uint64 | index uint32 | payload
//
// All integers are little-endian. crc is the CRC-32C (Castagnoli) of the 16
// header bytes after it and the payload. The top bit of length marks a
// release marker (kindRelease); the low 31 bits are the payload length.
// lsn numbers every frame, data and marker alike, without gaps across
// segments. index is the number of frames written before this one by the
// same write (one group commit), so lsn-index is the first LSN of that write.
const (
	segMagic      = "TTWL"
	segVersion    = 1
	segHeaderSize = 20
	frameHeader   = 20
	segExt        = ".wal"

	releaseFlag = 1 << 31
	lengthMask  = releaseFlag - 1

	// MaxRecordSize is the largest record Append accepts.
	MaxRecordSize = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// segName returns the file name of the segment whose first LSN is base.
func segName(base uint64) string {
	return fmt.Sprintf("%016x%s", base, segExt)
}

// parseSegName returns the base LSN of a segment file name.
func parseSegName(name string) (uint64, bool) {
	hex, ok := strings.CutSuffix(name, segExt)
	if !ok || len(hex) != 16 {
		return 0, false
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	if err != nil || strings.ToLower(hex) != hex {
		return 0, false
	}
	return v, true
}

func appendSegHeader(dst []byte, base uint64) []byte {
	start := len(dst)
	dst = append(dst, segMagic...)
	dst = binary.LittleEndian.AppendUint32(dst, segVersion)
	dst = binary.LittleEndian.AppendUint64(dst, base)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// checkSegHeader validates a segment header and returns the base LSN it
// holds.
func checkSegHeader(h []byte) (uint64, error) {
	if len(h) < segHeaderSize {
		return 0, fmt.Errorf("short segment header (%d bytes)", len(h))
	}
	if string(h[:4]) != segMagic {
		return 0, fmt.Errorf("bad segment magic %q", h[:4])
	}
	if crc32.Checksum(h[:16], castagnoli) != binary.LittleEndian.Uint32(h[16:20]) {
		return 0, fmt.Errorf("segment header checksum mismatch")
	}
	if v := binary.LittleEndian.Uint32(h[4:8]); v != segVersion {
		return 0, fmt.Errorf("unsupported segment version %d", v)
	}
	return binary.LittleEndian.Uint64(h[8:16]), nil
}

// appendFrame appends one frame to dst.
func appendFrame(dst []byte, lsn uint64, index uint32, release bool, payload []byte) []byte {
	start := len(dst)
	length := uint32(len(payload))
	if release {
		length |= releaseFlag
	}
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint32(dst, length)
	dst = binary.LittleEndian.AppendUint64(dst, lsn)
	dst = binary.LittleEndian.AppendUint32(dst, index)
	dst = append(dst, payload...)
	binary.LittleEndian.PutUint32(dst[start:], crc32.Checksum(dst[start+4:], castagnoli))
	return dst
}

// frameHdr is a decoded frame header.
type frameHdr struct {
	crc     uint32
	length  uint32 // payload length
	release bool
	lsn     uint64
	index   uint32
}

func decodeFrameHdr(b []byte) frameHdr {
	l := binary.LittleEndian.Uint32(b[4:8])
	return frameHdr{
		crc:     binary.LittleEndian.Uint32(b[0:4]),
		length:  l & lengthMask,
		release: l&releaseFlag != 0,
		lsn:     binary.LittleEndian.Uint64(b[8:16]),
		index:   binary.LittleEndian.Uint32(b[16:20]),
	}
}

// frameCRC computes the checksum of a frame from its header bytes and payload.
func frameCRC(hdr, payload []byte) uint32 {
	c := crc32.Update(0, castagnoli, hdr[4:frameHeader])
	return crc32.Update(c, castagnoli, payload)
}
