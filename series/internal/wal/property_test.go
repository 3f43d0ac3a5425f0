package wal

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestRecover_Random damages random logs: damage confined to the last write
// is always a torn tail (every earlier record survives, nothing errors);
// damage to an earlier write, with the last write intact, is always
// corruption.
func TestRecover_Random(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 400 {
		fs := newMemFS()
		opts := &Options{FS: fs}
		l, err := Open("wal", opts)
		if err != nil {
			t.Fatal(err)
		}
		var (
			all    []string
			starts []int // index in all of each write's first record
		)
		for range 2 + r.IntN(12) {
			starts = append(starts, len(all))
			var w [][]byte
			for range 1 + r.IntN(5) {
				rec := make([]byte, r.IntN(200))
				for i := range rec {
					rec[i] = byte(r.IntN(256))
				}
				w = append(w, rec)
				all = append(all, string(rec))
			}
			if _, err := l.Append(context.Background(), w...); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		d := fs.files[filepath.Join("wal", segName(1))]
		offs := frameOffsets(t, d.b)
		lastStart := offs[starts[len(starts)-1]]

		torn := r.IntN(2) == 0
		var lo, hi int // damage lands in [lo, hi)
		if torn {
			lo, hi = lastStart, len(d.b)
		} else {
			lo, hi = segHeaderSize, lastStart
		}
		a := lo + r.IntN(hi-lo)
		b := a + 1 + r.IntN(hi-a)
		switch r.IntN(3) {
		case 0:
			if torn {
				d.b = d.b[:a]
				break
			}
			fallthrough
		case 1:
			clear(d.b[a:b])
		case 2:
			for i := a; i < b; i++ {
				d.b[i] ^= byte(1 + r.IntN(255))
			}
		}

		l, err = Open("wal", opts)
		if !torn {
			if !errors.Is(err, ErrCorrupt) {
				// Zeroing bytes that were already zero changes nothing.
				if err == nil && allReplay(t, l, all) {
					l.Close()
					continue
				}
				t.Fatalf("trial %d: damage to [%d,%d) before the last write at %d: Open = %v, want corruption", trial, a, b, lastStart, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("trial %d: damage to [%d,%d) in the last write at %d: Open = %v", trial, a, b, lastStart, err)
		}
		var got []string
		l.Replay(func(_ uint64, rec []byte) error {
			got = append(got, string(rec))
			return nil
		})
		keep := starts[len(starts)-1]
		if len(got) < keep || !slices.Equal(got, all[:len(got)]) {
			t.Fatalf("trial %d: torn tail kept %d records (not a prefix, or fewer than %d)", trial, len(got), keep)
		}
		l.Close()
	}
}

func allReplay(t *testing.T, l *Log, want []string) bool {
	var got []string
	l.Replay(func(_ uint64, rec []byte) error {
		got = append(got, string(rec))
		return nil
	})
	return slices.Equal(got, want)
}
