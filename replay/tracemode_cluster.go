package replay

import (
	"cmp"
	"fmt"
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
func TraceHardware(tr *trace.Trace, base Hardware) (Hardware, bool, error) {
	rackOf := map[string]string{}
	var order []string
	see := func(host, rack string) {
		if host == "" {
			return
		}
		r, ok := rackOf[host]
		if !ok {
			order = append(order, host)
		}
		if r == "" {
			rackOf[host] = rack
		}
	}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		see(t.Host, t.Rack)
		for k, x := range t.PreferredHosts {
			rack := ""
			if k < len(t.PreferredRacks) {
				rack = t.PreferredRacks[k]
			}
			see(x, rack)
		}
	}
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
	hw.MapSlots, hw.ReduceSlots = peakConcurrency(tr)
	if m, r := confSlots(tr); m > 0 || r > 0 {
		if m > 0 {
			hw.MapSlots = m
		}
		if r > 0 {
			hw.ReduceSlots = r
		}
	}
	if hw.Cluster == ClusterYARN {
		hw.NodeMemoryMB, hw.NodeVCores = yarnTraceNode(tr, &hw)
	} else if on, _, recorded := confOutOfBandHeartbeat(tr); recorded > 0 {
		hw.OutOfBandHeartbeat = on
	}
	hw.Lifecycle = HasObservedSchedule(tr)
	if hw.JobInitPoll == 0 && namesCapacity(tr) {
		hw.JobInitPoll = capacityInitPoll
		hw.JobInitThreads = min(capacityInitWorkers, traceQueues(tr))
	}
	if err := hw.Validate(); err != nil {
		return base, false, fmt.Errorf("cluster derived from the trace: %w", err)
	}
	return hw, true, nil
}

// confSlots returns the largest map and reduce slots per node that any job's
// conf names, 0 when none does.
func confSlots(tr *trace.Trace) (maps, reduces int) {
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		maps = max(maps, int(j.ConfMapSlots))
		reduces = max(reduces, int(j.ConfReduceSlots))
	}
	return min(maps, 1024), min(reduces, 1024)
}

// confOutOfBandHeartbeat returns whether more of tr's jobs whose conf
// records mapreduce.tasktracker.outofband.heartbeat say true than false (a
// tie is false, Hadoop's default), how many say true and how many record it.
func confOutOfBandHeartbeat(tr *trace.Trace) (on bool, trues, recorded int) {
	for i := range tr.Jobs {
		switch tr.Jobs[i].ConfOutOfBandHeartbeat {
		case 1:
			trues++
			recorded++
		case 0:
			recorded++
		}
	}
	return 2*trues > recorded, trues, recorded
}

// peakConcurrency returns the largest number of tasks that held a map slot,
// and a reduce slot, at once on one host, each at least 1: over every attempt
// when the trace has attempts, else over each task's successful attempt.
func peakConcurrency(tr *trace.Trace) (maps, reduces int) {
	peaks := peakUse(tr, func(_, taskID, host string, typ trace.TaskType) ([2]string, Resource, bool) {
		t := trace.Task{TaskID: taskID, Type: typ}
		if t.InMapSlot() {
			return [2]string{host, "m"}, Resource{MemoryMB: 1}, true
		}
		return [2]string{host, "r"}, Resource{MemoryMB: 1}, true
	})
	maps, reduces = 1, 1
	for k, p := range peaks {
		if k[1] == "m" {
			maps = max(maps, int(p.MemoryMB))
		} else {
			reduces = max(reduces, int(p.MemoryMB))
		}
	}
	return maps, reduces
}

// peakUse returns, per key, the most that the trace's attempts held at once
// (every attempt when the trace lists attempts, else each task's successful
// attempt, over [start, finish)), each resource dimension's own peak. use
// says under which key and how much an attempt of task taskID (of type typ,
// of job jobID) on host holds; ok false leaves it out. Ends come before
// starts at the same instant: what is freed at t can be taken at t. It is
// what slots (peakConcurrency) and YARN NodeManagers (yarnTraceNode) are
// sized by in a cluster derived from a trace.
func peakUse[K comparable](tr *trace.Trace, use func(jobID, taskID, host string, typ trace.TaskType) (K, Resource, bool)) map[K]Resource {
	type edge struct {
		t   int64
		end bool
		w   Resource
	}
	per := map[K][]edge{}
	add := func(jobID, taskID, host string, typ trace.TaskType, start, finish int64) {
		if host == "" || start < 0 || finish <= start {
			return
		}
		if k, w, ok := use(jobID, taskID, host, typ); ok {
			per[k] = append(per[k], edge{start, false, w}, edge{finish, true, w})
		}
	}
	if len(tr.Attempts) > 0 {
		for i := range tr.Attempts {
			a := &tr.Attempts[i]
			add(a.JobID, a.TaskID, a.Host, a.Type, a.StartMs, a.FinishMs)
		}
	} else {
		for i := range tr.Tasks {
			t := &tr.Tasks[i]
			add(t.JobID, t.TaskID, t.Host, t.Type, t.StartMs, t.FinishMs)
		}
	}
	out := make(map[K]Resource, len(per))
	for k, e := range per {
		slices.SortFunc(e, func(a, b edge) int {
			if c := cmp.Compare(a.t, b.t); c != 0 || a.end == b.end {
				return c
			}
			if a.end {
				return -1
			}
			return 1
		})
		var run, peak Resource
		for _, x := range e {
			if x.end {
				run = run.Sub(x.w)
			} else {
				run = run.Add(x.w)
			}
			peak = Resource{max(peak.MemoryMB, run.MemoryMB), max(peak.VCores, run.VCores)}
		}
		out[k] = peak
	}
	return out
}

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

// traceQueues is the number of distinct queues tr's jobs name, at least 1
// (a job naming none is in the default queue).
func traceQueues(tr *trace.Trace) int {
	q := map[string]bool{}
	for i := range tr.Jobs {
		name := tr.Jobs[i].Queue
		if name == "" {
			name = "default"
		}
		q[name] = true
	}
	return max(len(q), 1)
}

// namesCapacity reports whether some job's conf names Hadoop 1's
// CapacityTaskScheduler.
func namesCapacity(tr *trace.Trace) bool {
	for i := range tr.Jobs {
		if strings.HasSuffix(tr.Jobs[i].Scheduler, "CapacityTaskScheduler") {
			return true
		}
	}
	return false
}

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
