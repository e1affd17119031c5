package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tracereplay/tracereplay/trace"
)

// The cluster a trace ran on, derived from the trace when replay is given no
// hardware file (TraceHardware), and the trace's split locations as the
// replicas of its maps on that cluster (traceReplicas).

// DefaultRack is the rack of a host whose rack the trace never gives: Hadoop's
// NetworkTopology.DEFAULT_RACK.
const DefaultRack = "/default-rack"

// RackLayout is one rack of a cluster derived from a trace: its name and its
// hosts' names, in node order.
type RackLayout struct {
	Name  string
	Hosts []string
}

func (h *Hardware) layoutNodes() int {
	n := 0
	for _, r := range h.Layout {
		n += len(r.Hosts)
	}
	return n
}

// validateLayout checks a derived cluster: racks and nodes_per_rack must match
// the layout (they are derived, not set), names must be unique.
func (h *Hardware) validateLayout(bad func(string, ...any)) {
	largest := 0
	hosts := map[string]bool{}
	racks := map[string]bool{}
	for _, r := range h.Layout {
		largest = max(largest, len(r.Hosts))
		if r.Name == "" || racks[r.Name] || len(r.Hosts) == 0 {
			bad("cluster layout: rack %q is unnamed, repeated or empty", r.Name)
		}
		racks[r.Name] = true
		for _, x := range r.Hosts {
			if x == "" || hosts[x] {
				bad("cluster layout: host %q is unnamed or repeated", x)
			}
			hosts[x] = true
		}
	}
	if h.Racks != len(h.Layout) || h.NodesPerRack != largest {
		bad("racks and nodes_per_rack come from the trace's hosts (%d racks, at most %d hosts each): they cannot be set", len(h.Layout), largest)
	}
	if h.MapNodes+h.ReduceNodes > h.Nodes() {
		bad("map_nodes + reduce_nodes (%d + %d) exceeds the %d nodes", h.MapNodes, h.ReduceNodes, h.Nodes())
	}
}

// applyLayout names t's racks after h.Layout and returns each node's rack and
// host, or nil when h has no layout.
func (t *Topology) applyLayout(h *Hardware) (rackOf []int32, hosts []string) {
	if h.Layout == nil {
		return nil, nil
	}
	t.RackNames = t.RackNames[:0]
	t.hosts = make(map[string]int32, h.Nodes())
	for r, rl := range h.Layout {
		t.RackNames = append(t.RackNames, rl.Name)
		for _, x := range rl.Hosts {
			t.hosts[x] = int32(len(hosts))
			rackOf = append(rackOf, int32(r))
			hosts = append(hosts, x)
		}
	}
	return rackOf, hosts
}

// HostNode returns the node named host in a cluster derived from a trace.
func (t *Topology) HostNode(host string) (int32, bool) {
	n, ok := t.hosts[host]
	return n, ok
}

// FromTrace reports whether the cluster was derived from a trace.
func (t *Topology) FromTrace() bool { return t.hosts != nil }

