package replay

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// Lifecycle keys added after the first lifecycle (lifecycleKeys): they are
// left out of FieldJSON and MarshalJSON while they all hold their defaults,
// so that a run that does not use them keeps its identity and results bytes.
//
// retry_container_delay (YARN retries). In a YARN job every attempt runs in
// a container the MapReduce ApplicationMaster asks the ResourceManager for:
// RMContainerAllocator sends the request at its next allocate call (every
// yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms, 1 s by default), the
// scheduler allocates at a NodeManager heartbeat, the AM gets the container
// at its following call and launches it; the attempt's recorded start is the
// launch. A failed attempt's retry goes through that round trip again. The
// two FAILED .jhist histories show it: from a failed attempt's end to its
// task's next attempt's start 1,321, 1,773 and 2,844 ms (2.4.0, one map's
// three retries) and 1,639, 1,787, 1,722, 1,438, 1,626 and 1,660 ms (0.23.9,
// two maps' three each; both maps' retries start within 2 ms of each other
// though their failures were up to 202 ms apart: the container comes at the
// AM's allocate call, not at the failure). The replay keeps a retry on its
// task's slot; without the key the next attempt starts task_startup after the
// failed one's end, with it retry_container_delay after.
//
// The first attempts of a YARN job go through the same round trip from
// JOB_INITED (2,122–2,212 ms in the five .jhist histories); the replay gives
// them the tracker's next heartbeat and task_startup, as for Hadoop 1 (1.8
// and 1.9 s in the two FAILED ones), and retry_container_delay does not
// change them.

// lifecycleExtKeys are the later lifecycle keys, in Hardware's field order
// (contiguous, after Speculation).
type lifecycleExtKeys struct {
	RetryContainerDelay Duration
	JobInitJobsPerUser  int
	JobInitUsers        int
	JVMReuse            int
	SortMBps            float64
}

func lifecycleExtKeysOf(h *Hardware) lifecycleExtKeys {
	return lifecycleExtKeys{h.RetryContainerDelay, h.JobInitJobsPerUser, h.JobInitUsers, h.JVMReuse, h.SortMBps}
}

// stripKeys removes from b, the JSON of a Hardware, the span of keys that
// keys (a struct of Hardware's consecutive fields, not the first) marshals
// to.
func stripKeys(b []byte, keys any) ([]byte, error) {
	k, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	// {"A":…,"B":…} → ,"A":…,"B":…
	span := append([]byte{','}, k[1:len(k)-1]...)
	return bytes.Replace(b, span, nil, 1), nil
}

// retryGapUs is the time from a failed or killed attempt's end to the start
// of its task's next attempt in trace mode: retry_container_delay for a YARN
// job (its trace records the ApplicationMaster) when set, else task_startup.
func (h *Hardware) retryGapUs(j *trace.Job) int64 {
	if h.RetryContainerDelay > 0 && j != nil && j.AMStartMs >= 0 {
		return int64(h.RetryContainerDelay)
	}
	return int64(h.TaskStartup)
}

// validateLifecycleExt checks the later lifecycle keys.
func (h *Hardware) validateLifecycleExt(bad func(string, ...any)) {
	if h.RetryContainerDelay < 0 || h.RetryContainerDelay > MaxHardwareDuration {
		bad("retry_container_delay = %v: want 0..%v", h.RetryContainerDelay, MaxHardwareDuration)
	}
	if h.JobInitJobsPerUser < 0 || h.JobInitJobsPerUser > 1<<20 {
		bad("job_init_jobs_per_user = %d: want 0 (no limit)..%d", h.JobInitJobsPerUser, 1<<20)
	}
	if h.JobInitUsers < 0 || h.JobInitUsers > 1<<20 {
		bad("job_init_users = %d: want 0 (no limit)..%d", h.JobInitUsers, 1<<20)
	}
	if !(h.SortMBps == 0 || h.SortMBps > 0 && h.SortMBps <= MaxRateMBps) {
		bad("sort_mb_per_s = %g: want 0 (free) or a finite rate in (0, %g]", h.SortMBps, float64(MaxRateMBps))
	}
	if h.JVMReuse < -1 {
		bad("jvm_reuse = %d: want -1 (no limit) or at least 0 (0 and 1: no reuse)", h.JVMReuse)
	}
}

