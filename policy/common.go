package policy

import (
	"iter"

	"github.com/tracereplay/tracereplay/replay"
)

// bestMap returns the pending map of j that is closest to node n, no farther than
// maxLevel, and its level; -1 when there is none.
func bestMap(s replay.Cluster, j *replay.JobView, n int32, maxLevel replay.Locality) (int32, replay.Locality) {
	if j.PendingMaps() == 0 {
		return -1, 0
	}
	if t := j.LocalMap(n); t >= 0 {
		return t, replay.NodeLocal
	}
	if maxLevel >= replay.RackLocal {
		if t := j.RackMap(s.Topology().Nodes[n].Rack); t >= 0 {
			return t, replay.RackLocal
		}
	}
	if maxLevel >= replay.OffRack {
		if t := j.AnyMap(); t >= 0 {
			return t, s.Locality(j, t, n)
		}
	}
	return -1, 0
}

// reducesInOrder fills node n's free reduce slots with reduces of the first jobs
// of order whose slow-start threshold is met.
func reducesInOrder(s replay.Cluster, n int32, order iter.Seq[*replay.JobView]) {
	for j := range order {
		if s.FreeReduceSlots(n) == 0 {
			return
		}
		// Launching a reduce of j changes no other job's canReduce, so the
		// first job that can reduce keeps the slots until it no longer can.
		for s.FreeReduceSlots(n) > 0 && canReduce(j) {
			s.LaunchReduce(j, n)
		}
	}
}

// canReduce reports whether j has a reduce that may launch now.
func canReduce(j *replay.JobView) bool { return j.ReducesReady() && j.PendingReduces() > 0 }

// poolOf names the pool a job belongs to under a "pool by" rule.
func poolOf(j *replay.JobView, by string) string {
	key := j.User()
	if by == "queue" {
		key = j.Queue()
	}
	if key == "" {
		return "default"
	}
	return key
}
