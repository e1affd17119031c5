package replay

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/tracereplay/tracereplay/trace"
)

// ObservedPolicy is the policy name of the results Observed builds: the
// schedule the trace itself recorded.
const ObservedPolicy = "observed"

// HasObservedSchedule reports whether tr records where and when its tasks ran:
// some task has a host, a start and a finish. Job histories do; SWIM traces
// (no tasks) and synthetic traces (no hosts) do not. A streamed trace whose
// tasks cannot be read has none here; ObservedSchedule tells why.
func HasObservedSchedule(tr *trace.Trace) bool {
	ok, _ := ObservedSchedule(tr)
	return ok
}

// ObservedSchedule is HasObservedSchedule with the error that stopped the
// read of a streamed trace's tasks (trace.ErrBadInput, naming the file: a
// tasks.parquet that went bad after the trace was opened), so that a caller
// can report it rather than a trace without a schedule.
func ObservedSchedule(tr *trace.Trace) (bool, error) {
	observed := observedTask
	if tr.Stream != nil {
		found := false
		err := tr.Stream.EachTask(func(_ int, t *trace.Task) error {
			if found = observed(t); found {
				return io.EOF // found: stop reading
			}
			return nil
		})
		if found {
			return true, nil
		}
		return false, err
	}
	for i := range tr.Tasks {
		if observed(&tr.Tasks[i]) {
			return true, nil
		}
	}
	return false, nil
}

// observedTask reports whether t is a map or reduce with a host, a start and
// a finish (HasObservedSchedule).
func observedTask(t *trace.Task) bool {
	return t.Type.IsWork() && t.Host != "" && t.StartMs >= 0 && t.FinishMs >= t.StartMs
}

// Observed reports the schedule the trace recorded for the jobs w replays, in
// the results schema of Run (policy "observed"), so that every report can set
// the policies beside what really happened. Nothing is simulated, so the
// invariants of Options.CheckInvariants do not apply and Options.Alone is
// ignored. Times count from the first replayed job's submit, as in Run. The
// recorded schedule is emitted on the observer bus as Run emits a simulated
// one (bus.go; Options.Observers listen too): the per-job results come from
// the same observer as Run's, the timeline rows from the same recorder.
//
//   - Per job: submit, first task start, last map finish (when every map has
//     one), first and last reduce start, finish and flowtime from the trace's
//     own times (finish Unset when the trace has none, as for an incomplete
//     job); starvation over the reduces that started at or after the last map
//     finished (Coupling §III-C, as Run counts them); map locality from the
//     attempts' recorded locality, maps of unknown locality in none of the
//     three counts; ideal and slowdown against the same ideal as the simulated
//     runs (the replay's hardware model). A job the trace lists without tasks
//     has only its submit and finish.
//   - Per task (Options.RecordTasks): the successful (else last) attempt's host,
//     rack, start, shuffle end and finish, and the bytes the trace records
//     (Unset if none); Node is the host's node when the cluster was derived
//     from the trace, else -1.
//   - Timeline (Options.Timeline): running tasks per job at the same sample
//     instants as Run, a task running over [start, finish).
//   - Summary: as Run's, except that map locality counts only maps of known
//     locality, utilisation divides by the replay hardware's slots, network
//     bytes are the remote maps' input plus the reduces' shuffle bytes, and
//     there is no load balance, node network accounting or event count.
func Observed(w *Workload, opt Options) (*Result, error) {
	start := time.Now()
	if ok, err := ObservedSchedule(w.Trace); err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	} else if !ok {
		return nil, fmt.Errorf("policy %s: the trace records no schedule (no task with a host, a start and a finish)", ObservedPolicy)
	}
	o := &observer{w: w, opt: opt, origin: w.firstMs}
	o.acc.init()
	if w.Trace.Stream == nil {
		o.firstAttempt = firstAttempts(w.Trace)
	}
	jm := newJobMetrics(&o.res.Jobs, nil)
	jm.observed = true
	if out := opt.Out; out != nil {
		o.res.out = out
		sink := out.startJobs(ObservedPolicy, opt.JobStats)
		jm.sink = func(r *JobResult) {
			o.acc.add(r)
			sink(r)
		}
	} else {
		jm.sink = func(r *JobResult) {
			r.Policy = ObservedPolicy
			o.acc.add(r)
			o.res.Jobs = append(o.res.Jobs, *r)
		}
	}
	o.bus.register(jm, jobMetricsEvents)
	if opt.Timeline {
		o.bus.register(timelineRecorder{add: func(t TimelineSample) {
			t.Policy = ObservedPolicy
			if out := opt.Out; out != nil {
				out.addSample(&t)
				return
			}
			o.res.Timeline = append(o.res.Timeline, t)
		}}, onSample)
		o.tl = &obsTimeline{o: o, step: int64(w.hw.TimelineSample)}
	}
	for _, ob := range opt.Observers {
		o.bus.register(ob, onAll)
	}
	if opt.RecordTasks {
		var err error
		if o.bounds, err = w.finishBounds(); err != nil {
			return nil, err
		}
	}
	c := w.cursor()
	c.attempts = true
	defer c.close()
	for k := 0; ; k++ {
		if opt.Context != nil && opt.Context.Err() != nil {
			return nil, opt.Context.Err()
		}
		r, ok, err := c.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		jw, err := w.jobLifecycle(r)
		if err != nil {
			return nil, err
		}
		o.job(k, r, jw)
	}
	o.flushTasks(math.MaxInt64)
	if o.tl != nil {
		o.tl.run(true)
	}
	o.summarise()
	if out := opt.Out; out != nil && out.err != nil {
		return nil, out.err
	}
	o.res.Wall = time.Since(start)
	return &o.res, nil
}