// Per-user init limits (job_init_jobs_per_user, job_init_users), as the
// Capacity scheduler's JobInitializationPoller applies them
// (apache/hadoop branch-1 src/contrib/capacity-scheduler,
// JobInitializationPoller.getJobsToInitialize): at each tick the poller
// first drops from its list of initialised jobs those that are scheduled (a
// map or reduce launched: pendingMaps < desiredMaps or likewise for reduces)
// or complete (cleanUpInitializedJobsList), then walks each queue's waiting
// jobs in order (priority, then submission; here submission). A job still in
// the list counts against its user; a job not yet selected is selected when
// its user already counts and has fewer than maximum-initialized-jobs-per-user
// jobs, or when its user is new and fewer than 100 /
// minimum-user-limit-percent + MAX_ADDITIONAL_USERS_TO_INIT (2) users count;
// the walk stops once more than users × jobs per user jobs count. A job not
// selected waits for the next tick. Hadoop 1.x later limits initialised tasks
// instead (maximum-initialized-active-tasks-per-user), which this does not
// model. With either key 0 the poller selects every waiting job, as before.

// initLimited reports whether the init poller applies per-user limits.
func (h *Hardware) initLimited() bool {
	return h.JobInitPoll > 0 && (h.JobInitJobsPerUser > 0 || h.JobInitUsers > 0)
}

// lcPollLimited is the poller's tick under per-user limits: it selects jobs
// (lcSelectLimited), hands them to the threads' next round, and schedules the
// next tick while jobs are left waiting.
func (s *Sim) lcPollLimited() {
	sel := s.lcSelectLimited()
	if len(sel) > 0 {
		if len(s.lc.assigned) == 0 {
			s.schedule(s.now+int64(s.hw.JobInitPoll)/2, evInitPoll, 0, 1)
		}
		s.lc.assigned = append(s.lc.assigned, sel...)
	}
	if len(s.lc.pollQ) > 0 {
		s.lc.pollScheduled = true
		s.schedule(s.now+int64(s.hw.JobInitPoll), evInitPoll, 0, 0)
	}
}

// lcSelectLimited is getJobsToInitialize over every queue: it returns the
// jobs selected now, in job order, and leaves the others in pollQ.
func (s *Sim) lcSelectLimited() []*Job {
	kept := s.lc.polled[:0]
	for _, j := range s.lc.polled {
		if !j.finished && j.FirstLaunchUs < 0 {
			kept = append(kept, j)
		}
	}
	clear(s.lc.polled[len(kept):])
	s.lc.polled = kept
	// The waiting jobs in job order: those selected earlier and not yet
	// scheduled, and those not selected.
	waiting := make([]*Job, 0, len(s.lc.polled)+len(s.lc.pollQ))
	waiting = append(append(waiting, s.lc.polled...), s.lc.pollQ...)
	slices.SortFunc(waiting, func(a, b *Job) int { return cmp.Compare(a.Index, b.Index) })
	perUser, users := s.hw.JobInitJobsPerUser, s.hw.JobInitUsers
	type queueState struct {
		users map[string]int
		count int
		full  bool
	}
	queues := map[string]*queueState{}
	var sel []*Job
	rest := s.lc.pollQ[:0]
	for _, j := range waiting {
		q := queues[j.Trace.Queue]
		if q == nil {
			q = &queueState{users: map[string]int{}}
			queues[j.Trace.Queue] = q
		}
		u := j.Trace.User
		n, present := q.users[u]
		switch {
		case j.life.polled:
			q.users[u] = n + 1
			q.count++
			continue
		case q.full:
			rest = append(rest, j)
			continue
		case !present && (users == 0 || len(q.users) < users), present && (perUser == 0 || n < perUser):
			q.users[u] = n + 1
			q.count++
			j.life.polled = true
			sel = append(sel, j)
			s.lc.polled = append(s.lc.polled, j)
		default:
			rest = append(rest, j)
		}
		if users > 0 && perUser > 0 && q.count > users*perUser {
			q.full = true
		}
	}
	clear(s.lc.pollQ[len(rest):])
	s.lc.pollQ = rest
	return sel
}

