package policy

import (
	"fmt"

	"github.com/tracereplay/tracereplay/replay"
)

// The online baselines of BAR §V. HDS, the Hadoop default scheduler, is Hadoop
// 1's JobQueueTaskScheduler, which is exactly the fifo policy (FIFO job order,
// best-effort locality: node-local, then rack-local, then any map); "hds" is
// registered as an alias of it. §V's description ("a data-local task, else a
// random task") has no racks because its servers share one; fifo takes the
// lowest-indexed non-local map instead of a random one, which makes no
// difference when blocks are placed at random.

// newDS is delay scheduling as §V runs it (DS0.15, DS0.25): the Fair Scheduler
// with jobs waiting for node locality by skip count (Zaharia et al.'s Alg. 1),
// the threshold being a fraction of the map nodes (threshold=0.15 for DS0.15).
func newDS(frac float64) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		frac := r.Float("threshold", frac)
		poolBy := r.String("pool-by", "user", "user", "queue")
		if !(frac > 0) {
			return nil, fmt.Errorf("policy %s: threshold must be positive", r.policy)
		}
		return newFairWith(r.spec(), poolBy, NewSkipCountPicker(frac)), nil
	}
}

// newGCC is good-cache-compute (Raicu et al., HPDC 2009) as §V runs it: FIFO that
// waits for a node-local map only while more than util of the map slots are busy
// (util=0.9). §V words the threshold as "idle servers below 90% of the servers",
// but GCC's own definition is a CPU-utilisation threshold, and Table IV's GCC
// figures match a 90% utilisation threshold (see docs/repro/bar.md).
func newGCC(r *ParamReader) (replay.Policy, error) {
	f := &FIFO{util: r.Float("util", 0.9)}
	if !(f.util > 0) {
		return nil, fmt.Errorf("policy %s: util must be positive", r.policy)
	}
	f.name = r.spec()
	return f, nil
}
