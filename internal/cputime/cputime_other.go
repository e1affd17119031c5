//go:build !unix

// Package cputime reads the CPU time this process has used, for tests that
// bound the work an operation does: unlike wall time, a loaded machine does
// not stretch it.
package cputime

import "time"

var start = time.Now()

// Process stands in for the process's CPU time where getrusage is not
// available: the wall time since the process started.
func Process() time.Duration { return time.Since(start) }
