package conformance

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/cockroachdb/apd/v3"
)

// Item is a DynamoDB item or key.
type Item = map[string]types.AttributeValue

// Shorthands for attribute values.
func S(s string) types.AttributeValue     { return &types.AttributeValueMemberS{Value: s} }
func N(n string) types.AttributeValue     { return &types.AttributeValueMemberN{Value: n} }
func B(b []byte) types.AttributeValue     { return &types.AttributeValueMemberB{Value: b} }
func BOOL(v bool) types.AttributeValue    { return &types.AttributeValueMemberBOOL{Value: v} }
func NULL() types.AttributeValue          { return &types.AttributeValueMemberNULL{Value: true} }
func SS(v ...string) types.AttributeValue { return &types.AttributeValueMemberSS{Value: v} }
func NS(v ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: v} }
func BS(v ...[]byte) types.AttributeValue { return &types.AttributeValueMemberBS{Value: v} }
func L(v ...types.AttributeValue) types.AttributeValue {
	if v == nil {
		v = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: v}
}
func M(m Item) types.AttributeValue {
	if m == nil {
		m = Item{}
	}
	return &types.AttributeValueMemberM{Value: m}
}

// sVals, nVals and bVals are lists of S, N and B values.
func sVals(ss ...string) []types.AttributeValue { return valuesOf(S, ss...) }
func nVals(ns ...string) []types.AttributeValue { return valuesOf(N, ns...) }
func bVals(bs ...[]byte) []types.AttributeValue { return valuesOf(B, bs...) }

// valuesOf returns the attribute values f(x) of xs, in order.
func valuesOf[T any](f func(T) types.AttributeValue, xs ...T) []types.AttributeValue {
	out := make([]types.AttributeValue, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// with returns a copy of it with the given attributes set, or removed when
// the value is nil.
func with(it Item, kv ...any) Item {
	out := Item{}
	for k, v := range it {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		name := kv[i].(string)
		if kv[i+1] == nil {
			delete(out, name)
			continue
		}
		out[name] = kv[i+1].(types.AttributeValue)
	}
	return out
}

// Str returns a string of n copies of "x".
func Str(n int) string { return strings.Repeat("x", n) }

// seq returns "prefix000".."prefix(n-1)" zero padded to width 3.
func seq(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return s
}

// Format renders an attribute value in a stable, readable form with sets
// sorted, for comparisons and failure messages.
func Format(av types.AttributeValue) string {
	switch v := av.(type) {
	case nil:
		return "<nil>"
	case *types.AttributeValueMemberS:
		return fmt.Sprintf("S:%q", v.Value)
	case *types.AttributeValueMemberN:
		return "N:" + v.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("B:%x", v.Value)
	case *types.AttributeValueMemberBOOL:
		return fmt.Sprintf("BOOL:%v", v.Value)
	case *types.AttributeValueMemberNULL:
		return fmt.Sprintf("NULL:%v", v.Value)
	case *types.AttributeValueMemberSS:
		s := append([]string(nil), v.Value...)
		sort.Strings(s)
		return fmt.Sprintf("SS:%q", s)
	case *types.AttributeValueMemberNS:
		s := append([]string(nil), v.Value...)
		sort.Strings(s)
		return fmt.Sprintf("NS:%v", s)
	case *types.AttributeValueMemberBS:
		s := append([][]byte(nil), v.Value...)
		sort.Slice(s, func(i, j int) bool { return bytes.Compare(s[i], s[j]) < 0 })
		return fmt.Sprintf("BS:%x", s)
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = Format(e)
		}
		return "L:[" + strings.Join(parts, ",") + "]"
	case *types.AttributeValueMemberM:
		return "M:" + FormatItem(v.Value)
	}
	return fmt.Sprintf("%T", av)
}

// FormatItem renders an item with its attributes sorted by name.
func FormatItem(it Item) string {
	if it == nil {
		return "<nil>"
	}
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%q=%s", k, Format(it[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// canonItem returns it with every number, also in sets, lists and maps,
// in canonical form (canonNumber).
func canonItem(it Item) Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = canonValue(v)
	}
	return out
}

func canonValue(av types.AttributeValue) types.AttributeValue {
	switch v := av.(type) {
	case *types.AttributeValueMemberN:
		return N(canonNumber(v.Value))
	case *types.AttributeValueMemberNS:
		ns := make([]string, len(v.Value))
		for i, s := range v.Value {
			ns[i] = canonNumber(s)
		}
		return NS(ns...)
	case *types.AttributeValueMemberL:
		l := make([]types.AttributeValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = canonValue(e)
		}
		return L(l...)
	case *types.AttributeValueMemberM:
		return M(canonItem(v.Value))
	}
	return av
}

// canonNumber returns the canonical text of a DynamoDB number: no exponent,
// no leading or trailing zeros, "0" for zero. Unparsable text is returned
// unchanged.
func canonNumber(s string) string {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		return s
	}
	d.Reduce(d)
	if d.IsZero() {
		return "0"
	}
	return d.Text('f')
}
