package policy

import (
	"fmt"

	"github.com/tracereplay/tracereplay/replay"
)

// EAS is the efficiency-aware scheduler of Zhao, Yang, Fan, Chen and Xu (IEICE
// Trans. Inf. & Syst. E96-D(12), 2013). Jobs wait in a set; when the scheduler
// selects one (Alg. 1) it picks the waiting job whose placement would leave the map
// machines' loads with the lowest standard deviation, simulating Alg. 2 for each.
// The selected job's maps are then all placed at once (job-granular allocation,
// §5.6): each on the least-loaded machine holding a replica of its input (Alg. 2,
// strict locality), into that machine's queue, which the machine's free map slots
// drain in order at its heartbeats (push-based scheduling, §6). Once all the job's
// maps have finished, each of its reduces goes to the least-loaded reduce machine
// (Alg. 3), into that machine's queue, likewise drained at heartbeats. Reduces are
// therefore never launched before the job's maps are done (assumption (i) of §3.1,
// no pipelining between a job's map and reduce phases), whatever slow_start says.
// On dedicated hardware (map_nodes, reduce_nodes) the map machines are the nodes
// with map slots only and the reduce machines those with reduce slots only; on
// mixed hardware every node is both. Under strict locality only map machines
// holding input can ever run a map, so the map machines of Algs. 1 and 2 and of
// §4.2 are the HDFS data nodes: all map-capable nodes unless the hardware model
// skews placement (data_node_fraction < 1; §3.1 (iii) assumes input on every map
// machine), in which case a machine without data would otherwise be idle forever
// and trigger a selection at every heartbeat.
//
// Selection opportunity (§4.2): selection is deferred while every map machine is
// busy. A map machine is idle when it has a free map slot and nothing queued; each
// heartbeat of an idle map machine selects one job, if any waits. The waiting set
// is capped by a threshold (parameter threshold, default 10): when an arrival
// makes it larger, jobs are selected at once until it is back at the threshold.
//
// Choices where the paper is silent:
//   - Loads. A map machine's load L^mm is the input bytes of the maps queued on it
//     plus those running there, whole (§5.4 measures load as input of unfinished
//     maps; the JobTracker knows which maps are unfinished, not how far they are),
//     and a map's load L_m is its input size (1 byte for a map of none, see
//     easLoad). A reduce machine's load L^rm is the
//     shuffle bytes of the reduces queued or running there, and a reduce's load L_r
//     its shuffle bytes.
//   - Ties. Alg. 2 and 3 keep the first candidate among equals: replicas in the
//     order HDFS lists them, reduce machines by node id; Alg. 1 keeps the earliest
//     arrival among equally balanced jobs.
//   - One selection per idle heartbeat, rather than selecting until the idle
//     machine gets work: a machine that holds no input of any waiting job would
//     otherwise empty the waiting set at once and leave Alg. 1 nothing to choose
//     from, which §4.2's deferral is meant to prevent.
//   - The threshold default is not in the paper, which gives no value; 10 keeps
//     Alg. 1 at O(10·M) per selection. In the Table 1 runs the waiting set
//     reaches it in busy spells, and about a quarter of the selections are forced
//     by it (docs/repro/eas.md compares 1, 3, 10 and 50).
type EAS struct {
	replay.Base
	name      string
	threshold int

	mapMachines []int32 // the data nodes
	isMap       []bool
	redMachines []int32
	waiting     []*replay.JobView

	mapLoad []int64 // L^mm: queued + running map input, by node
	queued  []int64 // queued map input, by node (QueuedInputBytes)
	mapQ    [][]queuedMap
	redLoad []int64 // L^rm: queued + running reduce input, by node
	redQ    [][]queuedReduce
	redRun  map[[2]int32]int64 // (job, reduce) -> the load it was planned with

	sel     *balanceSelector
	sets    []mapSet
	place   []int32
	history []easSelection // every selection, for tests and debugging
}

type queuedMap struct {
	j    *replay.JobView
	task int32
}

type queuedReduce struct {
	j     *replay.JobView
	bytes int64
}

// easSelection records one run of Alg. 1: when, on whose heartbeat (-1: forced by
// the threshold at an arrival), which job, and how many jobs waited.
type easSelection struct {
	at      int64
	node    int32
	job     int32
	waiting int
}

// jobMaps adapts a job's maps to Algs. 1 and 2. A map without input (no
// replicas: replay.MapTask.NoInput) is local on every map machine (all), so
// Alg. 2 puts it on the least-loaded one.
type jobMaps struct {
	j   *replay.JobView
	all []int32
}

// easLoad is L_m, a map's load: its input bytes, and 1 for a map of 0 bytes,
// so that Alg. 2 spreads maps without input over equally loaded machines
// instead of queueing them all on the first (a load of 0 would leave the
// first machine the least loaded after each).
func easLoad(j *replay.JobView, i int32) int64 { return max(j.MapInputBytes(i), 1) }

func (m jobMaps) Len() int         { return int(m.j.NumMaps()) }
func (m jobMaps) Size(i int) int64 { return easLoad(m.j, int32(i)) }
func (m jobMaps) Hosts(i int) []int32 {
	if r := m.j.Replicas(int32(i)); len(r) > 0 {
		return r
	}
	return m.all
}

