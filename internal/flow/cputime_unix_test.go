//go:build unix

package flow

import "syscall"

// cpuNanos is the CPU time this process has used (user + system, all
// threads), in ns; benchmarks report it beside wall time because the machine
// they run on may be shared.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
