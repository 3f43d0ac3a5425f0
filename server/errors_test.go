package server

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/timetable-db/timetable"
)

// TestClassify_DiskFull: the errors of a full disk from every layer are
// answered 507 insufficient_storage (with Retry-After when freeing space
// is enough), another storage failure 503, never 500, and the message
// names no file.
func TestClassify_DiskFull(t *testing.T) {
	enospc := &os.PathError{Op: "write", Path: "/data/wal/0000000000000001.wal", Err: syscall.ENOSPC}
	for _, c := range []struct {
		name   string
		err    error
		status int
		retry  bool
		words  string
	}{
		{"series log", fmt.Errorf("series: cannot log readings: %w", fmt.Errorf("wal: cannot write segment: %w", enospc)),
			http.StatusInsufficientStorage, true, "until space is freed"},
		{"series log, not ready", fmt.Errorf("series: the write-ahead log cannot take writes: %w", enospc),
			http.StatusInsufficientStorage, true, "until space is freed"},
		{"engine space guard", fmt.Errorf("local: cannot commit: %w", timetable.ErrDiskFull),
			http.StatusInsufficientStorage, true, "until space is freed"},
		{"engine failed, disk full", fmt.Errorf("flush: %w %w", timetable.ErrStorageFailed, timetable.ErrDiskFull),
			http.StatusInsufficientStorage, false, "restart"},
		{"engine failed", fmt.Errorf("flush: %w", timetable.ErrStorageFailed),
			http.StatusServiceUnavailable, false, "restarts"},
	} {
		ae := classify(c.err)
		switch {
		case ae == nil:
			t.Errorf("%s: classify(%v) = nil (500)", c.name, c.err)
		case ae.status != c.status || (ae.retryAfter > 0) != c.retry || !strings.Contains(ae.message, c.words):
			t.Errorf("%s: classify = %d %q retry after %v, want %d saying %q (retry %v)", c.name, ae.status, ae.message, ae.retryAfter, c.status, c.words, c.retry)
		case strings.Contains(ae.message, "/data"):
			t.Errorf("%s: message %q names a file", c.name, ae.message)
		}
	}
	if ae := classify(errors.New("other")); ae != nil {
		t.Errorf("classify(other) = %+v, want nil", ae)
	}
}
