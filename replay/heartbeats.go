package replay

// HeartbeatsSent is the number of periodic heartbeats all nodes have sent at or
// before time t on their nominal schedules (node i at phase_i + k·interval): the
// count a JobTracker receives, including the heartbeats the simulator does not
// deliver to the policy because they could not change anything (a node with no
// free slot, or nothing pending). Out-of-band heartbeats are not counted.
// Policies that count heartbeats (the Coupling Scheduler's Wait Scheduling waits
// a number of them) use it so that skipped heartbeats still count.
func (s *Sim) HeartbeatsSent(t int64) int64 {
	iv := int64(s.hw.Heartbeat)
	var c int64
	for i := range s.nodes {
		if p := s.nodes[i].phase; t >= p {
			c += (t-p)/iv + 1
		}
	}
	return c
}
