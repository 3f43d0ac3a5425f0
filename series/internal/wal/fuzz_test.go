package wal

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FuzzReplay opens a log whose only segment holds arbitrary bytes and
// replays it: it must never panic, must allocate in proportion to the file
// (never to a length read from it), and when Open succeeds the log must
// replay in LSN order and accept appends.
func FuzzReplay(f *testing.F) {
	seed := func(opts *Options, writes ...[]string) {
		dir := f.TempDir()
		l, err := Open(dir, opts)
		if err != nil {
			f.Fatal(err)
		}
		for _, w := range writes {
			bs := make([][]byte, len(w))
			for i, r := range w {
				bs[i] = []byte(r)
			}
			if _, err := l.Append(context.Background(), bs...); err != nil {
				f.Fatal(err)
			}
		}
		l.Release(2)
		l.Close()
		b, err := os.ReadFile(filepath.Join(dir, segName(1)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed(nil)
	seed(nil, []string{"a"}, []string{"b", "c"}, []string{"", "dddddddddddddddddddd"})
	seed(nil, []string{"0123456789"}, []string{"x"}, []string{"y"})
	f.Add(appendSegHeader(nil, 1))
	f.Add([]byte("TTWL"))

	f.Fuzz(func(t *testing.T, data []byte) {
		fs := newMemFS()
		fs.files[filepath.Join("wal", segName(1))] = &memData{b: data}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		l, err := Open("wal", &Options{FS: fs})
		if err != nil {
			return
		}
		defer l.Close()
		var prev uint64
		released := l.Stats().ReleasedLSN
		err = l.Replay(func(lsn uint64, rec []byte) error {
			if lsn <= prev || lsn <= released {
				t.Fatalf("lsn %d after %d (released %d)", lsn, prev, released)
			}
			prev = lsn
			return nil
		})
		if err != nil {
			t.Fatalf("Replay after a successful Open: %v", err)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > uint64(4*len(data))+1<<20 {
			t.Fatalf("allocated %d bytes for a %d-byte segment", n, len(data))
		}
		last := l.Stats().LastLSN
		lsn, err := l.Append(context.Background(), []byte("after"))
		if err != nil || lsn != last+1 {
			t.Fatalf("Append after recovery = %d, %v; want %d", lsn, err, last+1)
		}
	})
}
