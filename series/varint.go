package series

import "encoding/binary"

// The decoders of the log's records, of source maps and of tag columns
// read their varints and strings off the front of a slice with these;
// each returns ok false, and leaves the slice as it is, for bytes that do
// not hold what it reads.

// readUvarint reads an unsigned varint off the front of *b.
func readUvarint(b *[]byte) (v uint64, ok bool) {
	v, n := binary.Uvarint(*b)
	if n <= 0 {
		return 0, false
	}
	*b = (*b)[n:]
	return v, true
}

// readVarint reads a signed (zig-zag) varint off the front of *b.
func readVarint(b *[]byte) (v int64, ok bool) {
	v, n := binary.Varint(*b)
	if n <= 0 {
		return 0, false
	}
	*b = (*b)[n:]
	return v, true
}

// readString reads a string of a uvarint length off the front of *b. The
// string may not be valid UTF-8: the caller checks what it needs.
func readString(b *[]byte) (string, bool) {
	rest := *b
	l, ok := readUvarint(&rest)
	if !ok || l > uint64(len(rest)) {
		return "", false
	}
	*b = rest[l:]
	return string(rest[:l]), true
}
