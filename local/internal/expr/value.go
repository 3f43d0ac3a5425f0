package expr

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// vtype is the type of an attribute value.
type vtype uint8

const (
	tyNone vtype = iota
	tyS
	tyN
	tyB
	tyBOOL
	tyNULL
	tySS
	tyNS
	tyBS
	tyL
	tyM
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"}

func (t vtype) String() string { return typeNames[t] }

// longTypeNames are the names DynamoDB uses in ADD and DELETE operand errors.
var longTypeNames = [...]string{"", "STRING", "NUMBER", "BINARY", "BOOLEAN", "NULL",
	"STRING_SET", "NUMBER_SET", "BINARY_SET", "LIST", "MAP"}

func typeOf(v types.AttributeValue) vtype {
	switch v.(type) {
	case *types.AttributeValueMemberS:
		return tyS
	case *types.AttributeValueMemberN:
		return tyN
	case *types.AttributeValueMemberB:
		return tyB
	case *types.AttributeValueMemberBOOL:
		return tyBOOL
	case *types.AttributeValueMemberNULL:
		return tyNULL
	case *types.AttributeValueMemberSS:
		return tySS
	case *types.AttributeValueMemberNS:
		return tyNS
	case *types.AttributeValueMemberBS:
		return tyBS
	case *types.AttributeValueMemberL:
		return tyL
	case *types.AttributeValueMemberM:
		return tyM
	}
	return tyNone
}

func typeByName(s string) vtype {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return vtype(i)
		}
	}
	return tyNone
}

// val is an evaluated operand: an attribute value, or the number that
// size() returned (av nil, isSize set). The zero val is "absent".
type val struct {
	av     types.AttributeValue
	size   int
	isSize bool
}

func (v val) ok() bool { return v.av != nil || v.isSize }

func (v val) typ() vtype {
	if v.isSize {
		return tyN
	}
	return typeOf(v.av)
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

// compareVals orders a and b when both are present and of the same ordered
// type (N, S or B); ok is false otherwise.
func compareVals(a, b val) (c int, ok bool) {
	if !a.ok() || !b.ok() {
		return 0, false
	}
	ta, tb := a.typ(), b.typ()
	if ta != tb {
		return 0, false
	}
	switch ta {
	case tyN:
		return cmpDecimal(a.num(), b.num()), true
	case tyS:
		return strings.Compare(a.av.(*types.AttributeValueMemberS).Value, b.av.(*types.AttributeValueMemberS).Value), true
	case tyB:
		return bytes.Compare(a.av.(*types.AttributeValueMemberB).Value, b.av.(*types.AttributeValueMemberB).Value), true
	}
	return 0, false
}

func equalVals(a, b val) bool {
	if !a.ok() || !b.ok() {
		return false
	}
	if a.isSize || b.isSize {
		if a.typ() != tyN || b.typ() != tyN {
			return false
		}
		return cmpDecimal(a.num(), b.num()) == 0
	}
	return Equal(a.av, b.av)
}

// Equal reports whether a and b are equal DynamoDB values: of the same
// type, numbers equal by value, sets equal as sets, lists element by
// element, maps key by key.
func Equal(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && cmpDecimal(a.Value, b.Value) == 0
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		b, ok := b.(*types.AttributeValueMemberNULL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for _, s := range a.Value {
			if !containsString(b.Value, s) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for _, s := range a.Value {
			if !containsNumber(b.Value, s) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for _, s := range a.Value {
			if !containsBytes(b.Value, s) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for i := range a.Value {
			if !Equal(a.Value[i], b.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(a.Value) != len(b.Value) {
			return false
		}
		for k, av := range a.Value {
			bv, ok := b.Value[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	}
	return false
}

func containsString(set []string, s string) bool {
	for _, e := range set {
		if e == s {
			return true
		}
	}
	return false
}

func containsNumber(set []string, s string) bool {
	for _, e := range set {
		if cmpDecimal(e, s) == 0 {
			return true
		}
	}
	return false
}

func containsBytes(set [][]byte, b []byte) bool {
	for _, e := range set {
		if bytes.Equal(e, b) {
			return true
		}
	}
	return false
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
			return containsString(x.Value, y.Value)
		}
	case *types.AttributeValueMemberNS:
		if b.typ() == tyN {
			return containsNumber(x.Value, b.num())
		}
	case *types.AttributeValueMemberBS:
		if y, ok := b.av.(*types.AttributeValueMemberB); ok {
			return containsBytes(x.Value, y.Value)
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

// decimal is a parsed DynamoDB number string: value = ±0.d1d2...dn × 10^exp
// where the digits are those of a followed by those of b, with no leading or
// trailing zeros. Parsing and comparing do not allocate.
type decimal struct {
	neg  bool
	a, b string
	exp  int
}

func (d *decimal) n() int { return len(d.a) + len(d.b) }

func (d *decimal) digit(i int) byte {
	if i < len(d.a) {
		return d.a[i]
	}
	i -= len(d.a)
	if i < len(d.b) {
		return d.b[i]
	}
	return '0'
}

// parseDecimal reads s leniently; malformed input yields some decimal, never
// a panic (values are validated before they are stored).
func parseDecimal(s string) decimal {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		for i < len(s) && isDigit(s[i]) {
			if exp < 1e6 {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if eneg {
			exp = -exp
		}
	}
	for len(intPart) > 0 && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	d.exp = len(intPart) + exp
	if intPart == "" {
		for len(frac) > 0 && frac[0] == '0' {
			frac = frac[1:]
			d.exp--
		}
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if frac == "" {
		for len(intPart) > 0 && intPart[len(intPart)-1] == '0' {
			intPart = intPart[:len(intPart)-1]
		}
	}
	d.a, d.b = intPart, frac
	if d.n() == 0 {
		d.neg = false
		d.exp = 0
	}
	return d
}

// cmpDecimal compares two DynamoDB number strings by value.
func cmpDecimal(x, y string) int {
	if x == y {
		return 0
	}
	a, b := parseDecimal(x), parseDecimal(y)
	az, bz := a.n() == 0, b.n() == 0
	switch {
	case az && bz:
		return 0
	case az:
		if b.neg {
			return 1
		}
		return -1
	case bz:
		if a.neg {
			return -1
		}
		return 1
	}
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := 0
	switch {
	case a.exp != b.exp:
		c = 1
		if a.exp < b.exp {
			c = -1
		}
	default:
		n := max(a.n(), b.n())
		for i := 0; i < n && c == 0; i++ {
			da, db := a.digit(i), b.digit(i)
			if da < db {
				c = -1
			} else if da > db {
				c = 1
			}
		}
	}
	if a.neg {
		c = -c
	}
	return c
}
