//go:build !unix

package flow

// cpuNanos is not measured off Unix; benchmarks then report 0 CPU time.
func cpuNanos() int64 { return 0 }
