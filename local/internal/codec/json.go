package codec

import (
	"encoding/base64"
	"fmt"
	"unsafe"

	"github.com/timetable-db/timetable/internal/jsonstr"
)

// AppendItemJSON appends to dst the item encoded in b (by AppendItem) as
// DynamoDB's JSON, the object of attribute values the awsJson1_0 protocol
// carries ({"pk":{"S":"a"},"n":{"N":"1"}}), without decoding it into
// attribute values first. It returns the extended slice and the item's
// size (ItemSize of the decoded item). Attributes are written in their
// stored order; strings are escaped as encoding/json escapes them, invalid
// UTF-8 as U+FFFD. Corrupt or truncated input yields an error wrapping
// ErrCorrupt, never a panic; the returned slice must then be discarded.
// (A corrupt encoding that names one attribute twice, which AppendItem
// never writes, is written with both.) b is not retained.
func AppendItemJSON(dst, b []byte) ([]byte, int, error) {
	if len(b) == 0 || b[0] != itemVersion {
		return dst, 0, fmt.Errorf("%w: bad item version", ErrCorrupt)
	}
	// The decoder reads strings; it keeps none of them past this call, so
	// it may read b in place.
	d := decoder{s: unsafe.String(unsafe.SliceData(b), len(b)), i: 1}
	dst, size, err := d.jsonMembers(dst, 0, 0)
	if err != nil {
		return dst, 0, err
	}
	if d.i != len(d.s) {
		return dst, 0, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.s)-d.i)
	}
	return dst, size, nil
}

// jsonMembers writes a count of name-value pairs as a JSON object and
// returns their size: the names' lengths plus the values' sizes, plus
// elementOverhead for each pair.
func (d *decoder) jsonMembers(dst []byte, overhead, depth int) ([]byte, int, error) {
	n, err := d.count()
	if err != nil {
		return dst, 0, err
	}
	dst = append(dst, '{')
	size := 0
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		name, err := d.str()
		if err != nil {
			return dst, 0, err
		}
		dst = jsonstr.Append(dst, name)
		dst = append(dst, ':')
		var vs int
		if dst, vs, err = d.jsonValue(dst, depth+1); err != nil {
			return dst, 0, err
		}
		size += overhead + len(name) + vs
	}
	return append(dst, '}'), size, nil
}

// jsonValue writes one value as DynamoDB JSON and returns its ValueSize.
func (d *decoder) jsonValue(dst []byte, depth int) ([]byte, int, error) {
	if d.i >= len(d.s) {
		return dst, 0, errTruncated
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS, tagN:
		s, err := d.str()
		if err != nil {
			return dst, 0, err
		}
		if tag == tagS {
			dst = append(dst, `{"S":`...)
			dst = jsonstr.Append(dst, s)
			return append(dst, '}'), len(s), nil
		}
		dst = append(dst, `{"N":`...)
		dst = jsonstr.Append(dst, s)
		return append(dst, '}'), NumberSize(s), nil
	case tagB:
		s, err := d.str()
		if err != nil {
			return dst, 0, err
		}
		dst = append(dst, `{"B":`...)
		dst = appendJSONBlob(dst, s)
		return append(dst, '}'), len(s), nil
	case tagTrue:
		return append(dst, `{"BOOL":true}`...), scalarOneByte, nil
	case tagFalse:
		return append(dst, `{"BOOL":false}`...), scalarOneByte, nil
	case tagNULL:
		return append(dst, `{"NULL":true}`...), scalarOneByte, nil
	case tagL:
		if depth >= MaxDepth {
			return dst, 0, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
		}
		n, err := d.count()
		if err != nil {
			return dst, 0, err
		}
		dst = append(dst, `{"L":[`...)
		size := containerOverhead
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			var vs int
			if dst, vs, err = d.jsonValue(dst, depth+1); err != nil {
				return dst, 0, err
			}
			size += elementOverhead + vs
		}
		return append(dst, "]}"...), size, nil
	case tagM:
		if depth >= MaxDepth {
			return dst, 0, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
		}
		dst = append(dst, `{"M":`...)
		dst, size, err := d.jsonMembers(dst, elementOverhead, depth)
		if err != nil {
			return dst, 0, err
		}
		return append(dst, '}'), containerOverhead + size, nil
	case tagSS, tagNS, tagBS:
		n, err := d.count()
		if err != nil {
			return dst, 0, err
		}
		switch tag {
		case tagSS:
			dst = append(dst, `{"SS":[`...)
		case tagNS:
			dst = append(dst, `{"NS":[`...)
		default:
			dst = append(dst, `{"BS":[`...)
		}
		size := 0
		for i := range n {
			if i > 0 {
				dst = append(dst, ',')
			}
			s, err := d.str()
			if err != nil {
				return dst, 0, err
			}
			switch tag {
			case tagSS:
				dst = jsonstr.Append(dst, s)
				size += len(s)
			case tagNS:
				dst = jsonstr.Append(dst, s)
				size += NumberSize(s)
			default:
				dst = appendJSONBlob(dst, s)
				size += len(s)
			}
		}
		return append(dst, "]}"...), size, nil
	default:
		return dst, 0, fmt.Errorf("%w: unknown value tag 0x%02x", ErrCorrupt, tag)
	}
}

// appendJSONBlob writes b as a JSON string of its standard base64.
func appendJSONBlob(dst []byte, b string) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, unsafe.Slice(unsafe.StringData(b), len(b)))
	return append(dst, '"')
}
