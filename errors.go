package timetable

import (
	"errors"
	"syscall"
)

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

// Errors of a store whose disk fails. A write refused or failed for one of
// them was not acknowledged: it may be retried.
var (
	// ErrDiskFull is returned (wrapped) by a write that could not be made
	// durable because the disk of the data folder is full (ENOSPC). The
	// server answers it 507 Insufficient Storage. Whether writes succeed
	// again once space is freed, or only after a restart, is said by the
	// store that returned it.
	ErrDiskFull = errors.New("timetable: no space left on the data folder's disk")
	// ErrStorageFailed is returned (wrapped) by a write that failed because
	// the storage under it failed (a full disk, an I/O error) in a way that
	// needs a restart; ErrDiskFull is also matched when the cause was a
	// full disk.
	ErrStorageFailed = errors.New("timetable: storage failed; restart the server")
)

// IsDiskFull reports whether err is, or wraps, ErrDiskFull or ENOSPC: a
// write failed for lack of disk space.
func IsDiskFull(err error) bool {
	return errors.Is(err, ErrDiskFull) || errors.Is(err, syscall.ENOSPC)
}
