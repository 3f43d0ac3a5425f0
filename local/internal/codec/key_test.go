package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/conformance"
	"github.com/timetable-db/timetable/local/internal/number"
	"github.com/timetable-db/timetable/local/internal/value"
)

// compareKeys is the reference order: DynamoDB's comparison of two key
// values of one type.
func compareKeys(t testing.TB, a, b types.AttributeValue) int {
	t.Helper()
	c, ok := value.Compare(a, b)
	if !ok {
		t.Fatalf("not two key values of one type: %s, %s", conformance.Format(a), conformance.Format(b))
	}
	return c
}

func mustKey(t testing.TB, av types.AttributeValue) []byte {
	t.Helper()
	b, err := AppendKey(nil, av)
	if err != nil {
		t.Fatalf("AppendKey(%s): %v", conformance.Format(av), err)
	}
	return b
}

// canonical returns av with a number in canonical form.
func canonical(av types.AttributeValue) types.AttributeValue {
	if n, ok := av.(*types.AttributeValueMemberN); ok {
		return &types.AttributeValueMemberN{Value: number.MustParse(n.Value).String()}
	}
	return av
}

func TestKey_NumberOrder(t *testing.T) {
	ordered := []string{
		"-9.9999999999999999999999999999999999999e125", "-1e125", "-123456789012345678901234567890",
		"-1000", "-999.5", "-100", "-99", "-10.01", "-10", "-9", "-1.5", "-1.05", "-1.0000000000000000000000000000000000001",
		"-1", "-0.99", "-0.5", "-0.1", "-0.01", "-1e-130", "0", "1e-130", "1.5e-130", "1e-129", "0.001", "0.0011", "0.01",
		"0.1", "0.10000000000000000000000000000000000001", "0.2", "1", "1.0000000000000000000000000000000000001",
		"1.01", "1.1", "1.5", "2", "9", "9.5", "10", "10.5", "11", "99", "99.99", "100", "101", "110", "1000",
		"12345678901234567890123456789012345678", "1e38", "1e125", "9.9999999999999999999999999999999999999e125",
	}
	var prev []byte
	for i, s := range ordered {
		enc := mustKey(t, &types.AttributeValueMemberN{Value: s})
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("encoding of %s (%x) does not sort after %s (%x)", s, enc, ordered[i-1], prev)
		}
		prev = enc
	}
}

func TestKey_EqualNumbers(t *testing.T) {
	for _, set := range [][]string{
		{"1", "1.0", "01", "1e0", "10e-1", "0.1E1", "+1"},
		{"0", "-0", "0.000", "0e10"},
		{"-12.5", "-12.50", "-1.25e1", "-125e-1"},
	} {
		want := mustKey(t, &types.AttributeValueMemberN{Value: set[0]})
		for _, s := range set[1:] {
			if got := mustKey(t, &types.AttributeValueMemberN{Value: s}); !bytes.Equal(got, want) {
				t.Errorf("AppendKey(N %s) = %x, want %x as for %s", s, got, want, set[0])
			}
		}
	}
}

func TestKey_StringOrder(t *testing.T) {
	ordered := []string{"", "\x00", "\x00\x00", "\x00\x01", "\x00\xff", "\x01", "a", "a\x00", "a\x00b", "a\x01", "aa", "ab", "b", "é", "\xff", "\xff\x00", "\xff\xff"}
	for _, kind := range []string{"S", "B"} {
		var prev []byte
		for i, s := range ordered {
			var av types.AttributeValue = &types.AttributeValueMemberS{Value: s}
			if kind == "B" {
				av = &types.AttributeValueMemberB{Value: []byte(s)}
			}
			enc := mustKey(t, av)
			if i > 0 && bytes.Compare(prev, enc) >= 0 {
				t.Errorf("%s: encoding of %q (%x) does not sort after %q (%x)", kind, s, enc, ordered[i-1], prev)
			}
			prev = enc
		}
	}
}

func TestKey_Errors(t *testing.T) {
	for _, av := range []types.AttributeValue{
		nil,
		&types.AttributeValueMemberBOOL{Value: true},
		&types.AttributeValueMemberSS{Value: []string{"a"}},
		&types.AttributeValueMemberN{Value: "abc"},
		&types.AttributeValueMemberN{Value: "1e126"},
		&types.AttributeValueMemberN{Value: "123456789012345678901234567890123456789"},
	} {
		dst := []byte("keep")
		got, err := AppendKey(dst, av)
		if err == nil {
			t.Errorf("AppendKey(%s) succeeded", conformance.Format(av))
		}
		if string(got) != "keep" {
			t.Errorf("AppendKey(%s) changed dst to %q", conformance.Format(av), got)
		}
	}
	for _, b := range [][]byte{
		nil, {0x99}, {keyString}, {keyString, 'a'}, {keyString, 0}, {keyString, 0, 2}, {keyBinary, 'a', 0},
		{keyNumPos}, {keyNumPos, 130}, {keyNumPos, 130, 3}, {keyNumPos, 130, 0}, {keyNumPos, 130, 2 * 5},
		{keyNumPos, 130, 201}, {keyNumNeg, ^byte(130)},
	} {
		if av, _, err := DecodeKey(b); err == nil {
			t.Errorf("DecodeKey(%x) = %s, want error", b, conformance.Format(av))
		}
		if _, err := SplitKey(b); err == nil {
			t.Errorf("SplitKey(%x) succeeded", b)
		}
	}
}

