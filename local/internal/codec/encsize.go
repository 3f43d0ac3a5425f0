package codec

import (
	"fmt"
	"unsafe"
)

// EncodedItemSize returns the size of the item encoded in b (by
// AppendItem), ItemSize of the decoded item, without decoding it: it reads
// only lengths and tags, and allocates nothing. Corrupt or truncated input
// yields an error wrapping ErrCorrupt, as DecodeItem's does. (A corrupt
// encoding that names one attribute twice, which AppendItem never writes,
// counts both.) b is not retained.
func EncodedItemSize(b []byte) (int, error) {
	if len(b) == 0 || b[0] != itemVersion {
		return 0, fmt.Errorf("%w: bad item version", ErrCorrupt)
	}
	// The decoder keeps no string past this call: it may read b in place.
	d := decoder{s: unsafe.String(unsafe.SliceData(b), len(b)), i: 1}
	size, err := d.sizeMembers(0, 0)
	if err != nil {
		return 0, err
	}
	if d.i != len(d.s) {
		return 0, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.s)-d.i)
	}
	return size, nil
}

// sizeMembers reads a count of name-value pairs and returns their size:
// the names' lengths plus the values' sizes, plus overhead for each pair.
func (d *decoder) sizeMembers(overhead, depth int) (int, error) {
	n, err := d.count()
	if err != nil {
		return 0, err
	}
	size := 0
	for range n {
		name, err := d.str()
		if err != nil {
			return 0, err
		}
		vs, err := d.sizeValue(depth + 1)
		if err != nil {
			return 0, err
		}
		size += overhead + len(name) + vs
	}
	return size, nil
}

// sizeValue reads one value and returns its ValueSize.
func (d *decoder) sizeValue(depth int) (int, error) {
	if d.i >= len(d.s) {
		return 0, errTruncated
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS, tagB:
		s, err := d.str()
		return len(s), err
	case tagN:
		s, err := d.str()
		if err != nil {
			return 0, err
		}
		return NumberSize(s), nil
	case tagTrue, tagFalse, tagNULL:
		return scalarOneByte, nil
	case tagL:
		if depth >= MaxDepth {
			return 0, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
		}
		n, err := d.count()
		if err != nil {
			return 0, err
		}
		size := containerOverhead
		for range n {
			vs, err := d.sizeValue(depth + 1)
			if err != nil {
				return 0, err
			}
			size += elementOverhead + vs
		}
		return size, nil
	case tagM:
		if depth >= MaxDepth {
			return 0, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
		}
		size, err := d.sizeMembers(elementOverhead, depth)
		return containerOverhead + size, err
	case tagSS, tagNS, tagBS:
		n, err := d.count()
		if err != nil {
			return 0, err
		}
		size := 0
		for range n {
			s, err := d.str()
			if err != nil {
				return 0, err
			}
			if tag == tagNS {
				size += NumberSize(s)
			} else {
				size += len(s)
			}
		}
		return size, nil
	default:
		return 0, fmt.Errorf("%w: unknown value tag 0x%02x", ErrCorrupt, tag)
	}
}
