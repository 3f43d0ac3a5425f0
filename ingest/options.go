package ingest

import (
	"fmt"
	"time"

	"github.com/timetable-db/timetable/series"
)

// Lookup returns the schema of a kind, or an error (unknown kind, such as
// one wrapping series.ErrUnknownKind). LineProtocol reports the error with
// the line that named the kind (in Error.Err); JSON, JSONLines and CSV
// return it as it is. The decoders call it once per kind and request.
type Lookup func(kind string) (series.Schema, error)

// DefaultMaxLineBytes is the default of Options.MaxLineBytes: 1 MiB.
const DefaultMaxLineBytes = 1 << 20

// Options tune a decoder. The zero value is valid: every field documents
// its default.
type Options struct {
	// Now is the time of line-protocol readings without a timestamp;
	// zero means the clock at the start of the call. Like every time the
	// decoders return, it is truncated to the millisecond.
	Now time.Time
	// Precision is the unit of line-protocol timestamps; default
	// Nanosecond.
	Precision Precision
	// MaxReadings refuses a body with more readings (an Error wrapping
	// ErrTooManyReadings, naming the first line over); 0 means no limit.
	MaxReadings int
	// MaxSeries refuses a body with readings of more distinct series, of
	// all its kinds (an Error wrapping ErrTooManySeries, naming the line
	// of the first series over): it bounds the series one request may
	// create. 0 means no limit.
	MaxSeries int
	// Reserve, if set, is called as the batch grows, before the decoder
	// keeps the reading that needs it, with the bytes of memory to hold
	// beyond those reserved by the calls before (an estimate of what the
	// Batch holds: its readings, values, tags, series and strings, in
	// steps of at least ReserveStep). An error stops the decoding: it is
	// returned wrapped in an *Error naming the line. The caller releases
	// what it reserved (Batch.Bytes at most) once done with the batch,
	// also when the decoder fails.
	Reserve func(n int64) error
	// MaxLineBytes is the most bytes of one line (line protocol, JSON
	// lines, CSV), one line-protocol entry or CSV row spanning lines
	// (quoted newlines), or one reading of a JSON body; more is an Error
	// wrapping ErrTooLong. It bounds what a decoder buffers beyond the
	// readings it returns. Default DefaultMaxLineBytes (1 MiB).
	MaxLineBytes int
	// Grow, if set, opens the kinds to line protocol and Prometheus remote
	// write: for a kind the Lookup does not know, or one that lacks a
	// field or tag an entry names (or, for remote write, the metric
	// metadata sent), the decoder calls Grow with a schema of the kind's
	// name and the fields, tags and Meta to add (in the entry's order),
	// and goes on with the schema it returns, which must be the kind's as
	// Lookup knew it (if it did) with those names appended: what
	// series.Store.Grow does. Its error refuses the entry: a
	// series.ErrLimit or series.ErrInvalidSchema as an *Error naming the
	// line, any other returned wrapped (a store that failed). nil
	// refuses unknown kinds, fields and tags as *Error.
	//
	// Grow changes the store as the decoder goes: a body refused at a
	// later entry leaves the kinds, fields and tags it added.
	Grow func(sc series.Schema) (series.Schema, error)
	// Series, if set, remembers the series of the label sets of remote
	// write (1.0 and 2.0) across calls (see SeriesCache): the readings of a cached
	// series share its id and Tags with other batches, which must not
	// change them. nil decodes every label set.
	Series *SeriesCache
}

func (o *Options) maxLine() int {
	if o.MaxLineBytes <= 0 {
		return DefaultMaxLineBytes
	}
	return o.MaxLineBytes
}

// now returns Options.Now, or the clock, truncated to the millisecond.
func (o *Options) now() time.Time {
	t := o.Now
	if t.IsZero() {
		t = time.Now()
	}
	return toMs(t)
}

// Precision is the unit of line-protocol timestamps. The zero value is
// Nanosecond.
type Precision uint8

const (
	Nanosecond Precision = iota
	Microsecond
	Millisecond
	Second
	Minute
	Hour
)

// ParsePrecision reads the precision parameter of InfluxDB's write
// endpoints: "ns" or "n", "us" or "u", "ms", "s", "m", "h"; "" is
// Nanosecond.
func ParsePrecision(s string) (Precision, error) {
	switch s {
	case "", "ns", "n":
		return Nanosecond, nil
	case "us", "u":
		return Microsecond, nil
	case "ms":
		return Millisecond, nil
	case "s":
		return Second, nil
	case "m":
		return Minute, nil
	case "h":
		return Hour, nil
	}
	return 0, fmt.Errorf("ingest: unknown precision %q: want ns, us, ms, s, m or h", s)
}

// String returns "ns", "us", "ms", "s", "m" or "h".
func (p Precision) String() string {
	switch p {
	case Nanosecond:
		return "ns"
	case Microsecond:
		return "us"
	case Millisecond:
		return "ms"
	case Second:
		return "s"
	case Minute:
		return "m"
	case Hour:
		return "h"
	}
	return fmt.Sprintf("Precision(%d)", uint8(p))
}
