package replay

import (
	"cmp"
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
// (no tasks) and synthetic traces (no hosts) do not.
func HasObservedSchedule(tr *trace.Trace) bool {
	observed := observedTask
	if tr.Stream != nil {
		found := false
		tr.Stream.EachTask(func(_ int, t *trace.Task) error {
			if found = observed(t); found {
				return io.EOF // found: stop reading
			}
			return nil
		})
		return found
	}
	for i := range tr.Tasks {
		if observed(&tr.Tasks[i]) {
			return true
		}
	}
	return false
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
	if !HasObservedSchedule(w.Trace) {
		return nil, fmt.Errorf("policy %s: the trace records no schedule (no task with a host, a start and a finish)", ObservedPolicy)
	}
	if w.Trace.Stream != nil {
		// It reads jobs and tasks by position: the trace held (trace.Read).
		return nil, fmt.Errorf("policy %s: the trace's tasks are streamed (trace.OpenTaskStream): read it whole", ObservedPolicy)
	}
	o := &observer{w: w, opt: opt, origin: w.firstMs, firstAttempt: firstAttempts(w.Trace)}
	jm := newJobMetrics(&o.res.Jobs, nil)
	jm.observed = true
	o.bus.register(jm, jobMetricsEvents)
	if opt.Timeline {
		o.bus.register(timelineRecorder{add: func(t TimelineSample) {
			t.Policy = ObservedPolicy
			o.res.Timeline = append(o.res.Timeline, t)
		}}, onSample)
	}
	for _, ob := range opt.Observers {
		o.bus.register(ob, onAll)
	}
	for k := range w.Len() {
		o.job(k)
	}
	o.summarise()
	if opt.RecordTasks {
		o.sortTasks()
	}
	if opt.Timeline {
		o.timeline()
	}
	o.res.Wall = time.Since(start)
	return &o.res, nil
}

// observer builds the observed results.
type observer struct {
	w      *Workload
	opt    Options
	origin int64 // ms of the first replayed submit
	res    Result

	spans     [][]span // per replayed job: its tasks' observed [start, finish) in µs
	ends      []int64  // per replayed job: the end of its activity, for the timeline
	busyMapUs int64
	busyRedUs int64
	hostBytes map[[2]string][2]int64 // (host, MAP or REDUCE) -> input bytes, last finish
	netBytes  int64
	known     int64 // maps of known locality
	bus       bus
	evs       []obsEvent // a job's task events, reused from job to job
	// firstAttempt is each job's earliest map or reduce attempt start (ms)
	// on a host, for the jobs whose trace lists attempts (firstAttempts).
	firstAttempt map[string]int64
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

// job plays job k's recorded schedule onto its Job and emits it on the bus as
// the simulator would (bus.go): its arrival at its submit, its tasks'
// launches and ends in time order (ends before launches at one instant), its
// finish at the trace's finish (Unset when there is none). A task's launch
// is emitted when the trace records its start, its end when it records its
// finish. The job's result is the one jobMetrics builds for a simulated job.
func (o *observer) job(k int) {
	w := o.w
	ix := w.index()
	ti := ix.jobs[k]
	tj := w.traceJob(ti)
	tr := w.workRange(ti)
	tasks := w.Trace.Tasks[tr[0]:tr[1]]
	j := w.buildAt(k)
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
	o.evs = evs
	if a, ok := o.firstAttempt[tj.ID]; ok {
		// A task that never succeeded records its TASK_STARTED (.jhist: when
		// the AM created it, before any attempt ran); its job's first task
		// ran at its first attempt's start, what a replay's first launch
		// stands for (lcHistoryTimes).
		j.FirstLaunchUs = o.us(a)
	}
	o.bus.jobFinished(JobEvent{Time: finish, Job: j})
	o.spans = append(o.spans, spans)
	o.ends = append(o.ends, end)
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
	o.res.Tasks = append(o.res.Tasks, TaskResult{JobIndex: k, JobID: id, Type: typ, Index: i, Node: node,
		Host: t.Host, Rack: t.Rack, Locality: loc, LaunchUs: s, ShuffleEndUs: sh, FinishUs: f, InputBytes: in})
}

// sortTasks orders task rows as Run emits them, by finish (unknown last), then
// job, type and index.
func (o *observer) sortTasks() {
	key := func(t TaskResult) int64 {
		if t.FinishUs == Unset {
			return math.MaxInt64
		}
		return t.FinishUs
	}
	slices.SortStableFunc(o.res.Tasks, func(a, b TaskResult) int {
		if c := cmpInt64(key(a), key(b)); c != 0 {
			return c
		}
		if a.JobIndex != b.JobIndex {
			return int(a.JobIndex - b.JobIndex)
		}
		if a.Type != b.Type {
			if a.Type == "MAP" {
				return -1
			}
			return 1
		}
		return int(a.Index - b.Index)
	})
}

func (o *observer) summarise() {
	sum := &o.res.Summary
	sum.Policy, sum.Trace, sum.Hardware, sum.Seed = ObservedPolicy, o.opt.TraceName, o.opt.HardwareName, o.opt.Seed
	sum.Jobs = len(o.res.Jobs)
	sum.JobsLeftOut = o.w.leftOut
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	var local, rack int64
	var slowdowns []float64
	for i := range o.res.Jobs {
		r := &o.res.Jobs[i]
		r.Policy = ObservedPolicy
		sum.Maps += int64(r.Maps)
		sum.Reduces += int64(r.Reduces)
		first = min(first, r.SubmitUs)
		local += int64(r.MapsNodeLocal)
		rack += int64(r.MapsRackLocal)
		if r.FinishUs != Unset {
			sum.TotalFlowtimeUs += r.FlowtimeUs
			last = max(last, r.FinishUs)
			slowdowns = append(slowdowns, r.Slowdown)
		}
	}
	if last > first {
		sum.MakespanUs = last - first
	}
	if o.known > 0 {
		sum.MapLocality = float64(local) / float64(o.known)
		sum.RackLocality = float64(rack) / float64(o.known)
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
	sum.JainFairness = jain(slowdowns)
	sum.NetworkBytes = o.netBytes
	for i := range o.res.Tasks {
		o.res.Tasks[i].Policy = ObservedPolicy
	}
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
