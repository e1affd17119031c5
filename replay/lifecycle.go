package replay

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/tracereplay/tracereplay/trace"
)

// The job and task lifecycle (hardware key lifecycle = true), as Hadoop 1's
// JobTracker runs it (apache/hadoop branch-1, src/mapred/org/apache/hadoop/mapred):
//
//   - Submitted → initialising. A submitted job waits for an init worker
//     (job_init_threads of them, Hadoop 1's mapred.jobinit.threads, default
//     4). With job_init_poll = 0 it is handed to the workers at once, as
//     EagerTaskInitializationListener's thread pool does (JobInitManager
//     hands each job of its queue to a fixed pool of that many threads, each
//     running JobTracker.initJob → JobInProgress.initTasks);
//     with job_init_poll > 0 as the Capacity scheduler's JobInitializationPoller
//     does (src/contrib/capacity-scheduler): the poller wakes every poll
//     interval and assigns the jobs it finds to its init threads, and each
//     JobInitializationThread itself initialises its assigned jobs only when
//     it wakes, sleeping the same interval between rounds. The phase of the
//     threads' rounds against the poller's is not known (both drift by the
//     work they do); we put them half an interval after the poller's ticks
//     (at k·poll for the poller, k·poll + poll/2 for the threads), the
//     expected wait for an unknown phase. Rumen's folder-input-trace shows
//     these rounds: its jobs' launch times fall on a 5.01 s grid, several
//     within 10–13 ms of each other. A worker spends job_init_time on a job
//     (JobInProgress.initTasks: reading the split meta-info, creating the
//     TIPs; it sets LAUNCH_TIME after the maps' TIPs), one job at a time, in
//     submit order.
//   - A YARN job (its trace records an ApplicationMaster's start) goes
//     through the same workers when its launch is not replayed (model mode),
//     though on YARN each job's MRAppMaster initialises it in its own
//     container, in parallel: initialising YARN histories that way (am_startup
//     plus the AM container's mean wait, outside the workers) was measured
//     and not kept (docs/validation.md, "What changed: Hadoop's init
//     workers").
//   - Setup. An initialised job's setup task waits for a slot. JobTracker.heartbeat
//     first asks getSetupAndCleanupTasks for the heartbeating tracker, and only
//     when that returns nothing asks the scheduler (TaskScheduler.assignTasks): a
//     heartbeat that launches a setup or cleanup task launches nothing else.
//     getSetupAndCleanupTasks tries a free map slot before a free reduce slot,
//     and cleanup tasks before setup tasks, jobs in id (here: submit) order. The
//     setup task runs for setup_task (trace mode: the job's observed setup
//     attempt plus task_startup, when the trace has one).
//   - Running. When the setup task's completion is reported, the job's maps and
//     reduces become visible to the policy (Policy.JobArrived), which schedules
//     them as without the lifecycle.
//   - Cleanup. When the last map or reduce is reported done, the job leaves the
//     policy (Policy.JobFinished) and its cleanup task waits for a slot as the
//     setup task did; the job finishes when the cleanup's completion is
//     reported.
//
// A completion is reported when the task's node next heartbeats
// (report_at_heartbeat, Hadoop 1 without out-of-band heartbeats:
// TaskTracker.transmitHeartBeat carries the finished task's status), or at once
// (out_of_band_heartbeat, or report_at_heartbeat = false); the slot stays held
// until then. Traces without setup or cleanup tasks for a job that has tasks
// (.jhist: Hadoop 2 runs them in the ApplicationMaster) replay without them.
//
// In trace mode (task_times other than "model") a job whose trace records
// its launch is initialised for its observed submit → launch time, with no
// queue, as its observed task durations are replayed:
//
//   - a YARN job (its trace records the ApplicationMaster's start) is
//     initialised by its own AM, not by the JobTracker's workers: submit →
//     JOB_INITED is the AM container's allocation and start and the AM's job
//     init. The AM's container is not held against the cluster's slots;
//   - a Hadoop 1 job whose tasks have a recorded schedule: submit →
//     LAUNCH_TIME (JobInProgress.initTasks) is the wait for the
//     JobTracker's init poller and threads and the init itself. The
//     poller's rounds run on the JobTracker's own clock, whose phase against
//     the submissions no trace records: Rumen's folder-input-trace launches
//     its 59 jobs on a 5.05 s grid (the launch times modulo 5.05 s have a
//     mean resultant length of 0.85; uniform phases would give about 0.13)
//     while the submit → launch times spread over 0.3–10.8 s, so that a
//     modelled poller of the same period, at any fixed phase, puts each job
//     up to a period away from its observed launch.
//
// Model mode, and a job whose launch precedes its submission (clocks) or is
// not recorded, go through the init workers above.