// randomKey returns a random key value of the given type ('S', 'N' or 'B'),
// biased towards shared prefixes, zero bytes and boundary numbers.
func randomKey(r *rand.Rand, kind byte) types.AttributeValue {
	switch kind {
	case 'S', 'B':
		alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0xc3, 0xa9, 0xff}
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if kind == 'S' {
			return &types.AttributeValueMemberS{Value: string(b)}
		}
		return &types.AttributeValueMemberB{Value: b}
	default:
		return &types.AttributeValueMemberN{Value: randomNumber(r)}
	}
}

// randomNumber returns a valid DynamoDB number in a random notation.
func randomNumber(r *rand.Rand) string {
	for {
		var sb strings.Builder
		switch r.IntN(3) {
		case 0:
			sb.WriteByte('-')
		case 1:
			if r.IntN(4) == 0 {
				sb.WriteByte('+')
			}
		}
		nd := 1 + r.IntN(6)
		if r.IntN(8) == 0 {
			nd = 1 + r.IntN(38)
		}
		for i := 0; i < nd; i++ {
			sb.WriteByte("0123456789"[r.IntN(10)])
			if i == 0 && r.IntN(3) == 0 {
				sb.WriteByte('.')
			}
		}
		if r.IntN(3) == 0 {
			exp := r.IntN(20) - 10
			if r.IntN(8) == 0 {
				exp = r.IntN(256) - 130
			}
			fmt.Fprintf(&sb, "e%d", exp)
		}
		if _, err := number.Parse(sb.String()); err == nil {
			return sb.String()
		}
	}
}

func TestKey_OrderProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []byte{'S', 'B', 'N'} {
		vals := make([]types.AttributeValue, 2000)
		for i := range vals {
			vals[i] = randomKey(r, kind)
		}
		encs := make([][]byte, len(vals))
		for i, v := range vals {
			encs[i] = mustKey(t, v)
		}
		for i := 0; i < 20000; i++ {
			a, b := r.IntN(len(vals)), r.IntN(len(vals))
			want := compareKeys(t, vals[a], vals[b])
			if got := bytes.Compare(encs[a], encs[b]); got != want {
				t.Fatalf("%s vs %s: bytes.Compare = %d, DynamoDB order = %d (%x vs %x)",
					conformance.Format(vals[a]), conformance.Format(vals[b]), got, want, encs[a], encs[b])
			}
		}
		// Sorting by encoding sorts by value.
		idx := make([]int, len(vals))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(i, j int) bool { return bytes.Compare(encs[idx[i]], encs[idx[j]]) < 0 })
		for i := 1; i < len(idx); i++ {
			if compareKeys(t, vals[idx[i-1]], vals[idx[i]]) > 0 {
				t.Fatalf("sorted by encoding, %s comes before %s", conformance.Format(vals[idx[i-1]]), conformance.Format(vals[idx[i]]))
			}
		}
	}
}

func TestKey_RoundTripPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	kinds := []byte{'S', 'B', 'N'}
	for i := 0; i < 5000; i++ {
		h := randomKey(r, kinds[r.IntN(3)])
		rk := randomKey(r, kinds[r.IntN(3)])
		enc := mustKey(t, h)
		hashLen := len(enc)
		enc, err := AppendKey(enc, rk)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := SplitKey(enc); err != nil || n != hashLen {
			t.Fatalf("SplitKey(%x) = %d, %v; want %d", enc, n, err, hashLen)
		}
		gotH, rest, err := DecodeKey(enc)
		if err != nil {
			t.Fatalf("DecodeKey(%x): %v", enc, err)
		}
		gotR, rest, err := DecodeKey(rest)
		if err != nil || len(rest) != 0 {
			t.Fatalf("DecodeKey(range of %x): %v, rest %x", enc, err, rest)
		}
		if !equal(gotH, canonical(h)) || !equal(gotR, canonical(rk)) {
			t.Fatalf("decoded (%s, %s), want (%s, %s)", conformance.Format(gotH), conformance.Format(gotR), conformance.Format(h), conformance.Format(rk))
		}
	}
}

// TestKey_PartitionPrefix checks that a partition key's encoding prefixes
// the encodings of its own (hash, range) pairs and no others.
func TestKey_PartitionPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	kinds := []byte{'S', 'B', 'N'}
	for i := 0; i < 5000; i++ {
		kind := kinds[r.IntN(3)]
		h1, h2 := randomKey(r, kind), randomKey(r, kind)
		p1 := mustKey(t, h1)
		pair, err := AppendKey(mustKey(t, h2), randomKey(r, kinds[r.IntN(3)]))
		if err != nil {
			t.Fatal(err)
		}
		same := compareKeys(t, h1, h2) == 0
		if bytes.HasPrefix(pair, p1) != same {
			t.Fatalf("partition %s prefixes pair under %s: %v", conformance.Format(h1), conformance.Format(h2), !same)
		}
	}
}

