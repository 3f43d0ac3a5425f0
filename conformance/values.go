package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
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

func apiError(err error) smithy.APIError {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
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

// WantItem fails the case unless got equals want (sets compared as sets; a
// nil want means "no item").
func (h *H) WantItem(got, want Item) {
	h.t.Helper()
	wantItem(h.t, got, want)
}

func wantItem(t testing.TB, got, want Item) {
	t.Helper()
	if (got == nil) != (want == nil) || FormatItem(got) != FormatItem(want) {
		t.Fatalf("item mismatch\n got: %s\nwant: %s", FormatItem(got), FormatItem(want))
	}
}

// WantItems fails the case unless got equals want, in order.
func (h *H) WantItems(got, want []Item) {
	h.t.Helper()
	g, w := make([]string, len(got)), make([]string, len(want))
	for i, it := range got {
		g[i] = FormatItem(it)
	}
	for i, it := range want {
		w[i] = FormatItem(it)
	}
	if !reflect.DeepEqual(g, w) {
		h.t.Fatalf("items mismatch\n got (%d): %s\nwant (%d): %s", len(g), strings.Join(g, "\n     "), len(w), strings.Join(w, "\n     "))
	}
}
