package table

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Cond is a condition on an item, for the condition of a write or the
// filter of a read. Build one with Attr and combine with And, Or and Not.
// The zero Cond is "no condition". A Cond is immutable and may be reused.
//
// Values are marshalled with attributevalue.Marshal (a types.AttributeValue
// is used as is); a value that is a Path compares with that attribute
// instead ("a < b"). Marshalling errors surface when the Cond is used.
type Cond struct {
	b   expression.ConditionBuilder
	raw *rawCond // made by Expr
	err error
	set bool
}

// rawCond is a condition expression as DynamoDB takes it.
type rawCond struct {
	expr   string
	names  map[string]string
	values map[string]types.AttributeValue
}

// errRawCombined is the error of a Cond made by Expr used with other
// conditions or expressions.
var errRawCombined = errors.New("table: a condition made by Expr cannot be combined with other conditions or expressions")

// Expr returns the condition expr, in DynamoDB's condition syntax, whose
// placeholders names ("#n") and values (":v") define, used as is: unlike
// the conditions Attr builds, it costs nothing to build, for conditions
// made on every call of a hot path. It must be a request's only
// expression (the If of Put, Delete and transaction writes, or the
// Filter of a Scan without a projection): combined with And, Or, Not, an
// update, a key condition or a projection it makes an error. The maps are
// only read, never modified, and must not be modified while in use.
func Expr(expr string, names map[string]string, values map[string]types.AttributeValue) Cond {
	return Cond{raw: &rawCond{expr: expr, names: names, values: values}, set: true}
}

// IsZero reports whether c is the zero Cond, no condition.
func (c Cond) IsZero() bool { return !c.set && c.err == nil }

// Path names an attribute, or a document path into one ("a.b[2].c"), in a
// condition. Make one with Attr.
type Path struct {
	name expression.NameBuilder
}

// Attr returns the path named p. Dots and brackets in p address nested
// attributes, as in DynamoDB expressions; use AttrName for a top-level
// attribute whose name holds a dot.
func Attr(p string) Path { return Path{name: expression.Name(p)} }

// AttrName returns the top-level attribute named name, dots included.
func AttrName(name string) Path { return Path{name: expression.NameNoDotSplit(name)} }

func operand(v any) (expression.OperandBuilder, error) {
	switch x := v.(type) {
	case Path:
		return x.name, nil
	case Size:
		return x.b, nil
	}
	av, err := marshalValue(v)
	if err != nil {
		return nil, err
	}
	return expression.Value(av), nil
}

// compare is the comparison f (of a path or a size) with the operand of v.
func compare(v any, f func(expression.OperandBuilder) expression.ConditionBuilder) Cond {
	o, err := operand(v)
	if err != nil {
		return bad(err)
	}
	return cond(f(o))
}

func cond(b expression.ConditionBuilder) Cond { return Cond{b: b, set: true} }

func bad(err error) Cond { return Cond{err: err, set: true} }

// Eq is "p = v".
func (p Path) Eq(v any) Cond { return compare(v, p.name.Equal) }

// Ne is "p <> v".
func (p Path) Ne(v any) Cond { return compare(v, p.name.NotEqual) }

// Lt is "p < v".
func (p Path) Lt(v any) Cond { return compare(v, p.name.LessThan) }

// Lte is "p <= v".
func (p Path) Lte(v any) Cond { return compare(v, p.name.LessThanEqual) }

// Gt is "p > v".
func (p Path) Gt(v any) Cond { return compare(v, p.name.GreaterThan) }

// Gte is "p >= v".
func (p Path) Gte(v any) Cond { return compare(v, p.name.GreaterThanEqual) }

// Between is "p BETWEEN lo AND hi", both ends included.
func (p Path) Between(lo, hi any) Cond {
	l, err := operand(lo)
	if err != nil {
		return bad(err)
	}
	h, err := operand(hi)
	if err != nil {
		return bad(err)
	}
	return cond(p.name.Between(l, h))
}