// JVM reuse (jvm_reuse, Hadoop 1's mapred.job.reuse.jvm.num.tasks). A
// TaskTracker runs each task in a child JVM; with reuse, JvmManager hands a
// new task of a job to an idle JVM of the same job and task type (map or
// reduce) that has run fewer than the limit of tasks (-1: any number), and
// starts a JVM only when there is none, killing an idle JVM of another job
// when the slots are full. The replay keeps, per node and slot kind, the idle
// JVMs of the maps and reduces that ended there (job, tasks run), at most one
// per free slot (the oldest goes first when a slot is taken without reuse).
// A map or reduce launched on a node with an idle JVM of its job and kind
// within the limit takes it and skips task_startup: a map's duration, and a
// reduce's copy, are task_startup shorter. Not reused: setup and cleanup
// tasks and speculative copies (they take a slot, and the oldest idle JVM
// with it), maps that read their input over a network model that re-times
// transfers (flow), a failing reduce's time (jobfail.go), and the JVMs of
// killed tasks (they die with the task). With jvm_reuse = 1 (the default)
// nothing is tracked.

// jvm is an idle task JVM: the job it ran tasks of, and how many.
type jvm struct {
	job  int32
	runs int32
}

// jvmSim is JVM reuse's state: per node, the idle JVMs of its map slots
// ([0]) and reduce slots ([1]), oldest first, and the tasks each running
// map or reduce's JVM has run.
type jvmSim struct {
	idle [][2][]jvm
	runs map[[3]int32]int32 // {job, 0 map or 1 reduce, index} → tasks run
}

// jvmReuses reports whether JVMs are reused.
func (h *Hardware) jvmReuses() bool { return h.JVMReuse != 1 && h.JVMReuse != 0 }

// jvmTake gives task i of job j (a reduce when reduce is set), just launched
// on node n (its slot already taken), a JVM, and returns the start-up it
// saves: task_startup when it reuses an idle JVM of its job, else 0.
func (s *Sim) jvmTake(n int32, j *Job, reduce bool, i int32) int64 {
	if !s.hw.jvmReuses() {
		return 0
	}
	js := &s.lc.jvm
	if js.idle == nil {
		js.idle = make([][2][]jvm, len(s.nodes))
		js.runs = map[[3]int32]int32{}
	}
	k := 0
	if reduce {
		k = 1
	}
	idle := js.idle[n][k]
	key := [3]int32{j.Index, int32(k), i}
	for x, v := range idle {
		if v.job == j.Index && (s.hw.JVMReuse < 0 || v.runs < int32(s.hw.JVMReuse)) {
			js.idle[n][k] = append(idle[:x], idle[x+1:]...)
			js.runs[key] = v.runs + 1
			return int64(s.hw.TaskStartup)
		}
	}
	js.runs[key] = 1
	s.jvmTrim(n, reduce)
	return 0
}

// jvmTrim drops node n's oldest idle JVMs of the slot kind beyond its free
// slots: a task took a slot without reusing one.
func (s *Sim) jvmTrim(n int32, reduce bool) {
	if !s.hw.jvmReuses() || s.lc.jvm.idle == nil {
		return
	}
	k, free := 0, s.nodes[n].freeMap
	if reduce {
		k, free = 1, s.nodes[n].freeReduce
	}
	idle := s.lc.jvm.idle[n][k]
	if drop := len(idle) - int(max(free, 0)); drop > 0 {
		s.lc.jvm.idle[n][k] = append(idle[:0], idle[drop:]...)
	}
}

// jvmRelease makes the JVM of task i of job j, which completed on node n,
// idle there.
func (s *Sim) jvmRelease(n int32, j *Job, reduce bool, i int32) {
	if !s.hw.jvmReuses() || s.lc.jvm.idle == nil {
		return
	}
	k := int32(0)
	if reduce {
		k = 1
	}
	key := [3]int32{j.Index, k, i}
	runs, ok := s.lc.jvm.runs[key]
	if !ok {
		return
	}
	delete(s.lc.jvm.runs, key)
	s.lc.jvm.idle[n][k] = append(s.lc.jvm.idle[n][k], jvm{j.Index, runs})
}

// The sort phase (sort_mb_per_s). A reduce copies its map outputs
// (shuffle), merges them (sort: Hadoop's SORT_FINISHED / sortFinished marks
// its end), then runs the reduce function. With sort_mb_per_s > 0 a
// modelled reduce's work after its shuffle adds its shuffle bytes at that
// rate before the reduce function's time (workload.go); an observed reduce's
// work (trace mode: finish - shuffle end) already holds its sort. The
// results record the shuffle's end and the finish, not the sort's end.
