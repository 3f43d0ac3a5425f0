package series

import (
	"errors"

	"github.com/timetable-db/timetable"
)

// Sentinel errors, matched with errors.Is. ErrNotFound and ErrBadCursor
// are the root package's, so errors.Is(err, table.ErrNotFound) also
// matches them.
var (
	// ErrNotFound is returned by Latest for a series with no reading (or
	// none that has not expired). It is timetable.ErrNotFound.
	ErrNotFound = timetable.ErrNotFound
	// ErrInvalidSchema is returned for a schema that cannot be used.
	ErrInvalidSchema = errors.New("series: invalid schema")
	// ErrInvalidReading is returned by writes for a reading the schema
	// cannot store: more values or tags than it has, a time outside the
	// years 0000-9999, an invalid tag string.
	ErrInvalidReading = errors.New("series: invalid reading")
	// ErrInvalidID is returned for a series id that is empty, longer than
	// 512 bytes, not UTF-8 or holds '#'.
	ErrInvalidID = errors.New("series: invalid series id")
	// ErrExpired is returned by writes for a reading already older than
	// the kind's raw retention: it would never be readable.
	ErrExpired = errors.New("series: reading older than its retention")
	// ErrConflict is returned by the writes of a kind whose Duplicates
	// rule is RejectDifferent for a reading whose series already holds a
	// different one at the same instant; nothing of the call is written.
	ErrConflict = errors.New("series: a different reading at the same instant")
	// ErrInvalidQuery is returned by reads for a query they cannot run
	// (a negative Limit or PageSize, a step or tier that does not fit).
	ErrInvalidQuery = errors.New("series: invalid query")
	// ErrBadCursor is returned by reads for a cursor they did not make. It
	// is timetable.ErrBadCursor.
	ErrBadCursor = timetable.ErrBadCursor
	// ErrUnbounded is returned by a read that needs a bound it was not
	// given (a day-partitioned range with no From and no raw retention).
	ErrUnbounded = errors.New("series: range needs a bound")
	// ErrUnknownKind is returned for a kind name no schema registered.
	ErrUnknownKind = errors.New("series: unknown kind")
	// ErrClosed is returned by calls on a closed Store.
	ErrClosed = errors.New("series: store closed")
	// ErrNoIndex is returned by MetricRange for a kind without MetricIndex.
	ErrNoIndex = errors.New("series: kind has no metric index")
)