func TestKeyPrefix_BeginsWith(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 5000; i++ {
		kind := []byte{'S', 'B'}[r.IntN(2)]
		p, v := randomKey(r, kind), randomKey(r, kind)
		pre, err := AppendKeyPrefix(nil, p)
		if err != nil {
			t.Fatal(err)
		}
		enc := mustKey(t, v)
		var want bool
		if kind == 'S' {
			want = strings.HasPrefix(v.(*types.AttributeValueMemberS).Value, p.(*types.AttributeValueMemberS).Value)
		} else {
			want = bytes.HasPrefix(v.(*types.AttributeValueMemberB).Value, p.(*types.AttributeValueMemberB).Value)
		}
		if got := bytes.HasPrefix(enc, pre); got != want {
			t.Fatalf("begins_with(%s, %s) = %v, prefix test says %v", conformance.Format(v), conformance.Format(p), want, got)
		}
		if end := PrefixEnd(pre); want && bytes.Compare(enc, end) >= 0 {
			t.Fatalf("%x is not below PrefixEnd(%x) = %x", enc, pre, end)
		}
	}
	if _, err := AppendKeyPrefix(nil, &types.AttributeValueMemberN{Value: "1"}); err == nil {
		t.Error("AppendKeyPrefix(N) succeeded")
	}
}

func TestPrefixEnd(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "b", "a\xff": "b", "\xff\xff": "", "ab\x00": "ab\x01"} {
		got := PrefixEnd([]byte(in))
		if string(got) != want || (want == "" && got != nil) {
			t.Errorf("PrefixEnd(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzKeyEncoding(f *testing.F) {
	f.Add(byte('N'), "1.5", byte('N'), "-2")
	f.Add(byte('S'), "a\x00b", byte('S'), "a")
	f.Add(byte('B'), "\xff", byte('B'), "")
	f.Add(byte('N'), "1e-130", byte('N'), "9.9999999999999999999999999999999999999e125")
	f.Fuzz(func(t *testing.T, k1 byte, s1 string, k2 byte, s2 string) {
		mk := func(k byte, s string) types.AttributeValue {
			switch k % 3 {
			case 0:
				return &types.AttributeValueMemberS{Value: s}
			case 1:
				return &types.AttributeValueMemberB{Value: []byte(s)}
			default:
				if _, err := number.Parse(s); err != nil {
					return nil
				}
				return &types.AttributeValueMemberN{Value: s}
			}
		}
		a, b := mk(k1, s1), mk(k1, s2) // same type: order must hold
		if a == nil || b == nil {
			return
		}
		ea, eb := mustKey(t, a), mustKey(t, b)
		if got, want := bytes.Compare(ea, eb), compareKeys(t, a, b); got != want {
			t.Fatalf("%s vs %s: bytes.Compare = %d, want %d", conformance.Format(a), conformance.Format(b), got, want)
		}
		c := mk(k2, s2)
		if c == nil {
			return
		}
		pair, err := AppendKey(ea, c)
		if err != nil {
			t.Fatal(err)
		}
		ga, rest, err := DecodeKey(pair)
		if err != nil {
			t.Fatal(err)
		}
		gc, rest, err := DecodeKey(rest)
		if err != nil || len(rest) != 0 {
			t.Fatalf("second DecodeKey: %v, rest %x", err, rest)
		}
		if !equal(ga, canonical(a)) || !equal(gc, canonical(c)) {
			t.Fatalf("round trip (%s, %s) gave (%s, %s)", conformance.Format(a), conformance.Format(c), conformance.Format(ga), conformance.Format(gc))
		}
	})
}

// FuzzKeyDecode feeds arbitrary bytes to DecodeKey: it must not panic, and
// whatever it accepts must re-encode to the same bytes.
func FuzzKeyDecode(f *testing.F) {
	f.Add([]byte{keyNumPos, 130, 30})
	f.Add([]byte{keyString, 'a', 0, 0xff, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		av, rest, err := DecodeKey(b)
		n, serr := SplitKey(b)
		if (err == nil) != (serr == nil) {
			t.Fatalf("DecodeKey error %v, SplitKey error %v", err, serr)
		}
		if err != nil {
			return
		}
		if n != len(b)-len(rest) {
			t.Fatalf("SplitKey = %d, DecodeKey consumed %d", n, len(b)-len(rest))
		}
		enc := mustKey(t, av)
		if !bytes.Equal(enc, b[:n]) {
			t.Fatalf("DecodeKey(%x) = %s re-encodes to %x", b[:n], conformance.Format(av), enc)
		}
	})
}

func TestKey_DocumentedExamples(t *testing.T) {
	for s, want := range map[string]string{"1": "128214", "-1": "107deb", "12.5": "12831964", "0": "11"} {
		if got := fmt.Sprintf("%x", mustKey(t, &types.AttributeValueMemberN{Value: s})); got != want {
			t.Errorf("AppendKey(N %s) = %s, want %s", s, got, want)
		}
	}
}
