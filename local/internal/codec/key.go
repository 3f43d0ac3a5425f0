package codec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/number"
)

// Tags that open a key encoding. Ordering across types is meaningless (a key
// attribute has one type per table), but within N the three tags order
// negatives before zero before positives.
const (
	keyNumNeg  = 0x10
	keyNumZero = 0x11
	keyNumPos  = 0x12
	keyString  = 0x20
	keyBinary  = 0x30
)

// Escaping of S and B key bytes: 0x00 becomes 0x00 0xFF and the value ends
// with 0x00 0x01, so a shorter value sorts before any longer one it prefixes.
const (
	escByte = 0x00
	escZero = 0xFF
	escEnd  = 0x01
	expBias = -number.MinExponent // adjusted exponent + expBias fits a byte
)

// ErrKeyType is returned by AppendKey for values that cannot be keys.
var ErrKeyType = errors.New("codec: key value must be S, N or B")

// ErrCorrupt is wrapped by every decoding error.
var ErrCorrupt = errors.New("codec: corrupt encoding")

// AppendKey appends the order-preserving encoding of the key value av to
// dst and returns the extended slice. av must be *types.AttributeValueMemberS,
// *types.AttributeValueMemberN (a valid DynamoDB number: it is parsed with
// package number and encoded by value, so "1.0" and "1" encode alike) or
// *types.AttributeValueMemberB; anything else yields ErrKeyType, and an
// invalid number yields the error of number.Parse. On error dst is returned
// unchanged. Empty strings and binaries are encoded (DynamoDB rejects them as
// keys, which is for the caller to check).
func AppendKey(dst []byte, av types.AttributeValue) ([]byte, error) {
	if v, ok := av.(*types.AttributeValueMemberN); ok {
		return appendKeyNumber(dst, v.Value)
	}
	// An S or B key is its prefix encoding and the terminator.
	out, err := AppendKeyPrefix(dst, av)
	if err != nil {
		return dst, err
	}
	return append(out, escByte, escEnd), nil
}

// AppendKeyPrefix appends the encoding of the S or B value av without its
// terminator. The keys whose value begins with av (DynamoDB's begins_with)
// are exactly those whose encoding begins with the result. Numbers yield
// ErrKeyType, as begins_with does not apply to them.
func AppendKeyPrefix(dst []byte, av types.AttributeValue) ([]byte, error) {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		dst = append(dst, keyString)
		return appendEscapedBody(dst, v.Value), nil
	case *types.AttributeValueMemberB:
		dst = append(dst, keyBinary)
		return appendEscapedBody(dst, v.Value), nil
	default:
		return dst, ErrKeyType
	}
}

// PrefixEnd returns the smallest byte string greater than every string that
// begins with prefix, or nil when there is none (prefix is empty or all
// 0xFF). The result is newly allocated.
func PrefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			end := make([]byte, i+1)
			copy(end, prefix)
			end[i]++
			return end
		}
	}
	return nil
}

func appendEscapedBody[T string | []byte](dst []byte, s T) []byte {
	for len(s) > 0 {
		i := indexZero(s)
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escZero)
		s = s[i+1:]
	}
	return dst
}

