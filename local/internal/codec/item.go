package codec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemVersion opens every item encoding; a new layout gets a new version.
const itemVersion = 0x01

// Value tags of the item encoding.
const (
	tagS     = 0x01
	tagN     = 0x02
	tagB     = 0x03
	tagTrue  = 0x04
	tagFalse = 0x05
	tagNULL  = 0x06
	tagL     = 0x07
	tagM     = 0x08
	tagSS    = 0x09
	tagNS    = 0x0A
	tagBS    = 0x0B
)

// MaxDepth is the deepest nesting of lists and maps AppendItem writes and
// DecodeItem reads; an item's top-level attributes are at depth 1.
// DynamoDB itself allows 32 levels.
const MaxDepth = 64

// ErrDepth is returned by AppendItem for values nested deeper than MaxDepth
// (including cyclic maps and lists).
var ErrDepth = errors.New("codec: value nested too deeply")

// ErrValueType is returned by AppendItem for nil values and for types that
// are not one of DynamoDB's ten attribute types.
var ErrValueType = errors.New("codec: unsupported attribute value")

// AppendItem appends the binary encoding of item to dst and returns the
// extended slice. Values are stored as given: numbers keep their string (the
// caller canonicalizes and validates them first), NULL is stored as NULL
// true, and attribute order follows map iteration, so two encodings of one
// item may differ in bytes while decoding to equal items. On error (a nil or
// unknown value, or nesting beyond MaxDepth) the returned slice must be
// discarded. AppendItem does not modify item.
func AppendItem(dst []byte, item map[string]types.AttributeValue) ([]byte, error) {
	dst = append(dst, itemVersion)
	dst = binary.AppendUvarint(dst, uint64(len(item)))
	var err error
	for name, v := range item {
		dst = appendStr(dst, name)
		if dst, err = appendValue(dst, v, 1); err != nil {
			return dst, fmt.Errorf("cannot encode attribute %q: %w", name, err)
		}
	}
	return dst, nil
}

func appendStr[T string | []byte](dst []byte, s T) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendValue(dst []byte, av types.AttributeValue, depth int) ([]byte, error) {
	var err error
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		dst = append(dst, tagS)
		dst = appendStr(dst, v.Value)
	case *types.AttributeValueMemberN:
		dst = append(dst, tagN)
		dst = appendStr(dst, v.Value)
	case *types.AttributeValueMemberB:
		dst = append(dst, tagB)
		dst = appendStr(dst, v.Value)
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			dst = append(dst, tagTrue)
		} else {
			dst = append(dst, tagFalse)
		}
	case *types.AttributeValueMemberNULL:
		dst = append(dst, tagNULL)
	case *types.AttributeValueMemberL:
		if depth >= MaxDepth {
			return dst, ErrDepth
		}
		dst = append(dst, tagL)
		dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
		for _, e := range v.Value {
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
	case *types.AttributeValueMemberM:
		if depth >= MaxDepth {
			return dst, ErrDepth
		}
		dst = append(dst, tagM)
		dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
		for name, e := range v.Value {
			dst = appendStr(dst, name)
			if dst, err = appendValue(dst, e, depth+1); err != nil {
				return dst, err
			}
		}
	case *types.AttributeValueMemberSS:
		dst = append(dst, tagSS)
		dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
		for _, e := range v.Value {
			dst = appendStr(dst, e)
		}
	case *types.AttributeValueMemberNS:
		dst = append(dst, tagNS)
		dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
		for _, e := range v.Value {
			dst = appendStr(dst, e)
		}
	case *types.AttributeValueMemberBS:
		dst = append(dst, tagBS)
		dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
		for _, e := range v.Value {
			dst = appendStr(dst, e)
		}
	default:
		return dst, fmt.Errorf("%w: %T", ErrValueType, av)
	}
	return dst, nil
}

// DecodeItem decodes an item written by AppendItem. The result is newly
// allocated and does not alias b; the caller owns it. Corrupt or truncated
// input yields an error wrapping ErrCorrupt, never a panic, and the memory
// DecodeItem allocates is bounded by a small multiple of len(b).
func DecodeItem(b []byte) (map[string]types.AttributeValue, error) {
	return decodeItem(b, nil)
}

// A Decoder decodes items as DecodeItem does, but takes the string and
// number values of the items it decodes from blocks of blockSize values,
// one allocation per block rather than one per value: for reading many
// items at once (a Query's page). A value kept by its caller keeps its
// block alive, which costs at most blockSize small structs. The zero
// value is ready to use; a Decoder is not safe for concurrent use.
type Decoder struct {
	s []types.AttributeValueMemberS
	n []types.AttributeValueMemberN
}