// lcPhase is where a job is in its lifecycle.
type lcPhase uint8

const (
	lcSubmitted    lcPhase = iota // waiting for the init poller or a worker
	lcInitialising                // an init worker has it
	lcSetupWait                   // its setup task waits for a slot
	lcSetup                       // its setup task runs
	lcRunning                     // maps and reduces, scheduled by the policy
	lcCleanupWait                 // its cleanup task waits for a slot
	lcCleanup                     // its cleanup task runs
	lcDone
)

// lcTask is a job's setup or cleanup task.
type lcTask struct {
	present bool
	durUs   int64
	node    int32
	mapSlot bool
	// atReport is set, in trace mode, for a setup task whose recorded report
	// ends it (setupReportUs): that report was its tracker's heartbeat, so the
	// node heartbeats when the task is done.
	atReport bool
	launchUs int64
	finishUs int64
}

// jobLife is a job's lifecycle state.
type jobLife struct {
	phase          lcPhase
	setup, cleanup lcTask
	// obsInitUs, when >= 0, is the job's observed submit → launch time in
	// trace mode (a YARN job's submit → JOB_INITED, a Hadoop 1 job's submit
	// → LAUNCH_TIME), replayed in place of the init workers.
	obsInitUs int64
	// spec is what speculation keeps of the job (lifecycle_faults.go).
	spec jobSpec
	// fail is the job's task failures and its own (jobfail.go).
	fail jobFail
	// polled is set when the init poller has selected the job under per-user
	// limits (lifecycle_ext.go).
	polled bool
	// copies are its maps' observed speculative attempts in trace mode
	// (lifecycle_specobs.go).
	copies map[int32]obsCopy
}

// Lifecycle task kinds in events and the invariant checker.
const (
	lcKindSetup   int32 = 2
	lcKindCleanup int32 = 3
)

// lcSim is the simulator's lifecycle state.
type lcSim struct {
	pollQ         []*Job // submitted, waiting for the poller's next tick
	assigned      []*Job // assigned by the poller, waiting for the threads' round
	initQ         []*Job // handed to the init workers, not yet taken
	initBusy      int
	pollScheduled bool
	setupWait     []*Job // in job order
	cleanupWait   []*Job
	spec          specSim // speculation's scratch state (lifecycle_faults.go)
	// polled are the jobs the init poller selected under per-user limits
	// that had not been scheduled at its last tick (lifecycle_ext.go).
	polled []*Job
	jvm    jvmSim   // JVM reuse (lifecycle_ext.go)
	obsDue []obsDue // observed copies asked for, by time (lifecycle_specobs.go)
	// losers are the losing speculative attempts not yet killed or not yet
	// freed, by job and map (lifecycle_kill.go).
	losers map[[2]int32]loser
}

// validateLifecycle checks the lifecycle keys.
func (h *Hardware) validateLifecycle(bad func(string, ...any)) {
	if h.JobInitThreads < 1 || h.JobInitThreads > 1<<16 {
		bad("job_init_threads must be in 1..65536 (got %d)", h.JobInitThreads)
	}
	if h.ParallelCopies < 1 || h.ParallelCopies > 1<<16 {
		bad("parallel_copies must be in 1..65536 (got %d)", h.ParallelCopies)
	}
	day := Duration(24 * time.Hour / time.Microsecond)
	for name, d := range map[string]Duration{"job_init_poll": h.JobInitPoll, "job_init_time": h.JobInitTime,
		"setup_task": h.SetupTask, "cleanup_task": h.CleanupTask, "shuffle_fetch_latency": h.ShuffleFetchLatency} {
		if d > day {
			bad("%s must be at most 24h (got %s)", name, d)
		}
	}
	h.validateFaults(bad)
	h.validateLifecycleExt(bad)
}

