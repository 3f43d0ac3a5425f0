package number

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceParse is the straightforward reading of a number, with apd's
// own parser and arithmetic (quadratic in the length, fine for short
// strings): the model Parse and Split are checked against.
func referenceParse(s string) (string, error) {
	if s == "" || strings.ContainsAny(s, " \t\n_") {
		return "", ErrSyntax
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789.eE+-", r) {
			return "", ErrSyntax
		}
	}
	var n Number
	if _, _, err := n.d.SetString(s); err != nil {
		return "", ErrSyntax
	}
	n.d.Reduce(&n.d)
	if err := n.check(); err != nil {
		return "", err
	}
	return n.String(), nil
}

// checkSplit fails when Split or Parse read s otherwise than
// referenceParse, or accept what it rejects.
func checkSplit(t testing.TB, s string) {
	t.Helper()
	want, werr := referenceParse(s)
	n, perr := Parse(s)
	if perr != werr || (perr == nil && n.String() != want) {
		t.Fatalf("Parse(%q) = %s, %v; the reference reads %s, %v", s, n, perr, want, werr)
	}
	neg, digits, adj, err := Split(s, nil)
	if err != werr {
		t.Fatalf("Split(%q) error %v, the reference's %v", s, err, werr)
	}
	if err != nil {
		return
	}
	// Rebuild the number as 0.d1d2...dn e(adj+1) and let the reference read it.
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	sb.WriteString("0.")
	for _, d := range digits {
		sb.WriteByte('0' + d)
	}
	fmt.Fprintf(&sb, "e%d", adj+1)
	if len(digits) == 0 && (neg || adj != 0) {
		t.Fatalf("Split(%q) reads zero as neg=%v adj=%d", s, neg, adj)
	}
	if len(digits) > 0 && (digits[0] == 0 || digits[len(digits)-1] == 0) {
		t.Fatalf("Split(%q) = %v: leading or trailing zero", s, digits)
	}
	if got, err := referenceParse(sb.String()); err != nil || got != want {
		t.Fatalf("Split(%q) reads %s (%s), the reference %s", s, sb.String(), got, want)
	}
}

// randomNumber returns a string that is often a valid number, in a random
// notation.
func randomNumber(r *rand.Rand) string {
	var sb strings.Builder
	switch r.IntN(4) {
	case 0:
		sb.WriteByte('-')
	case 1:
		sb.WriteByte('+')
	}
	nd := 1 + r.IntN(6)
	if r.IntN(8) == 0 {
		nd = 1 + r.IntN(40)
	}
	point := r.IntN(nd + 1)
	for i := 0; i < nd; i++ {
		if i == point && r.IntN(2) == 0 {
			sb.WriteByte('.')
		}
		sb.WriteByte("0000123456789"[r.IntN(13)])
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&sb, "%c%d", "eE"[r.IntN(2)], r.IntN(280)-140)
	}
	return sb.String()
}

func TestSplit_AgreesWithParse(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "00", "0.0", "0e9999", "1e9999", "1e-9999", "1e125", "1e126", "-1e-130", "1e-131",
		"12345678901234567890123456789012345678", "123456789012345678901234567890123456789",
		"1234567890123456789012345678901234567800000", "0.000000000000000000000000000000000000000012345678901234567890123456789012345678",
		"1.", ".5", "+5", "1e", "1e+", "--1", "1..2", "1.2.3", "1e5.5", "0x10", " 1", "1 ", "", "-", "1E+0003", "9.99e125",
		"-12.5", "0.003", "100", "1.0e00002",
	} {
		checkSplit(t, s)
	}
	r := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		checkSplit(t, randomNumber(r))
	}
}

