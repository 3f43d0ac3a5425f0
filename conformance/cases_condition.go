package conformance

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Condition expressions (every comparator and function, precedence, paths,
// errors), ReturnValuesOnConditionCheckFailure, and the validation of
// ExpressionAttributeNames and ExpressionAttributeValues.

// condItem is the item the condition cases evaluate against: one attribute
// of each type, nested documents and lists.
func condItem() Item {
	return Item{
		"pk": S("c"),
		"n":  N("10"),
		"s":  S("abc"),
		"u":  S("héllo"),
		"b":  B([]byte{1, 2, 3}),
		"t":  BOOL(true),
		"z":  NULL(),
		"l":  L(S("x"), N("2"), L(S("deep")), M(Item{"k": S("v")})),
		"m":  M(Item{"a": M(Item{"b": N("1")}), "s": S("x")}),
		"ss": SS("a", "b"),
		"ns": NS("1", "2"),
		"bs": BS([]byte{1}),
	}
}

// typedAttrs maps each type code to the attribute of condItem of that type.
var typedAttrs = []struct{ code, attr string }{
	{"S", "s"}, {"N", "n"}, {"B", "b"}, {"BOOL", "t"}, {"NULL", "z"},
	{"L", "l"}, {"M", "m"}, {"SS", "ss"}, {"NS", "ns"}, {"BS", "bs"},
}

type cond struct {
	expr   string
	values Item
	want   bool
}

// conds stores condItem in a fresh table and checks each condition on it.
func conds(h *H, cs ...cond) {
	h.t.Helper()
	table := h.HashTable()
	it := condItem()
	h.Put(table, it)
	for _, c := range cs {
		h.WantCond(table, it, c.expr, nil, c.values, c.want)
	}
}

// condErr stores condItem in a fresh table and wants the condition rejected
// with a ValidationException with message msg.
func condErr(h *H, expr string, values Item, msg string) {
	h.t.Helper()
	table := h.HashTable()
	it := condItem()
	h.Put(table, it)
	h.WantCondError(table, it, expr, nil, values, msg)
}

func v1(v types.AttributeValue) Item { return Item{":v": v} }

func typeCase(code, attr string) Case {
	return Case{"Condition/AttributeType" + code, func(t *testing.T, h *H) {
		var cs []cond
		for _, ta := range typedAttrs {
			cs = append(cs, cond{fmt.Sprintf("attribute_type(%s, :v)", ta.attr), v1(S(code)), ta.attr == attr})
		}
		conds(h, cs...)
	}}
}

func init() {
	for _, ta := range typedAttrs {
		register(typeCase(ta.code, ta.attr))
	}
	register(
		// Comparators
		Case{"Condition/Equal", func(t *testing.T, h *H) {
			conds(h,
				cond{"n = :v", v1(N("10.0")), true},
				cond{"n = :v", v1(N("1E1")), true},
				cond{"n = :v", v1(N("11")), false},
				cond{"s = :v", v1(S("abc")), true},
				cond{"s = :v", v1(S("ABC")), false},
				cond{"b = :v", v1(B([]byte{1, 2, 3})), true},
				cond{"t = :v", v1(BOOL(true)), true},
				cond{"t = :v", v1(BOOL(false)), false},
				cond{"z = :v", v1(NULL()), true},
			)
		}},
		Case{"Condition/EqualDocumentsAndSets", func(t *testing.T, h *H) {
			conds(h,
				cond{"ss = :v", v1(SS("b", "a")), true},
				cond{"ss = :v", v1(SS("a")), false},
				cond{"ns = :v", v1(NS("2.0", "1")), true},
				cond{"l = :v", v1(L(S("x"), N("2"), L(S("deep")), M(Item{"k": S("v")}))), true},
				cond{"l = :v", v1(L(N("2"), S("x"), L(S("deep")), M(Item{"k": S("v")}))), false},
				cond{"m.a = :v", v1(M(Item{"b": N("1.0")})), true},
				cond{"m = :v", v1(M(Item{"s": S("x")})), false},
			)
		}},
		Case{"Condition/NotEqual", func(t *testing.T, h *H) {
			conds(h,
				cond{"n <> :v", v1(N("11")), true},
				cond{"n <> :v", v1(N("10")), false},
				cond{"s <> :v", v1(S("abc")), false},
				cond{"ss <> :v", v1(SS("a")), true},
			)
		}},
		Case{"Condition/LessThanNumeric", func(t *testing.T, h *H) {
			// 10 < 9 is false as numbers, although "10" < "9" as text.
			conds(h,
				cond{"n < :v", v1(N("9")), false},
				cond{"n < :v", v1(N("11")), true},
				cond{"n < :v", v1(N("10")), false},
				cond{"n < :v", v1(N("1e2")), true},
				cond{"n < :v", v1(N("-100")), false},
			)
		}},
		Case{"Condition/LessThanString", func(t *testing.T, h *H) {
			// Strings compare by UTF-8 bytes: "B" < "a".
			conds(h,
				cond{"s < :v", v1(S("abd")), true},
				cond{"s < :v", v1(S("abc")), false},
				cond{"s < :v", v1(S("B")), false},
				cond{"s < :v", v1(S("abca")), true},
				cond{"u < :v", v1(S("hz")), false}, // é is 0xc3 0xa9 in UTF-8
			)
		}},
		Case{"Condition/LessThanBinary", func(t *testing.T, h *H) {
			conds(h,
				cond{"b < :v", v1(B([]byte{1, 2, 4})), true},
				cond{"b < :v", v1(B([]byte{1, 2})), false},
				cond{"b < :v", v1(B([]byte{0xff})), true}, // bytes are unsigned
			)
		}},
		Case{"Condition/LessOrEqual", func(t *testing.T, h *H) {
			conds(h,
				cond{"n <= :v", v1(N("10")), true},
				cond{"n <= :v", v1(N("9.999")), false},
				cond{"s <= :v", v1(S("abc")), true},
				cond{"s <= :v", v1(S("ab")), false},
			)
		}},
		Case{"Condition/GreaterThan", func(t *testing.T, h *H) {
			conds(h,
				cond{"n > :v", v1(N("9")), true},
				cond{"n > :v", v1(N("10")), false},
				cond{"s > :v", v1(S("ab")), true},
				cond{"b > :v", v1(B([]byte{0xff})), false},
			)
		}},
		Case{"Condition/GreaterOrEqual", func(t *testing.T, h *H) {
			conds(h,
				cond{"n >= :v", v1(N("10.00")), true},
				cond{"n >= :v", v1(N("10.01")), false},
				cond{"s >= :v", v1(S("abc")), true},
			)
		}},
		Case{"Condition/ValueOnLeft", func(t *testing.T, h *H) {
			conds(h,
				cond{":v < s", v1(S("ab")), true},
				cond{":v > n", v1(N("100")), true},
				cond{":v = n", v1(N("10")), true},
			)
		}},
		Case{"Condition/TwoValues", func(t *testing.T, h *H) {
			conds(h,
				cond{":v = :w", Item{":v": S("a"), ":w": S("a")}, true},
				cond{":v < :w", Item{":v": N("2"), ":w": N("10")}, true},
			)
		}},
		Case{"Condition/AcrossTypesFalse", func(t *testing.T, h *H) {
			conds(h,
				cond{"n = :v", v1(S("10")), false},
				cond{"n < :v", v1(S("10")), false},
				cond{"n > :v", v1(S("10")), false},
				cond{"n <> :v", v1(S("10")), true},
				cond{"s >= :v", v1(B([]byte("abc"))), false},
				cond{"n < s", nil, false},
				cond{"n > s", nil, false},
			)
		}},
		Case{"Condition/MissingAttribute", func(t *testing.T, h *H) {
			conds(h,
				cond{"nope = :v", v1(S("10")), false},
				cond{"nope < :v", v1(S("10")), false},
				cond{"nope >= :v", v1(S("10")), false},
				cond{"nope <> :v", v1(S("10")), true},
				cond{"NOT nope < :v", v1(S("10")), true},
			)
		}},
		Case{"Condition/OrderOnSetError", func(t *testing.T, h *H) {
			condErr(h, "ss < :v", v1(SS("c")), "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: SS")
		}},
		Case{"Condition/OrderOnBoolError", func(t *testing.T, h *H) {
			condErr(h, "t < :v", v1(BOOL(true)), "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL")
		}},
		Case{"Condition/OrderOnListError", func(t *testing.T, h *H) {
			condErr(h, "l >= :v", v1(L()), "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: >=, operand type: L")
		}},
		Case{"Condition/AttributeToAttribute", func(t *testing.T, h *H) {
			conds(h,
				cond{"n > m.a.b", nil, true},
				cond{"m.a.b < n", nil, true},
				cond{"l[1] < n", nil, true},
				cond{"s = m.s", nil, false},
				cond{"s < m.s", nil, true},
				cond{"l[0] = m.s", nil, true},
				cond{"n <> nope", nil, true},
				cond{"n = nope", nil, false},
			)
		}},
		Case{"Condition/SameOperandTwiceError", func(t *testing.T, h *H) {
			condErr(h, "n = n", nil, "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [n]")
		}},
		Case{"Condition/SameOperandThroughNameError", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := condItem()
			h.Put(table, it)
			_, err := h.CondHolds(table, it, "#a = n", Names{"#a": "n"}, nil)
			h.WantError(err, "ValidationException", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [n]")
		}},
		Case{"Condition/KeyAttribute", func(t *testing.T, h *H) {
			conds(h, cond{"pk = :v", v1(S("c")), true}, cond{"begins_with(pk, :v)", v1(S("d")), false})
		}},

		// Paths
		Case{"Condition/NestedMapPath", func(t *testing.T, h *H) {
			conds(h,
				cond{"m.a.b = :v", v1(N("1")), true},
				cond{"m.s = :v", v1(S("x")), true},
				cond{"m.s.x = :v", v1(S("x")), false}, // through a string
				cond{"m.q.r = :v", v1(S("x")), false}, // through a missing map
			)
		}},
		Case{"Condition/ListIndex", func(t *testing.T, h *H) {
			conds(h,
				cond{"l[0] = :v", v1(S("x")), true},
				cond{"l[1] = :v", v1(N("2")), true},
				cond{"l[2][0] = :v", v1(S("deep")), true},
				cond{"l[3].k = :v", v1(S("v")), true},
				cond{"l[9] = :v", v1(S("x")), false},
				cond{"n[0] = :v", v1(N("10")), false},
				cond{"m[0] = :v", v1(S("x")), false},
			)
		}},
		Case{"Condition/ListIndexSyntaxError", func(t *testing.T, h *H) {
			condErr(h, "l[-1] = :v", v1(S("x")), `Invalid ConditionExpression: Syntax error; token: "-", near: "[-1"`)
		}},
		Case{"Condition/AttributeNameSyntaxError", func(t *testing.T, h *H) {
			condErr(h, "a-b = :v", v1(S("x")), `Invalid ConditionExpression: Syntax error; token: "-", near: "a-b"`)
		}},

		// Functions
		Case{"Condition/AttributeExists", func(t *testing.T, h *H) {
			conds(h,
				cond{"attribute_exists(s)", nil, true},
				cond{"attribute_exists(z)", nil, true},
				cond{"attribute_exists(nope)", nil, false},
				cond{"attribute_exists(m.a.b)", nil, true},
				cond{"attribute_exists(m.a.c)", nil, false},
				cond{"attribute_exists(l[3].k)", nil, true},
				cond{"attribute_exists(l[4])", nil, false},
			)
		}},
		Case{"Condition/AttributeNotExists", func(t *testing.T, h *H) {
			conds(h,
				cond{"attribute_not_exists(s)", nil, false},
				cond{"attribute_not_exists(nope)", nil, true},
				cond{"attribute_not_exists(m.a.b)", nil, false},
				cond{"attribute_not_exists(l[4])", nil, true},
			)
		}},
		Case{"Condition/AbsentItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			put := func(expr string, values Item) error {
				in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("new")}, ConditionExpression: aws.String(expr)}
				if values != nil {
					in.ExpressionAttributeValues = values
				}
				_, err := h.API.PutItem(h.Ctx, in)
				return err
			}
			h.WantError(put("attribute_exists(pk)", nil), "ConditionalCheckFailedException", msgCondFailed)
			h.WantError(put("pk = :v", v1(S("new"))), "ConditionalCheckFailedException", msgCondFailed)
			h.Must(put("pk <> :v", v1(S("new"))))
			h.Must(put("attribute_exists(pk) OR attribute_not_exists(x)", nil))
		}},
		Case{"Condition/AttributeExistsOnValueError", func(t *testing.T, h *H) {
			condErr(h, "attribute_exists(:v)", v1(S("x")), "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists")
		}},
		Case{"Condition/FunctionAsOperandError", func(t *testing.T, h *H) {
			condErr(h, "attribute_exists(s) = :v", v1(BOOL(true)), "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists")
		}},
		Case{"Condition/FunctionArityError", func(t *testing.T, h *H) {
			condErr(h, "attribute_exists(s, n)", nil, "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2")
		}},
		Case{"Condition/UnknownFunction", func(t *testing.T, h *H) {
			condErr(h, "foo(s)", nil, "Invalid ConditionExpression: Invalid function name; function: foo")
		}},
		Case{"Condition/FunctionNamesCaseSensitive", func(t *testing.T, h *H) {
			condErr(h, "Attribute_Exists(s)", nil, "Invalid ConditionExpression: Invalid function name; function: Attribute_Exists")
		}},
		Case{"Condition/AttributeTypeMissing", func(t *testing.T, h *H) {
			conds(h, cond{"attribute_type(nope, :v)", v1(S("S")), false}, cond{"attribute_type(m.a.b, :v)", v1(S("N")), true})
		}},
		Case{"Condition/AttributeTypeInvalid", func(t *testing.T, h *H) {
			condErr(h, "attribute_type(s, :v)", v1(S("X")), "Invalid ConditionExpression: Invalid attribute type name found; type: X, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}")
		}},
		Case{"Condition/AttributeTypeNotString", func(t *testing.T, h *H) {
			condErr(h, "attribute_type(s, :v)", v1(N("1")), "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N")
		}},
		Case{"Condition/BeginsWith", func(t *testing.T, h *H) {
			conds(h,
				cond{"begins_with(s, :v)", v1(S("ab")), true},
				cond{"begins_with(s, :v)", v1(S("abc")), true},
				cond{"begins_with(s, :v)", v1(S("abcd")), false},
				cond{"begins_with(s, :v)", v1(S("b")), false},
				cond{"begins_with(s, :v)", v1(S("")), true},
				cond{"begins_with(n, :v)", v1(S("1")), false},
				cond{"begins_with(nope, :v)", v1(S("1")), false},
				cond{"begins_with(u, :v)", v1(S("hé")), true},
			)
		}},
		Case{"Condition/BeginsWithBinary", func(t *testing.T, h *H) {
			conds(h,
				cond{"begins_with(b, :v)", v1(B([]byte{1, 2})), true},
				cond{"begins_with(b, :v)", v1(B([]byte{2})), false},
				cond{"begins_with(b, :v)", v1(S("a")), false},
			)
		}},
		Case{"Condition/BeginsWithOperands", func(t *testing.T, h *H) {
			conds(h,
				cond{"begins_with(:v, s)", v1(S("abcd")), true},
				cond{"begins_with(l[0], m.s)", nil, true},
				cond{"begins_with(s, m.s)", nil, false},
			)
		}},
		Case{"Condition/BeginsWithNumberError", func(t *testing.T, h *H) {
			condErr(h, "begins_with(s, :v)", v1(N("1")), "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N")
		}},
		Case{"Condition/ContainsString", func(t *testing.T, h *H) {
			conds(h,
				cond{"contains(s, :v)", v1(S("bc")), true},
				cond{"contains(s, :v)", v1(S("abc")), true},
				cond{"contains(s, :v)", v1(S("x")), false},
				cond{"contains(s, :v)", v1(S("")), true},
				cond{"contains(s, :v)", v1(SS("a")), false},
			)
		}},
		Case{"Condition/ContainsBinary", func(t *testing.T, h *H) {
			conds(h, cond{"contains(b, :v)", v1(B([]byte{2, 3})), true}, cond{"contains(b, :v)", v1(B([]byte{3, 2})), false})
		}},
		Case{"Condition/ContainsSets", func(t *testing.T, h *H) {
			conds(h,
				cond{"contains(ss, :v)", v1(S("a")), true},
				cond{"contains(ss, :v)", v1(S("c")), false},
				cond{"contains(ss, :v)", v1(SS("a")), false},
				cond{"contains(ns, :v)", v1(N("2.0")), true},
				cond{"contains(ns, :v)", v1(S("2")), false},
				cond{"contains(bs, :v)", v1(B([]byte{1})), true},
				cond{"contains(bs, :v)", v1(B([]byte{2})), false},
			)
		}},
		Case{"Condition/ContainsList", func(t *testing.T, h *H) {
			conds(h,
				cond{"contains(l, :v)", v1(S("x")), true},
				cond{"contains(l, :v)", v1(N("2")), true},
				cond{"contains(l, :v)", v1(L(S("deep"))), true},
				cond{"contains(l, :v)", v1(M(Item{"k": S("v")})), true},
				cond{"contains(l, :v)", v1(S("deep")), false},
				cond{"contains(l, :v)", v1(S("y")), false},
			)
		}},
		Case{"Condition/ContainsOtherTypes", func(t *testing.T, h *H) {
			conds(h,
				cond{"contains(n, :v)", v1(N("1")), false},
				cond{"contains(m, :v)", v1(S("a")), false},
				cond{"contains(nope, :v)", v1(S("a")), false},
				cond{"contains(s, m.s)", nil, false},
				cond{"contains(l, m.s)", nil, true},
			)
		}},
		Case{"Condition/SizeString", func(t *testing.T, h *H) {
			conds(h,
				cond{"size(s) = :v", v1(N("3")), true},
				// DynamoDB Local counts characters here (5 for "héllo"), not
				// UTF-8 bytes (6).
				cond{"size(u) = :v", v1(N("5")), true},
			)
		}},
		Case{"Condition/SizeBinary", func(t *testing.T, h *H) {
			conds(h, cond{"size(b) = :v", v1(N("3")), true})
		}},
		Case{"Condition/SizeSets", func(t *testing.T, h *H) {
			conds(h,
				cond{"size(ss) = :v", v1(N("2")), true},
				cond{"size(ns) = :v", v1(N("2")), true},
				cond{"size(bs) = :v", v1(N("1")), true},
			)
		}},
		Case{"Condition/SizeListAndMap", func(t *testing.T, h *H) {
			conds(h,
				cond{"size(l) = :v", v1(N("4")), true},
				cond{"size(m) = :v", v1(N("2")), true},
				cond{"size(l[2]) = :v", v1(N("1")), true},
				cond{"size(m.a) > :v", v1(N("0")), true},
			)
		}},
		Case{"Condition/SizeOtherTypes", func(t *testing.T, h *H) {
			// size of a number, boolean or missing attribute has no value:
			// comparisons with it are false, <> is true.
			conds(h,
				cond{"size(n) = :v", v1(N("2")), false},
				cond{"size(n) <> :v", v1(N("2")), true},
				cond{"size(t) > :v", v1(N("0")), false},
				cond{"size(nope) = :v", v1(N("0")), false},
				cond{"size(nope) <> :v", v1(N("0")), true},
			)
		}},
		Case{"Condition/SizeOperands", func(t *testing.T, h *H) {
			conds(h,
				cond{"size(:v) = :w", Item{":v": S("abcd"), ":w": N("4")}, true},
				cond{"size(s) > size(m.s)", nil, true},
				cond{"size(s) = size(ss)", nil, false},
				cond{"size(ss) = size(ns)", nil, true},
			)
		}},
		Case{"Condition/SizeAloneError", func(t *testing.T, h *H) {
			condErr(h, "size(s)", nil, "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size")
		}},
		Case{"Condition/In", func(t *testing.T, h *H) {
			conds(h,
				cond{"n IN (:v, :w)", Item{":v": N("1"), ":w": N("10")}, true},
				cond{"n IN (:v)", v1(N("1")), false},
				cond{"n IN (:v, :w)", Item{":v": S("10"), ":w": N("10.0")}, true},
				cond{"s IN (:v, :w)", Item{":v": N("10"), ":w": S("abc")}, true},
				cond{"ss IN (:v)", v1(SS("b", "a")), true},
				cond{"nope IN (:v)", v1(S("a")), false},
				cond{"n IN (m.a.b, :v)", v1(N("10")), true},
			)
		}},
		Case{"Condition/InMaxOperands", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := condItem()
			h.Put(table, it)
			in := func(n int) (string, Item) {
				values, ps := Item{}, make([]string, n)
				for i := range ps {
					ps[i] = fmt.Sprintf(":v%d", i)
					values[ps[i]] = N(fmt.Sprint(i + 100))
				}
				return "n IN (" + strings.Join(ps, ", ") + ")", values
			}
			expr, values := in(100)
			h.WantCond(table, it, expr, nil, values, false)
			expr, values = in(101)
			h.WantCondError(table, it, expr, nil, values, "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101")
		}},
		Case{"Condition/InSyntaxError", func(t *testing.T, h *H) {
			condErr(h, "n IN :v", v1(N("1")), `Invalid ConditionExpression: Syntax error; token: ":v", near: "IN :v"`)
		}},
		Case{"Condition/InEmptyError", func(t *testing.T, h *H) {
			condErr(h, "n IN ()", nil, `Invalid ConditionExpression: Syntax error; token: ")", near: "()"`)
		}},
		Case{"Condition/Between", func(t *testing.T, h *H) {
			conds(h,
				cond{"n BETWEEN :v AND :w", Item{":v": N("1"), ":w": N("10")}, true},
				cond{"n BETWEEN :v AND :w", Item{":v": N("10"), ":w": N("10")}, true},
				cond{"n BETWEEN :v AND :w", Item{":v": N("11"), ":w": N("20")}, false},
				cond{"n BETWEEN :v AND :w", Item{":v": N("-5"), ":w": N("9.99")}, false},
				cond{"s BETWEEN :v AND :w", Item{":v": S("a"), ":w": S("b")}, true},
				cond{"b BETWEEN :v AND :w", Item{":v": B([]byte{1}), ":w": B([]byte{2})}, true},
				cond{"nope BETWEEN :v AND :w", Item{":v": N("1"), ":w": N("10")}, false},
				cond{"s BETWEEN :v AND :w", Item{":v": N("1"), ":w": N("10")}, false},
				cond{"n BETWEEN m.a.b AND :w", Item{":w": N("10")}, true},
			)
		}},
		Case{"Condition/BetweenBoundsReversedError", func(t *testing.T, h *H) {
			condErr(h, "n BETWEEN :v AND :w", Item{":v": N("10"), ":w": N("1")}, "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:1}")
		}},
		Case{"Condition/BetweenMixedTypesError", func(t *testing.T, h *H) {
			condErr(h, "n BETWEEN :v AND :w", Item{":v": N("1"), ":w": S("abc")}, "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:abc}")
		}},
		Case{"Condition/BetweenBoolError", func(t *testing.T, h *H) {
			condErr(h, "t BETWEEN :v AND :w", Item{":v": BOOL(false), ":w": BOOL(true)}, "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL")
		}},

		// Logic
		Case{"Condition/AndBindsTighterThanOr", func(t *testing.T, h *H) {
			vals := Item{":a": N("1"), ":b": N("10")}
			conds(h,
				// true OR (false AND false) = true; (true OR false) AND false would be false.
				cond{"n = :b OR n = :a AND s = :a", vals, true},
				cond{"n = :a AND s = :a OR n = :b", vals, true},
				cond{"n = :a OR n = :b AND s = :a", vals, false},
			)
		}},
		Case{"Condition/NotBindsTighterThanAnd", func(t *testing.T, h *H) {
			vals := Item{":a": N("1"), ":b": N("10")}
			conds(h,
				// (NOT true) AND false = false; NOT (true AND false) would be true.
				cond{"NOT n = :b AND n = :a", vals, false},
				cond{"NOT n = :a AND n = :b", vals, true},
				cond{"NOT n = :b OR n = :b", Item{":b": N("10")}, true},
			)
		}},
		Case{"Condition/Parentheses", func(t *testing.T, h *H) {
			vals := Item{":a": N("1"), ":b": N("10")}
			conds(h,
				cond{"(n = :b OR n = :a) AND s = :a", vals, false},
				cond{"NOT (n = :b AND n = :a)", vals, true},
				cond{"NOT (n = :b OR n = :a)", vals, false},
				cond{"n = :b AND (s = :a OR (t = :t AND z = :z))", Item{":a": N("1"), ":b": N("10"), ":t": BOOL(true), ":z": NULL()}, true},
			)
		}},
		Case{"Condition/DoubleNot", func(t *testing.T, h *H) {
			conds(h, cond{"NOT NOT n = :v", v1(N("10")), true}, cond{"n = :v AND NOT NOT s = :w", Item{":v": N("10"), ":w": S("x")}, false})
		}},
		Case{"Condition/KeywordsCaseInsensitive", func(t *testing.T, h *H) {
			vals := Item{":a": N("1"), ":b": N("10")}
			conds(h,
				cond{"not n = :a", Item{":a": N("1")}, true},
				cond{"n = :a or n = :b", vals, true},
				cond{"n = :b aNd s <> :a", vals, true},
				cond{"n between :a and :b", vals, true},
				cond{"n in (:a, :b)", vals, true},
			)
		}},
		Case{"Condition/RedundantParenthesesError", func(t *testing.T, h *H) {
			condErr(h, "((n = :v))", v1(N("10")), "Invalid ConditionExpression: The expression has redundant parentheses;")
		}},
		Case{"Condition/UnbalancedParenthesesError", func(t *testing.T, h *H) {
			condErr(h, "(n = :v", v1(N("10")), `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":v"`)
		}},
		Case{"Condition/SyntaxErrors", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := condItem()
			h.Put(table, it)
			for expr, msg := range map[string]string{
				"n == :v":     `Syntax error; token: "=", near: "== :v"`,
				"n = ":        `Syntax error; token: "<EOF>", near: "= "`,
				"n = :v AND":  `Syntax error; token: "<EOF>", near: "AND"`,
				"n = :v)":     `Syntax error; token: ")", near: ":v)"`,
				"n":           `Syntax error; token: "<EOF>", near: "n"`,
				"n ! :v":      `Syntax error; token: "!", near: "n ! :v"`,
				"n = :v :v":   `Syntax error; token: ":v", near: ":v :v"`,
				"1n = :v":     `Syntax error; token: "1", near: "1n"`,
				"n = :v OR 1": `Syntax error; token: "1", near: "OR 1"`,
			} {
				h.WantCondError(table, it, expr, nil, v1(N("1")), "Invalid ConditionExpression: "+msg)
			}
		}},
		Case{"Condition/EmptyError", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ConditionExpression: aws.String("")})
			h.WantError(err, "ValidationException", "Invalid ConditionExpression: The expression can not be empty;")
		}},
		Case{"Condition/BlankError", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ConditionExpression: aws.String("   ")})
			h.WantError(err, "ValidationException", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "   "`)
		}},

		// Conditional writes
		Case{"Condition/Failed", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "v": N("2")},
				ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: v1(N("2"))})
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("error %T is not a *types.ConditionalCheckFailedException", err)
			}
			if ccf.Item != nil {
				t.Fatalf("Item = %s, want none without ReturnValuesOnConditionCheckFailure", FormatItem(ccf.Item))
			}
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("1")})
		}},
		Case{"Condition/UpdateItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			in := &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET v = v + :one"),
				ConditionExpression: aws.String("v < :max"), ExpressionAttributeValues: Item{":one": N("1"), ":max": N("3")}}
			for range 2 {
				_, err := h.API.UpdateItem(h.Ctx, in)
				h.Must(err)
			}
			_, err := h.API.UpdateItem(h.Ctx, in)
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("3")})
		}},
		Case{"Condition/UpdateItemAbsent", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET v = :v"),
				ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: v1(N("1"))})
			h.WantError(err, "ConditionalCheckFailedException", msgCondFailed)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), nil)
		}},
		Case{"Condition/ReturnOldOnFailurePut", func(t *testing.T, h *H) {
			table := h.HashTable()
			old := Item{"pk": S("a"), "v": N("1"), "l": L(S("x"))}
			h.Put(table, old)
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")},
				ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: v1(N("2")),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("error = %v, want ConditionalCheckFailedException", err)
			}
			h.WantItem(ccf.Item, old)
		}},
		Case{"Condition/ReturnOldOnFailureUpdate", func(t *testing.T, h *H) {
			table := h.HashTable()
			old := Item{"pk": S("a"), "v": N("1")}
			h.Put(table, old)
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET v = :v"), ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: v1(N("2")),
				ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("error = %v, want ConditionalCheckFailedException", err)
			}
			h.WantItem(ccf.Item, old)
		}},
		Case{"Condition/ReturnOldOnFailureDelete", func(t *testing.T, h *H) {
			table := h.HashTable()
			old := Item{"pk": S("a"), "v": N("1")}
			h.Put(table, old)
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				ConditionExpression:                 aws.String("attribute_not_exists(v)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("error = %v, want ConditionalCheckFailedException", err)
			}
			h.WantItem(ccf.Item, old)
		}},
		Case{"Condition/ReturnOldOnFailureAbsentItem", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.DeleteItem(h.Ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				ConditionExpression: aws.String("attribute_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("error = %v, want ConditionalCheckFailedException", err)
			}
			if ccf.Item != nil {
				t.Fatalf("Item = %s, want none", FormatItem(ccf.Item))
			}
		}},
		Case{"Condition/ReturnNoneOnFailure", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a")})
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")},
				ConditionExpression: aws.String("attribute_not_exists(pk)"), ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureNone})
			var ccf *types.ConditionalCheckFailedException
			if !errors.As(err, &ccf) {
				t.Fatalf("error = %v, want ConditionalCheckFailedException", err)
			}
			if ccf.Item != nil {
				t.Fatalf("Item = %s, want none", FormatItem(ccf.Item))
			}
		}},
		Case{"Condition/ReturnOnFailureInvalid", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")},
				ConditionExpression: aws.String("attribute_not_exists(pk)"), ReturnValuesOnConditionCheckFailure: "ALL_NEW"})
			h.WantError(err, "ValidationException", "1 validation error detected: Value 'ALL_NEW' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]")
		}},

		// Placeholders: ExpressionAttributeNames and ExpressionAttributeValues
		Case{"Placeholders/Names", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a"), "x": N("1"), "m": M(Item{"y": N("2")})}
			h.Put(table, it)
			h.WantCond(table, it, "#x = :v AND #m.#y = :w", Names{"#x": "x", "#m": "m", "#y": "y"}, Item{":v": N("1"), ":w": N("2")}, true)
		}},
		Case{"Placeholders/ReservedWordBare", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a"), "name": S("n")}
			h.Put(table, it)
			h.WantCondError(table, it, "name = :v", nil, v1(S("n")), "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: name")
			// Reserved words are refused in every path segment.
			h.WantCondError(table, it, "attribute_exists(m.value)", nil, nil, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: value")
			h.WantCondError(table, it, "attribute_exists(l[0].key)", nil, nil, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: key")
		}},
		Case{"Placeholders/ReservedWordCaseInsensitive", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			h.WantCondError(table, it, "attribute_exists(Status)", nil, nil, "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Status")
		}},
		Case{"Placeholders/ReservedWordThroughName", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a"), "name": S("n"), "size": N("3")}
			h.Put(table, it)
			h.WantCond(table, it, "#n = :v AND #s = :w", Names{"#n": "name", "#s": "size"}, Item{":v": S("n"), ":w": N("3")}, true)
		}},
		Case{"Placeholders/NameWithDot", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a"), "a.b": S("top"), "a": M(Item{"b": S("nested")})}
			h.Put(table, it)
			h.WantCond(table, it, "#ab = :v", Names{"#ab": "a.b"}, v1(S("top")), true)
			h.WantCond(table, it, "a.b = :v", nil, v1(S("nested")), true)
		}},
		Case{"Placeholders/UnusedName", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			h.WantCondError(table, it, "attribute_exists(pk)", Names{"#x": "x"}, nil, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}")
		}},
		Case{"Placeholders/UnusedValue", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			h.WantCondError(table, it, "pk = :v", nil, Item{":v": S("a"), ":w": S("b")}, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}")
		}},
		Case{"Placeholders/UndefinedName", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			h.WantCondError(table, it, "attribute_exists(#x)", nil, nil, "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x")
		}},
		Case{"Placeholders/UndefinedValue", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			h.WantCondError(table, it, "pk = :zz", nil, v1(S("a")), "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :zz")
		}},
		Case{"Placeholders/UndefinedValueNoMap", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET a = :v")})
			h.WantError(err, "ValidationException", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :v")
		}},
		Case{"Placeholders/NamesWithoutExpressions", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ExpressionAttributeNames: Names{"#x": "x"}})
			h.WantError(err, "ValidationException", "ExpressionAttributeNames can only be specified when using expressions")
		}},
		Case{"Placeholders/ValuesWithoutExpressions", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.PutItem(h.Ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}, ExpressionAttributeValues: v1(N("1"))})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null")
			_, err = h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, ExpressionAttributeValues: v1(N("1"))})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null")
		}},
		Case{"Placeholders/EmptyNames", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET a = :v"),
				ExpressionAttributeValues: v1(N("1")), ExpressionAttributeNames: Names{}})
			h.WantError(err, "ValidationException", "ExpressionAttributeNames must not be empty")
		}},
		Case{"Placeholders/EmptyValues", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET a = :v"),
				ExpressionAttributeValues: Item{}})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues must not be empty")
		}},
		Case{"Placeholders/InvalidNameKey", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET #a = :v"),
				ExpressionAttributeValues: v1(N("1")), ExpressionAttributeNames: Names{"a": "a"}})
			h.WantError(err, "ValidationException", `ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`)
		}},
		Case{"Placeholders/InvalidValueKey", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET #a = :v"),
				ExpressionAttributeValues: Item{"v": N("1")}, ExpressionAttributeNames: Names{"#a": "a"}})
			h.WantError(err, "ValidationException", `ExpressionAttributeValues contains invalid key: Syntax error; key: "v"`)
		}},
		Case{"Placeholders/EmptyNameValue", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET #a = :v"),
				ExpressionAttributeValues: v1(N("1")), ExpressionAttributeNames: Names{"#a": ""}})
			h.WantError(err, "ValidationException", "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a")
		}},
		Case{"Placeholders/NameValueTooLong", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET #a = :v"),
				ExpressionAttributeValues: v1(N("1")), ExpressionAttributeNames: Names{"#a": strings.Repeat("n", 65536)}})
			h.WantError(err, "ValidationException", "ExpressionAttributeNames contains invalid value: Attribute name is too large, must be less than 65536 bytes for key #a")
		}},
		Case{"Placeholders/InvalidNumberValue", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET a = :v"),
				ExpressionAttributeValues: v1(N("x"))})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues contains invalid value: A value provided cannot be converted into a number for key :v")
		}},
		Case{"Placeholders/EmptySetValue", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET a = :v"),
				ExpressionAttributeValues: v1(SS())})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v")
		}},
		Case{"Placeholders/DuplicateSetValue", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}, UpdateExpression: aws.String("SET a = :v"),
				ExpressionAttributeValues: v1(NS("1", "1"))})
			h.WantError(err, "ValidationException", "ExpressionAttributeValues contains invalid value: Input collection contains duplicates for key :v")
		}},
		Case{"Placeholders/SharedByUpdateAndCondition", func(t *testing.T, h *H) {
			table := h.HashTable()
			h.Put(table, Item{"pk": S("a"), "v": N("1")})
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET #v = #v + :one"), ConditionExpression: aws.String("#v = :one"),
				ExpressionAttributeNames: Names{"#v": "v"}, ExpressionAttributeValues: Item{":one": N("1")}})
			h.Must(err)
			h.WantItem(h.Get(table, Item{"pk": S("a")}), Item{"pk": S("a"), "v": N("2")})
		}},
		Case{"Placeholders/UsedOnlyInCondition", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET a = :v"), ConditionExpression: aws.String("attribute_not_exists(#b)"),
				ExpressionAttributeNames: Names{"#b": "b"}, ExpressionAttributeValues: v1(N("1"))})
			h.Must(err)
		}},
		Case{"Placeholders/MixedWithLegacy", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET a = :v"), ExpressionAttributeValues: v1(N("1")),
				Expected: map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}}})
			h.WantError(err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {UpdateExpression}")
		}},
		Case{"Placeholders/MixedWithLegacyOrder", func(t *testing.T, h *H) {
			table := h.HashTable()
			_, err := h.API.UpdateItem(h.Ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
				UpdateExpression: aws.String("SET a = :v"), ConditionExpression: aws.String("attribute_not_exists(b)"), ExpressionAttributeValues: v1(N("1")),
				Expected:            map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false)}},
				AttributeUpdates:    map[string]types.AttributeValueUpdate{"c": {Action: types.AttributeActionPut, Value: N("1")}},
				ConditionalOperator: types.ConditionalOperatorAnd})
			h.WantError(err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected, ConditionalOperator} Expression parameters: {UpdateExpression, ConditionExpression}")
		}},
		Case{"Placeholders/QueryKeyConditionsWithExpressions", func(t *testing.T, h *H) {
			// KeyConditions mixes with a filter and a projection expression.
			table := h.RangeTable(types.ScalarAttributeTypeS)
			h.PutMany(table, Item{"pk": S("a"), "sk": S("1"), "x": N("1"), "y": S("p")}, Item{"pk": S("a"), "sk": S("2"), "x": N("2"), "y": S("q")})
			out, err := h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(table),
				KeyConditions:    map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("a")}}},
				FilterExpression: aws.String("x > :one"), ProjectionExpression: aws.String("y"),
				ExpressionAttributeValues: Item{":one": N("1")}})
			h.Must(err)
			if len(out.Items) != 1 {
				t.Fatalf("got %d items, want 1: %v", len(out.Items), out.Items)
			}
			h.WantItem(out.Items[0], Item{"y": S("q")})
			_, err = h.API.Query(h.Ctx, &dynamodb.QueryInput{TableName: aws.String(table),
				KeyConditions:          map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("a")}}},
				KeyConditionExpression: aws.String("pk = :a"), ProjectionExpression: aws.String("y"), QueryFilter: map[string]types.Condition{"x": {ComparisonOperator: types.ComparisonOperatorNotNull}},
				ExpressionAttributeValues: Item{":a": S("a")}})
			h.WantError(err, "ValidationException", "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter, KeyConditions} Expression parameters: {ProjectionExpression, KeyConditionExpression}")
		}},
		Case{"Placeholders/KeyTooLong", func(t *testing.T, h *H) {
			table := h.HashTable()
			it := Item{"pk": S("a")}
			h.Put(table, it)
			ok := "#" + Str(254)
			h.WantCond(table, it, "attribute_not_exists("+ok+")", Names{ok: "x"}, nil, true)
			long := "#" + Str(255)
			h.WantCondError(table, it, "attribute_not_exists("+long+")", Names{long: "x"}, nil, "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256")
		}},
	)
}