// lifeOf sets job j's setup and cleanup tasks from its trace tasks (maps
// and reduces tasks[:work], then setup and cleanup): the observed
// attempt durations plus each task's recorded launch lag (else task_startup)
// in trace mode when the trace has them,
// after their failed and killed attempts (each plus the gap to the next);
// none when the trace records the schedule of the job's maps and reduces but
// no setup or cleanup task (.jhist: Hadoop 2 runs them in the AM); else
// setup_task and cleanup_task.
func (w *Workload) lifeOf(j *Job, tasks []trace.Task, work int) {
	hw := w.hw
	j.life.setup = lcTask{present: true, durUs: int64(hw.SetupTask), node: -1}
	j.life.cleanup = lcTask{present: true, durUs: int64(hw.CleanupTask), node: -1}
	j.life.obsInitUs = -1
	scheduled := false
	for x := 0; x < work && !scheduled; x++ {
		tt := &tasks[x]
		scheduled = tt.Host != "" && tt.StartMs >= 0
	}
	if tj := j.Trace; w.times.UsesTrace() && (tj.AMStartMs >= 0 || scheduled) && tj.LaunchMs >= tj.SubmitMs && tj.SubmitMs >= 0 {
		j.life.obsInitUs = (tj.LaunchMs - tj.SubmitMs) * 1000
	}
	if !scheduled {
		return // no recorded schedule: the model's setup and cleanup
	}
	var setup, cleanup *trace.Task
	for x := work; x < len(tasks); x++ {
		tt := &tasks[x]
		switch {
		case tt.Type == trace.Setup && setup == nil:
			setup = tt
		case tt.Type == trace.Cleanup && (cleanup == nil || cleanup.Status != trace.StatusSucceeded && tt.Status == trace.StatusSucceeded):
			// The one that completed the job (cleanupSpacing), else the first.
			cleanup = tt
		}
	}
	for _, c := range []struct {
		tt *trace.Task
		lt *lcTask
	}{{setup, &j.life.setup}, {cleanup, &j.life.cleanup}} {
		switch {
		case c.tt == nil:
			c.lt.present = false
		case w.times.ObservedUs(c.tt) >= 0:
			// Its failed and killed attempts before the successful one hold
			// the slot first, as a map's retries do (lifecycle_attempts.go).
			// The slot is held from the assignment: the task's own recorded
			// launch lag where the trace has one (tracemode.go), as for maps
			// and reduces, else task_startup.
			lag := launchLagUs(hw, c.tt)
			report := int64(0)
			if c.lt == &j.life.cleanup {
				report = cleanupReportUs(hw, j.Trace, c.tt, lag)
			} else if r := setupReportUs(hw, c.tt, lag); r >= 0 {
				report, c.lt.atReport = r, true
			}
			if lag < 0 {
				lag = int64(hw.TaskStartup)
			}
			c.lt.durUs = w.retries[retryKey(j.Trace.ID, c.tt.TaskID)] + w.times.ObservedUs(c.tt) + lag + report
		}
	}
}

