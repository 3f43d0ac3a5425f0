package local

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/smithy-go"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/timetable-db/timetable"
)

// spaceCheckInterval is how long a measure of the disk's free space is
// trusted before the next write measures it again.
const spaceCheckInterval = 250 * time.Millisecond

// spaceGuard refuses writes while the data folder's disk has less than
// min bytes available (Options.MinFreeBytes). A write that Pebble cannot
// make durable is fatal to it (see failure.go); refusing writes before the
// disk is full leaves Pebble the room its flushes, compactions and
// manifest need, so that writes resume by themselves once space is freed.
// It measures at most every spaceCheckInterval. Safe for concurrent use.
type spaceGuard struct {
	fs  vfs.FS // nil: no guard (in memory, or disabled)
	dir string
	min uint64

	next   atomic.Int64                  // when to measure again, in Unix nanoseconds
	refuse atomic.Pointer[diskFullError] // the last measure's refusal, nil if none
	mu     sync.Mutex                    // held by the one goroutine measuring
}

// check returns a *diskFullError while the disk has less than g.min bytes
// available, nil otherwise (and when it cannot be measured). Writers do
// not wait for a measure in progress: they take the last one.
func (g *spaceGuard) check() error {
	if g.fs == nil {
		return nil
	}
	if now := time.Now().UnixNano(); now >= g.next.Load() && g.mu.TryLock() {
		if now >= g.next.Load() {
			var refuse *diskFullError
			if u, err := g.fs.GetDiskUsage(g.dir); err == nil && u.AvailBytes < g.min {
				refuse = &diskFullError{avail: u.AvailBytes, min: g.min}
			}
			g.refuse.Store(refuse)
			g.next.Store(now + int64(spaceCheckInterval))
		}
		g.mu.Unlock()
	}
	if e := g.refuse.Load(); e != nil {
		return e
	}
	return nil
}

// diskFullError refuses a write while the disk is nearly full. It is a
// smithy.APIError (ServiceUnavailable: the SDKs retry it) and matches
// timetable.ErrDiskFull.
type diskFullError struct{ avail, min uint64 }

func (e *diskFullError) Error() string { return e.ErrorMessage() }

func (e *diskFullError) ErrorMessage() string {
	return "no space left on the data folder's disk: " + strconv.FormatUint(e.avail, 10) +
		" bytes available, writes need " + strconv.FormatUint(e.min, 10) + "; they resume once space is freed"
}

func (e *diskFullError) ErrorCode() string             { return "ServiceUnavailable" }
func (e *diskFullError) ErrorFault() smithy.ErrorFault { return smithy.FaultServer }
func (e *diskFullError) Is(target error) bool          { return target == timetable.ErrDiskFull }