// TraceHardware returns base with the cluster tr ran on in place of its racks,
// nodes and slots; ok is false, and base is returned, when no task of tr names a
// host. The rates, heartbeats, HDFS and every other setting stay base's, except
// that the lifecycle is turned on when the trace records a schedule.
//
//   - Hosts: every host a task (setup and cleanup tasks included) ran on or a
//     map's split lists as a preferred location (a DataNode is also a
//     TaskTracker). Racks: the first rack the trace gives the host (attempt or
//     split location, in trace order), else DefaultRack. Racks are ordered by
//     name and hosts by name within a rack, names compared naturally
//     (trace.CompareIDs), and numbered in that order.
//   - Slots: the same on every node. When job confs name them
//     (mapred.tasktracker.map.tasks.maximum and .reduce.tasks.maximum), the
//     largest value any job's conf gives; else the largest number of tasks
//     that held a map (and a reduce) slot at once on any one host: every
//     attempt when the trace has attempts (failed and killed ones hold slots
//     too), else each task's successful attempt, over [start, finish), setup
//     and cleanup tasks in the slot their id names; at least 1. Clusters
//     configure slots uniformly, and a trace shows the configured number only
//     on hosts that were ever full, so the busiest host is the best estimate
//     for all; a YARN cluster sharing containers between maps and reduces gets
//     the peak of each.
//   - On a YARN cluster (cluster = "yarn"), NodeManager memory and vcores:
//     see yarnTraceNode.
//   - Out-of-band heartbeat, on a slot cluster only (a YARN NodeManager has
//     no such setting): when some job conf records
//     mapreduce.tasktracker.outofband.heartbeat (trace column
//     conf_out_of_band_heartbeat), on if more of those jobs say true than
//     false, else off (see confOutOfBandHeartbeat); base's when none records
//     it. The key is a TaskTracker setting, one for the whole cluster, that
//     each job's conf copies from the submitting client's configuration, so
//     on a real cluster the confs agree; a majority rather than "any" keeps a
//     few jobs submitted with another client configuration from deciding,
//     and a tie keeps Hadoop's default, false.
//   - Heartbeat, on a slot cluster whose every job a Hadoop 1 JobTracker ran
//     (trace.JobTrackerJobID) and when base has the default 3 s: the
//     interval that JobTracker hands that many TaskTrackers
//     (JobTrackerHeartbeat: 3 s up to 300 trackers, a second more per 100
//     above), as the validation harness has replayed those histories since
//     it was shown (docs/validation.md, "How the JobTracker hands out
//     tasks").
//   - Heartbeat, on a slot cluster whose every job records a YARN
//     ApplicationMaster (a .jhist's AM_STARTED) and when base has the
//     default 3 s, unless task_times = "model": NodeManagerHeartbeat (1 s),
//     the interval at which the ResourceManager allocates a NodeManager's
//     freed containers; the AM's own allocate calls are modelled per job
//     (yarn_slotam.go), from its observed JOB_INITED, which model mode does
//     not replay, so there the 3 s still stands for both hops.
//   - Lifecycle: on (setup and cleanup tasks, reports, shuffle fetches; see
//     lifecycle.go) when some task has a host, a start and a finish; when a
//     job conf names Hadoop 1's CapacityTaskScheduler and base has no
//     job_init_poll, the Capacity scheduler's default poll interval, 5 s
//     (mapred.capacity-scheduler.init-poll-interval = 5000 ms), and its
//     init threads: one per queue of the trace's jobs, at most the default
//     mapred.capacity-scheduler.init-worker-threads = 5
//     (JobInitializationPoller.init caps its pool at the number of queues and
//     gives each queue one thread, which initialises that queue's jobs one at
//     a time; apache/hadoop branch-1, src/contrib/capacity-scheduler).
//   - Per-heartbeat caps, on a slot cluster and when base sets neither:
//     maps_per_heartbeat = reduces_per_heartbeat = 1 when more than half of
//     the jobs whose conf names a scheduler name a CapacityTaskScheduler of
//     Hadoop 0.21 or 0.22 (trace columns scheduler and conf_common_version;
//     capacityOneEach), whose assignTasks hands a tracker at most one map
//     and one reduce a heartbeat (heartbeat_cap.go gives the sources, and
//     why the caps are the cluster's, not a policy's). Hadoop 1's and
//     0.20's confs record no version: no cap. --set maps_per_heartbeat=0
//     reduces_per_heartbeat=0 replays without them.
func TraceHardware(tr *trace.Trace, base Hardware) (Hardware, bool, error) {
	return TraceHardwareSeen(tr, base, nil)
}

// TraceHardwareSeen is TraceHardware with what it takes from tr's tasks
// (their hosts and racks, whether some records a schedule) given: seen, a
// TraceHosts told every task of tr in trace order as another pass read
// them (trace.StreamOptions.Visit), so that a streamed trace's tasks are
// not read once more for it; nil reads them.
func TraceHardwareSeen(tr *trace.Trace, base Hardware, seen *TraceHosts) (Hardware, bool, error) {
	hw, ok, err := traceHardwareSeen(tr, base, useChunk, seen)
	if err != nil {
		return base, false, fmt.Errorf("cluster derived from the trace: %w", err)
	}
	return hw, ok, nil
}