// cleanupReportUs is how long after its attempt's end job tj's cleanup task
// tt was reported to the JobTracker, in µs: the job's recorded finish less
// the attempt's. Hadoop 1's JobTracker learns of a finished attempt from the
// heartbeat that carries its status (JobTracker.heartbeat →
// updateTaskStatuses → JobInProgress.updateTaskStatus → completedTask), and
// only then marks the task complete (TaskInProgress.completed logs the task's
// finish from the JobTracker's clock) and, for the cleanup task, the job done
// (jobComplete sets the job's finish time from the same clock); the attempt's
// recorded finish is
// the TaskTracker's (TaskStatus.getFinishTime), apache/hadoop branch-1. The
// slot is the JobTracker's to give again only after that report. The gap is
// taken only where the task's launch lag is known (lagUs ≥ 0: a history whose
// task start is the JobTracker's assignment and whose TaskTracker clock does
// not visibly disagree, trace.Task.LaunchLagMs), so that lag, attempt and
// report add up to the JobTracker's own span of the task; else 0. With
// report_at_heartbeat (and no out-of-band heartbeats) the model's own report
// at the node's next heartbeat stands for it, and it is 0 too.
//
// A cleanup task with failed or killed attempts has no launch lag in the
// trace whatever the clocks (the ingest's launch lag is its first attempt's,
// and the attempt it keeps is not the first), so for it a recorded report lag
// (trace.Task.ReportLagMs ≥ 0: its own check that the clocks do not visibly
// disagree) stands in for the known launch lag: Mumak's failed jobs 0012,
// 0018 and 0020 finish 13.6, 12.4 and 13.9 s after their retried cleanup's
// successful attempt (docs/validation.md, "Failed jobs' cleanup attempts").
func cleanupReportUs(hw *Hardware, tj *trace.Job, tt *trace.Task, lagUs int64) int64 {
	retried := tt.FailedAttempts+tt.KilledAttempts > 0 && tt.ReportLagMs >= 0
	if hw.ReportAtHeartbeat && !hw.OutOfBandHeartbeat || lagUs < 0 && !retried || tt.FinishMs < 0 || tj.FinishMs < tt.FinishMs {
		return 0
	}
	return (tj.FinishMs - tt.FinishMs) * 1000
}

// setupReportUs is how long after its attempt's end setup task tt was
// reported to the JobTracker, in µs, or -1 when the replay does not replay
// it: the task's recorded report lag (trace.Task.ReportLagMs), taken where
// the cleanup's is (cleanupReportUs: a known launch lag, lagUs ≥ 0, and not
// with report_at_heartbeat without out-of-band heartbeats, whose report at
// the node's next heartbeat stands for it). The JobTracker moves the job to
// RUNNING, and so offers its maps, only when it learns of the setup's end
// (JobInProgress.completedTask, apache/hadoop branch-1), at a heartbeat of
// the setup's TaskTracker, which may be given work in the same heartbeat:
// the replay ends the setup at its recorded report and gives its node a
// heartbeat then (lcDone) instead of waiting for the node's next modelled
// one, so that the recorded report is not counted twice.
func setupReportUs(hw *Hardware, tt *trace.Task, lagUs int64) int64 {
	return taskReportUs(hw, tt, lagUs)
}

// taskReportUs is how long after its attempt's end task tt (a setup, map or
// reduce) was reported to the JobTracker, in µs, or -1 when the replay does
// not replay it: its recorded report lag (trace.Task.ReportLagMs) where its
// launch lag is known (lagUs ≥ 0, only in trace mode with the lifecycle:
// launchLagUs) and report_at_heartbeat without out-of-band heartbeats does
// not stand for it. A map's or reduce's report, like the setup's, is its
// TaskTracker's heartbeat carrying the attempt's status
// (JobTracker.heartbeat → updateTaskStatuses → JobInProgress.completedTask,
// apache/hadoop branch-1): only then does the JobTracker give its slot again,
// offer the map's output to the job's reduces (its map-completion events)
// and count the task done. The replay reports such a task at its attempt's
// end plus the lag, and the node heartbeats then (mapDone, reduceDone:
// reportBeat) instead of waiting for its next modelled heartbeat.
func taskReportUs(hw *Hardware, tt *trace.Task, lagUs int64) int64 {
	if hw.ReportAtHeartbeat && !hw.OutOfBandHeartbeat || lagUs < 0 || tt.ReportLagMs < 0 {
		return -1
	}
	return tt.ReportLagMs * 1000
}

