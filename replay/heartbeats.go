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

// Held heartbeats. A node whose slot frees while no task waits anywhere gets
// its next periodic heartbeat scheduled (slotFreed), and that heartbeat, when
// nothing has come to wait by its time, does nothing but make the node dormant
// (heartbeat: no free slot or nothing pending). Such a heartbeat is held: it
// takes its sequence number as if scheduled, so every other event keeps the
// sequence number, and so the place among simultaneous events, that it has
// when all heartbeats are queued, but it is not put in the queue. When tasks
// come to wait (wake, on every change of the pending count from 0), each held
// heartbeat whose time and sequence number are still ahead of the event being
// handled is put in the queue with them, exactly where it would have been; a
// held heartbeat already behind it would have found nothing waiting, and the
// node is dormant, as that heartbeat would have left it. The results are the
// same, event for event, without the heartbeats that could not change
// anything: only Summary.Events differs.
//
// Held heartbeats exist only while nothing waits, without speculation (where
// a heartbeat may act while tasks run) and without out-of-band heartbeats
// (which supersede a scheduled one); they are released before anything reads
// a node's next heartbeat while tasks wait: the sweep runs only then, and a
// slot freed on a node with a held heartbeat first retires it if it is past
// (expireHeld).

// hold holds back node n's heartbeat at ns.nextHB, taking its sequence number.
func (s *Sim) hold(n int32) {
	ns := &s.nodes[n]
	s.seq++
	ns.hbSeq = s.seq
	if !ns.held {
		ns.held = true
		s.heldNodes = append(s.heldNodes, n)
	}
}

// heldPast reports whether node n's held heartbeat comes before the event being
// handled: its time is earlier, or the same with an earlier sequence number.
func (s *Sim) heldPast(ns *nodeState) bool {
	return ns.nextHB < s.now || ns.nextHB == s.now && ns.hbSeq < s.curSeq
}

// expireHeld makes node n dormant if its held heartbeat is past: nothing waited
// at its time, so it would have found nothing to do.
func (s *Sim) expireHeld(n int32) {
	if ns := &s.nodes[n]; ns.held && s.heldPast(ns) {
		ns.nextHB = -1
		ns.held = false // left in heldNodes; releaseHeld skips it
	}
}

// releaseHeld queues each held heartbeat still ahead of the event being
// handled, at its time and with its sequence number, and makes the nodes of
// those already past dormant.
func (s *Sim) releaseHeld() {
	for _, n := range s.heldNodes {
		ns := &s.nodes[n]
		if !ns.held {
			continue
		}
		ns.held = false
		if s.heldPast(ns) {
			ns.nextHB = -1
			continue
		}
		s.q.push(event{t: ns.nextHB, seq: ns.hbSeq, a: n, kind: evHeartbeat})
	}
	s.heldNodes = s.heldNodes[:0]
}
