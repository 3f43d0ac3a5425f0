package table

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// pageItems returns n items with the position attributes pk and sk and
// the attribute v.
func pageItems(n int) []Item {
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{
			"pk": &types.AttributeValueMemberS{Value: "p"},
			"sk": &types.AttributeValueMemberN{Value: fmt.Sprint(i)},
			"v":  &types.AttributeValueMemberS{Value: fmt.Sprint("v", i)},
		}
	}
	return items
}

// TestIterPage_CursorAndStrip: a page with a limit ends with the cursor of
// its last item, taken before the position attributes the projection does
// not name are stripped; a page that reads to the end has no cursor; the
// items are those Next returns.
func TestIterPage_CursorAndStrip(t *testing.T) {
	names := []string{"pk", "sk"}
	fetch := func(items []Item) fetchFunc {
		return func(context.Context, Item, int) ([]Item, Item, error) { return items, nil, nil }
	}
	for _, tc := range []struct {
		proj   []string
		limit  int
		cursor bool
	}{
		{nil, 3, true}, {[]string{"v"}, 3, true}, {[]string{"v"}, 0, false}, {nil, 0, false}, {[]string{"v", "sk"}, 5, false},
	} {
		t.Run(fmt.Sprint(tc.proj, tc.limit), func(t *testing.T) {
			ctx := context.Background()
			p, err := newIter(ctx, names, tc.proj, 0, tc.limit, nil, fetch(pageItems(5))).page()
			if err != nil {
				t.Fatal(err)
			}
			var want []Item
			it := newIter(ctx, names, tc.proj, 0, tc.limit, nil, fetch(pageItems(5)))
			var cursor string
			for it.Next() {
				want = append(want, it.Item())
				cursor = it.Cursor()
			}
			if !reflect.DeepEqual(p.Items, want) {
				t.Fatalf("items %v, Next gives %v", p.Items, want)
			}
			if !tc.cursor {
				if p.Cursor != "" {
					t.Fatalf("cursor %q at the end", p.Cursor)
				}
				return
			}
			if p.Cursor != cursor {
				t.Fatalf("cursor %q, want %q", p.Cursor, cursor)
			}
			key, err := decodeCursor(p.Cursor, names)
			if err != nil {
				t.Fatal(err)
			}
			if got := key["sk"].(*types.AttributeValueMemberN).Value; got != "2" {
				t.Fatalf("cursor at sk %s, want 2", got)
			}
		})
	}
}

// TestIterPage_NoKeyPerItem: a page builds no position map per item: the
// allocations of a page of 200 items without a cursor are fewer than its
// items (the slices of the page grow a few times).
func TestIterPage_NoKeyPerItem(t *testing.T) {
	const n = 200
	items := pageItems(n)
	allocs := testing.AllocsPerRun(20, func() {
		buf := append([]Item(nil), items...)
		it := newIter(context.Background(), []string{"pk", "sk"}, nil, 0, 0, nil,
			func(context.Context, Item, int) ([]Item, Item, error) { return buf, nil, nil })
		if _, err := it.page(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs >= n {
		t.Fatalf("%v allocations for a page of %d items", allocs, n)
	}
}

// TestPlaceholder: keyOnly's placeholders are the prefix and the term's
// number, within the ones written once and past them.
func TestPlaceholder(t *testing.T) {
	for _, i := range []int{0, 7, 8, 12} {
		if got, want := placeholder(keyNamePH, "#k", i), fmt.Sprint("#k", i); got != want {
			t.Errorf("placeholder %d = %q, want %q", i, got, want)
		}
		if got, want := placeholder(keyUpperPH, ":l", i), fmt.Sprint(":l", i); got != want {
			t.Errorf("placeholder %d = %q, want %q", i, got, want)
		}
	}
}
