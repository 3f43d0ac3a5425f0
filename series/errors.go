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
	// ErrUnknownKind is returned by Store.Kind and Store.Change for a
	// kind name that no schema registered. errors.Is(err, ErrNotFound)
	// holds for it too.
	ErrUnknownKind error = &notFoundError{"series: unknown kind"}
	// ErrKindExists is returned by Store.Define for a kind whose name is
	// taken by a different schema.
	ErrKindExists = errors.New("series: kind exists with a different schema")
	// ErrSchemaChange is returned by Store.Change, and by Open for a
	// schema that differs from the stored one, for a change a kind cannot
	// take (its layout, shards, bucket period, or the names and order of
	// its fields and tags other than new ones at the end); the message
	// names the change.
	ErrSchemaChange = errors.New("series: schema change not allowed")
	// ErrTableNotFound is returned by writes while the store's table does
	// not exist (seen at Open, or by a flush or read since; EnsureTable
	// creates it). Nothing of the call is written.
	ErrTableNotFound = errors.New("series: table not found")
	// ErrClosed is returned by calls on a closed Store.
	ErrClosed = errors.New("series: store closed")
	// ErrNoIndex is returned by MetricRange for a kind without MetricIndex.
	ErrNoIndex = errors.New("series: kind has no metric index")
	// ErrIndexNotReady is returned by MetricRange while the table has no
	// metric index, or has one not active yet (DynamoDB builds a new
	// index over the items already there). Define, Change and
	// EnsureTable add it.
	ErrIndexNotReady = errors.New("series: the table's metric index is not ready")
)

// notFoundError is a sentinel that is also timetable.ErrNotFound for
// errors.Is.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }

// Is reports whether target is ErrNotFound.
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }
