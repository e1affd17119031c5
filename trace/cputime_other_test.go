//go:build !unix

package trace

import "time"

var processStart = time.Now()

// processCPU stands in for the process's CPU time where getrusage is not
// available: the wall time since the test binary started.
func processCPU() time.Duration { return time.Since(processStart) }