// TraceHosts is what a cluster derived from a trace (TraceHardware) takes
// from its tasks: each host's rack, the hosts in the order they are first
// named, and whether some task records a schedule. Visit builds it from
// the tasks in trace order; it holds one entry per host.
type TraceHosts struct {
	rackOf   map[string]string // host -> the first non-empty rack named for it
	order    []string          // the hosts, first named first
	schedule bool              // some task has a host, a start and a finish (observedTask)
}

// NewTraceHosts returns an empty TraceHosts, to be told a trace's tasks.
func NewTraceHosts() *TraceHosts { return &TraceHosts{rackOf: map[string]string{}} }

// Visit adds task k: its host and rack, then its preferred hosts with their
// racks, in that order. A job (k nil) adds nothing. Its signature is
// trace.StreamOptions.Visit's.
func (h *TraceHosts) Visit(_ *trace.Job, k *trace.Task) {
	if k == nil {
		return
	}
	h.see(k.Host, k.Rack)
	for i, x := range k.PreferredHosts {
		rack := ""
		if i < len(k.PreferredRacks) {
			rack = k.PreferredRacks[i]
		}
		h.see(x, rack)
	}
	h.schedule = h.schedule || observedTask(k)
}

// see adds host with rack (the first non-empty rack named for it wins).
func (h *TraceHosts) see(host, rack string) {
	if host == "" {
		return
	}
	r, ok := h.rackOf[host]
	if !ok {
		h.order = append(h.order, host)
	}
	if r == "" {
		h.rackOf[host] = rack
	}
}

// traceHardware is TraceHardware, peakUse reading chunk attempts between
// two drains (useChunk; tests give others). A streamed trace (tr.Stream) is read in
// passes: one over the tasks (hosts, racks, whether it records a schedule;
// none when they are given, traceHardwareSeen), one over the jobs (confs, queues, YARN containers) and two over the
// attempts, else over the tasks (peakUse); it holds the hosts, one entry per
// job for a YARN cluster, and what peakUse holds, never the trace's tasks or
// attempts.
func traceHardware(tr *trace.Trace, base Hardware, chunk int) (Hardware, bool, error) {
	return traceHardwareSeen(tr, base, chunk, nil)
}

