package policy

import "github.com/tracereplay/tracereplay/replay"

// FIFO is the Hadoop 1 FIFO scheduler as the EAS paper (§1) and the delay
// scheduling paper describe it: jobs in submit order; a free map slot takes a map
// of the first job that has one, preferring one whose input is on the node, then
// in its rack, then any (best effort). In the strict variant (FIFO-S of EAS §5) a
// map runs only where a replica of its input lies.
//
// Choices where the papers are silent: every free slot of a heartbeat is filled
// (Hadoop's assignmultiple); reduces go to the first job in submit order whose
// slow-start threshold is met; in the strict variant a slot that the head job
// cannot use locally goes to the first later job that can, since leaving it idle
// behind the head job is what no FIFO implementation does (JobQueueTaskScheduler
// also scans the whole queue for local work).
type FIFO struct {
	replay.Base
	name   string
	strict bool
}

func newFIFO(strict bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		return &FIFO{name: r.spec(), strict: strict}, nil
	}
}

// Name is the registry name.
func (f *FIFO) Name() string { return f.name }

// Heartbeat fills the node's free slots.
func (f *FIFO) Heartbeat(s *replay.Sim, n int32) {
	level := replay.OffRack
	if f.strict {
		level = replay.NodeLocal
	}
	for s.FreeMapSlots(n) > 0 {
		launched := false
		for _, j := range s.Active() {
			if j.PendingMaps == 0 {
				continue
			}
			if t, _ := bestMap(s, j, n, level); t >= 0 {
				s.LaunchMap(j, t, n)
				launched = true
				break
			}
			if !f.strict {
				break // best effort: the head job with pending maps always gets the slot
			}
		}
		if !launched {
			break
		}
	}
	for s.FreeReduceSlots(n) > 0 {
		launched := false
		for _, j := range s.Active() {
			if canReduce(j) {
				s.LaunchReduce(j, n)
				launched = true
				break
			}
		}
		if !launched {
			break
		}
	}
}