func TestSplit_Examples(t *testing.T) {
	for s, want := range map[string]string{"-12.5": "true [1 2 5] 1", "0.003": "false [3] -3", "0": "false [] 0", "1.5E+3": "false [1 5] 3"} {
		neg, digits, adj, err := Split(s, nil)
		if got := fmt.Sprintf("%v %v %d", neg, digits, adj); err != nil || got != want {
			t.Errorf("Split(%q) = %s, %v; want %s", s, got, err, want)
		}
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1", "1", 0}, {"1", "1.0", 0}, {"1", "01", 0}, {"100", "1E2", 0}, {"0.001", "1e-3", 0}, {"-0", "0", 0},
		{"0", "0.000", 0}, {"1", "2", -1}, {"2", "10", -1}, {"-2", "-10", 1}, {"-1", "1", -1}, {"0", "-1", 1},
		{"0", "1e-130", -1}, {"9.99", "10", -1}, {"123.456", "123.4561", -1}, {"1E+125", "9.9E124", 1},
		{"-0.5", "-0.25", -1}, {"12345678901234567890123456789012345678", "12345678901234567890123456789012345679", -1},
		{"5", "4.9999999999999999999999999999999999999", 1}, {"10.5", "10.50", 0}, {"105", "10.5", 1},
		{"-2.5", "-2.50", 0}, {"+5", "5", 0}, {"0.0", "0e10", 0}, {"1e99999", "1e99999", 0},
	} {
		if got := Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(c.b, c.a); got != -c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		checkCompare(t, randomNumber(r), randomNumber(r))
	}
}

// checkCompare fails when Compare disagrees with Cmp on two valid numbers.
func checkCompare(t testing.TB, a, b string) {
	t.Helper()
	x, errA := Parse(a)
	y, errB := Parse(b)
	if errA != nil || errB != nil {
		return
	}
	if got, want := Compare(a, b), Cmp(x, y); got != want {
		t.Fatalf("Compare(%s, %s) = %d, Cmp = %d", a, b, got, want)
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("1.5", "-2")
	f.Add("1e-130", "9.9999999999999999999999999999999999999e125")
	f.Add("+0.0", "-0")
	f.Fuzz(func(t *testing.T, a, b string) {
		checkSplit(t, a)
		checkCompare(t, a, b)
		if Compare(a, b) != -Compare(b, a) {
			t.Fatalf("Compare(%q, %q) is not antisymmetric", a, b)
		}
	})
}

// TestCanonical checks the fast path of Canonical against Parse: whatever
// isCanonical accepts must parse to itself.
func TestCanonical(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-12", "3.25", "-0.5", "0.001", "10", "1.0", "01", "1e2", "1E+2", ".5", "5.",
		"-", "", "+1", "12345678901234567890123456789012345678", "123456789012345678901234567890123456789",
		"0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
		"0.12345678901234567890123456789012345678", "0.123456789012345678901234567890123456789", "1.2345678901234567890123456789012345678"} {
		checkCanonical(t, s)
	}
	for _, s := range []string{"0", "-12", "3.25", "0.001"} {
		if !isCanonical(s) {
			t.Errorf("isCanonical(%q) = false", s)
		}
	}
}

// checkCanonical fails when Canonical disagrees with Parse.
func checkCanonical(t testing.TB, s string) {
	t.Helper()
	got, err := Canonical(s)
	n, perr := Parse(s)
	if err != perr || (err == nil && got != n.String()) {
		t.Fatalf("Canonical(%q) = %q, %v; Parse gives %v, %v", s, got, err, n, perr)
	}
}

// FuzzCanonical checks that the fast path never accepts a number that
// Parse would print differently, or reject.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"0", "-1.5", "0.001", "1e2", "007", "1.50"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCanonical(t, s) })
}

func TestScanExponent(t *testing.T) {
	for _, c := range []struct {
		s                string
		i                int
		exp, digits, end int
	}{
		{"1", 1, 0, 0, 1},
		{"1x", 1, 0, 0, 1},
		{"1e", 1, 0, 0, 2},
		{"1e+", 1, 0, 0, 3},
		{"1E-12", 1, -12, 2, 5},
		{"1e0003x", 1, 3, 4, 6},
		{"1e99999999999", 1, 99999999999, 11, 13},
		{"1e-99999999999999", 1, -9999999999999, 14, 17}, // stops growing past 2^40
	} {
		exp, digits, end := ScanExponent(c.s, c.i)
		if exp != c.exp || digits != c.digits || end != c.end {
			t.Errorf("ScanExponent(%q, %d) = %d, %d, %d; want %d, %d, %d", c.s, c.i, exp, digits, end, c.exp, c.digits, c.end)
		}
	}
}
