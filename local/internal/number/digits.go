package number

import (
	"bytes"
	"cmp"
	"strings"
)

// Split takes the number written as s apart: its sign, its significant
// digits (values 0 to 9, appended to digits, without leading or trailing
// zeros; none for zero) and adj, the power of ten of the first of them. So
// "-12.5" is neg, [1 2 5], 1, and "0.003" is [3], -3. It reads s once, in
// time linear in its length, and allocates only if digits lacks room for
// 38 digits. The errors are Parse's: ErrSyntax for a string that is not
// [+-]D*[.D*][eE[+-]D+] with at least one digit, then ErrPrecision,
// ErrOverflow or ErrUnderflow for a number DynamoDB cannot store.
func Split(s string, digits []byte) (neg bool, _ []byte, adj int, err error) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intEnd, fracStart, fracEnd := i, i, i
	if i < len(s) && s[i] == '.' {
		i++
		fracStart = i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracEnd = i
	}
	if intEnd == intStart && fracEnd == fracStart {
		return false, digits, 0, ErrSyntax
	}
	exp, expDigits, end := ScanExponent(s, i)
	if end != len(s) || (end > i && expDigits == 0) {
		return false, digits, 0, ErrSyntax
	}
	// The digits of the integer and fraction parts form one sequence; the
	// j-th stands for 10^(intLen-1-j+exp). Find the first and last
	// significant ones before copying any.
	intLen := intEnd - intStart
	at := func(j int) byte {
		if j < intLen {
			return s[intStart+j]
		}
		return s[fracStart+j-intLen]
	}
	n := intLen + fracEnd - fracStart
	first, last := -1, -1
	for j := 0; j < n; j++ {
		if at(j) != '0' {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	if first < 0 {
		return false, digits, 0, nil // zero, whatever its sign or exponent
	}
	if last-first+1 > Precision {
		return false, digits, 0, ErrPrecision
	}
	for j := first; j <= last; j++ {
		digits = append(digits, at(j)-'0')
	}
	adj = intLen - 1 - first + exp
	switch {
	case adj > MaxExponent:
		return false, digits[:0], 0, ErrOverflow
	case adj < MinExponent:
		return false, digits[:0], 0, ErrUnderflow
	}
	return neg, digits, adj, nil
}

// ScanExponent reads the exponent of a number written as s, [eE][+-]?D*,
// at s[i:]. It returns its value, which stops growing once its magnitude
// passes 2^40 (far beyond any exponent a request's length can offset), the
// number of its digits and the index after it; when s[i]
// is not e or E, it returns 0, 0, i.
func ScanExponent(s string, i int) (exp, digits, end int) {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return 0, 0, i
	}
	i++
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if exp < 1<<40 {
			exp = exp*10 + int(s[i]-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return exp, i - start, i
}

// Compare compares the numbers written as a and b by value: -1, 0 or +1,
// as Cmp(Parse(a), Parse(b)) does, without allocating for the common
// notations (see Split). It is meant for valid numbers, the only ones
// DynamoDB stores or accepts in a request; should either string not be
// one, the strings are compared as strings, an order of no meaning.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	var bufA, bufB [Precision]byte
	negA, da, adjA, errA := Split(a, bufA[:0])
	negB, db, adjB, errB := Split(b, bufB[:0])
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	signA, signB := sign(negA, da), sign(negB, db)
	switch {
	case signA != signB:
		return cmp.Compare(signA, signB)
	case signA == 0:
		return 0
	}
	c := cmp.Compare(adjA, adjB)
	if c == 0 {
		c = bytes.Compare(da, db) // at a first different digit, or the longer is larger
	}
	return c * signA
}

func sign(neg bool, digits []byte) int {
	switch {
	case len(digits) == 0:
		return 0
	case neg:
		return -1
	}
	return 1
}

// Canonical checks the number written as s and returns it in canonical
// form, as Parse(s).String() does; a number already in that form is
// returned as it is, without parsing. The errors are those of Parse.
func Canonical(s string) (string, error) {
	if isCanonical(s) {
		return s, nil
	}
	n, err := Parse(s)
	if err != nil {
		return "", err
	}
	return n.String(), nil
}

// isCanonical reports whether s is a number already in DynamoDB's canonical
// form that needs no parsing: an optional minus sign, at most 38 digits
// without leading zeros, and an optional fraction without trailing zeros
// (for example "0", "-12", "3.25", "-0.5"). Other numbers take the slow path.
func isCanonical(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := i - start
	if intDigits == 0 || (intDigits > 1 && s[start] == '0') {
		return false
	}
	digits := intDigits
	if s[start] == '0' {
		digits = 0 // "0" or "0.x": leading zero is not significant
	}
	if i == len(s) {
		return digits <= 38 && !(s[0] == '-' && s[start:] == "0")
	}
	if s[i] != '.' {
		return false
	}
	i++
	fstart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != len(s) || i == fstart || s[i-1] == '0' {
		return false
	}
	frac := s[fstart:]
	if digits == 0 {
		frac = strings.TrimLeft(frac, "0") // 0.001: leading zeros of the fraction are not significant
		if len(s)-fstart > 130 {
			return false
		}
	}
	return digits+len(frac) <= 38
}