// traceHardwareSeen is traceHardware with the tasks' hosts given (seen,
// TraceHardwareSeen), else read: the pass over the tasks a caller that
// read them already saves.
func traceHardwareSeen(tr *trace.Trace, base Hardware, chunk int, seen *TraceHosts) (Hardware, bool, error) {
	if seen == nil {
		seen = NewTraceHosts()
		if err := eachTask(tr, func(_ int, t *trace.Task) error {
			seen.Visit(nil, t)
			return nil
		}); err != nil {
			return base, false, err
		}
	}
	rackOf, order, schedule := seen.rackOf, seen.order, seen.schedule
	var err error
	if len(order) == 0 {
		return base, false, nil
	}
	byRack := map[string][]string{}
	var racks []string
	for _, x := range order {
		r := rackOf[x]
		if r == "" {
			r = DefaultRack
		}
		if byRack[r] == nil {
			racks = append(racks, r)
		}
		byRack[r] = append(byRack[r], x)
	}
	slices.SortFunc(racks, trace.CompareIDs)
	hw := base
	hw.Layout = make([]RackLayout, len(racks))
	hw.NodesPerRack = 0
	for i, r := range racks {
		hosts := byRack[r]
		slices.SortFunc(hosts, trace.CompareIDs)
		hw.Layout[i] = RackLayout{Name: r, Hosts: hosts}
		hw.NodesPerRack = max(hw.NodesPerRack, len(hosts))
	}
	hw.Name = "trace-derived"
	hw.Racks = len(racks)
	hw.MapNodes, hw.ReduceNodes = 0, 0
	if hw.MapSlots, hw.ReduceSlots, err = peakConcurrency(tr, chunk); err != nil {
		return base, false, err
	}
	jf, err := traceJobFacts(tr)
	if err != nil {
		return base, false, err
	}
	if m, r := jf.confSlots(); m > 0 || r > 0 {
		if m > 0 {
			hw.MapSlots = m
		}
		if r > 0 {
			hw.ReduceSlots = r
		}
	}
	if hw.Cluster == ClusterYARN {
		if hw.NodeMemoryMB, hw.NodeVCores, err = yarnTraceNode(tr, &hw, chunk); err != nil {
			return base, false, err
		}
	} else {
		if on, _, recorded := jf.outOfBandHeartbeat(); recorded > 0 {
			hw.OutOfBandHeartbeat = on
		}
		if jf.jobTracker() && hw.Heartbeat == DefaultHardware().Heartbeat {
			hw.Heartbeat = JobTrackerHeartbeat(hw.Nodes())
		}
		if !base.heartbeatCaps() && jf.capacityOneEach() {
			hw.MapsPerHeartbeat, hw.ReducesPerHeartbeat = 1, 1
		}
		if jf.allAM() && hw.Heartbeat == DefaultHardware().Heartbeat && hw.TaskTimes != TaskTimesModel {
			hw.Heartbeat = NodeManagerHeartbeat // the ResourceManager allocates at NodeManager heartbeats (yarn_slotam.go)
		}
	}
	hw.Lifecycle = schedule
	if hw.JobInitPoll == 0 && jf.capacity {
		hw.JobInitPoll = capacityInitPoll
		hw.JobInitThreads = min(capacityInitWorkers, max(len(jf.queues), 1))
	}
	if err := hw.Validate(); err != nil {
		return base, false, err
	}
	return hw, true, nil
}

// jobFacts is what a derived cluster takes from the trace's jobs, read in
// one pass (traceJobFacts).
type jobFacts struct {
	mapSlots, reduceSlots int             // the largest slots a job's conf names, 0 when none does
	oobTrues, oobRecorded int             // jobs whose conf records the out-of-band heartbeat: true, and all
	capacity              bool            // some job's conf names Hadoop 1's CapacityTaskScheduler
	oneEach, schedulers   int             // jobs whose conf names 0.21/0.22's CapacityTaskScheduler (capacityOneEach), and any scheduler
	queues                map[string]bool // the queues the jobs name ("default" for none)
	jobs, jobTrackerIDs   int             // the jobs, and those whose id a JobTracker gave
	amJobs                int             // the jobs that record a YARN ApplicationMaster's start
}

// allAM reports whether every job of the trace records a YARN
// ApplicationMaster's start (trace.Job.AMStartMs), as a .jhist does.
func (f *jobFacts) allAM() bool {
	return f.jobs > 0 && f.amJobs == f.jobs
}

// jobTracker reports whether the trace is a Hadoop 1 JobTracker's history:
// it has jobs and every id is a JobTracker's (trace.JobTrackerJobID; a
// repeated id's "#n" copy suffix left out), not a YARN ResourceManager's.
func (f *jobFacts) jobTracker() bool {
	return f.jobs > 0 && f.jobTrackerIDs == f.jobs
}

// traceJobFacts reads tr's jobs once for jobFacts.
func traceJobFacts(tr *trace.Trace) (jobFacts, error) {
	f := jobFacts{queues: map[string]bool{}}
	err := eachJob(tr, func(_ int, j *trace.Job) error {
		f.mapSlots = max(f.mapSlots, int(j.ConfMapSlots))
		f.reduceSlots = max(f.reduceSlots, int(j.ConfReduceSlots))
		switch j.ConfOutOfBandHeartbeat {
		case 1:
			f.oobTrues++
			f.oobRecorded++
		case 0:
			f.oobRecorded++
		}
		f.capacity = f.capacity || strings.HasSuffix(j.Scheduler, "CapacityTaskScheduler")
		if j.Scheduler != "" {
			f.schedulers++
			if capacityOneEach(j.Scheduler, j.ConfCommonVersion) {
				f.oneEach++
			}
		}
		f.jobs++
		if j.AMStartMs >= 0 {
			f.amJobs++
		}
		if id, _, _ := strings.Cut(j.ID, "#"); trace.JobTrackerJobID(id) {
			f.jobTrackerIDs++
		}
		name := j.Queue
		if name == "" {
			name = "default"
		}
		f.queues[name] = true
		return nil
	})
	return f, err
}