func newEAS(r *ParamReader) (replay.Policy, error) {
	e := &EAS{threshold: r.Int("threshold", 10)}
	if e.threshold < 1 {
		return nil, fmt.Errorf("policy eas: threshold=%d: want at least 1", e.threshold)
	}
	e.name = r.spec()
	return e, nil
}

// Name is the registry name with parameters.
func (e *EAS) Name() string { return e.name }

// Init finds the map and reduce machines and sizes the per-node state.
func (e *EAS) Init(s replay.Cluster) {
	nodes := s.Topology().Nodes
	e.mapMachines = s.Topology().DataNodes
	e.isMap = make([]bool, len(nodes))
	for _, n := range e.mapMachines {
		e.isMap[n] = true
	}
	for _, n := range nodes {
		if n.ReduceSlots > 0 {
			e.redMachines = append(e.redMachines, n.ID)
		}
	}
	e.mapLoad = make([]int64, len(nodes))
	e.queued = make([]int64, len(nodes))
	e.mapQ = make([][]queuedMap, len(nodes))
	e.redLoad = make([]int64, len(nodes))
	e.redQ = make([][]queuedReduce, len(nodes))
	e.redRun = map[[2]int32]int64{}
	e.sel = newBalanceSelector(len(nodes))
}

// QueuedInputBytes is the input of the maps queued on node n, for the load-balance
// metric.
func (e *EAS) QueuedInputBytes(n int32) int64 { return e.queued[n] }

// JobArrived adds the job to the waiting set and selects jobs while the set is
// above the threshold.
func (e *EAS) JobArrived(s replay.Cluster, j *replay.JobView) {
	e.waiting = append(e.waiting, j)
	for len(e.waiting) > e.threshold {
		e.selectJob(s, -1)
	}
}

// Heartbeat selects a job if the node is an idle map machine (§4.2), then launches
// the node's queued maps and reduces into its free slots.
func (e *EAS) Heartbeat(s replay.Cluster, n int32) {
	if s.FreeMapSlots(n) > 0 {
		if e.isMap[n] && len(e.mapQ[n]) == 0 && len(e.waiting) > 0 {
			e.selectJob(s, n)
		}
		q := e.mapQ[n]
		for len(q) > 0 && s.FreeMapSlots(n) > 0 {
			m := q[0]
			q = q[1:]
			e.queued[n] -= m.j.MapInputBytes(m.task)
			s.LaunchMap(m.j, m.task, n)
		}
		e.mapQ[n] = q
	}
	q := e.redQ[n]
	for len(q) > 0 && s.FreeReduceSlots(n) > 0 {
		r := q[0]
		q = q[1:]
		i := s.LaunchReduce(r.j, n)
		if i < 0 {
			panic(fmt.Sprintf("eas: job %s has a queued reduce the simulator cannot launch", r.j.ID()))
		}
		e.redRun[[2]int32{r.j.Index(), i}] = r.bytes
	}
	e.redQ[n] = q
}

// selectJob runs Alg. 1 over the waiting set and places the chosen job's maps by
// Alg. 2; by is the idle map machine whose heartbeat asked, or -1.
func (e *EAS) selectJob(s replay.Cluster, by int32) {
	e.sets = e.sets[:0]
	for _, j := range e.waiting {
		e.sets = append(e.sets, jobMaps{j, e.mapMachines})
	}
	k := e.sel.choose(e.mapLoad, e.mapMachines, e.sets)
	j := e.waiting[k]
	e.history = append(e.history, easSelection{at: s.Now(), node: by, job: j.Index(), waiting: len(e.waiting)})
	e.waiting = append(e.waiting[:k], e.waiting[k+1:]...)
	e.place = placeMaps(e.mapLoad, jobMaps{j, e.mapMachines}, e.place[:0])
	for i, n := range e.place {
		e.mapQ[n] = append(e.mapQ[n], queuedMap{j, int32(i)})
		e.queued[n] += j.MapInputBytes(int32(i))
	}
}

// TaskFinished takes the task's load off its machine and, when it was the job's
// last map, places the job's reduces by Alg. 3.
func (e *EAS) TaskFinished(_ replay.Cluster, j *replay.JobView, reduce bool, task int32) {
	if reduce {
		key := [2]int32{j.Index(), task}
		e.redLoad[j.ReduceNode(task)] -= e.redRun[key]
		delete(e.redRun, key)
		return
	}
	e.mapLoad[j.MapNode(task)] -= easLoad(j, task)
	if !j.MapsDone() || j.NumReduces() == 0 {
		return
	}
	sizes := make([]int64, j.NumReduces())
	for i := range j.NumReduces() {
		sizes[i] = j.ReduceShuffleBytes(i)
	}
	e.place = placeReduces(e.redLoad, e.redMachines, sizes, e.place[:0])
	for i, n := range e.place {
		e.redQ[n] = append(e.redQ[n], queuedReduce{j, sizes[i]})
	}
}
