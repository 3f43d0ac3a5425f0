package ingest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// feed is the reader the line-protocol decoder reads the input through.
// It hands out at most one line per Read, so that when the decoder has
// found the start of an entry, the last line handed out is the entry's
// (line protocol has no other way to tell a caller the line of an entry
// it accepted). Between entries it drops blank and comment lines, which
// the decoder would otherwise keep in its buffer until the next entry.
// It refuses a line, or an entry spanning lines (a string field holding
// a newline), longer than max bytes: the decoder's buffer, which holds an
// entry and the next line, stays within about twice that.
type feed struct {
	br  *bufio.Reader
	max int

	line     int  // line of the next byte to hand out (1-based)
	lineLen  int  // bytes of that line handed out or dropped
	lastLine int  // line of the last byte handed out
	inEntry  bool // between begin and end
	entry    int  // line of the entry's first byte (set by begin)
	entryLen int  // bytes of the entry handed out
	prevLen  int  // length of the last line handed out whole

	err error // sticky: *Error (too long) or the reader's
}

func newFeed(r io.Reader, max int) *feed {
	return &feed{br: bufio.NewReaderSize(r, 64<<10), max: max, line: 1}
}

// begin records that the decoder found an entry's start: it is on the
// last line handed out. It returns the entry's line.
func (f *feed) begin() int {
	f.inEntry = true
	f.entry = f.lastLine
	f.entryLen = f.lineLen
	if f.line != f.lastLine { // the entry's line was handed out whole
		f.entryLen = f.prevLen
	}
	return f.entry
}

// end records that the decoder consumed the entry begun.
func (f *feed) end() { f.inEntry = false }

func (f *feed) tooLong(line int) error {
	return &Error{Line: line, Reason: fmt.Sprintf("longer than %d bytes", f.max), Err: ErrTooLong}
}

// Read hands out the input, at most one line (through its '\n') per call.
func (f *feed) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.lineLen == 0 && !f.inEntry {
		if err := f.skip(); err != nil {
			f.err = err
			return 0, err
		}
	}
	if f.br.Buffered() == 0 {
		if _, err := f.br.Peek(1); err != nil {
			f.err = err
			return 0, err
		}
	}
	b, _ := f.br.Peek(f.br.Buffered())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	n := copy(p, b)
	b = b[:n]
	f.lineLen += n
	if f.inEntry {
		f.entryLen += n
		if f.entryLen > f.max+1 { // +1: the '\n' does not count
			f.err = f.tooLong(f.entry)
			return 0, f.err
		}
	} else if f.lineLen > f.max+1 {
		f.err = f.tooLong(f.line)
		return 0, f.err
	}
	f.br.Discard(n)
	f.lastLine = f.line
	if b[n-1] == '\n' {
		f.prevLen = f.lineLen
		f.line++
		f.lineLen = 0
	}
	return n, nil
}

// skip drops the blank and comment lines at the read point, and the
// spaces that start the next line (which the decoder would skip).
func (f *feed) skip() error {
	for {
		b, err := f.br.Peek(1)
		if err != nil {
			return err
		}
		switch b[0] {
		case ' ':
			f.br.Discard(1)
			if f.lineLen++; f.lineLen > f.max {
				return f.tooLong(f.line)
			}
		case '\n':
			f.br.Discard(1)
			f.line++
			f.lineLen = 0
		case '\r':
			if b, _ := f.br.Peek(2); len(b) < 2 || b[1] != '\n' {
				return nil // the decoder reports a lone carriage return
			}
			f.br.Discard(2)
			f.line++
			f.lineLen = 0
		case '#':
			if err := f.dropLine(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// dropLine drops the rest of the line, through its '\n'.
func (f *feed) dropLine() error {
	for {
		b, err := f.br.ReadSlice('\n')
		f.lineLen += len(b)
		if f.lineLen > f.max+1 {
			return f.tooLong(f.line)
		}
		switch err {
		case nil:
			f.line++
			f.lineLen = 0
			return nil
		case bufio.ErrBufferFull:
			continue
		}
		return err
	}
}
