package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// refJSON returns item as the generic value encoding/json decodes its
// DynamoDB JSON into: the reference AppendItemJSON is held to.
func refJSON(t testing.TB, item map[string]types.AttributeValue) any {
	t.Helper()
	b, err := json.Marshal(refItem(item))
	if err != nil {
		t.Fatal(err)
	}
	return unmarshal(t, b)
}

func refItem(item map[string]types.AttributeValue) map[string]any {
	m := make(map[string]any, len(item))
	for k, v := range item {
		m[k] = refValue(v)
	}
	return m
}

func refValue(av types.AttributeValue) any {
	b64 := base64.StdEncoding.EncodeToString
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": b64(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = refValue(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": refItem(v.Value)}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		l := make([]string, len(v.Value))
		for i, e := range v.Value {
			l[i] = b64(e)
		}
		return map[string]any{"BS": l}
	}
	panic("unknown attribute value")
}

func unmarshal(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return v
}

func TestAppendItemJSON(t *testing.T) {
	f := func(item map[string]types.AttributeValue) {
		t.Helper()
		enc := mustItem(t, item)
		prefix := []byte("prefix")
		out, size, err := AppendItemJSON(prefix, enc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(out, prefix) {
			t.Fatalf("dst not extended: %q", out)
		}
		if want := ItemSize(item); size != want {
			t.Errorf("size %d, ItemSize %d", size, want)
		}
		if got, want := unmarshal(t, out[len(prefix):]), refJSON(t, item); !reflect.DeepEqual(got, want) {
			t.Errorf("got %s\nwant %v", out[len(prefix):], want)
		}
	}
	f(map[string]types.AttributeValue{})
	f(sampleItem())
	f(map[string]types.AttributeValue{
		"q\"uote\\": &types.AttributeValueMemberS{Value: "a\"b\\c\n\r\t\x00\x1f\x7f é 日本 🎉 \u2028"},
		"bad utf-8": &types.AttributeValueMemberS{Value: "a\xffb\xc3"},
		"ünïcode":   &types.AttributeValueMemberSS{Value: []string{"é", "<>&", ""}},
		"n":         &types.AttributeValueMemberNS{Value: []string{"-1.5E+10", "0", "123456789012345678901234567890123456.78"}},
		"b":         &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 0xff}},
		"empty b":   &types.AttributeValueMemberB{Value: []byte{}},
		"bs":        &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}, {}}},
		"l":         &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		"m":         &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
		"deep": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"x": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNULL{Value: true}, &types.AttributeValueMemberBOOL{}}},
		}}}},
	})
}

// FuzzAppendItemJSON checks AppendItemJSON, and EncodedItemSize beside
// it, against DecodeItem: the same inputs fail, the JSON decodes to the
// decoded item, and both sizes are its ItemSize.
func FuzzAppendItemJSON(f *testing.F) {
	f.Add(mustItem(f, sampleItem()))
	f.Add(mustItem(f, map[string]types.AttributeValue{}))
	f.Add([]byte{itemVersion, 1, 1, 'a', tagL, 2, tagNULL, tagTrue})
	f.Add([]byte{itemVersion, 1, 1, 'a', tagS, 2, 0xff, '"'})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, _, err := AppendItemJSON(nil, b)
		item, derr := DecodeItem(b)
		if (err == nil) != (derr == nil) {
			t.Fatalf("AppendItemJSON error %v, DecodeItem error %v", err, derr)
		}
		if _, serr := EncodedItemSize(b); (serr == nil) != (derr == nil) || (serr != nil && !errors.Is(serr, ErrCorrupt)) {
			t.Fatalf("EncodedItemSize error %v, DecodeItem error %v", serr, derr)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		// encoding/json keeps the last of repeated names, as DecodeItem
		// does: the JSON of b decodes to the item's reference. Names that
		// are not UTF-8 (which the engine never stores) are skipped: two
		// of them can become the same name once their bad bytes are
		// written as U+FFFD, and which one JSON keeps then depends on the
		// order each side writes them in.
		if got, want := unmarshal(t, out), refJSON(t, item); utf8Names(item) && !reflect.DeepEqual(got, want) {
			t.Fatalf("got %s\nwant %v", out, want)
		}
		// Without repeated names, as AppendItem writes them, the size is
		// ItemSize's.
		out, size, err := AppendItemJSON(out[:0], mustItem(t, item))
		if err != nil {
			t.Fatal(err)
		}
		if want := ItemSize(item); size != want {
			t.Fatalf("size %d, ItemSize %d of %s", size, want, out)
		}
		if got, err := EncodedItemSize(mustItem(t, item)); err != nil || got != ItemSize(item) {
			t.Fatalf("EncodedItemSize %d, %v; ItemSize %d of %s", got, err, ItemSize(item), out)
		}
	})
}

// utf8Names reports whether every attribute name in item, at any depth,
// is valid UTF-8.
func utf8Names(item map[string]types.AttributeValue) bool {
	for name, v := range item {
		if !utf8.ValidString(name) || !utf8NamesIn(v) {
			return false
		}
	}
	return true
}

func utf8NamesIn(v types.AttributeValue) bool {
	switch v := v.(type) {
	case *types.AttributeValueMemberM:
		return utf8Names(v.Value)
	case *types.AttributeValueMemberL:
		for _, e := range v.Value {
			if !utf8NamesIn(e) {
				return false
			}
		}
	}
	return true
}