// clusterUpUs is, in trace mode with the lifecycle, the earliest time the
// cluster's trackers may heartbeat: task_startup and one heartbeat interval
// before the earliest recorded start of any task or attempt of the trace (the
// assignment precedes the attempt's start by the start-up, and a tracker that
// joined waited at most an interval for the heartbeat that got it), relative
// to the first replayed submit (first, ms), at least 0. No task can start
// before a TaskTracker has heartbeated: Hadoop 1's sample-job-tracker-logs (the JobTracker started at
// 1240335959557, the prefix of its job ids) has two jobs submitted and
// launched within 5 s of it while no task of any job starts until 778 s later,
// when the first setup and cleanup tasks start 0.3 s apart — the trackers had
// not joined. In a trace of a running cluster the earliest task is the first
// job's setup, assigned at the first heartbeat after its init, and the bound
// does not bind. On a YARN cluster the ApplicationMasters' starts count as
// task starts (an AM runs in a container like a task's).
func clusterUpUs(tr *trace.Trace, first int64, hw *Hardware) int64 {
	earliest := int64(math.MaxInt64)
	for i := range tr.Tasks {
		if t := &tr.Tasks[i]; t.Host != "" && t.StartMs >= first {
			earliest = min(earliest, t.StartMs)
		}
	}
	for i := range tr.Attempts {
		if a := &tr.Attempts[i]; a.Host != "" && a.StartMs >= first {
			earliest = min(earliest, a.StartMs)
		}
	}
	if hw.Cluster == ClusterYARN {
		// On YARN the first container is an AM's: its start is evidence too.
		for i := range tr.Jobs {
			if j := &tr.Jobs[i]; j.AMStartMs >= first {
				earliest = min(earliest, j.AMStartMs)
			}
		}
	}
	if earliest == math.MaxInt64 {
		return 0
	}
	return max(0, (earliest-first)*1000-int64(hw.TaskStartup)-int64(hw.Heartbeat))
}

// reported is when a task of node n that ends at t is reported done: t itself,
// or with report_at_heartbeat (and no out-of-band heartbeats) the node's first
// periodic heartbeat at or after t.
func (s *Sim) reported(n int32, t int64) int64 {
	if !s.hw.ReportAtHeartbeat || s.hw.OutOfBandHeartbeat {
		return t
	}
	return s.beat(n, t)
}

// lcSubmit starts job j's lifecycle at its submission.
func (s *Sim) lcSubmit(j *Job) {
	j.life.phase = lcSubmitted
	s.lastChange = s.now
	if j.life.obsInitUs >= 0 {
		j.life.phase = lcInitialising
		s.schedule(s.now+j.life.obsInitUs, evInitDone, j.Index, 1)
		return
	}
	if s.hw.JobInitPoll <= 0 {
		s.lc.initQ = append(s.lc.initQ, j)
		s.lcDispatch()
		return
	}
	s.lc.pollQ = append(s.lc.pollQ, j)
	if !s.lc.pollScheduled {
		iv := int64(s.hw.JobInitPoll)
		s.lc.pollScheduled = true
		s.schedule((s.now+iv-1)/iv*iv, evInitPoll, 0, 0)
	}
}

// lcPoll is a tick of the init poller (stage 0): every job waiting for it is
// assigned to the init threads, which take it up at their next round, half an
// interval later (stage 1). With per-user init limits only the jobs the
// limits let through are (lcSelectLimited); the others wait for the next tick.
func (s *Sim) lcPoll(stage int32) {
	if stage == 0 {
		s.lc.pollScheduled = false
		if s.hw.initLimited() {
			s.lcPollLimited()
			return
		}
		if len(s.lc.assigned) == 0 {
			s.schedule(s.now+int64(s.hw.JobInitPoll)/2, evInitPoll, 0, 1)
		}
		s.lc.assigned = append(s.lc.assigned, s.lc.pollQ...)
		s.lc.pollQ = s.lc.pollQ[:0]
		return
	}
	s.lc.initQ = append(s.lc.initQ, s.lc.assigned...)
	s.lc.assigned = s.lc.assigned[:0]
	s.lcDispatch()
}

// lcDispatch gives waiting jobs to idle init workers, in submit order.
func (s *Sim) lcDispatch() {
	for s.lc.initBusy < s.hw.JobInitThreads && len(s.lc.initQ) > 0 {
		j := s.lc.initQ[0]
		s.lc.initQ = s.lc.initQ[1:]
		s.lc.initBusy++
		j.life.phase = lcInitialising
		s.schedule(s.now+int64(s.hw.JobInitTime), evInitDone, j.Index, 0)
	}
}

