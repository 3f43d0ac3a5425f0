package design

import "testing"

func TestWriteUnits(t *testing.T) {
	for _, c := range []struct {
		bytes int
		tx    bool
		want  float64
	}{
		{0, false, 1}, // a delete of an absent item still costs a unit
		{1, false, 1},
		{1024, false, 1},
		{1025, false, 2},
		{3 * 1024, false, 3}, // AWS's example: a 3 KB write is 3 WCU ...
		{3 * 1024, true, 6},  // ... and 6 in a transaction
		{400 * 1024, false, 400},
		{100, true, 2},
	} {
		if got := WriteUnits(c.bytes, c.tx); got != c.want {
			t.Errorf("WriteUnits(%d, %v) = %v, want %v", c.bytes, c.tx, got, c.want)
		}
	}
}

func TestReadUnits(t *testing.T) {
	for _, c := range []struct {
		bytes int
		c     Consistency
		want  float64
	}{
		{0, Eventual, 0.5}, // a read of nothing costs the minimum
		{0, Strong, 1},
		{4096, Strong, 1},
		{4097, Strong, 2},
		{8 * 1024, Strong, 2}, // AWS's examples for an 8 KB item
		{8 * 1024, Eventual, 1},
		{8 * 1024, Transactional, 4},
		{10000, Eventual, 1.5},
		{1 << 20, Eventual, 128}, // a full 1 MB page
	} {
		if got := ReadUnits(c.bytes, c.c); got != c.want {
			t.Errorf("ReadUnits(%d, %v) = %v, want %v", c.bytes, c.c, got, c.want)
		}
	}
}
