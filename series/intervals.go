package series

import (
	"cmp"
	"slices"
)

// mergeIntervals sorts the closed intervals iv ([lo, hi] each) by their
// start and merges those that overlap or touch, in place; it returns the
// merged intervals, a prefix of iv.
func mergeIntervals[T cmp.Ordered](iv [][2]T) [][2]T {
	if len(iv) < 2 {
		return iv
	}
	slices.SortFunc(iv, func(a, b [2]T) int { return cmp.Compare(a[0], b[0]) })
	out := iv[:1]
	for _, x := range iv[1:] {
		last := &out[len(out)-1]
		if x[0] <= last[1] {
			last[1] = max(last[1], x[1])
		} else {
			out = append(out, x)
		}
	}
	return out
}
