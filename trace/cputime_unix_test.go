//go:build unix

package trace

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used so far.
// The limits tests bound it rather than wall time, which a loaded machine
// stretches without the code doing more work.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
