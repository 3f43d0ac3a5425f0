package codec

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/timetable-db/timetable/conformance"
)

// sampleItem has every attribute type, nested.
func sampleItem() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":   &types.AttributeValueMemberS{Value: "user#1"},
		"sk":   &types.AttributeValueMemberN{Value: "-12.5"},
		"bin":  &types.AttributeValueMemberB{Value: []byte{0, 1, 0xff}},
		"yes":  &types.AttributeValueMemberBOOL{Value: true},
		"no":   &types.AttributeValueMemberBOOL{Value: false},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"":     &types.AttributeValueMemberS{Value: ""},
		"list": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "x"},
			&types.AttributeValueMemberL{},
			&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				"deep": &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
			}},
		}},
		"map": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"é":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
			"bs":  &types.AttributeValueMemberBS{Value: [][]byte{{1}, {}}},
			"nil": &types.AttributeValueMemberM{},
		}},
	}
}

func mustItem(t testing.TB, item map[string]types.AttributeValue) []byte {
	t.Helper()
	b, err := AppendItem(nil, item)
	if err != nil {
		t.Fatalf("AppendItem: %v", err)
	}
	return b
}

func TestItem_RoundTrip(t *testing.T) {
	for name, item := range map[string]map[string]types.AttributeValue{
		"empty":  {},
		"nil":    nil,
		"sample": sampleItem(),
		"big":    {"s": &types.AttributeValueMemberS{Value: strings.Repeat("x", 400<<10)}},
	} {
		b := mustItem(t, item)
		got, err := DecodeItem(b)
		if err != nil {
			t.Fatalf("%s: DecodeItem: %v", name, err)
		}
		if !equalItems(got, item) {
			t.Errorf("%s: round trip gave %s", name, conformance.Format(&types.AttributeValueMemberM{Value: got}))
		}
	}
}

func TestItem_AppendKeepsPrefix(t *testing.T) {
	b, err := AppendItem([]byte("head"), sampleItem())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "head") {
		t.Fatalf("prefix lost: %q", b[:8])
	}
	if _, err := DecodeItem(b[4:]); err != nil {
		t.Fatal(err)
	}
}

// TestItem_DecodeOwnsMemory checks the result does not alias the input.
func TestItem_DecodeOwnsMemory(t *testing.T) {
	b := mustItem(t, sampleItem())
	got, err := DecodeItem(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 0xAA
	}
	if !equalItems(got, sampleItem()) {
		t.Fatal("decoded item changed with its input")
	}
}

func TestItem_EncodeErrors(t *testing.T) {
	cyclic := map[string]types.AttributeValue{}
	cyclic["self"] = &types.AttributeValueMemberM{Value: cyclic}
	var deep types.AttributeValue = &types.AttributeValueMemberNULL{Value: true}
	for range MaxDepth {
		deep = &types.AttributeValueMemberL{Value: []types.AttributeValue{deep}}
	}
	for name, c := range map[string]struct {
		item map[string]types.AttributeValue
		want error
	}{
		"nil value":  {map[string]types.AttributeValue{"a": nil}, ErrValueType},
		"unknown":    {map[string]types.AttributeValue{"a": &types.UnknownUnionMember{Tag: "X"}}, ErrValueType},
		"nested nil": {map[string]types.AttributeValue{"a": &types.AttributeValueMemberL{Value: []types.AttributeValue{nil}}}, ErrValueType},
		"cyclic":     {cyclic, ErrDepth},
		"too deep":   {map[string]types.AttributeValue{"a": deep}, ErrDepth},
	} {
		if _, err := AppendItem(nil, c.item); !errors.Is(err, c.want) {
			t.Errorf("%s: AppendItem error = %v, want %v", name, err, c.want)
		}
	}
}

func TestItem_MaxDepthRoundTrip(t *testing.T) {
	var v types.AttributeValue = &types.AttributeValueMemberS{Value: "leaf"}
	for range MaxDepth - 1 {
		v = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"m": v}}
	}
	item := map[string]types.AttributeValue{"a": v}
	got, err := DecodeItem(mustItem(t, item))
	if err != nil || !equalItems(got, item) {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
}

// TestItem_DecodeTruncated checks every strict prefix and every one-byte
// corruption of a valid encoding: errors or a valid item, never a panic.
func TestItem_DecodeTruncated(t *testing.T) {
	b := mustItem(t, sampleItem())
	for i := 0; i < len(b); i++ {
		if _, err := DecodeItem(b[:i]); err == nil {
			t.Errorf("DecodeItem of %d of %d bytes succeeded", i, len(b))
		} else if !errors.Is(err, ErrCorrupt) {
			t.Errorf("error %v does not wrap ErrCorrupt", err)
		}
	}
	if _, err := DecodeItem(append(b, 0)); err == nil {
		t.Error("trailing byte accepted")
	}
	for i := range b {
		for _, x := range []byte{0, 1, 0x7f, 0x80, 0xff} {
			c := append([]byte(nil), b...)
			c[i] = x
			DecodeItem(c)
		}
	}
}

