package ingest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// firstInvalid is the offset of the first byte of b that is not UTF-8, or
// -1.
func firstInvalid(b []byte) int64 {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return int64(i)
		}
		i += size
	}
	return -1
}

// FuzzUTF8Reader: whatever the sizes of the reads, utf8Reader passes the
// bytes on unchanged and notes the offset of the first that is not UTF-8.
func FuzzUTF8Reader(f *testing.F) {
	for _, s := range []string{"", "abc", "é中\xff", "\xe4\xb8", "a\xe4\xb8\xadb", "\xef\xbf\xbd", "x\xc3", "\xf0\x9f\x98\x80\x80"} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, n uint8) {
		var r io.Reader = bytes.NewReader(b)
		switch n % 3 {
		case 0:
			r = iotest.OneByteReader(r)
		case 1:
			r = iotest.HalfReader(r)
		}
		u := newUTF8Reader(r)
		got, err := io.ReadAll(u)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("read %q, %v, want %q", got, err, b)
		}
		if want := firstInvalid(b); u.bad != want {
			t.Fatalf("%q: first byte not UTF-8 at %d, want %d", b, u.bad, want)
		}
	})
}