// capacityOneEach reports whether more than half of the jobs whose conf
// names a scheduler name a CapacityTaskScheduler that assigns one map and
// one reduce a heartbeat (Hadoop 0.21 or 0.22: capacityOneEach).
func (f *jobFacts) capacityOneEach() bool { return 2*f.oneEach > f.schedulers }

// confSlots returns the largest map and reduce slots per node that any job's
// conf names, 0 when none does.
func (f *jobFacts) confSlots() (maps, reduces int) {
	return min(f.mapSlots, 1024), min(f.reduceSlots, 1024)
}

// outOfBandHeartbeat returns whether more of the jobs whose conf records
// mapreduce.tasktracker.outofband.heartbeat say true than false (a tie is
// false, Hadoop's default), how many say true and how many record it.
func (f *jobFacts) outOfBandHeartbeat() (on bool, trues, recorded int) {
	return 2*f.oobTrues > f.oobRecorded, f.oobTrues, f.oobRecorded
}

// confOutOfBandHeartbeat is jobFacts.outOfBandHeartbeat of held trace tr's
// jobs.
func confOutOfBandHeartbeat(tr *trace.Trace) (on bool, trues, recorded int) {
	f, _ := traceJobFacts(tr) // a held trace is not read: no error
	return f.outOfBandHeartbeat()
}

// peakConcurrency returns the largest number of tasks that held a map slot,
// and a reduce slot, at once on one host, each at least 1: over every attempt
// when the trace has attempts, else over each task's successful attempt;
// peakUse reads chunk attempts between two drains.
func peakConcurrency(tr *trace.Trace, chunk int) (maps, reduces int, err error) {
	peaks, err := peakUse(tr, chunk, func(_, taskID, host string, typ trace.TaskType) ([2]string, Resource, bool) {
		t := trace.Task{TaskID: taskID, Type: typ}
		if t.InMapSlot() {
			return [2]string{host, "m"}, Resource{MemoryMB: 1}, true
		}
		return [2]string{host, "r"}, Resource{MemoryMB: 1}, true
	})
	if err != nil {
		return 0, 0, err
	}
	maps, reduces = 1, 1
	for k, p := range peaks {
		if k[1] == "m" {
			maps = max(maps, int(p.MemoryMB))
		} else {
			reduces = max(reduces, int(p.MemoryMB))
		}
	}
	return maps, reduces, nil
}

// slotUse is one attempt as peakUse reads it (in a trace without attempts,
// one task's successful attempt).
type slotUse struct {
	jobID, taskID, host string
	typ                 trace.TaskType
	start, finish       int64
}

// held reports whether u held its host over [start, finish).
func (u *slotUse) held() bool { return u.host != "" && u.start >= 0 && u.finish > u.start }

// eachUse calls fn with every attempt of tr when it lists attempts, else
// every task, held or streamed (reading only the columns a slotUse holds,
// trace.JobStream.EachAttemptSpan), in trace order.
func eachUse(tr *trace.Trace, fn func(u *slotUse)) error {
	var u slotUse
	att := func(a *trace.Attempt) {
		u = slotUse{a.JobID, a.TaskID, a.Host, a.Type, a.StartMs, a.FinishMs}
		fn(&u)
	}
	task := func(t *trace.Task) {
		u = slotUse{t.JobID, t.TaskID, t.Host, t.Type, t.StartMs, t.FinishMs}
		fn(&u)
	}
	span := func(_ int, s *trace.Span) error {
		u = slotUse{s.JobID, s.TaskID, s.Host, s.Type, s.StartMs, s.FinishMs}
		fn(&u)
		return nil
	}
	switch {
	case tr.Stream != nil && tr.Stream.NumAttempts() > 0:
		return tr.Stream.EachAttemptSpan(span)
	case tr.Stream != nil:
		return tr.Stream.EachTaskSpan(span)
	case len(tr.Attempts) > 0:
		for i := range tr.Attempts {
			att(&tr.Attempts[i])
		}
	default:
		for i := range tr.Tasks {
			task(&tr.Tasks[i])
		}
	}
	return nil
}

