//go:build unix

// Package cputime reads the CPU time this process has used, for tests that
// bound the work an operation does: unlike wall time, a loaded machine does
// not stretch it.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time (user + system) this process has used so far, 0
// if the system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