// observer builds the observed results, job by job as a cursor hands the
// replayed jobs out (Workload.cursor), so that a streamed trace is read
// once and what is held is the state of the jobs under way: each job's
// result goes to Options.Out (or Result.Jobs) as it is built, its task rows
// wait in a heap until no later job can have a task that finishes before
// them (finishBounds), its spans until the timeline has sampled past them
// (obsTimeline).
type observer struct {
	w      *Workload
	opt    Options
	origin int64 // ms of the first replayed submit
	res    Result
	acc    obsAcc // the summary's per-job sums

	tl        *obsTimeline // Options.Timeline
	busyMapUs int64
	busyRedUs int64
	hostBytes map[[2]string][2]int64 // (host, MAP or REDUCE) -> input bytes, last finish
	netBytes  int64
	known     int64 // maps of known locality
	bus       bus
	evs       []obsEvent // a job's task events, reused from job to job
	// firstAttempt is each job's earliest map or reduce attempt start (ms)
	// on a host, for the jobs whose held trace lists attempts
	// (firstAttempts); a streamed trace's come with each job.
	firstAttempt map[string]int64
	// Options.RecordTasks: the task rows not yet emitted, and the earliest
	// finish of the tasks of later jobs (finishBounds).
	pending taskHeap
	bounds  []int64
}

// span is one task's observed run.
type span struct {
	start, end int64
	reduce     bool
}

// us converts a trace time in ms to results µs from the origin, or Unset.
func (o *observer) us(ms int64) int64 {
	if ms < 0 {
		return Unset
	}
	return (ms - o.origin) * 1000
}

// obsEvent is a task's observed start (launch) or finish, before it is
// emitted on the bus.
type obsEvent struct {
	t      int64
	launch bool
	e      TaskEvent
}