// useChunk is the attempts peakUse reads between two drains of its edges
// (its chunk).
const useChunk = 1024

// peakUse returns, per key, the most that the trace's attempts held at once
// (every attempt when the trace lists attempts, else each task's successful
// attempt, over [start, finish)), each resource dimension's own peak. use
// says under which key and how much an attempt of task taskID (of type typ,
// of job jobID) on host holds; ok false leaves it out. Ends come before
// starts at the same instant: what is freed at t can be taken at t. It is
// what slots (peakConcurrency) and YARN NodeManagers (yarnTraceNode) are
// sized by in a cluster derived from a trace.
//
// The attempts are read twice, in trace order, held or streamed (eachUse),
// and never held. The first pass takes the earliest start of each chunk of
// chunk attempts (useChunk); the second sweeps their starts and ends in time order
// through a heap: after a chunk, every edge before the earliest start of the
// chunks after it is final (no later attempt starts or ends before it) and
// is taken off the heap in time order. So the heap holds the ends of the
// attempts running at that instant and the edges of the attempts read that
// start after it: in a trace in submit order, about the attempts under way,
// not the trace's. Within one instant the ends, and the starts, are taken in
// any order, as the sort of all of them did: with weights of at least 0,
// each dimension's peak over an instant's starts is after its last start and
// its ends only lower it, so the peaks are the same.
func peakUse[K comparable](tr *trace.Trace, chunk int, use func(jobID, taskID, host string, typ trace.TaskType) (K, Resource, bool)) (map[K]Resource, error) {
	peaks, _, err := sweepPeaks(tr, chunk, use)
	return peaks, err
}

