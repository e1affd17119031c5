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
//
// With util set (GCC, good-cache-compute of Raicu et al. as BAR §V runs it) the
// best-effort variant turns strict while more than util of the map slots are
// busy: a slot is then kept for local work, since another will soon free.
type FIFO struct {
	replay.Base
	name     string
	strict   bool
	util     float64 // > 0: strict while busy map slots > util × all (GCC)
	totalMap int
}

func newFIFO(strict bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		return &FIFO{name: r.spec(), strict: strict}, nil
	}
}

// Name is the registry name.
func (f *FIFO) Name() string { return f.name }

// Init counts the cluster's map slots.
func (f *FIFO) Init(s replay.Cluster) { f.totalMap = s.Hardware().TotalMapSlots() }

// level is the farthest a map may run from its input now.
func (f *FIFO) level(s replay.Cluster) replay.Locality {
	if f.strict {
		return replay.NodeLocal
	}
	if f.util > 0 {
		var busy int32
		for j := range s.Active() {
			busy += j.RunningMaps()
		}
		if float64(busy) > f.util*float64(f.totalMap) {
			return replay.NodeLocal
		}
	}
	return replay.OffRack
}

// Heartbeat fills the node's free slots.
func (f *FIFO) Heartbeat(s replay.Cluster, n int32) {
	for s.FreeMapSlots(n) > 0 {
		level := f.level(s)
		launched := false
		for j := range s.Active() {
			if j.PendingMaps() == 0 {
				continue
			}
			if t, _ := bestMap(s, j, n, level); t >= 0 {
				s.LaunchMap(j, t, n)
				launched = true
				break
			}
			if level != replay.NodeLocal {
				break // best effort: the head job with pending maps always gets the slot
			}
		}
		if !launched {
			break
		}
	}
	reducesInOrder(s, n, s.Active())
}
