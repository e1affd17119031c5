package replay

import (
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// A job that fails because a task used up its attempts.
//
// Hadoop fails a task when its failed attempts reach the job's max attempts
// (mapreduce.map.maxattempts / mapred.map.max.attempts, default 4; reduces
// likewise; the replay takes them from the job conf when the trace has them): MRAppMaster's TaskImpl.AttemptFailedTransition keeps
// rescheduling while failedAttempts.size() < maxAttempts, and otherwise
// kills the task's unfinished attempts and reports the task FAILED. The job
// then fails when more than the allowed share of its maps (or reduces) has
// failed: JobImpl.TaskCompletedTransition.checkJobAfterTaskCompletion tests
// failedMapTaskCount*100 > allowedMapFailuresPercent*numMapTasks
// (mapreduce.map.failures.maxpercent, default 0: one failed map fails the
// job), calls job.setFinishTime() there, sends T_KILL to every unfinished
// task and goes to FAIL_WAIT, then FAIL_ABORT (the committer's abortJob)
// once they are killed; JOB_FAILED carries the finish time set at the
// failure. Hadoop 1's JobInProgress.failedTask does the same once a TIP has
// failed (TaskInProgress: mapred.map.max.attempts failures): killJob =
// ++failedMapTIPs*100 > mapFailuresPercent*numMapTasks
// (mapred.max.map.failures.percent; reduces likewise, and any failed setup or
// cleanup TIP); terminate(FAILED) then kills every TIP and launches the job's
// cleanup task, and terminateJob records the finish when that cleanup is
// done. Setup and cleanup tasks do not fail in the replay; in trace mode a
// cleanup's recorded failed attempts, on either of Hadoop 1's two cleanup
// TIPs, hold its slot at their recorded spacing before the TIP that completed
// the job runs (cleanupSpacing, lifecycle_attempts.go).
//
// The kill frees the slots at once: the 0.23.9 FAILED history has its running
// attempt killed 27 ms after the job failed; Hadoop 1 sends a KillTaskAction
// in the tracker's next heartbeat response, which the replay leaves out.
//
// The replay (both modes): a task whose last allowed attempt fails fails when
// that attempt is reported; when the failed tasks exceed the job's allowance
// the job fails at once: it leaves the policy, its pending tasks are dropped,
// its running maps and reduces are killed (their slots freed now, their rows
// ending now), and it finishes as the lifecycle finishes a job whose work is
// done: after its cleanup task when it has one (Hadoop 1), else at once
// (Hadoop 2, whose abort runs in the ApplicationMaster after the recorded
// finish). A failed task within the allowance ends like a finished one.
//
// A failed job's result row is a finished job's with status FAILED, with no
// last map end when its maps did not all finish.
//
// Trace mode (lifecycle on): the observed attempts drive it. In a job the
// trace records as FAILED, a map or reduce with at least max attempts failed
// attempts and no successful one fails: its earlier attempts are retries
// (lifecycle_attempts.go) and its recorded last attempt fails. Such a task
// keeps its attempts' recorded spacing: its retries hold its slot from its
// first recorded attempt's start to its last one's when that is longer than
// their durations and gaps, so the job fails as long after the task's first
// launch as it did. Hadoop 1 returns a failed attempt's task to the job's
// pending tasks: the failure is reported at the tracker's next heartbeat and
// the retry assigned at another tracker's heartbeat with a free slot, never
// the tracker where it failed (TaskInProgress.hasFailedOnMachine), which on
// a busy cluster waits (Mumak's 19-job trace: 13–127 s between one attempt's
// end and the next one's start; docs/validation.md, "The JobTracker's
// heartbeat in the derived cluster"). Holding the failing task's slot
// through those waits (one task per failed job under Hadoop's default of no
// failed maps or reduces allowed) is the choice here; re-queueing the retry (its
// slot freed, a new assignment) is an engine change not made. The other
// retried tasks keep their attempts back to back. Its other tasks
// without a successful attempt replay their recorded last (killed) attempt
// after their failed ones, or, when they never ran (no host), run for the
// job's observed lifetime: in the history they did not finish before the
// failure, so the failure kills them. A FAILED job whose failed tasks do not
// reach the rule replays as before.
//
// Model mode: with the lifecycle, the tasks trace mode fails fail too, after
// their recorded failed attempts (lifecycle_modelfail.go: a job's failure is
// the workload's, not the schedule's); and attempt_failure_rate draws each
// attempt's failure; a task whose every allowed attempt fails, after a
// uniform fraction of its duration each, fails (lifecycle_faults.go).
//
// Under network = "flow" a failed job's killed tasks have their transfers
// withdrawn from the flow model (cancelTransfers, cancelReduceFlows:
// network_cancel.go); TestFlowJobFailsOnReduce and
// TestModelModeReplaysRecordedJobFailure run under both networks.

// defaultMaxAttempts is Hadoop's default mapreduce.map.maxattempts and
// mapreduce.reduce.maxattempts (mapred.map.max.attempts,
// mapred.reduce.max.attempts in Hadoop 1).
const defaultMaxAttempts = 4

// taskFate is how a map or reduce ends.
type taskFate uint8

const (
	fateRun  taskFate = iota // its last attempt completes it
	fateFail                 // its last allowed attempt fails: the task fails
)

// jobFail is a job's failure state.
type jobFail struct {
	maps, reduces []taskFate // nil: every task completes
	// redFailUs is, for a reduce that fails, how long it holds its slot from
	// its launch (its failed attempts), whatever its maps do.
	redFailUs                 []int64
	failedMaps, failedReduces int32
	mapPercent, reducePercent int32 // failures allowed, in % of the job's maps, reduces
	failed                    bool  // the job has failed
	failUs                    int64 // when
}

// failLimits returns the max attempts of job tj's maps and reduces and the
// failures allowed, in % of its maps and reduces: the max attempts its conf
// gives (trace columns conf_map_max_attempts, conf_reduce_max_attempts), else
// Hadoop's default 4. The trace schema does not record
// mapreduce.{map,reduce}.failures.maxpercent: 0%, Hadoop's default.
func failLimits(tj *trace.Job) (mapMax, redMax, mapPct, redPct int32) {
	mapMax, redMax = defaultMaxAttempts, defaultMaxAttempts
	if tj.ConfMapMaxAttempts > 0 {
		mapMax = tj.ConfMapMaxAttempts
	}
	if tj.ConfReduceMaxAttempts > 0 {
		redMax = tj.ConfReduceMaxAttempts
	}
	return mapMax, redMax, 0, 0
}

// failsJob reports whether failed maps and reduces out of maps and reduces
// fail the job (checkJobAfterTaskCompletion).
func failsJob(failedMaps, maps, mapPct, failedReduces, reduces, redPct int32) bool {
	return int64(failedMaps)*100 > int64(mapPct)*int64(maps) || int64(failedReduces)*100 > int64(redPct)*int64(reduces)
}

// setMapFate marks map i of a job of n maps.
func (f *jobFail) setMapFate(i, n int, fate taskFate) {
	if f.maps == nil {
		f.maps = make([]taskFate, n)
	}
	f.maps[i] = fate
}

// setReduceFate marks reduce i of a job of n reduces, failing us after its
// launch when it fails.
func (f *jobFail) setReduceFate(i, n int, fate taskFate, us int64) {
	if f.reduces == nil {
		f.reduces = make([]taskFate, n)
		f.redFailUs = make([]int64, n)
	}
	f.reduces[i], f.redFailUs[i] = fate, us
}

func (f *jobFail) mapFails(i int32) bool    { return f.maps != nil && f.maps[i] == fateFail }
func (f *jobFail) reduceFails(i int32) bool { return f.reduces != nil && f.reduces[i] == fateFail }

// traceFail is what trace mode replays of a task of a failed job.
type traceFail struct {
	fate taskFate
	// lifeUs, when > 0, replaces the observed duration of a task that never
	// ran in the history: the job's observed lifetime.
	lifeUs int64
}

// traceFailures returns, per task (retryKey) of the jobs tr records as
// FAILED whose failed tasks fail them by the rule, how the task ends. The
// failing tasks' earlier attempts are retries: retries (traceRetries' map,
// made if nil) gets them, with the earlier attempts of the tasks killed by the
// failure. It returns nil when no job fails so.
func traceFailures(tr *trace.Trace, hw *Hardware, retries map[string]int64) (map[string]traceFail, map[string]int64) {
	type tally struct {
		failed  int32
		success bool
		ended   []*trace.Attempt // its failed and killed attempts
	}
	var failedJobs map[string]*trace.Job
	for i := range tr.Jobs {
		if tr.Jobs[i].Status == trace.StatusFailed {
			if failedJobs == nil {
				failedJobs = map[string]*trace.Job{}
			}
			failedJobs[tr.Jobs[i].ID] = &tr.Jobs[i]
		}
	}
	if failedJobs == nil || len(tr.Attempts) == 0 {
		return nil, retries
	}
	tallies := map[string]*tally{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if failedJobs[a.JobID] == nil || !a.Type.IsWork() {
			continue
		}
		k := retryKey(a.JobID, a.TaskID)
		t := tallies[k]
		if t == nil {
			t = &tally{}
			tallies[k] = t
		}
		switch a.Status {
		case trace.StatusFailed:
			t.failed++
			t.ended = append(t.ended, a)
		case trace.StatusKilled:
			t.ended = append(t.ended, a)
		case trace.StatusSucceeded:
			t.success = true
		}
	}
	// Which jobs fail by the rule, from their tasks.
	type count struct{ maps, reduces, failedMaps, failedReduces int32 }
	counts := map[string]*count{}
	for i := range tr.Tasks {
		tt := &tr.Tasks[i]
		tj := failedJobs[tt.JobID]
		if tj == nil || !tt.Type.IsWork() {
			continue
		}
		c := counts[tt.JobID]
		if c == nil {
			c = &count{}
			counts[tt.JobID] = c
		}
		mapMax, redMax, _, _ := failLimits(tj)
		t := tallies[retryKey(tt.JobID, tt.TaskID)]
		if tt.Type == trace.Map {
			c.maps++
			if t != nil && !t.success && t.failed >= mapMax {
				c.failedMaps++
			}
		} else {
			c.reduces++
			if t != nil && !t.success && t.failed >= redMax {
				c.failedReduces++
			}
		}
	}
	var out map[string]traceFail
	for i := range tr.Tasks {
		tt := &tr.Tasks[i]
		tj := failedJobs[tt.JobID]
		if tj == nil || !tt.Type.IsWork() {
			continue
		}
		c := counts[tt.JobID]
		mapMax, redMax, mapPct, redPct := failLimits(tj)
		if !failsJob(c.failedMaps, c.maps, mapPct, c.failedReduces, c.reduces, redPct) {
			continue
		}
		k := retryKey(tt.JobID, tt.TaskID)
		t := tallies[k]
		if t != nil && t.success {
			continue // replayed as any task with a successful attempt
		}
		if out == nil {
			out = map[string]traceFail{}
		}
		maxA := mapMax
		if tt.Type == trace.Reduce {
			maxA = redMax
		}
		f := traceFail{fate: fateRun}
		if t != nil && t.failed >= maxA {
			f.fate = fateFail
		}
		if tt.Host == "" || tt.StartMs < 0 {
			// Never ran: it waits or runs until the failure kills it.
			if tj.FinishMs >= tj.SubmitMs && tj.SubmitMs >= 0 {
				f.lifeUs = max(1, (tj.FinishMs-tj.SubmitMs)*1000)
			}
		} else if t != nil {
			// The recorded task is its last attempt; the ones that ended
			// before it started held the slot before it.
			if retries == nil {
				retries = map[string]int64{}
			}
			// A failing task keeps its recorded spacing (the file's comment).
			first := int64(-1)
			for _, a := range t.ended {
				if a.StartMs >= 0 && a.FinishMs >= a.StartMs && a.FinishMs <= tt.StartMs {
					retries[k] += (a.FinishMs-a.StartMs)*1000 + hw.retryGapUs(tj)
					if first < 0 || a.StartMs < first {
						first = a.StartMs
					}
				}
			}
			if f.fate == fateFail && first >= 0 {
				retries[k] = max(retries[k], (tt.StartMs-first)*1000)
			}
		}
		out[k] = f
	}
	return out, retries
}

// mapFailed is called when map i of job j, whose last allowed attempt fails,
// is reported: the task fails, and the job with it when its failures exceed
// the allowance. It reports whether the map failed (false: it completes, a
// speculative copy having taken over).
func (s *Sim) mapFailed(j *Job, i int32) bool {
	m := &j.Maps[i]
	if m.specNode >= 0 {
		return false // a speculative copy, which does not fail, completes it
	}
	f := &j.life.fail
	f.failedMaps++
	if !failsJob(f.failedMaps, int32(len(j.Maps)), f.mapPercent, f.failedReduces, int32(len(j.Reduces)), f.reducePercent) {
		return false // within the allowance: it ends as a finished map
	}
	s.failJob(j)
	return true
}

// reduceFailed is mapFailed for reduce i.
func (s *Sim) reduceFailed(j *Job, i int32) bool {
	s.cancelReduceFlows(j, i) // network = "flow": its shuffle stops (network_cancel.go)
	f := &j.life.fail
	f.failedReduces++
	if !failsJob(f.failedMaps, int32(len(j.Maps)), f.mapPercent, f.failedReduces, int32(len(j.Reduces)), f.reducePercent) {
		r := &j.Reduces[i]
		r.ShuffleEndUs = max(r.ShuffleEndUs, j.LastMapEndUs)
		return false
	}
	s.failJob(j)
	return true
}

// launchFailingReduce schedules the failure of reduce i of job j, just
// launched, when it fails: it holds its slot for its failed attempts,
// whatever its maps do. It reports whether it did.
func (s *Sim) launchFailingReduce(j *Job, i int32) bool {
	f := &j.life.fail
	if !f.reduceFails(i) {
		return false
	}
	r := &j.Reduces[i]
	r.FinishUs = s.reported(r.Node, s.now+f.redFailUs[i])
	r.ShuffleEndUs = Unset
	s.schedule(r.FinishUs, evReduceDone, j.Index, i)
	return true
}

// failJob fails job j now: its pending tasks are dropped, its running maps
// and reduces killed and their slots freed (the policy told of each as of a
// finished task, then of the job's end), their events withdrawn, and the job
// finishes (after its cleanup task when it has one).
func (s *Sim) failJob(j *Job) {
	f := &j.life.fail
	f.failed, f.failUs = true, s.now
	var freed []int32
	for i := range j.Maps {
		m := &j.Maps[i]
		switch m.State {
		case Pending:
			for _, n := range j.Replicas(int32(i)) {
				s.mm.pending[n] -= m.InputBytes
			}
		case Running:
			old := m.FinishUs
			m.FinishUs, m.endUs = s.now, s.now
			s.mm.retime(m, old)
			m.State = Done
			s.freeMapSlot(j, m.Node, m.LaunchUs)
			if m.specNode >= 0 {
				s.specEnded(j, int32(i), false)
			}
			if m.Locality != NodeLocal {
				s.runningRemote--
			}
			s.busyMapUs += s.now - m.LaunchUs
			j.RunningMaps--
			s.taskEnded()
			s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskMap, Index: int32(i), Node: m.Node, Locality: m.Locality})
			s.pol.TaskFinished(s, j.View(), false, int32(i)) // its slot is free: a policy forgets the task
			freed = append(freed, m.Node)
		}
	}
	if j.ready {
		s.pending -= int64(j.PendingReduces)
	}
	s.pending -= int64(j.PendingMaps)
	j.PendingMaps, j.PendingReduces = 0, 0
	s.noteCands(j)
	for i := range j.Reduces {
		r := &j.Reduces[i]
		if r.State != Running {
			continue
		}
		if r.ShuffleEndUs <= 0 || r.ShuffleEndUs > s.now {
			r.ShuffleEndUs = Unset
		}
		r.FinishUs = s.now
		r.State = Done
		s.freeReduceSlot(j, r.Node, r.LaunchUs)
		s.busyReduceUs += s.now - r.LaunchUs
		j.RunningReduces--
		s.taskEnded()
		s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskReduce, Index: int32(i), Node: r.Node})
		s.pol.TaskFinished(s, j.View(), true, int32(i))
		freed = append(freed, r.Node)
	}
	j.waiting = nil
	s.cancelTransfers(j, -1) // network = "flow": the killed tasks' transfers end (network_cancel.go)
	s.dropEvents(j.Index)
	s.finishJob(j)
	slices.Sort(freed)
	for _, n := range slices.Compact(freed) {
		s.slotFreed(n)
	}
}

// dropEvents withdraws the map and reduce done events of job k (killed
// tasks), and under network = "flow" their stage events, keeping the others'
// order.
func (s *Sim) dropEvents(k int32) {
	s.dropEventsWhere(func(e event) bool {
		return e.a == k && (e.kind() == evMapDone || e.kind() == evReduceDone) || flowEventOf(e, k, -1)
	})
}

// dropEventsWhere withdraws the queued events drop says to (killed or
// preempted tasks' ends), keeping the others' order. It rebuilds the queue:
// for rare kills, not for the run's hot path.
func (s *Sim) dropEventsWhere(drop func(event) bool) {
	old := s.q
	s.q = make(eventQueue, 0, len(old))
	for _, e := range old {
		if !drop(e) {
			s.q.push(e)
		}
	}
}