// blockSize is the number of values of one type a Decoder allocates at
// once.
const blockSize = 32

// DecodeItem is the package's DecodeItem with the values from dec's
// blocks. The items returned share no memory with each other or with b
// except those blocks, whose values each belong to one item.
func (dec *Decoder) DecodeItem(b []byte) (map[string]types.AttributeValue, error) {
	return decodeItem(b, dec)
}

// next returns an unused value from the block, allocating a new block
// when it is spent.
func next[T any](block *[]T) *T {
	if len(*block) == 0 {
		*block = make([]T, blockSize)
	}
	p := &(*block)[0]
	*block = (*block)[1:]
	return p
}

func decodeItem(b []byte, dec *Decoder) (map[string]types.AttributeValue, error) {
	if len(b) == 0 || b[0] != itemVersion {
		return nil, fmt.Errorf("%w: bad item version", ErrCorrupt)
	}
	d := decoder{s: string(b), i: 1, dec: dec}
	n, err := d.count()
	if err != nil {
		return nil, err
	}
	item := make(map[string]types.AttributeValue, n)
	for range n {
		name, err := d.str()
		if err != nil {
			return nil, err
		}
		v, err := d.value(1)
		if err != nil {
			return nil, err
		}
		item[name] = v
	}
	if d.i != len(d.s) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.s)-d.i)
	}
	return item, nil
}

// decoder reads from one string copy of the input, so that every string in
// the result is a substring of it rather than a separate allocation.
type decoder struct {
	s   string
	i   int
	dec *Decoder // nil: allocate each value
}

var errTruncated = fmt.Errorf("%w: truncated", ErrCorrupt)

func (d *decoder) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.i >= len(d.s) {
			return 0, errTruncated
		}
		c := d.s[d.i]
		d.i++
		if c < 0x80 {
			if shift == 63 && c > 1 {
				break
			}
			return x | uint64(c)<<shift, nil
		}
		x |= uint64(c&0x7f) << shift
	}
	return 0, fmt.Errorf("%w: varint overflow", ErrCorrupt)
}

// count reads an element count, which cannot exceed the bytes left since
// every element takes at least one byte.
func (d *decoder) count() (int, error) {
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(d.s)-d.i) {
		return 0, fmt.Errorf("%w: count %d exceeds input", ErrCorrupt, n)
	}
	return int(n), nil
}

func (d *decoder) str() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n > uint64(len(d.s)-d.i) {
		return "", errTruncated
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s, nil
}

func (d *decoder) bytes() ([]byte, error) {
	s, err := d.str()
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

func (d *decoder) value(depth int) (types.AttributeValue, error) {
	if d.i >= len(d.s) {
		return nil, errTruncated
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagS:
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.dec != nil {
			v := next(&d.dec.s)
			v.Value = s
			return v, nil
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	case tagN:
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		if d.dec != nil {
			v := next(&d.dec.n)
			v.Value = s
			return v, nil
		}
		return &types.AttributeValueMemberN{Value: s}, nil
	case tagB:
		b, err := d.bytes()
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberB{Value: b}, nil
	case tagTrue:
		return &types.AttributeValueMemberBOOL{Value: true}, nil
	case tagFalse:
		return &types.AttributeValueMemberBOOL{Value: false}, nil
	case tagNULL:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case tagL:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
		}
		n, err := d.count()
		if err != nil {
			return nil, err
		}
		l := make([]types.AttributeValue, n)
		for i := range l {
			if l[i], err = d.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case tagM:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
		}
		n, err := d.count()
		if err != nil {
			return nil, err
		}
		m := make(map[string]types.AttributeValue, n)
		for range n {
			name, err := d.str()
			if err != nil {
				return nil, err
			}
			if m[name], err = d.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case tagSS, tagNS:
		n, err := d.count()
		if err != nil {
			return nil, err
		}
		set := make([]string, n)
		for i := range set {
			if set[i], err = d.str(); err != nil {
				return nil, err
			}
		}
		if tag == tagSS {
			return &types.AttributeValueMemberSS{Value: set}, nil
		}
		return &types.AttributeValueMemberNS{Value: set}, nil
	case tagBS:
		n, err := d.count()
		if err != nil {
			return nil, err
		}
		set := make([][]byte, n)
		for i := range set {
			if set[i], err = d.bytes(); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberBS{Value: set}, nil
	default:
		return nil, fmt.Errorf("%w: unknown value tag 0x%02x", ErrCorrupt, tag)
	}
}
