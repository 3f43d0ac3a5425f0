package series

import (
	"slices"
	"testing"
)

func TestMergeIntervals(t *testing.T) {
	for _, c := range []struct {
		in, want [][2]int64
	}{
		{nil, nil},
		{[][2]int64{{3, 5}}, [][2]int64{{3, 5}}},
		{[][2]int64{{7, 9}, {1, 2}, {2, 4}, {8, 12}, {20, 20}}, [][2]int64{{1, 4}, {7, 12}, {20, 20}}},
		{[][2]int64{{1, 10}, {2, 3}, {4, 5}}, [][2]int64{{1, 10}}},
		{[][2]int64{{5, 6}, {1, 2}}, [][2]int64{{1, 2}, {5, 6}}},
	} {
		in := slices.Clone(c.in)
		if got := mergeIntervals(in); !slices.Equal(got, c.want) {
			t.Errorf("mergeIntervals(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
