package local

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/local/internal/number"
)

// TestIsCanonical checks the fast path of checkNumber against package
// number: whatever isCanonical accepts must parse to itself.
func TestIsCanonical(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-12", "3.25", "-0.5", "0.001", "10", "1.0", "01", "1e2", "1E+2", ".5", "5.",
		"-", "", "+1", "12345678901234567890123456789012345678", "123456789012345678901234567890123456789",
		"0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
		"0.12345678901234567890123456789012345678", "0.123456789012345678901234567890123456789", "1.2345678901234567890123456789012345678"} {
		if !isCanonical(s) {
			continue
		}
		n, err := number.Parse(s)
		if err != nil || n.String() != s {
			t.Errorf("isCanonical(%q) but number gives %v, %v", s, n, err)
		}
	}
	for _, s := range []string{"0", "-12", "3.25", "0.001"} {
		if !isCanonical(s) {
			t.Errorf("isCanonical(%q) = false", s)
		}
	}
}

// FuzzIsCanonical checks that the fast path never accepts a number that
// package number would print differently, or reject.
func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{"0", "-1.5", "0.001", "1e2", "007", "1.50"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isCanonical(s) {
			return
		}
		n, err := number.Parse(s)
		if err != nil || n.String() != s {
			t.Fatalf("isCanonical(%q) but number gives %v, %v", s, n, err)
		}
	})
}

func TestEqualValues_NumbersByValue(t *testing.T) {
	n := func(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
	ns := func(s ...string) types.AttributeValue { return &types.AttributeValueMemberNS{Value: s} }
	for _, c := range []struct {
		a, b types.AttributeValue
		want bool
	}{
		{n("-2.5"), n("-2.50"), true},
		{n("1"), n("1.0"), true},
		{n("1E+2"), n("100"), true},
		{n("1"), n("2"), false},
		{n("1.0"), n("1.1"), false},
		{ns("1", "2.0"), ns("2", "1.00"), true},
		{ns("1", "2"), ns("1", "3"), false},
		{&types.AttributeValueMemberL{Value: []types.AttributeValue{n("0.10")}}, &types.AttributeValueMemberL{Value: []types.AttributeValue{n("0.1")}}, true},
	} {
		if got := equalValues(c.a, c.b); got != c.want {
			t.Errorf("equalValues(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