// job plays replayed job k's recorded schedule (r, as the cursor handed it
// out) onto its Job and emits it on the bus as the simulator would
// (bus.go): its arrival at its submit, its tasks' launches and ends in time
// order (ends before launches at one instant), its finish at the trace's
// finish (Unset when there is none). A task's launch is emitted when the
// trace records its start, its end when it records its finish. The job's
// result is the one jobMetrics builds for a simulated job. Its task rows go
// to the heap, those that can no longer be preceded out of it; its spans to
// the timeline, which samples up to its submit. jw is the workload that
// builds the job: o.w, or a copy with its lifecycle (jobLifecycle).
func (o *observer) job(k int, r replayedJob, jw *Workload) {
	w := o.w
	tj := r.tj
	tasks := r.tasks[:r.work]
	j := jw.build(k, r, nil)
	j.FirstLaunchUs, j.LastMapEndUs = Unset, Unset
	finish := int64(Unset)
	if tj.FinishMs >= tj.SubmitMs && tj.SubmitMs >= 0 {
		finish = o.us(tj.FinishMs)
	}
	o.bus.jobArrived(JobEvent{Time: j.SubmitUs, Job: j})
	var mi, ri int32
	var spans []span
	end := max(j.SubmitUs, finish)
	evs := o.evs[:0]
	for i := range tasks {
		t := &tasks[i]
		s, f := o.us(t.StartMs), o.us(t.FinishMs)
		if s != Unset && f >= s {
			spans = append(spans, span{s, f, t.Type == trace.Reduce})
			end = max(end, f)
		}
		e := TaskEvent{Job: j, Kind: TaskReduce, Index: ri, Node: -1, Locality: LocalityUnknown}
		if n, ok := w.topo.HostNode(t.Host); ok {
			e.Node = n
		}
		if t.Type == trace.Map {
			e.Kind, e.Index = TaskMap, mi
			switch t.Locality {
			case trace.NodeLocal:
				e.Locality = NodeLocal
			case trace.RackLocal:
				e.Locality = RackLocal
			case trace.OffSwitch:
				e.Locality = OffRack
			}
			o.mapTask(j, t, mi, s, f)
			mi++
		} else {
			o.reduceTask(j, t, ri, s, f)
			ri++
		}
		if s != Unset {
			evs = append(evs, obsEvent{t: s, launch: true, e: e})
		}
		if f != Unset {
			evs = append(evs, obsEvent{t: f, e: e})
		}
	}
	slices.SortStableFunc(evs, func(a, b obsEvent) int {
		if c := cmpInt64(a.t, b.t); c != 0 {
			return c
		}
		if a.launch != b.launch {
			if b.launch {
				return -1
			}
			return 1
		}
		return 0
	})
	for _, x := range evs {
		x.e.Time = x.t
		if x.launch {
			if j.FirstLaunchUs == Unset || x.t < j.FirstLaunchUs {
				j.FirstLaunchUs = x.t
			}
			o.bus.taskLaunched(x.e)
			continue
		}
		if x.e.Kind == TaskMap {
			j.FinishedMaps++
			if j.MapsDone() {
				j.LastMapEndUs = x.t
			}
		}
		o.bus.taskEnded(x.e)
	}
	clear(evs) // drop the job
	o.evs = evs
	a, ok := o.firstAttempt[tj.ID]
	if o.firstAttempt == nil {
		a, ok = firstAttempt(r.attempts)
	}
	if ok {
		// A task that never succeeded records its TASK_STARTED (.jhist: when
		// the AM created it, before any attempt ran); its job's first task
		// ran at its first attempt's start, what a replay's first launch
		// stands for (lcHistoryTimes).
		j.FirstLaunchUs = o.us(a)
	}
	o.bus.jobFinished(JobEvent{Time: finish, Job: j})
	if o.opt.RecordTasks {
		o.flushTasks(o.bound(r.ti))
	}
	if o.tl != nil {
		o.tl.add(k, j.SubmitUs, end, spans)
		o.tl.run(false)
	}
}

