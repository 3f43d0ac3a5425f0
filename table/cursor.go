package table

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A cursor is the position after an item returned by Query or Scan: the
// values of its table key and index key attributes, as base64url JSON
// [{"n":name,"t":"S"|"N"|"B","v":value}] sorted by name (B values in
// standard base64). It is made from the last item returned, never from
// the LastEvaluatedKey of an internal call, so resuming from it never
// skips an item.

const maxCursorLen = 16 << 10

type cursorAttr struct {
	N string `json:"n"`
	T string `json:"t"`
	V string `json:"v"`
}

// encodeCursor returns the cursor after item, which holds every attribute
// of names. It returns "" if item lacks one (which a backend honouring
// the projection we ask for never causes).
func encodeCursor(item Item, names []string) string {
	attrs := make([]cursorAttr, 0, len(names))
	for _, n := range names {
		var a cursorAttr
		switch v := item[n].(type) {
		case *types.AttributeValueMemberS:
			a = cursorAttr{N: n, T: "S", V: v.Value}
		case *types.AttributeValueMemberN:
			a = cursorAttr{N: n, T: "N", V: v.Value}
		case *types.AttributeValueMemberB:
			a = cursorAttr{N: n, T: "B", V: base64.StdEncoding.EncodeToString(v.Value)}
		default:
			return ""
		}
		attrs = append(attrs, a)
	}
	slices.SortFunc(attrs, func(a, b cursorAttr) int {
		switch {
		case a.N < b.N:
			return -1
		case a.N > b.N:
			return 1
		}
		return 0
	})
	b, _ := json.Marshal(attrs)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor parses a cursor for a read whose position attributes are
// names. It returns an error wrapping ErrBadCursor unless the cursor holds
// exactly those attributes, each a string, number or binary.
func decodeCursor(s string, names []string) (Item, error) {
	fail := func(why string) (Item, error) {
		return nil, fmt.Errorf("table: cannot use cursor: %s: %w", why, ErrBadCursor)
	}
	if len(s) > maxCursorLen {
		return fail("too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return fail("not base64url")
	}
	var attrs []cursorAttr
	if err := json.Unmarshal(b, &attrs); err != nil {
		return fail("not a cursor")
	}
	if len(attrs) != len(names) {
		return fail("made for another table or index")
	}
	item := make(Item, len(attrs))
	for _, a := range attrs {
		if !slices.Contains(names, a.N) || item[a.N] != nil {
			return fail("made for another table or index")
		}
		switch a.T {
		case "S":
			item[a.N] = &types.AttributeValueMemberS{Value: a.V}
		case "N":
			item[a.N] = &types.AttributeValueMemberN{Value: a.V}
		case "B":
			v, err := base64.StdEncoding.DecodeString(a.V)
			if err != nil {
				return fail("bad binary value")
			}
			item[a.N] = &types.AttributeValueMemberB{Value: v}
		default:
			return fail("bad value type")
		}
	}
	return item, nil
}
