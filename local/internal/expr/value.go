package expr

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/number"
	"github.com/timetable-db/timetable/local/internal/value"
)

// val is an evaluated operand: an attribute value, or the number that
// size() returned (av nil, isSize set). The zero val is "absent".
type val struct {
	av     types.AttributeValue
	size   int
	isSize bool
}

func (v val) ok() bool { return v.av != nil || v.isSize }

func (v val) typ() value.Type {
	if v.isSize {
		return value.N
	}
	return value.TypeOf(v.av)
}

// num returns the decimal text of a numeric val.
func (v val) num() string {
	if v.isSize {
		return strconv.Itoa(v.size)
	}
	if n, ok := v.av.(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// compareVals orders a and b as value.Compare does, when both are present
// and of the same ordered type (N, S or B); ok is false otherwise.
func compareVals(a, b val) (c int, ok bool) {
	if !a.ok() || !b.ok() {
		return 0, false
	}
	if a.isSize || b.isSize {
		if a.typ() != value.N || b.typ() != value.N {
			return 0, false
		}
		return number.Compare(a.num(), b.num()), true
	}
	return value.Compare(a.av, b.av)
}

// equalVals tells whether a and b are present and equal, as value.Equal.
func equalVals(a, b val) bool {
	if a.isSize || b.isSize {
		c, ok := compareVals(a, b)
		return ok && c == 0
	}
	return a.ok() && b.ok() && value.Equal(a.av, b.av)
}

// sizeOf returns what size() returns for v: characters of a string (as
// UTF-16 units, as DynamoDB counts them), bytes of a binary, elements of a
// set, list or map. ok is false for other types.
func sizeOf(v types.AttributeValue) (int, bool) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return utf16Len(v.Value), true
	case *types.AttributeValueMemberB:
		return len(v.Value), true
	case *types.AttributeValueMemberSS:
		return len(v.Value), true
	case *types.AttributeValueMemberNS:
		return len(v.Value), true
	case *types.AttributeValueMemberBS:
		return len(v.Value), true
	case *types.AttributeValueMemberL:
		return len(v.Value), true
	case *types.AttributeValueMemberM:
		return len(v.Value), true
	}
	return 0, false
}

func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// containsVal implements contains(a, b).
func containsVal(a, b val) bool {
	if a.isSize || !a.ok() || !b.ok() {
		return false
	}
	switch x := a.av.(type) {
	case *types.AttributeValueMemberS:
		if y, ok := b.av.(*types.AttributeValueMemberS); ok {
			return strings.Contains(x.Value, y.Value)
		}
	case *types.AttributeValueMemberB:
		if y, ok := b.av.(*types.AttributeValueMemberB); ok {
			return bytes.Contains(x.Value, y.Value)
		}
	case *types.AttributeValueMemberSS:
		if y, ok := b.av.(*types.AttributeValueMemberS); ok {
			return value.HasString(x.Value, y.Value)
		}
	case *types.AttributeValueMemberNS:
		if b.typ() == value.N {
			return value.HasNumber(x.Value, b.num())
		}
	case *types.AttributeValueMemberBS:
		if y, ok := b.av.(*types.AttributeValueMemberB); ok {
			return value.HasBinary(x.Value, y.Value)
		}
	case *types.AttributeValueMemberL:
		for _, e := range x.Value {
			if equalVals(val{av: e}, b) {
				return true
			}
		}
	}
	return false
}

// beginsWith implements begins_with(a, b).
func beginsWith(a, b val) bool {
	if a.isSize || b.isSize || !a.ok() || !b.ok() {
		return false
	}
	switch x := a.av.(type) {
	case *types.AttributeValueMemberS:
		if y, ok := b.av.(*types.AttributeValueMemberS); ok {
			return strings.HasPrefix(x.Value, y.Value)
		}
	case *types.AttributeValueMemberB:
		if y, ok := b.av.(*types.AttributeValueMemberB); ok {
			return bytes.HasPrefix(x.Value, y.Value)
		}
	}
	return false
}

// describe formats a scalar as DynamoDB Local does in BETWEEN messages,
// Java's AttributeValue.toString: {S:x}, {N:1}, and a ByteBuffer for B.
func describe(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "{S:" + v.Value + "}"
	case *types.AttributeValueMemberN:
		return "{N:" + v.Value + "}"
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("{B:java.nio.HeapByteBuffer[pos=0 lim=%d cap=%d]}", len(v.Value), len(v.Value))
	}
	return "{}"
}
