//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used, user and system, for
// benchmarks that must be read on a busy machine; 0 where the system does
// not tell.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
