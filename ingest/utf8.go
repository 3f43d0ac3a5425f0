package ingest

import (
	"io"
	"unicode/utf8"
)

// utf8Reader passes r's bytes on and notes the offset of the first byte
// that is not UTF-8. encoding/json replaces such bytes in a string with
// U+FFFD, which would change a series id or tag silently; the JSON
// decoders refuse the token that holds it instead, as CSV and line
// protocol refuse theirs.
type utf8Reader struct {
	r    io.Reader
	off  int64  // bytes passed on
	bad  int64  // offset of the first byte that is not UTF-8; -1: none yet
	tail []byte // the start of a rune that the last read cut
}

func newUTF8Reader(r io.Reader) *utf8Reader { return &utf8Reader{r: r, bad: -1} }

func (u *utf8Reader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if u.bad < 0 && n > 0 {
		u.check(p[:n])
	}
	u.off += int64(n)
	if err == io.EOF && u.bad < 0 && len(u.tail) > 0 {
		u.bad = u.off - int64(len(u.tail)) // a rune cut by the end
	}
	return n, err
}

// check looks for a byte that is not UTF-8 in b, the bytes after u.off.
func (u *utf8Reader) check(b []byte) {
	start := u.off - int64(len(u.tail)) // the offset of buf[0]
	buf := b
	if len(u.tail) > 0 {
		buf = append(u.tail, b...)
		u.tail = nil
	}
	if utf8.Valid(buf) {
		return
	}
	for i := 0; i < len(buf); {
		if buf[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(buf[i:]) { // cut by the end of the read
				u.tail = append([]byte(nil), buf[i:]...)
				return
			}
			u.bad = start + int64(i)
			return
		}
		i += size
	}
}

// notUTF8 reports whether the token a decoder reading from u just returned,
// which ends at offset end (json.Decoder.InputOffset), holds a byte that
// is not UTF-8: the first such byte is before end (and was not in the
// tokens before, which were checked the same way).
func (u *utf8Reader) notUTF8(end int64) bool { return u != nil && u.bad >= 0 && u.bad < end }