// sweepPeaks is peakUse, and the most edges its heap held at once.
func sweepPeaks[K comparable](tr *trace.Trace, chunk int, use func(jobID, taskID, host string, typ trace.TaskType) (K, Resource, bool)) (peaks map[K]Resource, most int, err error) {
	var mins []int64 // per chunk, its attempts' earliest start (MaxInt64: none held a host)
	n := 0
	err = eachUse(tr, func(u *slotUse) {
		if n%chunk == 0 {
			mins = append(mins, math.MaxInt64)
		}
		n++
		if u.held() {
			mins[len(mins)-1] = min(mins[len(mins)-1], u.start)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	// mins[c] becomes the earliest start of the chunks after c.
	after := int64(math.MaxInt64)
	for c := len(mins) - 1; c >= 0; c-- {
		mins[c], after = after, min(after, mins[c])
	}
	keys := map[K]int32{}
	var order []K
	var run, peak []Resource
	var h edgeHeap
	drain := func(before int64) {
		for len(h) > 0 && h[0].t < before {
			x := h.pop()
			if x.end {
				run[x.k] = run[x.k].Sub(x.w)
			} else {
				run[x.k] = run[x.k].Add(x.w)
			}
			r, p := run[x.k], &peak[x.k]
			*p = Resource{max(p.MemoryMB, r.MemoryMB), max(p.VCores, r.VCores)}
		}
	}
	n = 0
	err = eachUse(tr, func(u *slotUse) {
		if u.held() {
			if key, w, ok := use(u.jobID, u.taskID, u.host, u.typ); ok {
				k, seen := keys[key]
				if !seen {
					k = int32(len(order))
					keys[key] = k
					order = append(order, key)
					run, peak = append(run, Resource{}), append(peak, Resource{})
				}
				h.push(useEdge{t: u.start, w: w, k: k})
				h.push(useEdge{t: u.finish, w: w, k: k, end: true})
			}
		}
		n++
		most = max(most, len(h))
		if n%chunk == 0 {
			// The chunk is read: drain what no later attempt comes
			// before (none, when the file grew since the first pass).
			if c := n/chunk - 1; c < len(mins) {
				drain(mins[c])
			}
		}
	})
	if err != nil {
		return nil, 0, err
	}
	drain(math.MaxInt64)
	peaks = make(map[K]Resource, len(order))
	for k, key := range order {
		peaks[key] = peak[k]
	}
	return peaks, most, nil
}

// useEdge is an attempt's start or end, of weight w, under key k (peakUse).
type useEdge struct {
	t   int64
	w   Resource
	k   int32
	end bool
}

// before orders edges by time, ends first at one instant.
func (a *useEdge) before(b *useEdge) bool {
	return a.t < b.t || a.t == b.t && a.end && !b.end
}

// edgeHeap is a min-heap of edges (useEdge.before).
type edgeHeap = minHeap[useEdge, *useEdge]

// traceReplicas gives job j's maps the trace's split locations as replicas when
// the cluster was derived from the trace, and reports whether it did. maps are
// the job's map tasks in index order, n the number of maps replayed. Every map
// gets the same number r of replica entries (what Job.Replicas and the policies
// expect): the run's replication, or more when a split lists more hosts. A split
// listing fewer hosts repeats its list (a map with one replica on node a has
// entries a, a, a, so load metrics weigh it wholly on a); a map without any
// location gets r replicas placed as without a trace.
func (w *Workload) traceReplicas(j *Job, maps []*trace.Task, n int, place *rand.Rand, rackAware bool) bool {
	if !w.topo.FromTrace() || len(maps) != n {
		return false
	}
	lists := make([][]int32, n)
	r := 0
	for i, tt := range maps {
		for _, x := range tt.PreferredHosts {
			if id, ok := w.topo.hosts[x]; ok && !slices.Contains(lists[i], id) {
				lists[i] = append(lists[i], id)
			}
		}
		r = max(r, len(lists[i]))
	}
	if r == 0 {
		return false
	}
	r = max(r, min(w.hw.Replication, len(w.topo.DataNodes)))
	j.replication = int32(r)
	j.replicas = make([]int32, 0, n*r)
	for _, l := range lists {
		start := len(j.replicas)
		if len(l) == 0 {
			j.replicas = w.topo.placeBlock(place, r, rackAware, j.replicas)
		} else {
			j.replicas = append(j.replicas, l...)
		}
		for k := start; len(j.replicas) < start+r; k++ {
			j.replicas = append(j.replicas, j.replicas[k])
		}
	}
	return true
}

// capacityInitPoll is the Capacity scheduler's default
// mapred.capacity-scheduler.init-poll-interval (5000 ms).
const capacityInitPoll = Duration(5 * time.Second / time.Microsecond)

// capacityInitWorkers is the Capacity scheduler's default
// mapred.capacity-scheduler.init-worker-threads.
const capacityInitWorkers = 5

// JobTrackerHeartbeat is the heartbeat interval a Hadoop 0.20 JobTracker
// hands its TaskTrackers in every heartbeat response for a cluster of
// trackers TaskTrackers: JobTracker.getNextHeartbeatInterval
// (org.apache.hadoop.mapred, 0.20.1), max(1000 · ceil(trackers /
// CLUSTER_INCREMENT) ms, HEARTBEAT_INTERVAL_MIN) with MRConstants'
// CLUSTER_INCREMENT = 100 and HEARTBEAT_INTERVAL_MIN = 3 s: 3 s up to 300
// trackers, then a second more per 100, so that the JobTracker receives
// about 100 periodic heartbeats a second whatever the cluster's size.
func JobTrackerHeartbeat(trackers int) Duration {
	s := max(3, (int64(trackers)+99)/100)
	return Duration(s * int64(time.Second/time.Microsecond))
}
