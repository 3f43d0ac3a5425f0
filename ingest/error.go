package ingest

import (
	"errors"
	"fmt"
)

// Error is a refused input: a decoder returns the first one it meets, and
// no readings. Every refusal of the input's content is an *Error; an
// error reading the input (the reader's own, such as
// *http.MaxBytesError) is returned wrapped, not as an *Error.
type Error struct {
	// Line is the 1-based number of the line the error is on: of a
	// line-protocol entry's first line, of a JSON line, of a CSV row's
	// first line (the header is line 1). For a JSON body it is the 1-based
	// index of the reading (Item "reading"), 0 for the body as a whole
	// (not JSON at all, an unknown key at its top).
	Line int
	// Item is what Line counts: "" for lines, "reading" for the readings
	// of a JSON body.
	Item string
	// Reason says what is wrong, without the line.
	Reason string
	// Err is the cause the caller may match with errors.Is or errors.As:
	// ErrTooLong, ErrTooManyReadings, ErrTooManySeries, the Lookup's
	// error, the error of Options.Reserve; nil otherwise.
	Err error
}

// Error returns "line 3: field \"x\" is not a field of kind SENSOR"
// ("reading 3: ..." for a JSON body, the reason alone for Line 0).
func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return e.Reason
	case e.Item != "":
		return fmt.Sprintf("%s %d: %s", e.Item, e.Line, e.Reason)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrTooLong is the cause (Error.Err) of a line, entry, row or JSON
	// reading longer than Options.MaxLineBytes.
	ErrTooLong = errors.New("ingest: line too long")
	// ErrTooManyReadings is the cause (Error.Err) of a body with more
	// readings than Options.MaxReadings.
	ErrTooManyReadings = errors.New("ingest: too many readings")
	// ErrTooManySeries is the cause (Error.Err) of a body with readings of
	// more series than Options.MaxSeries.
	ErrTooManySeries = errors.New("ingest: too many series")
)