// In is "p IN (vs...)"; it needs at least one value.
func (p Path) In(vs ...any) Cond {
	if len(vs) == 0 {
		return bad(errors.New("table: In needs at least one value"))
	}
	ops := make([]expression.OperandBuilder, len(vs))
	for i, v := range vs {
		o, err := operand(v)
		if err != nil {
			return bad(err)
		}
		ops[i] = o
	}
	return cond(p.name.In(ops[0], ops[1:]...))
}

// BeginsWith is "begins_with(p, prefix)".
func (p Path) BeginsWith(prefix string) Cond { return cond(p.name.BeginsWith(prefix)) }

// Contains is "contains(p, v)": a substring of a string, an element of a
// set or list.
func (p Path) Contains(v any) Cond {
	av, err := marshalValue(v)
	if err != nil {
		return bad(err)
	}
	return cond(p.name.Contains(av))
}

// Exists is "attribute_exists(p)".
func (p Path) Exists() Cond { return cond(p.name.AttributeExists()) }

// NotExists is "attribute_not_exists(p)".
func (p Path) NotExists() Cond { return cond(p.name.AttributeNotExists()) }

// Type is "attribute_type(p, t)", t one of "S", "SS", "N", "NS", "B", "BS",
// "BOOL", "NULL", "L", "M".
func (p Path) Type(t string) Cond {
	return cond(p.name.AttributeType(expression.DynamoDBAttributeType(t)))
}

// Size is "size(p)", to compare with a number.
func (p Path) Size() Size { return Size{b: p.name.Size()} }

// Size is the size of an attribute in a condition; make one with
// Path.Size.
type Size struct{ b expression.SizeBuilder }

// Eq is "size(p) = v".
func (s Size) Eq(v any) Cond { return compare(v, s.b.Equal) }

// Lt is "size(p) < v".
func (s Size) Lt(v any) Cond { return compare(v, s.b.LessThan) }

// Lte is "size(p) <= v".
func (s Size) Lte(v any) Cond { return compare(v, s.b.LessThanEqual) }

// Gt is "size(p) > v".
func (s Size) Gt(v any) Cond { return compare(v, s.b.GreaterThan) }

// Gte is "size(p) >= v".
func (s Size) Gte(v any) Cond { return compare(v, s.b.GreaterThanEqual) }

// And is true when every one of cs is; zero Conds are skipped, and And of
// nothing is the zero Cond.
func And(cs ...Cond) Cond { return combine(cs, expression.And) }

// Or is true when one of cs is; zero Conds are skipped, and Or of nothing
// is the zero Cond.
func Or(cs ...Cond) Cond { return combine(cs, expression.Or) }

// Not negates c; Not of the zero Cond is the zero Cond.
func Not(c Cond) Cond {
	if c.IsZero() || c.err != nil {
		return c
	}
	if c.raw != nil {
		return bad(errRawCombined)
	}
	return cond(expression.Not(c.b))
}

// And is And(c, cs...).
func (c Cond) And(cs ...Cond) Cond { return And(append([]Cond{c}, cs...)...) }

// Or is Or(c, cs...).
func (c Cond) Or(cs ...Cond) Cond { return Or(append([]Cond{c}, cs...)...) }

func combine(cs []Cond, f func(l, r expression.ConditionBuilder, o ...expression.ConditionBuilder) expression.ConditionBuilder) Cond {
	var bs []expression.ConditionBuilder
	for _, c := range cs {
		if c.err != nil {
			return c
		}
		if c.raw != nil {
			return bad(errRawCombined)
		}
		if c.set {
			bs = append(bs, c.b)
		}
	}
	switch len(bs) {
	case 0:
		return Cond{}
	case 1:
		return cond(bs[0])
	}
	return cond(f(bs[0], bs[1], bs[2:]...))
}
