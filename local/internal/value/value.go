// Package value is the engine's one home for DynamoDB's semantics of
// attribute values: the names of their types, when two values are equal,
// how values of the ordered types compare, and how a number in a request
// is checked. The expression evaluator (conditions, filters, updates), the
// write path (index entries, number validation) and the key codec's tests
// all ask here, so the engine cannot disagree with itself.
//
// Numbers are compared by value through package number, which also gives
// the key codec its digits: "1", "1.0" and "1E+0" are one number to every
// part of the engine.
//
// It is a package of its own, rather than part of codec or number, because
// it is about the SDK's types.AttributeValue as a whole (codec is about
// bytes, number about one scalar type) and because expr, which must not
// depend on the storage encoding, needs it as much as the storage does.
package value

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/number"
)

// Type is the type of an attribute value. The zero Type, None, is the type
// of nil and of values of no known type.
type Type uint8

// The types of DynamoDB's attribute values.
const (
	None Type = iota
	S
	N
	B
	BOOL
	NULL
	SS
	NS
	BS
	L
	M
)

var names = [...]string{"", "S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"}

// longNames are the names DynamoDB uses for the types in some messages
// (those of ADD and DELETE operands, for instance).
var longNames = [...]string{"", "STRING", "NUMBER", "BINARY", "BOOLEAN", "NULL",
	"STRING_SET", "NUMBER_SET", "BINARY_SET", "LIST", "MAP"}

// String returns DynamoDB's name of the type: "S", "N", "B", "BOOL",
// "NULL", "SS", "NS", "BS", "L" or "M"; "" for None.
func (t Type) String() string { return names[t] }

// LongName returns the long name of the type: "STRING", "NUMBER",
// "BINARY", "BOOLEAN", "NULL", "STRING_SET", "NUMBER_SET", "BINARY_SET",
// "LIST" or "MAP"; "" for None.
func (t Type) LongName() string { return longNames[t] }

// ParseType returns the type named name ("S", "N", ...), or None.
func ParseType(name string) Type {
	for i, n := range names {
		if i > 0 && n == name {
			return Type(i)
		}
	}
	return None
}

// TypeOf returns the type of av; None for nil.
func TypeOf(av types.AttributeValue) Type {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return S
	case *types.AttributeValueMemberN:
		return N
	case *types.AttributeValueMemberB:
		return B
	case *types.AttributeValueMemberBOOL:
		return BOOL
	case *types.AttributeValueMemberNULL:
		return NULL
	case *types.AttributeValueMemberSS:
		return SS
	case *types.AttributeValueMemberNS:
		return NS
	case *types.AttributeValueMemberBS:
		return BS
	case *types.AttributeValueMemberL:
		return L
	case *types.AttributeValueMemberM:
		return M
	}
	return None
}

// Equal reports whether a and b are equal as DynamoDB compares values (in
// conditions, and to tell whether a write changed an item): of the same
// type; numbers equal by value ("1" and "1.0"); sets with the same members,
// in any order, number sets by value; lists element by element; maps key by
// key. Two NULLs are equal. nil equals nothing, not even nil.
func Equal(a, b types.AttributeValue) bool {
	switch a := a.(type) {
	case *types.AttributeValueMemberS:
		b, ok := b.(*types.AttributeValueMemberS)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberN:
		b, ok := b.(*types.AttributeValueMemberN)
		return ok && number.Compare(a.Value, b.Value) == 0
	case *types.AttributeValueMemberB:
		b, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(a.Value, b.Value)
	case *types.AttributeValueMemberBOOL:
		b, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && a.Value == b.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberSS:
		b, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(a.Value, b.Value, HasString)
	case *types.AttributeValueMemberNS:
		b, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(a.Value, b.Value, HasNumber)
	case *types.AttributeValueMemberBS:
		b, ok := b.(*types.AttributeValueMemberBS)
		return ok && sameSet(a.Value, b.Value, HasBinary)
	case *types.AttributeValueMemberL:
		b, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(a.Value, b.Value, Equal)
	case *types.AttributeValueMemberM:
		b, ok := b.(*types.AttributeValueMemberM)
		return ok && EqualItems(a.Value, b.Value)
	}
	return false
}

// EqualItems reports whether two items (or two maps) have the same
// attribute names with Equal values.
func EqualItems(a, b map[string]types.AttributeValue) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !Equal(va, vb) {
			return false
		}
	}
	return true
}

// sameSet reports whether two sets without duplicates have the same
// members, as has tells.
func sameSet[E any](a, b []E, has func([]E, E) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for _, e := range a {
		if !has(b, e) {
			return false
		}
	}
	return true
}

// HasString reports whether the string set holds s.
func HasString(set []string, s string) bool { return slices.Contains(set, s) }

// HasNumber reports whether the number set holds a number equal to n by
// value.
func HasNumber(set []string, n string) bool {
	for _, e := range set {
		if number.Compare(e, n) == 0 {
			return true
		}
	}
	return false
}

// HasBinary reports whether the binary set holds b.
func HasBinary(set [][]byte, b []byte) bool {
	for _, e := range set {
		if bytes.Equal(e, b) {
			return true
		}
	}
	return false
}

// Compare orders a and b where DynamoDB orders values (in key conditions,
// sort keys and the comparators of conditions): numbers by value, strings
// and binaries by their bytes (a string by its UTF-8 encoding). ok is false
// when a and b are not both N, both S or both B.
func Compare(a, b types.AttributeValue) (c int, ok bool) {
	switch a := a.(type) {
	case *types.AttributeValueMemberN:
		if b, ok := b.(*types.AttributeValueMemberN); ok {
			return number.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberS:
		if b, ok := b.(*types.AttributeValueMemberS); ok {
			return strings.Compare(a.Value, b.Value), true
		}
	case *types.AttributeValueMemberB:
		if b, ok := b.(*types.AttributeValueMemberB); ok {
			return bytes.Compare(a.Value, b.Value), true
		}
	}
	return 0, false
}

// MsgPrecision is DynamoDB's text for a number of more than 38 significant
// digits, in a request or as the result of arithmetic.
const MsgPrecision = "DynamoDB only supports precision up to 38 digits"

// CheckNumber checks the number written as s as DynamoDB checks the
// numbers of a request, and returns its canonical form ("1.50" gives
// "1.5"), or DynamoDB's description of the problem.
func CheckNumber(s string) (canonical, problem string) {
	c, err := number.Canonical(s)
	switch {
	case err == nil:
		return c, ""
	case errors.Is(err, number.ErrPrecision):
		return "", MsgPrecision
	case errors.Is(err, number.ErrOverflow), errors.Is(err, number.ErrUnderflow):
		return "", err.Error()
	}
	return "", "A value provided cannot be converted into a number"
}
