package replay

import (
	"time"

	"github.com/tracereplay/tracereplay/trace"
)

// A YARN job on a slot cluster in trace mode (docs/trace-mode.md, "YARN
// jobs on the derived slot cluster"). A job whose trace records its
// MRAppMaster (trace.Job.AMStartMs, a .jhist's AM_STARTED) got its
// containers through two allocation hops, not a TaskTracker's heartbeat:
// the ResourceManager's scheduler allocates a NodeManager's free resources
// to the outstanding asks when that NodeManager heartbeats
// (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms, 1 s by default:
// the derived cluster's heartbeat, NodeManagerHeartbeat), and the AM gets
// the container from the response to its next allocate call, which its
// RMContainerAllocator makes every
// yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms (am_heartbeat, 1 s)
// from its registration, sleeping the interval before each call
// (RMCommunicator.startAllocatorThread); the AM then launches the container
// and the .jhist stamps the attempt's start at the launch
// (TaskAttemptImpl's launchTime). So, for such a job with the lifecycle, in
// trace mode, on a slot cluster, with am_heartbeat > 0:
//
//   - its maps reach the scheduler at the AM's first call, am_heartbeat
//     after JOB_INITED (the asks the AM made at the job's start go with
//     that call);
//   - a task assigned at a node's heartbeat starts at the AM's next call
//     (JOB_INITED + k·am_heartbeat, k ≥ 1) plus the job's launch time, in
//     place of task_startup;
//   - its reduces reach the scheduler at the AM's second call after the
//     slow-start fraction of its maps is done: RMContainerAllocator.heartbeat
//     makes its allocate call (getResources) before scheduleReduces, so the
//     reduce asks it decides at one call go with the next.
//
// The launch time, from the call that hands over the container to the
// attempt's recorded start (the ContainerLauncher's startContainers round
// trip), is the job's own: its first recorded attempt's start after the
// AM's last call before it, (start − JOB_INITED) mod am_heartbeat (2.177 s
// after JOB_INITED in the Sleep job: two calls and 0.177 s), over the tasks whose recorded start
// is their first attempt's (no failed or killed attempt before it); 0 when
// no task has one (a job failed by its maps); no configuration sets it.

// NodeManagerHeartbeat is YARN's default NodeManager heartbeat interval
// (yarn.resourcemanager.nodemanagers.heartbeat-interval-ms = 1000, and
// yarn.nodemanager.heartbeat.interval-ms in Hadoop 0.23): the derived slot
// cluster's heartbeat for a trace whose every job records a YARN AM.
const NodeManagerHeartbeat = Duration(time.Second / time.Microsecond)

// Reasons an evInitDone event carries in b besides an init worker (0) and
// the job's own observed initialisation (1).
const (
	initSlotAMAsks    = 2 // a slot-cluster YARN job's first allocate call: its maps reach the scheduler
	initSlotAMReduces = 3 // its reduce asks reach the scheduler
)

// slotAMOf sets whether job j replays its YARN AM's allocate calls on a
// slot cluster (above) and its launch time, from its trace tasks
// tasks[:work], after lifeOf has set its observed initialisation.
func (w *Workload) slotAMOf(j *Job, tasks []trace.Task, work int) {
	hw := w.hw
	iv := int64(hw.AMHeartbeat)
	tj := j.Trace
	if hw.Cluster == ClusterYARN || !hw.Lifecycle || !w.times.UsesTrace() || iv <= 0 ||
		tj.AMStartMs < 0 || j.life.obsInitUs < 0 || j.life.setup.present {
		return
	}
	j.yarn.slotAM = true
	first := int64(-1)
	for x := 0; x < work; x++ {
		tt := &tasks[x]
		if _, retried := w.retries[retryKey(tj.ID, tt.TaskID)]; retried {
			continue // its recorded start is a later attempt's
		}
		if w.fails != nil && w.fails[retryKey(tj.ID, tt.TaskID)].fate == fateFail {
			continue
		}
		if tt.Host != "" && tt.StartMs >= tj.LaunchMs && (first < 0 || tt.StartMs < first) {
			first = tt.StartMs
		}
	}
	if first >= 0 {
		j.yarn.launchUs = (first - tj.LaunchMs) * 1000 % iv
	}
}

// slotAMInit is called at a slot-cluster YARN job's JOB_INITED: its AM's
// calls are timed from now, and its maps reach the scheduler at the first.
func (s *Sim) slotAMInit(j *Job) {
	j.yarn.readyUs = s.now
	s.schedule(s.now+int64(s.hw.AMHeartbeat), evInitDone, j.Index, initSlotAMAsks)
}

// slotAMNextCall is the time of job j's AM's first allocate call at or
// after t.
func (s *Sim) slotAMNextCall(j *Job, t int64) int64 {
	iv := int64(s.hw.AMHeartbeat)
	return t + (iv-(t-j.yarn.readyUs)%iv)%iv
}

// slotAMWaitUs is, for a slot-cluster YARN job, what its container assigned
// now adds to task_startup, which the task's held time already counts: the
// wait for the AM's next call and the job's launch time, less task_startup
// (negative when they are shorter).
func (s *Sim) slotAMWaitUs(j *Job) int64 {
	w := s.slotAMNextCall(j, s.now) - s.now
	if j.FirstLaunchUs < 0 {
		j.yarn.firstWait = w + j.yarn.launchUs - int64(s.hw.TaskStartup)
	}
	return w + j.yarn.launchUs - int64(s.hw.TaskStartup)
}

// slotAMSlowStart is called when a slot-cluster YARN job's slow-start
// fraction of maps is done: its AM decides the reduce asks at its next call
// and sends them at the one after.
func (s *Sim) slotAMSlowStart(j *Job) {
	if j.yarn.redAsk {
		return
	}
	j.yarn.redAsk = true
	call := s.slotAMNextCall(j, s.now+1) // strictly after: the call that sees the maps done
	s.schedule(call+int64(s.hw.AMHeartbeat), evInitDone, j.Index, initSlotAMReduces)
}

// slotAMReducesAsked is called when a slot-cluster YARN job's reduce asks
// reach the scheduler: its reduces become launchable, unless it has
// finished or failed meanwhile.
func (s *Sim) slotAMReducesAsked(j *Job) {
	if j == nil || j.ready || j.finished || j.life.fail.failed {
		return
	}
	s.markReady(j, true)
}

// slotAMReduceTimes sets a slot-cluster YARN job's first and last reduce
// launch as its history records them: each reduce's attempt start, its
// assignment plus its wait for the AM's call and the launch time.
func (s *Sim) slotAMReduceTimes(j *Job, r *JobResult) {
	first, last := int64(-1), int64(-1)
	for i := range j.Reduces {
		rt := &j.Reduces[i]
		if rt.LaunchUs < 0 {
			continue
		}
		at := rt.LaunchUs + int64(s.hw.TaskStartup) + j.redAMWaitUs(int32(i))
		if first < 0 || at < first {
			first = at
		}
		last = max(last, at)
	}
	if first >= 0 {
		r.FirstReduceLaunchUs, r.LastReduceLaunchUs = first, last
	}
}