// mapTask counts map i (trace task t, observed start s and finish f) of job j
// into the run's totals and records its task row. Bytes the trace does not
// know count 0 in the totals and Unset in the row.
func (o *observer) mapTask(j *Job, t *trace.Task, i int32, s, f int64) {
	in := t.InputBytes
	if t.Locality != "" {
		o.known++
		if t.Locality != trace.NodeLocal {
			o.netBytes += max(in, 0)
		}
	}
	if s != Unset && f >= s {
		o.busyMapUs += f - s
		o.machine(t.Host, "MAP", in, f)
	}
	o.task(j.Index, j.Trace.ID, t, "MAP", i, s, f, Unset, in)
}

// machine credits b input bytes and a task end at f to a host (EAS eqs. 1-4).
func (o *observer) machine(host, typ string, b, f int64) {
	if host == "" {
		return
	}
	if o.hostBytes == nil {
		o.hostBytes = map[[2]string][2]int64{}
	}
	k := [2]string{host, typ}
	hb := o.hostBytes[k]
	o.hostBytes[k] = [2]int64{hb[0] + max(b, 0), max(hb[1], f)}
}

// reduceTask counts reduce i into the run's totals and records its task row.
func (o *observer) reduceTask(j *Job, t *trace.Task, i int32, s, f int64) {
	in := t.ShuffleBytes
	o.netBytes += max(in, 0)
	if s != Unset && f >= s {
		o.busyRedUs += f - s
		o.machine(t.Host, "REDUCE", in, f)
	}
	sh := o.us(t.ShuffleFinishMs)
	o.task(j.Index, j.Trace.ID, t, "REDUCE", i, s, f, sh, in)
}

func (o *observer) task(k int32, id string, t *trace.Task, typ string, i int32, s, f, sh, in int64) {
	if !o.opt.RecordTasks {
		return
	}
	node := int32(-1)
	if n, ok := o.w.topo.HostNode(t.Host); ok {
		node = n
	}
	loc := ""
	if typ == "MAP" {
		loc = t.Locality
	}
	o.pending.push(pendingTask{TaskResult{Policy: ObservedPolicy, JobIndex: k, JobID: id, Type: typ, Index: i, Node: node,
		Host: t.Host, Rack: t.Rack, Locality: loc, LaunchUs: s, ShuffleEndUs: sh, FinishUs: f, InputBytes: in}})
}

