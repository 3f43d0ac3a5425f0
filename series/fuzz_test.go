package series

import (
	"bytes"
	"math"
	"testing"
)

func FuzzDecodeTags(f *testing.F) {
	f.Add(encodeTags(3, 2, func(i, j int) string { return []string{"a", "", "b"}[i] + string(rune('x'+j)) }), 3, 2)
	f.Add([]byte{1, 0, 0}, 0, 0)
	f.Add([]byte{1, 2, 1, 2, 0, 1, 'q', 0, 1}, 2, 1)
	f.Fuzz(func(t *testing.T, b []byte, n, nt int) {
		if n < 0 || n > 1<<12 || nt < 0 || nt > 16 {
			return
		}
		out, err := decodeTags(b, n, nt)
		if err != nil {
			return
		}
		// What decodes re-encodes to a column that decodes the same.
		again := encodeTags(n, nt, func(i, j int) string { return out[i][j] })
		out2, err := decodeTags(again, n, nt)
		if err != nil {
			t.Fatalf("re-encoded column does not decode: %v", err)
		}
		for i := range out {
			for j := range out[i] {
				if out[i][j] != out2[i][j] {
					t.Fatalf("tag %d/%d: %q then %q", i, j, out[i][j], out2[i][j])
				}
			}
		}
	})
}

func FuzzDecodeWAL(f *testing.F) {
	f.Add(encodeWALReadings("SENSOR", "s1", []rec{{t: 1, seq: 2, vals: []float64{1.5, math.NaN()}, tags: []string{"x"}}}))
	f.Add(encodeWALBatch(42))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeWAL(b)
		if err != nil {
			return
		}
		var again []byte
		if r.typ == walBatch {
			again = encodeWALBatch(r.lsn)
		} else {
			again = encodeWALReadings(r.kind, r.id, r.recs)
		}
		r2, err := decodeWAL(again)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if !bytes.Equal(encodeAgain(r2), again) {
			t.Fatal("record changed on a round trip")
		}
	})
}

func encodeAgain(r walRecord) []byte {
	if r.typ == walBatch {
		return encodeWALBatch(r.lsn)
	}
	return encodeWALReadings(r.kind, r.id, r.recs)
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(cursor{t: 1, ord: 2, left: 3}.encode())
	f.Add(cursor{reverse: true, t: -5}.encode())
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s)
		if err != nil {
			return
		}
		again := c.encode()
		c2, err := decodeCursor(again)
		if err != nil || *c2 != *c {
			t.Fatalf("cursor %q: round trip gives %q", s, again)
		}
	})
}
