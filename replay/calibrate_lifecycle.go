package replay

import "github.com/tracereplay/tracereplay/trace"

// hadoopParallelCopies is Hadoop's default mapred.reduce.parallel.copies.
const hadoopParallelCopies = 5

// parallelCopies is the number of map outputs a reduce fetches at once.
func parallelCopies(Hardware) int { return hadoopParallelCopies }

// fitSetupCleanup fits the setup and cleanup task durations. This schema keeps
// no setup or cleanup tasks, so it only says so.
func (c *Calibration) fitSetupCleanup(*trace.Trace, func(*trace.Task) bool) {
	c.note("setup_task and cleanup_task: this trace schema keeps no setup or cleanup tasks")
}
