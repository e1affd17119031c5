package replay

import "slices"

// HeartbeatsSent is the number of periodic heartbeats all nodes have sent at or
// before time t on their nominal schedules (node i at phase_i + k·interval): the
// count a JobTracker receives, including the heartbeats the simulator does not
// deliver to the policy because they could not change anything (a node with no
// free slot, or nothing pending). Out-of-band heartbeats are not counted.
// Policies that count heartbeats (the Coupling Scheduler's Wait Scheduling waits
// a number of them) use it so that skipped heartbeats still count.
//
// With t = q·interval + r and every phase in [0, interval), a node whose phase is
// at most r has sent q+1 heartbeats and any other q, so the count is
// N·q + |{phase ≤ r}|: a binary search over the nodes in phase order.
func (s *Sim) HeartbeatsSent(t int64) int64 {
	if t < 0 {
		return 0
	}
	iv := int64(s.hw.Heartbeat)
	q, r := t/iv, t%iv
	k, _ := slices.BinarySearchFunc(s.phaseOrder, r+1, func(n int32, x int64) int { return cmpInt64(s.nodes[n].phase, x) })
	return int64(len(s.nodes))*q + int64(k)
}
