package replay

// A reduce's failed attempts under network = "flow".
//
// Failed attempts (attempt_failure_rate's draws, a trace's failed and killed
// attempts before the successful one, or every attempt of a reduce that
// fails for good) hold the reduce's slot for their time from its launch, as
// under fixed, and they shuffle as a reduce does: after their start-up
// (task_startup, stretched by the reduce's straggler factor) they fetch the
// job's map outputs, those ready at the launch and the others as they are
// reported (through the poll chain with event_poll), as flows sharing disks
// and links with every other transfer. When their time is over they fail:
// their fetches under way are withdrawn (network_cancel.go, the bytes each
// moved reported to the observers) and nothing they fetched is kept. The
// successful attempt starts up then and fetches every output again, those
// reported so far at once; a reduce whose every attempt fails fetches no
// more, and fails when its failure is reported (jobfail.go). A shuffle that
// ends before the failure leaves the attempts waiting for it (their merge
// and reduce work, which are not modelled for a failed attempt). The draws
// give the failed attempts' total time, not each one's, so several failed
// attempts are one start-up and one shuffle over their whole time, as a
// map's failed attempts are one read (network_disk.go, failingRead).
//
// Under flow_shuffle = "batch" a round's sources count the bytes of the
// outputs it takes out when they join the reduce's counters, so the bytes a
// withdrawn round had not moved are still counted out of their hosts (the
// reduce's node counts what it moved in).

// reduceFailUs is the time of reduce i's failed attempts from its launch
// (every attempt's for a reduce that fails for good), 0 when it has none.
func (s *Sim) reduceFailUs(j *Job, i int32) int64 {
	if j.life.fail.reduceFails(i) {
		return j.life.fail.redFailUs[i]
	}
	if d := j.out.disk; d.redRetry != nil {
		return d.redRetry[i]
	}
	return 0
}

// reduceAttemptsFetch starts reduce i's failed attempts, when it has any:
// their fetches start after their start-up and stop at their failure, and
// the successful attempt's start at the time they started before (launch
// plus reduceWaitUs). It reports whether the reduce has failed attempts.
// A reduce that fails for good joins the reduces that receive map outputs
// (jobfail.go's launchFailingReduce keeps it off them).
func (s *Sim) reduceAttemptsFetch(j *Job, i int32, saved int64) bool {
	f := s.reduceFailUs(j, i)
	if f <= 0 {
		return false
	}
	d := j.out.disk
	st := &j.out.fs[i]
	aw := j.redAMWaitUs(i) // YARN: its AM takes the container then (yarn.go)
	st.failUs = s.now + aw + f
	if su := d.slowed(int(d.maps)+int(i), int64(s.hw.TaskStartup)); su < f {
		s.schedule(s.now+aw+su, evFetchStart, j.Index, i)
	}
	s.schedule(st.failUs, evFetchStart, j.Index, i)
	if j.life.fail.reduceFails(i) {
		if !j.MapsDone() {
			j.waiting = append(j.waiting, i)
		}
		return true
	}
	s.schedule(s.now+aw+d.reduceWaitUs(s.hw, i, saved), evFetchStart, j.Index, i)
	return true
}

// reduceAttemptsFailed: reduce i's failed attempts are over (now). Their
// fetches under way are withdrawn; the successful attempt queues every
// output reported so far (its start-up event is queued), or, when every
// attempt failed, the reduce receives no more outputs.
func (s *Sim) reduceAttemptsFailed(j *Job, i int32) {
	s.withdrawAttempt(j, int(j.out.disk.maps)+int(i)) // network_cancel.go
	st := &j.out.fs[i]
	*st = fetchState{phase: st.phase}
	j.out.clearQuiet(i)
	if j.life.fail.reduceFails(i) {
		s.dropFetcher(j, i) // shuffle.go
		return
	}
	s.queueAllOutputs(j, i) // network_retimed.go
	s.flushBatchOut()
}