// lcInitDone ends job j's initialisation (by an init worker, or for its
// observed submit → launch time when observed is set): its setup task waits for
// a slot, or without one the job runs.
func (s *Sim) lcInitDone(j *Job, observed bool) {
	if !observed {
		s.lc.initBusy--
		s.lcDispatch()
	}
	if !j.life.setup.present {
		j.life.phase = lcRunning
		if observed && j.yarn.slotAM {
			s.slotAMInit(j) // its maps reach the scheduler at its AM's first call (yarn_slotam.go)
			return
		}
		s.admit(j)
		return
	}
	j.life.phase = lcSetupWait
	s.lc.setupWait = insertByIndex(s.lc.setupWait, j)
	s.lcWaiting()
}

// lcWorkDone is called when job j's last map or reduce is reported done: the
// job leaves the policy and its cleanup task waits for a slot, or without one
// the job finishes.
func (s *Sim) lcWorkDone(j *Job) {
	j.finished = true
	s.pol.JobFinished(s, j.View())
	s.removeActive(j)
	if !j.life.cleanup.present {
		j.life.phase = lcDone
		s.finishJob(j)
		return
	}
	j.life.phase = lcCleanupWait
	s.lc.cleanupWait = insertByIndex(s.lc.cleanupWait, j)
	s.lcWaiting()
}

// lcWaiting counts a setup or cleanup task that now waits for a slot.
func (s *Sim) lcWaiting() {
	s.lastChange = s.now
	wasPending := s.pending
	s.pending++
	if wasPending == 0 {
		s.wake()
	}
	s.wakeSlotNodes() // park.go
}

// insertByIndex inserts j into a list kept in job order.
func insertByIndex(l []*Job, j *Job) []*Job {
	i := len(l)
	for i > 0 && l[i-1].Index > j.Index {
		i--
	}
	l = append(l, nil)
	copy(l[i+1:], l[i:])
	l[i] = j
	return l
}

// lcAssign is getSetupAndCleanupTasks for node n's heartbeat: it launches one
// waiting cleanup (else setup) task in a free map slot, else in a free reduce
// slot, and reports whether it did.
func (s *Sim) lcAssign(n int32) bool {
	if len(s.lc.cleanupWait)+len(s.lc.setupWait) == 0 {
		return false
	}
	ns := &s.nodes[n]
	for _, mapSlot := range [2]bool{true, false} {
		if mapSlot && ns.freeMap == 0 || !mapSlot && ns.freeReduce == 0 {
			continue
		}
		if len(s.lc.cleanupWait) > 0 {
			j := s.lc.cleanupWait[0]
			s.lc.cleanupWait = s.lc.cleanupWait[1:]
			s.lcLaunch(j, lcKindCleanup, n, mapSlot)
			s.slotTaskTaken(n) // park.go
			return true
		}
		j := s.lc.setupWait[0]
		s.lc.setupWait = s.lc.setupWait[1:]
		s.lcLaunch(j, lcKindSetup, n, mapSlot)
		s.slotTaskTaken(n) // park.go
		return true
	}
	return false
}

// lcLaunch starts job j's setup or cleanup task on node n.
func (s *Sim) lcLaunch(j *Job, kind int32, n int32, mapSlot bool) {
	t := &j.life.setup
	j.life.phase = lcSetup
	if kind == lcKindCleanup {
		t = &j.life.cleanup
		j.life.phase = lcCleanup
	}
	ns := &s.nodes[n]
	if mapSlot {
		ns.freeMap--
	} else {
		ns.freeReduce--
	}
	s.jvmTrim(n, !mapSlot)
	s.pending--
	s.running++
	s.lastChange = s.now
	t.node, t.mapSlot, t.launchUs = n, mapSlot, s.now
	t.finishUs = s.reported(n, s.now+t.durUs)
	s.bus.taskLaunched(TaskEvent{Time: s.now, Job: j, Kind: lcTaskKind(kind), Node: n, MapSlot: mapSlot})
	s.otherSlot(n, lcTaskKind(kind), mapSlot, true) // slotwatch.go
	s.schedule(t.finishUs, evLifecycleDone, j.Index, kind)
}

