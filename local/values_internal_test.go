package local

import (
	"testing"

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
