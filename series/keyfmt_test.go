package series

import (
	"fmt"
	"testing"
	"time"

	"github.com/timetable-db/timetable/keys"
)

// TestOrderKey checks the key formats against their definitions: ts is
// keys.Timestamp, hex16 16 lower-case hex digits, orderKey both joined
// by keys.Sep.
func TestOrderKey(t *testing.T) {
	for _, ms := range []int64{minMs, minMs + 1, -1, 0, 1, 1733063400123, timeMs(t0), maxMs - 1} {
		for _, seq := range []uint64{0, 1, 0xabcdef, 1<<63 + 5, ^uint64(0)} {
			want, err := keys.Timestamp(time.UnixMilli(ms))
			if err != nil {
				t.Fatal(err)
			}
			if got := ts(ms); got != want {
				t.Errorf("ts(%d) = %q, want %q", ms, got, want)
			}
			h := fmt.Sprintf("%016x", seq)
			if got := hex16(seq); got != h {
				t.Errorf("hex16(%#x) = %q, want %q", seq, got, h)
			}
			if got := orderKey(ms, seq); got != want+keys.Sep+h {
				t.Errorf("orderKey(%d, %#x) = %q, want %q", ms, seq, got, want+keys.Sep+h)
			}
		}
	}
}
