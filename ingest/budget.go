package ingest

import (
	"bytes"
	"errors"
	"io"
)

// maxRead is the most bytes a budgetReader hands out per Read: what a
// decoder may have read ahead of the item it starts.
const maxRead = 32 << 10

// errBudget is what a budgetReader returns past its limit; the decoders
// turn it into an *Error wrapping ErrTooLong.
var errBudget = errors.New("ingest: item too long")

// budgetReader bounds what a library decoder (encoding/json,
// encoding/csv) buffers for one item: mark gives the next item a budget,
// and reads past it fail with errBudget. It counts the lines it hands
// out.
type budgetReader struct {
	r     io.Reader
	n     int64 // bytes handed out
	limit int64 // bytes that may be handed out; 0: no limit
	lines int   // '\n' handed out
	err   error // sticky: errBudget or the reader's (not io.EOF)
}

// mark lets the decoder read max bytes more, and what it may have read
// ahead.
func (c *budgetReader) mark(max int) { c.limit = c.n + int64(max) + 2*maxRead }

// line returns the line of the next byte to hand out.
func (c *budgetReader) line() int { return c.lines + 1 }

func (c *budgetReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if len(p) > maxRead {
		p = p[:maxRead]
	}
	if c.limit > 0 {
		if c.n >= c.limit {
			c.err = errBudget
			return 0, c.err
		}
		if left := c.limit - c.n; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.lines += bytes.Count(p[:n], []byte{'\n'})
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}
