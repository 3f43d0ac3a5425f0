package timetable

import "errors"

// Sentinel errors shared by the packages above API, matched with
// errors.Is. Package table and package series export them under the same
// names (table.ErrNotFound is ErrNotFound), so one test matches an error
// from either.
var (
	// ErrNotFound is returned for something absent: by table's Get when no
	// item has the key, by series' Latest for a series with no reading
	// (or none that has not expired).
	ErrNotFound = errors.New("timetable: not found")
	// ErrBadCursor is returned by a paged read for a cursor it did not
	// make: table's Query and Scan (also for a cursor made for another
	// index), series' range reads.
	ErrBadCursor = errors.New("timetable: invalid cursor")
)