// lcDone ends job j's setup or cleanup task, reported now.
func (s *Sim) lcDone(j *Job, kind int32) {
	t := &j.life.setup
	if kind == lcKindCleanup {
		t = &j.life.cleanup
	}
	ns := &s.nodes[t.node]
	if t.mapSlot {
		ns.freeMap++
		s.busyMapUs += t.finishUs - t.launchUs
	} else {
		ns.freeReduce++
		s.busyReduceUs += t.finishUs - t.launchUs
	}
	s.taskEnded()
	s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: lcTaskKind(kind), Node: t.node, MapSlot: t.mapSlot})
	s.otherSlot(t.node, lcTaskKind(kind), t.mapSlot, false) // slotwatch.go
	if kind == lcKindSetup {
		j.life.phase = lcRunning
		s.admit(j)
	} else {
		j.life.phase = lcDone
		s.finishJob(j)
	}
	if t.atReport {
		s.reportBeat(t.node)
		return
	}
	s.slotFreed(t.node)
}

// reportBeat gives node n a heartbeat now: a task of n was reported done at
// its recorded report, which was n's heartbeat (setupReportUs). Its next
// periodic heartbeat, if one was due, is replaced by this one, from which
// the next is an interval on, as a TaskTracker counts its interval from its
// last heartbeat.
func (s *Sim) reportBeat(n int32) {
	s.Wake(n)
	s.expireHeartbeat(n)
	if s.nodes[n].nextHB == s.now {
		return
	}
	s.scheduleHeartbeat(n, s.now)
}

// lcHistoryTimes sets, with the lifecycle, a finished job's result times as a
// job history records them, so that they compare with the observed run's: a
// task's launch is its attempt's start (the TaskTracker's START_TIME: Rumen's
// folder-input-trace has its maps' attempts start a median 1.16 s after their
// tasks' JobTracker start times), its own observed launch lag after the
// heartbeat that assigned it where the trace records one (histLags,
// tracemode.go), else task_startup after it; and a map's end is its
// attempt's end, before the heartbeat that reports it. The slots stay held
// from the assignment to the report; only the recorded first launch, wait,
// first and last reduce launch and last map end move.
func (s *Sim) lcHistoryTimes(j *Job, r *JobResult) {
	if !s.hw.Lifecycle {
		return
	}
	su := int64(s.hw.TaskStartup)
	h := j.hist
	for k, t := range []*int64{&r.FirstLaunchUs, &r.FirstReduceLaunchUs, &r.LastReduceLaunchUs} {
		switch {
		case *t < 0:
		case h != nil:
			*t = [3]int64{h.first, h.firstRed, h.lastRed}[k] // the tasks' own lags (tracemode.go)
		default:
			*t += su
		}
	}
	if r.FirstLaunchUs >= 0 {
		r.FirstLaunchUs += j.yarn.firstWait // YARN: the AM's heartbeat before the first task's start (yarn.go)
	}
	if j.yarn.slotAM && h == nil && r.FirstReduceLaunchUs >= 0 {
		s.slotAMReduceTimes(j, r) // yarn_slotam.go
	}
	if r.FirstLaunchUs >= 0 {
		r.WaitingUs = r.FirstLaunchUs - r.SubmitUs
	}
	if r.LastMapEndUs >= 0 {
		r.LastMapEndUs = j.mapAttemptsEndUs()
	}
}

// mapAttemptsEndUs is the end of j's last map attempt, before its report; the
// maps are all done (kept when their records were dropped: Sim.retireMaps).
func (j *Job) mapAttemptsEndUs() int64 {
	if j.retired {
		return j.mapsEndUs
	}
	end := int64(-1)
	for i := range j.Maps {
		end = max(end, j.Maps[i].endUs)
	}
	return end
}

