package expr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/timetable-db/timetable/local/internal/value"
)

// TestUnionStrings checks the map path of unionStrings against union's
// pairwise one, on sets small and large, overlapping, with repeats in the
// added elements.
func TestUnionStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	set := func(n, span int) []string {
		var s []string
		for range n {
			e := fmt.Sprint(r.IntN(span))
			if !slices.Contains(s, e) {
				s = append(s, e)
			}
		}
		return s
	}
	for _, c := range []struct{ a, b, span int }{{0, 0, 10}, {3, 4, 5}, {100, 100, 150}, {2000, 3000, 4000}, {5000, 10, 5000}} {
		a := set(c.a, c.span)
		var b []string
		for range c.b {
			b = append(b, fmt.Sprint(r.IntN(c.span))) // may repeat
		}
		want := union(a, b, value.HasString)
		got := unionStrings(a, b)
		if !slices.Equal(got, want) {
			t.Errorf("sets of %d and %d: unionStrings differs from union (%d and %d elements)", c.a, c.b, len(got), len(want))
		}
		if len(a) > 0 && &got[0] == &a[0] {
			t.Errorf("sets of %d and %d: the result shares the input's array", c.a, c.b)
		}
	}
}
