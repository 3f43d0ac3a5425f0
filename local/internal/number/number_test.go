package number

import (
	"runtime"
	"strings"
	"testing"
)

func TestParse_Canonical(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "01": "1", "1.50": "1.5", "-0": "0", "0.000": "0", "1e2": "100",
		"1E-3": "0.001", "-12.3400": "-12.34", "+5": "5", ".5": "0.5", "5.": "5",
		"12345678901234567890123456789012345678": "12345678901234567890123456789012345678",
	} {
		n, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if got := n.String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", in, got, want)
		}
	}
}

func TestParse_Errors(t *testing.T) {
	for in, want := range map[string]error{
		"": ErrSyntax, "abc": ErrSyntax, "1 ": ErrSyntax, "Infinity": ErrSyntax, "NaN": ErrSyntax, "0x10": ErrSyntax,
		"123456789012345678901234567890123456789": ErrPrecision,
		"1e126": ErrOverflow, "9.9e125": nil, "1e-130": nil, "1e-131": ErrUnderflow,
	} {
		_, err := Parse(in)
		if err != want {
			t.Errorf("Parse(%q) error = %v, want %v", in, err, want)
		}
	}
}

func TestArithmetic(t *testing.T) {
	a, b := MustParse("1.5"), MustParse("-2.25")
	if s, _ := Add(a, b); s.String() != "-0.75" {
		t.Errorf("Add = %s", s)
	}
	if s, _ := Sub(a, b); s.String() != "3.75" {
		t.Errorf("Sub = %s", s)
	}
	if _, err := Add(MustParse("9e125"), MustParse("9e125")); err != ErrOverflow {
		t.Errorf("overflow: %v", err)
	}
	if Cmp(MustParse("10"), MustParse("9")) != 1 || Cmp(MustParse("1.0"), MustParse("1")) != 0 {
		t.Error("Cmp")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1", "-1.5e10", "0.0001", "1e126", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) < 200 {
			checkSplit(t, s)
		}
		n, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(n.String())
		if err != nil || Cmp(n, again) != 0 || again.String() != n.String() {
			t.Fatalf("%q -> %q does not round trip: %v", s, n.String(), err)
		}
	})
}

// TestParse_LongRunsOfZeros checks that a number written with a long run
// of zeros is read as DynamoDB reads it, and without arithmetic on a
// coefficient as long as the string: the bytes allocated by Parse do not
// grow with the length (apd's parser makes a big integer of every digit,
// whose cost grows with the square of the length).
func TestParse_LongRunsOfZeros(t *testing.T) {
	zeros := strings.Repeat("0", 1<<20)
	for in, want := range map[string]string{
		"1." + zeros:               "1",
		zeros + "42":               "42",
		"0." + zeros + "1e1048577": "1",
		"-" + zeros + "." + zeros:  "0",
	} {
		n, err := Parse(in)
		if err != nil || n.String() != want {
			t.Errorf("Parse(%d bytes) = %s, %v; want %s", len(in), n, err, want)
		}
	}
	for in, want := range map[string]error{
		"1" + zeros + "1":       ErrPrecision,
		"1" + zeros:             ErrOverflow,
		"0." + zeros + "1":      ErrUnderflow,
		"1." + zeros + "x":      ErrSyntax,
		"1e" + zeros + "126":    ErrOverflow,
		"1e-" + zeros + "00131": ErrUnderflow,
	} {
		if _, err := Parse(in); err != want {
			t.Errorf("Parse(%d bytes) error = %v, want %v", len(in), err, want)
		}
	}
	long := "1." + zeros
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := Parse(long); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 4<<10 {
		t.Errorf("Parse of a %d-byte number allocates %d bytes; want a few hundred, whatever the length", len(long), per)
	}
}
