package value

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func n(s string) types.AttributeValue     { return &types.AttributeValueMemberN{Value: s} }
func s(v string) types.AttributeValue     { return &types.AttributeValueMemberS{Value: v} }
func b(v string) types.AttributeValue     { return &types.AttributeValueMemberB{Value: []byte(v)} }
func ns(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }
func ss(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
func l(v ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: v}
}

func TestEqual(t *testing.T) {
	bs := func(v ...string) types.AttributeValue {
		set := make([][]byte, len(v))
		for i, e := range v {
			set[i] = []byte(e)
		}
		return &types.AttributeValueMemberBS{Value: set}
	}
	m := func(k string, v types.AttributeValue) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{k: v}}
	}
	null := &types.AttributeValueMemberNULL{Value: true}
	for _, c := range []struct {
		a, b types.AttributeValue
		want bool
	}{
		{n("-2.5"), n("-2.50"), true},
		{n("1"), n("1.0"), true},
		{n("1E+2"), n("100"), true},
		{n("0"), n("-0"), true},
		{n("1"), n("2"), false},
		{n("1.0"), n("1.1"), false},
		{n("1"), s("1"), false},
		{s("a"), s("a"), true},
		{s("a"), s("b"), false},
		{b("a"), b("a"), true},
		{b("a"), s("a"), false},
		{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: true}, true},
		{&types.AttributeValueMemberBOOL{Value: true}, &types.AttributeValueMemberBOOL{Value: false}, false},
		{null, null, true},
		{null, &types.AttributeValueMemberBOOL{}, false},
		{ns("1", "2.0"), ns("2", "1.00"), true},
		{ns("1", "2"), ns("1", "3"), false},
		{ns("1"), ns("1", "2"), false},
		{ss("a", "b"), ss("b", "a"), true},
		{ss("a", "b"), ss("a", "c"), false},
		{bs("a", "b"), bs("b", "a"), true},
		{bs("a"), bs("b"), false},
		{l(n("0.10")), l(n("0.1")), true},
		{l(n("1"), n("2")), l(n("2"), n("1")), false},
		{l(), l(), true},
		{m("a", n("1.0")), m("a", n("1")), true},
		{m("a", n("1")), m("b", n("1")), false},
		{nil, nil, false},
		{s("a"), nil, false},
	} {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("Equal(%v, %v) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b types.AttributeValue
		want int
		ok   bool
	}{
		{n("10"), n("9"), 1, true},
		{n("1.0"), n("1"), 0, true},
		{n("-1"), n("-0.5"), -1, true},
		{s("B"), s("a"), -1, true},
		{s("é"), s("z"), 1, true}, // by UTF-8 bytes
		{s("a"), s("ab"), -1, true},
		{b("\x00"), b(""), 1, true},
		{b("\xff"), b("\x01"), 1, true},
		{n("1"), s("1"), 0, false},
		{ss("a"), ss("a"), 0, false},
		{&types.AttributeValueMemberBOOL{}, &types.AttributeValueMemberBOOL{}, 0, false},
		{nil, n("1"), 0, false},
	} {
		got, ok := Compare(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("Compare(%v, %v) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

func TestTypes(t *testing.T) {
	for av, want := range map[types.AttributeValue]string{
		n("1"): "N", s("a"): "S", b("a"): "B", &types.AttributeValueMemberBOOL{}: "BOOL",
		&types.AttributeValueMemberNULL{Value: true}: "NULL", ss("a"): "SS", ns("1"): "NS",
		&types.AttributeValueMemberBS{}: "BS", l(): "L", &types.AttributeValueMemberM{}: "M",
	} {
		typ := TypeOf(av)
		if typ.String() != want || ParseType(want) != typ {
			t.Errorf("TypeOf(%T) = %q, ParseType(%q) = %q", av, typ, want, ParseType(want))
		}
	}
	if TypeOf(nil) != None || None.String() != "" || ParseType("") != None || ParseType("X") != None {
		t.Error("None")
	}
	if NS.LongName() != "NUMBER_SET" || M.LongName() != "MAP" {
		t.Error("LongName")
	}
}

func TestCheckNumber(t *testing.T) {
	for in, want := range map[string][2]string{
		"1.50":   {"1.5", ""},
		"-0":     {"0", ""},
		"12":     {"12", ""},
		"1e2":    {"100", ""},
		"abc":    {"", "A value provided cannot be converted into a number"},
		"1e126":  {"", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		"1e-131": {"", "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		"123456789012345678901234567890123456789": {"", "DynamoDB only supports precision up to 38 digits"},
	} {
		c, p := CheckNumber(in)
		if c != want[0] || p != want[1] {
			t.Errorf("CheckNumber(%q) = %q, %q; want %q, %q", in, c, p, want[0], want[1])
		}
	}
}
