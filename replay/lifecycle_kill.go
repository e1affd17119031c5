package replay

// The losing attempt of a speculative map is killed as Hadoop 1 kills it.
//
// Hadoop 1 (branch-1): the JobTracker learns that one attempt completed the
// task when that attempt's tracker reports it (at the heartbeat the replay's
// Sim.reported gives). It ends the other attempt only through a heartbeat
// response: JobTracker.heartbeat adds getTasksToKill(tracker), a
// KillTaskAction for each attempt of the tracker whose TaskInProgress
// shouldClose (the TIP is complete and the attempt is not the one that
// completed it), so the loser runs on until its own tracker's next
// heartbeat. The TaskTracker then kills it; a map or reduce attempt killed
// outside its cleanup phase goes KILLED_UNCLEAN (TaskTracker's
// TaskInProgress.setTaskFailState), the tracker reports that at a heartbeat,
// and the JobTracker queues a task-cleanup attempt for it
// (JobInProgress.updateTaskStatus: mapCleanupTasks), which it hands out before
// any other task (getSetupAndCleanupTasks) on a slot of the same kind; the
// attempt is KILLED when that cleanup attempt is done and reported.
//
// The replay, with r the winner's reported completion (the map's FinishUs):
//
//   - kill: the loser's node's first periodic heartbeat at or after r. Until
//     then the loser runs on; under network = "flow" its transfers and stage
//     events go on and are withdrawn at the kill (lifecycle_flowspec.go,
//     network_cancel.go). A loser that ends its own work before its kill
//     stops there and waits, holding its slot, for the kill.
//   - free: its slot is free when its cleanup attempt, which lasts
//     cleanup_task (the job's cleanup task's duration: both are a task JVM
//     running the output committer's clean-up), is reported: at once with
//     out-of-band heartbeats or without report_at_heartbeat (the kill is
//     reported at once, the cleanup attempt runs, its end is reported at
//     once), else at the node's heartbeat after kill + one interval (the
//     kill reported at the next heartbeat, which hands out the cleanup
//     attempt) + cleanup_task.
//
// The winner's slot is freed at r as before. YARN (MRAppMaster's TaskImpl
// kills the other attempts when one succeeds, killUnfinishedAttempt, and the
// ContainerLauncher stops the container through its NodeManager at once) is
// not modelled: speculation is refused on YARN clusters (yarn.go).

// loser is a losing speculative attempt waiting for its kill or its slot.
type loser struct {
	j        *Job
	node     int32 // its node
	copy     bool  // the speculative copy lost (else the original)
	killed   bool  // its work is withdrawn (flow) or over
	launchUs int64 // from when its slot time is still to be counted busy
	slotUs   int64 // the original's launch, which its slot's release names (freeMapSlot)
}

// beat is node n's first periodic heartbeat at or after t.
func (s *Sim) beat(n int32, t int64) int64 {
	iv := int64(s.hw.Heartbeat)
	ph := s.nodes[n].phase
	if t <= ph {
		return ph
	}
	return ph + (t-ph+iv-1)/iv*iv
}

// killTimes is when the losing attempt of a map completed at r, on node n, is
// killed and when its slot is free (above).
func (s *Sim) killTimes(n int32, r int64) (kill, free int64) {
	kill = s.beat(n, r)
	c := int64(s.hw.CleanupTask)
	if !s.hw.ReportAtHeartbeat || s.hw.OutOfBandHeartbeat {
		return kill, kill + c
	}
	return kill, s.beat(n, kill+int64(s.hw.Heartbeat)+c)
}

// loserKey is a map's key in lcSim.losers.
func loserKey(j *Job, i int32) [2]int32 { return [2]int32{j.Index, i} }

// holdLoser is called when map i of job j, which has a speculative copy,
// completes (now): it schedules its losing attempt's kill and slot release
// and reports whether the loser is the original attempt (whose slot the
// caller then keeps held).
func (s *Sim) holdLoser(j *Job, i int32) (origLost bool) {
	m := &j.Maps[i]
	l := loser{j: j, node: m.specNode, copy: true, launchUs: j.extra(i).specLaunchUs}
	if m.specWon {
		l = loser{j: j, node: m.Node, launchUs: s.now, slotUs: m.LaunchUs} // its busy time to now is counted (mapDone)
	}
	kill, free := s.killTimes(l.node, s.now)
	if s.lc.losers == nil {
		s.lc.losers = map[[2]int32]loser{}
	}
	s.lc.losers[loserKey(j, i)] = l
	if kill > s.now {
		s.schedule(kill, evSpecKill, j.Index, i)
	} else {
		s.killLoser(j, i)
	}
	s.schedule(free, evSpecKill, j.Index, -1-i)
	return !l.copy
}

// specKill is an evSpecKill event: for b >= 0 map b of job a's losing
// attempt is killed, for b < 0 map -1-b's loser's slot is free.
func (s *Sim) specKill(a, b int32) {
	key := [2]int32{a, b}
	if b < 0 {
		key[1] = -1 - b
	}
	l, ok := s.lc.losers[key]
	if !ok {
		if s.chk != nil {
			s.chk.fail("a speculative loser's event for map %d of job %d with none", key[1], a)
		}
		return
	}
	if b >= 0 {
		if !l.killed {
			s.killLoser(l.j, b)
		}
		return
	}
	if !l.killed && s.chk != nil {
		s.chk.fail("map %d of job %s: its losing attempt's slot is freed before its kill", key[1], l.j.Trace.ID)
	}
	delete(s.lc.losers, key)
	if l.copy {
		s.nodes[l.node].freeMap++ // a copy's slot (copySlot)
	} else {
		s.freeMapSlot(l.j, l.node, l.slotUs)
	}
	s.running--
	s.busyMapUs += s.now - l.launchUs
	kind := TaskMap
	if l.copy {
		kind = TaskSpeculative
		s.bus.taskEnded(TaskEvent{Time: s.now, Job: l.j, Kind: TaskSpeculative, Index: key[1], Node: l.node})
	}
	s.otherSlot(l.node, kind, true, false) // slotwatch.go
	s.slotFreed(l.node)
}

// killLoser withdraws map i of job j's losing attempt's work now (under
// flow: lifecycle_flowspec.go).
func (s *Sim) killLoser(j *Job, i int32) {
	key := loserKey(j, i)
	l := s.lc.losers[key]
	l.killed = true
	s.lc.losers[key] = l
	s.flowKillLoser(j, i, l.copy)
}

// killLosersNow kills job j's losing attempts still running, as the job
// finishes (their slots stay held to their release): Hadoop kills a finished
// job's attempts too (KillJobAction), and the replay forgets the job. It
// looks up each of the job's maps, once per job, and only while some loser
// of any job is held.
func (s *Sim) killLosersNow(j *Job) {
	for i := range j.Maps {
		if l, ok := s.lc.losers[loserKey(j, int32(i))]; ok && !l.killed {
			s.killLoser(j, int32(i))
		}
	}
}
