package testenv

import (
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// LowSpaceFS is a vfs.FS that reports, as the space available on its
// disk, what Avail holds at the time it is asked; all else it passes to
// the FS it wraps.
type LowSpaceFS struct {
	vfs.FS
	Avail *atomic.Uint64
}

// GetDiskUsage returns the wrapped FS's usage of path with AvailBytes
// replaced by what Avail holds.
func (fs LowSpaceFS) GetDiskUsage(path string) (vfs.DiskUsage, error) {
	u, err := fs.FS.GetDiskUsage(path)
	u.AvailBytes = fs.Avail.Load()
	return u, err
}
