//go:build !unix

package testenv

import "time"

// CPUTime returns 0: the system does not tell the process's CPU time.
func CPUTime() time.Duration { return 0 }