func indexZero[T string | []byte](s T) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// appendKeyNumber encodes a number as a tag for its sign, then for non-zero
// values the adjusted exponent (the power of ten of the first significant
// digit) plus expBias in one byte, then the significant digits in pairs, one
// byte per pair: 2*pair+1, except the last pair 2*pair (an odd digit count
// pads the last pair with 0). The even last byte ends the number and, at
// equal prefixes, sorts the shorter (smaller) mantissa first. Negative
// numbers invert the exponent and mantissa bytes.
func appendKeyNumber(dst []byte, s string) ([]byte, error) {
	var buf [number.Precision]byte
	neg, digits, adj, err := number.Split(s, buf[:0])
	if err != nil {
		return dst, err
	}
	if len(digits) == 0 {
		return append(dst, keyNumZero), nil
	}
	start := len(dst)
	tag := byte(keyNumPos)
	if neg {
		tag = keyNumNeg
	}
	dst = append(dst, tag, byte(adj+expBias))
	for i := 0; i < len(digits); i += 2 {
		pair := digits[i] * 10
		if i+1 < len(digits) {
			pair += digits[i+1]
		}
		b := 2 * pair
		if i+2 < len(digits) {
			b++
		}
		dst = append(dst, b)
	}
	if neg {
		for i := start + 1; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst, nil
}

// DecodeKey decodes the key value at the start of b, as written by
// AppendKey, and returns it with the bytes that follow it. Numbers come back
// in DynamoDB's canonical form. The returned value does not alias b.
func DecodeKey(b []byte) (av types.AttributeValue, rest []byte, err error) {
	if len(b) == 0 {
		return nil, b, fmt.Errorf("%w: empty key", ErrCorrupt)
	}
	switch b[0] {
	case keyString, keyBinary:
		body, n, escapes, err := scanEscaped(b)
		if err != nil {
			return nil, b, err
		}
		if b[0] == keyString && escapes == 0 {
			return &types.AttributeValueMemberS{Value: string(body)}, b[n:], nil
		}
		raw := make([]byte, 0, len(body)-escapes)
		for i := 0; i < len(body); i++ {
			raw = append(raw, body[i])
			if body[i] == escByte {
				i++ // skip escZero
			}
		}
		if b[0] == keyString {
			return &types.AttributeValueMemberS{Value: string(raw)}, b[n:], nil
		}
		return &types.AttributeValueMemberB{Value: raw}, b[n:], nil
	case keyNumZero:
		return &types.AttributeValueMemberN{Value: "0"}, b[1:], nil
	case keyNumPos, keyNumNeg:
		s, n, err := decodeKeyNumber(b)
		if err != nil {
			return nil, b, err
		}
		return &types.AttributeValueMemberN{Value: s}, b[n:], nil
	default:
		return nil, b, fmt.Errorf("%w: unknown key tag 0x%02x", ErrCorrupt, b[0])
	}
}

// SplitKey returns the length of the key encoding at the start of b without
// decoding it.
func SplitKey(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty key", ErrCorrupt)
	}
	switch b[0] {
	case keyString, keyBinary:
		_, n, _, err := scanEscaped(b)
		return n, err
	case keyNumZero:
		return 1, nil
	case keyNumPos, keyNumNeg:
		_, n, err := decodeKeyNumber(b)
		return n, err
	default:
		return 0, fmt.Errorf("%w: unknown key tag 0x%02x", ErrCorrupt, b[0])
	}
}

// scanEscaped reads the S or B key at the start of b (tag included) and
// returns its escaped body (aliasing b), the length of the whole encoding
// and the number of escaped zero bytes in the body.
func scanEscaped(b []byte) (body []byte, n, escapes int, err error) {
	for i := 1; i+1 < len(b); i++ {
		if b[i] != escByte {
			continue
		}
		switch b[i+1] {
		case escEnd:
			return b[1:i], i + 2, escapes, nil
		case escZero:
			escapes++
			i++
		default:
			return nil, 0, 0, fmt.Errorf("%w: bad escape in key", ErrCorrupt)
		}
	}
	return nil, 0, 0, fmt.Errorf("%w: unterminated key", ErrCorrupt)
}

// decodeKeyNumber decodes a non-zero number at the start of b (tag included)
// into its canonical string and returns the bytes consumed.
func decodeKeyNumber(b []byte) (string, int, error) {
	neg := b[0] == keyNumNeg
	if len(b) < 3 {
		return "", 0, fmt.Errorf("%w: short number", ErrCorrupt)
	}
	flip := byte(0)
	if neg {
		flip = 0xFF
	}
	adj := int(b[1]^flip) - expBias
	var buf [number.Precision + 1]byte
	digits := buf[:0]
	n := 2
	for {
		if n >= len(b) {
			return "", 0, fmt.Errorf("%w: unterminated number", ErrCorrupt)
		}
		c := b[n] ^ flip
		n++
		pair := c / 2
		if pair > 99 || len(digits) >= number.Precision {
			return "", 0, fmt.Errorf("%w: bad number digits", ErrCorrupt)
		}
		digits = append(digits, pair/10, pair%10)
		if c%2 == 0 {
			if pair == 0 {
				return "", 0, fmt.Errorf("%w: non-canonical number", ErrCorrupt)
			}
			break
		}
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 || digits[0] == 0 || len(digits) > number.Precision ||
		adj > number.MaxExponent || adj < number.MinExponent {
		return "", 0, fmt.Errorf("%w: non-canonical number", ErrCorrupt)
	}
	return formatDigits(neg, digits, adj), n, nil
}

// formatDigits prints the number 0.d1d2...dk * 10^(adj+1) as DynamoDB
// prints numbers: no exponent, no superfluous zeros.
func formatDigits(neg bool, digits []byte, adj int) string {
	var sb strings.Builder
	sb.Grow(len(digits) + 3 + max(adj, -adj))
	if neg {
		sb.WriteByte('-')
	}
	switch {
	case adj < 0:
		sb.WriteString("0.")
		for i := 0; i < -adj-1; i++ {
			sb.WriteByte('0')
		}
		for _, d := range digits {
			sb.WriteByte('0' + d)
		}
	case adj >= len(digits)-1:
		for _, d := range digits {
			sb.WriteByte('0' + d)
		}
		for i := 0; i < adj-(len(digits)-1); i++ {
			sb.WriteByte('0')
		}
	default:
		for i, d := range digits {
			if i == adj+1 {
				sb.WriteByte('.')
			}
			sb.WriteByte('0' + d)
		}
	}
	return sb.String()
}