func TestItem_DecodeHugeCounts(t *testing.T) {
	for _, b := range [][]byte{
		{itemVersion, 0xff, 0xff, 0xff, 0xff, 0x0f},
		{itemVersion, 1, 1, 'a', tagL, 0xff, 0xff, 0xff, 0xff, 0x0f},
		{itemVersion, 1, 1, 'a', tagS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{itemVersion, 1, 1, 'a', tagS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		{itemVersion, 1, 1, 'a', 0x77},
		{2, 0},
	} {
		if _, err := DecodeItem(b); err == nil {
			t.Errorf("DecodeItem(%x) succeeded", b)
		}
	}
}

// randomValue builds a random attribute value up to depth levels deep.
func randomValue(r *rand.Rand, depth int) types.AttributeValue {
	n := 11
	if depth <= 0 {
		n = 6
	}
	switch r.IntN(n) {
	case 0:
		return &types.AttributeValueMemberS{Value: randomString(r)}
	case 1:
		return &types.AttributeValueMemberN{Value: randomNumber(r)}
	case 2:
		return &types.AttributeValueMemberB{Value: []byte(randomString(r))}
	case 3:
		return &types.AttributeValueMemberBOOL{Value: r.IntN(2) == 0}
	case 4:
		return &types.AttributeValueMemberNULL{Value: true}
	case 5:
		ss := make([]string, 1+r.IntN(3))
		for i := range ss {
			ss[i] = randomString(r)
		}
		return &types.AttributeValueMemberSS{Value: ss}
	case 6:
		ns := make([]string, 1+r.IntN(3))
		for i := range ns {
			ns[i] = randomNumber(r)
		}
		return &types.AttributeValueMemberNS{Value: ns}
	case 7:
		bs := make([][]byte, 1+r.IntN(3))
		for i := range bs {
			bs[i] = []byte(randomString(r))
		}
		return &types.AttributeValueMemberBS{Value: bs}
	case 8, 9:
		l := make([]types.AttributeValue, r.IntN(4))
		for i := range l {
			l[i] = randomValue(r, depth-1)
		}
		return &types.AttributeValueMemberL{Value: l}
	default:
		return &types.AttributeValueMemberM{Value: randomItem(r, depth-1)}
	}
}

func randomString(r *rand.Rand) string {
	return strings.Repeat(string("ab\x00é€"[r.IntN(5)]), r.IntN(5))
}

func randomItem(r *rand.Rand, depth int) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{}
	for range r.IntN(5) {
		item[randomString(r)+string(rune('a'+r.IntN(26)))] = randomValue(r, depth)
	}
	return item
}

func TestItem_RandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 3000; i++ {
		item := randomItem(r, 4)
		got, err := DecodeItem(mustItem(t, item))
		if err != nil {
			t.Fatal(err)
		}
		if !equalItems(got, item) {
			t.Fatalf("round trip of %s gave %s", conformance.Format(&types.AttributeValueMemberM{Value: item}),
				conformance.Format(&types.AttributeValueMemberM{Value: got}))
		}
	}
}

// TestItem_DecoderRoundTrip decodes many random items with one Decoder, so
// that their values share blocks, and checks each item against what was
// encoded once all are decoded: no item's values may change when a later
// item is decoded, and corrupt input is refused as by DecodeItem.
func TestItem_DecoderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var dec Decoder
	var want, got []map[string]types.AttributeValue
	for i := 0; i < 500; i++ {
		item := randomItem(r, 4)
		d, err := dec.DecodeItem(mustItem(t, item))
		if err != nil {
			t.Fatal(err)
		}
		want, got = append(want, item), append(got, d)
	}
	for i := range want {
		if !equalItems(got[i], want[i]) {
			t.Fatalf("item %d: round trip of %s gave %s", i, conformance.Format(&types.AttributeValueMemberM{Value: want[i]}),
				conformance.Format(&types.AttributeValueMemberM{Value: got[i]}))
		}
	}
	if _, err := dec.DecodeItem([]byte{itemVersion, 1, 1, 'a', tagS, 9, 'x'}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated item: got %v, want ErrCorrupt", err)
	}
}

func FuzzItemDecode(f *testing.F) {
	f.Add(mustItem(f, sampleItem()))
	f.Add(mustItem(f, map[string]types.AttributeValue{}))
	f.Add([]byte{itemVersion, 1, 1, 'a', tagL, 2, tagNULL, tagTrue})
	f.Fuzz(func(t *testing.T, b []byte) {
		item, err := DecodeItem(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		var dec Decoder
		if viaDecoder, err := dec.DecodeItem(b); err != nil || !equalItems(viaDecoder, item) {
			t.Fatalf("Decoder.DecodeItem gave %v, %v; DecodeItem gave %s", viaDecoder, err, conformance.Format(&types.AttributeValueMemberM{Value: item}))
		}
		again, err := DecodeItem(mustItem(t, item))
		if err != nil {
			t.Fatalf("re-encoded item does not decode: %v", err)
		}
		if !equalItems(again, item) {
			t.Fatalf("re-encode round trip changed %s into %s", conformance.Format(&types.AttributeValueMemberM{Value: item}),
				conformance.Format(&types.AttributeValueMemberM{Value: again}))
		}
	})
}