func (o *observer) summarise() {
	sum := &o.res.Summary
	sum.Policy, sum.Trace, sum.Hardware, sum.Seed = ObservedPolicy, o.opt.TraceName, o.opt.HardwareName, o.opt.Seed
	a := &o.acc
	sum.Jobs = a.jobs
	sum.JobsLeftOut = o.w.leftOut
	sum.Maps, sum.Reduces, sum.TotalFlowtimeUs = a.maps, a.reduces, a.flowUs
	if a.last > a.first {
		sum.MakespanUs = a.last - a.first
	}
	if o.known > 0 {
		sum.MapLocality = float64(a.local) / float64(o.known)
		sum.RackLocality = float64(a.rack) / float64(o.known)
	}
	hw := o.w.hw
	if sec := float64(sum.MakespanUs) / 1e6; sec > 0 {
		sum.MapThroughput = float64(sum.Maps) / sec
		sum.ReduceThroughput = float64(sum.Reduces) / sec
		sum.MapUtilisation = float64(o.busyMapUs) / (float64(hw.TotalMapSlots()) * float64(sum.MakespanUs))
		sum.ReduceUtilisation = float64(o.busyRedUs) / (float64(hw.TotalReduceSlots()) * float64(sum.MakespanUs))
	}
	keys := make([][2]string, 0, len(o.hostBytes))
	for k := range o.hostBytes {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range keys {
		hb := o.hostBytes[k]
		if hb[1] <= 0 {
			continue
		}
		if k[1] == "MAP" {
			sum.MapMachineThroughput += float64(hb[0]) / float64(hb[1])
		} else {
			sum.ReduceMachineThroughput += float64(hb[0]) / float64(hb[1])
		}
	}
	sum.JainFairness = a.jain()
	sum.NetworkBytes = o.netBytes
}

// obsAcc accumulates the observed summary's per-job figures one job at a
// time, in job order: the sums a loop over the held results made, to the
// bit (Jain's index sums its floats in that order). Flowtime, the last
// finish and the slowdowns count the jobs with a finish only.
type obsAcc struct {
	jobs                  int
	maps, reduces, flowUs int64
	first, last           int64 // earliest submit, latest finish
	local, rack           int64 // maps node-local, rack-local
	slowN                 int   // jobs with a finish
	slowSum, slowSq       float64
}

func (a *obsAcc) init() { *a = obsAcc{first: math.MaxInt64, last: math.MinInt64} }

func (a *obsAcc) add(r *JobResult) {
	a.jobs++
	a.maps += int64(r.Maps)
	a.reduces += int64(r.Reduces)
	a.first = min(a.first, r.SubmitUs)
	a.local += int64(r.MapsNodeLocal)
	a.rack += int64(r.MapsRackLocal)
	if r.FinishUs != Unset {
		a.flowUs += r.FlowtimeUs
		a.last = max(a.last, r.FinishUs)
		a.slowN++
		a.slowSum += r.Slowdown
		a.slowSq += r.Slowdown * r.Slowdown
	}
}

// jain is Jain's fairness index of the finished jobs' slowdowns, (Σx)² / (n·Σx²).
func (a *obsAcc) jain() float64 {
	if a.slowSq == 0 {
		return 1
	}
	return a.slowSum * a.slowSum / (float64(a.slowN) * a.slowSq)
}

// Task rows in Run's order. Run emits a task's row as it finishes, so its
// rows are in finish order (unknown last), then job, type and index
// (taskLess); the observed schedule's jobs are read in submit order, and a
// job's tasks may finish long after later jobs' (or, in a trace whose
// clocks disagree, before their own job's submit). The rows wait in a heap
// (pending) and leave it, in that order, when no task of a job not yet read
// can come before them: a row whose finish is at or before the earliest
// finish of every later job's tasks (bound; a later job's row at the same
// instant comes after, by its job). So the heap holds the tasks that finish
// after the next jobs' earliest task: in a trace in submit order, those of
// the jobs under way.

// taskKey is a row's finish as it orders rows: unknown last.
func taskKey(t *TaskResult) int64 {
	if t.FinishUs == Unset {
		return math.MaxInt64
	}
	return t.FinishUs
}

// taskLess orders task rows as Run emits them, by finish (unknown last),
// then job, type (maps first) and index.
func taskLess(a, b *TaskResult) bool {
	if ka, kb := taskKey(a), taskKey(b); ka != kb {
		return ka < kb
	}
	if a.JobIndex != b.JobIndex {
		return a.JobIndex < b.JobIndex
	}
	if a.Type != b.Type {
		return a.Type == "MAP"
	}
	return a.Index < b.Index
}

// pendingTask is a task row waiting in the observed run's heap (taskHeap).
type pendingTask struct{ TaskResult }

// before orders pending rows by taskLess.
func (a *pendingTask) before(b *pendingTask) bool { return taskLess(&a.TaskResult, &b.TaskResult) }

// taskHeap is a min-heap of task rows by taskLess.
type taskHeap = minHeap[pendingTask, *pendingTask]

// flushTasks emits, in order, the pending rows whose finish (taskKey) is at
// or before bound.
func (o *observer) flushTasks(bound int64) {
	for len(o.pending) > 0 && taskKey(&o.pending[0].TaskResult) <= bound {
		t := o.pending.pop().TaskResult
		if out := o.opt.Out; out != nil {
			out.addTask(&t)
			continue
		}
		o.res.Tasks = append(o.res.Tasks, t)
	}
	if len(o.pending) == 0 && cap(o.pending) > 1<<16 {
		o.pending = nil // a burst's array
	}
}

// boundChunk is how many trace jobs share one entry of finishBounds.
const boundChunk = 16

// bound is the earliest finish (results µs) of the tasks of the trace jobs
// after trace job ti (their chunks', finishBounds), math.MaxInt64 when
// none of them has a finish.
func (o *observer) bound(ti int) int64 {
	c := (ti + 1) / o.w.chunk()
	if c >= len(o.bounds) || o.bounds[c] == math.MaxInt64 {
		return math.MaxInt64
	}
	return o.us(o.bounds[c])
}

// chunk is how many trace jobs share one entry of finishBounds.
func (w *Workload) chunk() int {
	if w.boundChunk > 0 {
		return w.boundChunk
	}
	return boundChunk
}

// finishBounds reads the trace (a streamed one once more: the job_id, type
// and finish_ms of its tasks, trace.JobStream.EachTaskSpan, each task's job
// numbered by a cursor on the jobs beside them) for the earliest finish
// (ms) of the maps and reduces of the trace jobs from each chunk of
// boundChunk on: entry c is the minimum over jobs c·boundChunk and after,
// math.MaxInt64 when none has one. A job the replay leaves out counts too:
// the bound is then only earlier.
func (w *Workload) finishBounds() ([]int64, error) {
	var mins []int64
	add := func(ti int, typ trace.TaskType, finishMs int64) {
		c := ti / w.chunk()
		for len(mins) <= c {
			mins = append(mins, math.MaxInt64)
		}
		if typ.IsWork() && finishMs >= 0 {
			mins[c] = min(mins[c], finishMs)
		}
	}
	if s := w.Trace.Stream; s != nil {
		if err := streamedFinishes(s, add); err != nil {
			return nil, fmt.Errorf("read trace: %w", err)
		}
	} else {
		for ti := range w.Trace.Jobs {
			tasks, _ := w.heldTasks(ti)
			for i := range tasks {
				add(ti, tasks[i].Type, tasks[i].FinishMs)
			}
		}
	}
	for c := len(mins) - 2; c >= 0; c-- {
		mins[c] = min(mins[c], mins[c+1])
	}
	return mins, nil
}

// streamedFinishes calls add with each task of s, in file order, with its
// job's trace position, type and finish: its span (the span columns only,
// trace.JobStream.EachTaskSpan), its job's position found by reading the
// jobs beside (a job's tasks are contiguous and in job order, as the
// stream's check made sure).
func streamedFinishes(s *trace.JobStream, add func(ti int, typ trace.TaskType, finishMs int64)) error {
	jobs, err := s.Open()
	if err != nil {
		return err
	}
	defer jobs.Close()
	ti, id := -1, ""
	return s.EachTaskSpan(func(i int, sp *trace.Span) error {
		for ti < 0 || sp.JobID != id {
			j, err := jobs.Next()
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("%s: task %d (%q): job %q is not in the trace after the jobs before it (was the file changed?)",
					s.Path(), i, sp.TaskID, sp.JobID)
			}
			if err != nil {
				return err
			}
			ti, id = ti+1, j.ID
		}
		add(ti, sp.Type, sp.FinishMs)
		return nil
	})
}

// firstAttempt is the earliest start (ms) of a map or reduce attempt on a
// host among attempts, one job's (firstAttempts); ok is false when there
// is none.
func firstAttempt(attempts []trace.Attempt) (first int64, ok bool) {
	for i := range attempts {
		a := &attempts[i]
		if !a.Type.IsWork() || a.Host == "" || a.StartMs < 0 {
			continue
		}
		if !ok || a.StartMs < first {
			first, ok = a.StartMs, true
		}
	}
	return first, ok
}

// firstAttempts is each job's earliest map or reduce attempt start (ms) on a
// host, over the jobs whose trace lists attempts.
func firstAttempts(tr *trace.Trace) map[string]int64 {
	if len(tr.Attempts) == 0 {
		return nil
	}
	first := map[string]int64{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if !a.Type.IsWork() || a.Host == "" || a.StartMs < 0 {
			continue
		}
		if v, ok := first[a.JobID]; !ok || a.StartMs < v {
			first[a.JobID] = a.StartMs
		}
	}
	return first
}