// fetchOverheadUs is the fixed cost of a reduce's fetches of n map outputs,
// parallel_copies at a time: ceil(n / parallel_copies) rounds of
// shuffle_fetch_latency (ReduceTask's copier threads, one fetch each).
func (h *Hardware) fetchOverheadUs(n int) int64 {
	if h.ShuffleFetchLatency <= 0 || n <= 0 {
		return 0
	}
	p := max(h.ParallelCopies, 1)
	return int64(math.Ceil(float64(n)/float64(p))) * int64(h.ShuffleFetchLatency)
}

// lcTaskKind is the bus's kind of a lifecycle task kind.
func lcTaskKind(kind int32) TaskKind {
	if kind == lcKindCleanup {
		return TaskCleanup
	}
	return TaskSetup
}

// lcString names a lifecycle task kind in messages.
func lcString(kind int32) string {
	if kind == lcKindCleanup {
		return "cleanup"
	}
	if kind == lcKindSetup {
		return "setup"
	}
	return fmt.Sprintf("kind %d", kind)
}

// lifecycleKeys are the hardware keys the lifecycle added, in Hardware's
// field order, for FieldJSON and MarshalJSON.
type lifecycleKeys struct {
	Lifecycle           bool
	JobInitThreads      int
	JobInitPoll         Duration
	JobInitTime         Duration
	SetupTask           Duration
	CleanupTask         Duration
	ShuffleFetchLatency Duration
	ParallelCopies      int
	ReportAtHeartbeat   bool
	AttemptFailureRate  float64
	StragglerFraction   float64
	StragglerAlpha      float64
	Speculation         string
}

func lifecycleKeysOf(h *Hardware) lifecycleKeys {
	return lifecycleKeys{h.Lifecycle, h.JobInitThreads, h.JobInitPoll, h.JobInitTime, h.SetupTask, h.CleanupTask,
		h.ShuffleFetchLatency, h.ParallelCopies, h.ReportAtHeartbeat, h.AttemptFailureRate, h.StragglerFraction,
		h.StragglerAlpha, h.Speculation}
}

// FieldJSON is the model as encoding/json writes it with Go's field names
// (DiskMBps), except that the lifecycle, failure and speculation keys are left
// out when they all hold their defaults (lifecycle off), and the later
// lifecycle keys (lifecycleExtKeys) when they all hold theirs: a run that does
// not use them records the same hardware JSON as before the keys existed. It is a
// frozen format: HardwareSHA256 hashes it and each run's jobs.parquet records
// it, so changing it changes every run's identity and results bytes. The
// manifest writes the TOML keys instead (MarshalJSON); UnmarshalJSON reads
// either.
func (h Hardware) FieldJSON() ([]byte, error) {
	type plain Hardware
	b, err := json.Marshal(plain(h))
	if err != nil {
		return nil, err
	}
	d := omittedHardware(&h)
	for _, of := range optionalKeyGroups() {
		if of(&h) != of(&d) {
			continue
		}
		if b, err = stripKeys(b, of(&d)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// optionalKeyGroups are the groups of hardware keys added after the frozen
// JSON formats were fixed (the lifecycle's, the later lifecycle keys, the
// YARN model's, the flow model's keys, the event poll, flow_fetch_order): each gives a comparable struct of the group's fields, in
// Hardware's field order. A group whose keys all hold their defaults is left
// out of FieldJSON and the manifest, so that a run that does not use it
// records the same hardware JSON as before the keys existed; flow_fetch_order's
// group is left out at the value its absence stands for instead
// (omittedHardware, fetchOrderKeys), since its default changed.
func optionalKeyGroups() []func(*Hardware) any {
	return []func(*Hardware) any{
		func(h *Hardware) any { return lifecycleKeysOf(h) },
		func(h *Hardware) any { return lifecycleExtKeysOf(h) },
		func(h *Hardware) any { return yarnKeysOf(h) },
		func(h *Hardware) any { return flowKeysOf(h) },
		func(h *Hardware) any { return eventPollKeysOf(h) },
		func(h *Hardware) any { return mapRateKeysOf(h) },
		func(h *Hardware) any { return flowMergeKeysOf(h) },
		func(h *Hardware) any { return fetchOrderKeysOf(h) },
		func(h *Hardware) any { return containerKeysOf(h) },
		func(h *Hardware) any { return heartbeatCapKeysOf(h) },
	}
}
