// Package number implements DynamoDB's number type: signed decimals of up to
// 38 significant digits with exponents from -130 to +125, compared by value
// and printed in DynamoDB's canonical form.
package number

import (
	"errors"

	"github.com/cockroachdb/apd/v3"
)

// Precision is the number of significant digits DynamoDB keeps.
const Precision = 38

// Limits of the magnitude of a non-zero number, as powers of ten.
const (
	MinExponent = -130 // smallest positive magnitude is 1e-130
	MaxExponent = 125  // largest magnitude is below 1e126
)

// Errors returned by Parse and by arithmetic. Their texts are DynamoDB's,
// capitals included.
//
//lint:file-ignore ST1005 the error texts are DynamoDB's own messages
var (
	ErrSyntax    = errors.New("number: invalid syntax")
	ErrPrecision = errors.New("Attempting to store more than 38 significant digits in a Number")
	ErrOverflow  = errors.New("Number overflow. Attempting to store a number with magnitude larger than supported range")
	ErrUnderflow = errors.New("Number underflow. Attempting to store a number with magnitude smaller than supported range")
)

var ctx = apd.Context{
	Precision:   Precision,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       0,
	Rounding:    apd.RoundHalfEven,
}

// Number is an immutable DynamoDB number. The zero value is 0.
type Number struct {
	d apd.Decimal
}

// Parse reads s as DynamoDB reads the string of an N attribute: an optional
// sign, digits with an optional point, and an optional exponent. Leading and
// trailing zeros do not count towards the 38 significant digits. It takes
// time linear in len(s): the digits are checked (Split) before any
// arithmetic, so a long run of zeros costs no more than reading it.
func Parse(s string) (Number, error) {
	var buf [Precision]byte
	neg, digits, adj, err := Split(s, buf[:0])
	if err != nil {
		return Number{}, err
	}
	var n Number
	if len(digits) == 0 {
		return n, nil
	}
	var text [Precision]byte
	for i, d := range digits {
		text[i] = '0' + d
	}
	if _, ok := n.d.Coeff.SetString(string(text[:len(digits)]), 10); !ok {
		return Number{}, ErrSyntax
	}
	n.d.Exponent = int32(adj - len(digits) + 1)
	n.d.Negative = neg
	return n, nil
}

// MustParse is Parse that panics on error, for constants in tests.
func MustParse(s string) Number {
	n, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return n
}

func (n *Number) check() error {
	if n.d.IsZero() {
		n.d.Negative = false
		n.d.Exponent = 0
		return nil
	}
	digits := int64(n.d.NumDigits())
	if digits > Precision {
		return ErrPrecision
	}
	// The magnitude is in [10^(exp+digits-1), 10^(exp+digits)).
	top := int64(n.d.Exponent) + digits - 1
	if top > MaxExponent {
		return ErrOverflow
	}
	if top < MinExponent {
		return ErrUnderflow
	}
	return nil
}

// String returns the canonical form DynamoDB returns: no exponent, no
// trailing zeros after the point, no leading zeros, "-" only for negatives.
func (n Number) String() string {
	return n.d.Text('f')
}

// Cmp compares a and b by value: -1, 0 or +1.
func Cmp(a, b Number) int { return a.d.Cmp(&b.d) }

// Sign returns -1, 0 or +1.
func (n Number) Sign() int { return n.d.Sign() }

// Add returns a+b, or an error when the result is outside DynamoDB's range
// or needs more than 38 significant digits.
func Add(a, b Number) (Number, error) {
	var r Number
	cond, err := ctx.Add(&r.d, &a.d, &b.d)
	return r.finish(cond, err)
}

// Sub returns a-b, with the errors of Add.
func Sub(a, b Number) (Number, error) {
	var r Number
	cond, err := ctx.Sub(&r.d, &a.d, &b.d)
	return r.finish(cond, err)
}

func (r Number) finish(cond apd.Condition, err error) (Number, error) {
	if err != nil {
		return Number{}, ErrSyntax
	}
	if cond.Inexact() {
		return Number{}, ErrPrecision
	}
	r.d.Reduce(&r.d)
	if err := r.check(); err != nil {
		return Number{}, err
	}
	return r, nil
}

// Decimal returns a copy of n's value as an apd decimal, for encoders.
func (n Number) Decimal() apd.Decimal {
	var d apd.Decimal
	d.Set(&n.d)
	return d
}

// FromDecimal makes a Number from d, checking DynamoDB's limits.
func FromDecimal(d *apd.Decimal) (Number, error) {
	var n Number
	n.d.Set(d)
	n.d.Reduce(&n.d)
	if n.d.Form != apd.Finite {
		return Number{}, ErrSyntax
	}
	if err := n.check(); err != nil {
		return Number{}, err
	}
	return n, nil
}
