package policytest

import (
	"fmt"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// YARN is a fake replay.YARNCluster on top of the fake Cluster: every node
// offers the same memory and vcores, each job has an ApplicationMaster
// container to allocate before its maps and reduces (its maps are hidden,
// PendingMaps 0, until then), and containers take their size from the
// node's free resources. It records launches (Launches, with the slot
// fake's format), AM launches and preemptions. FreeMapSlots and
// FreeReduceSlots are 0, as on the engine's YARN clusters.
//
// Like the slot fake it never moves time or ends a task by itself; the test
// calls FinishMap, FinishReduce (a job's AM ends with its last task) and
// Heartbeat, which pass the YARN view to the policy.
type YARN struct {
	*Cluster
	node       replay.Resource
	free       []replay.Resource
	def        Sizes
	sizes      map[*replay.JobView]Sizes
	amPending  map[*replay.JobView]bool
	amNode     map[*replay.JobView]int32
	hidden     map[*replay.JobView]int32 // maps hidden while the AM is pending
	usage      map[*replay.JobView]replay.Resource
	amLaunches []AMLaunch
	preempts   []Preemption
}

var _ replay.YARNCluster = (*YARN)(nil)

// Sizes are a job's container sizes.
type Sizes struct {
	AM, Map, Reduce replay.Resource
}

// AMLaunch is an ApplicationMaster container a policy allocated.
type AMLaunch struct {
	At    int64
	Job   int32
	JobID string
	Node  int32
}

// String is the AM launch as a schedule line, e.g. "0s A am on node 1".
func (l AMLaunch) String() string {
	return fmt.Sprintf("%s %s am on node %d", replay.Duration(l.At), l.JobID, l.Node)
}

// Preemption is a container a policy preempted.
type Preemption struct {
	At    int64
	Job   int32
	JobID string
	Kind  replay.ContainerKind
	Task  int32
	Node  int32
}

// String is the preemption as a schedule line, e.g. "20s A map 3 preempted on node 1".
func (p Preemption) String() string {
	return fmt.Sprintf("%s %s %s %d preempted on node %d", replay.Duration(p.At), p.JobID, p.Kind, p.Task, p.Node)
}

// YARNJob is a job to add to the YARN fake: the slot fake's Job and its
// container sizes (zero: the fake's defaults).
type YARNJob struct {
	Job
	Sizes Sizes
}

// NewYARN builds a YARN fake of hardware model hw (its topology; its slots
// are ignored), every node offering node, jobs' containers def unless a job
// says otherwise, time 0 and a random stream seeded with seed.
func NewYARN(hw replay.Hardware, seed uint64, node replay.Resource, def Sizes) *YARN {
	y := &YARN{Cluster: New(hw, seed), node: node, def: def, sizes: map[*replay.JobView]Sizes{},
		amPending: map[*replay.JobView]bool{}, amNode: map[*replay.JobView]int32{}, hidden: map[*replay.JobView]int32{},
		usage: map[*replay.JobView]replay.Resource{}}
	for i := range y.topo.Nodes {
		y.free = append(y.free, node)
		// The slot fake's checks never stop a container launch.
		y.Cluster.freeMap[i], y.Cluster.freeRed[i] = 1<<30, 1<<30
	}
	return y
}

// AMLaunches returns the AM launches so far, in order.
func (y *YARN) AMLaunches() []AMLaunch { return slices.Clone(y.amLaunches) }

// Preemptions returns the preemptions so far, in order.
func (y *YARN) Preemptions() []Preemption { return slices.Clone(y.preempts) }

// AddJob submits a job now with its AM pending; policies are not told.
func (y *YARN) AddJob(spec YARNJob) (*replay.JobView, error) {
	v, err := y.Cluster.AddJob(spec.Job)
	if err != nil {
		return nil, err
	}
	s := spec.Sizes
	if s.AM.IsZero() {
		s.AM = y.def.AM
	}
	if s.Map.IsZero() {
		s.Map = y.def.Map
	}
	if s.Reduce.IsZero() {
		s.Reduce = y.def.Reduce
	}
	y.sizes[v] = s
	y.amPending[v] = true
	j := y.jobs[v]
	y.hidden[v] = j.PendingMaps
	j.PendingMaps = 0
	return v, nil
}

// Arrive adds a job (AddJob) and calls p.JobArrived with the YARN view.
func (y *YARN) Arrive(p replay.Policy, spec YARNJob) (*replay.JobView, error) {
	v, err := y.AddJob(spec)
	if err != nil {
		return nil, err
	}
	p.JobArrived(y, v)
	return v, nil
}

// Heartbeat calls p.Heartbeat for node n with the YARN view and returns the
// task launches it made (AMLaunches has its AM launches).
func (y *YARN) Heartbeat(p replay.Policy, n int32) []Launch {
	k := len(y.launches)
	p.Heartbeat(y, n)
	return slices.Clone(y.launches[k:])
}

// FinishMap ends running map i of j now, frees its container and tells p
// (TaskFinished, then JobFinished at the job's last task, when its AM's
// container frees too) unless p is nil.
func (y *YARN) FinishMap(p replay.Policy, v *replay.JobView, i int32) {
	n := v.MapNode(i)
	y.Cluster.FinishMap(nil, v, i)
	y.release(v, n, y.sizes[v].Map)
	y.ended(p, v, false, i)
}

// FinishReduce ends running reduce i of j now, as FinishMap does a map.
func (y *YARN) FinishReduce(p replay.Policy, v *replay.JobView, i int32) {
	n := v.ReduceNode(i)
	y.Cluster.FinishReduce(nil, v, i)
	y.release(v, n, y.sizes[v].Reduce)
	y.ended(p, v, true, i)
}

func (y *YARN) release(v *replay.JobView, n int32, r replay.Resource) {
	y.free[n] = y.free[n].Add(r)
	y.usage[v] = y.usage[v].Sub(r)
}

func (y *YARN) ended(p replay.Policy, v *replay.JobView, reduce bool, i int32) {
	j := y.jobs[v]
	done := j.MapsDone() && j.FinishedReduces == int32(len(j.Reduces))
	if done {
		y.release(v, y.amNode[v], y.sizes[v].AM)
	}
	if p == nil {
		return
	}
	p.TaskFinished(y, v, reduce, i)
	if done {
		p.JobFinished(y, v)
	}
}

// FreeMapSlots is 0: a YARN cluster has no slots.
func (y *YARN) FreeMapSlots(int32) int32 { return 0 }

// FreeReduceSlots is 0: a YARN cluster has no slots.
func (y *YARN) FreeReduceSlots(int32) int32 { return 0 }

// ClusterResource is every node's resources summed.
func (y *YARN) ClusterResource() replay.Resource {
	n := int64(len(y.free))
	return replay.Resource{MemoryMB: y.node.MemoryMB * n, VCores: y.node.VCores * n}
}

// NodeResource is what every node offers.
func (y *YARN) NodeResource(int32) replay.Resource { return y.node }

// NodeFree is what node n has not given to containers.
func (y *YARN) NodeFree(n int32) replay.Resource { return y.free[n] }

// Container is j's container size of kind k.
func (y *YARN) Container(v *replay.JobView, k replay.ContainerKind) replay.Resource {
	s := y.sizes[v]
	switch k {
	case replay.AMContainer:
		return s.AM
	case replay.MapContainer:
		return s.Map
	}
	return s.Reduce
}

// AMPending reports whether j's AM waits for its container.
func (y *YARN) AMPending(v *replay.JobView) bool { return y.amPending[v] }

// Usage is what j's running containers hold, its AM's included.
func (y *YARN) Usage(v *replay.JobView) replay.Resource { return y.usage[v] }

// take gives r of node n to j, panicking as the engine does when it does
// not fit.
func (y *YARN) take(v *replay.JobView, n int32, r replay.Resource, what string) {
	if !r.Fits(y.free[n]) {
		panic(fmt.Sprintf("policytest: %s of job %s on node %d: %+v does not fit in the free %+v", what, v.ID(), n, r, y.free[n]))
	}
	y.free[n] = y.free[n].Sub(r)
	y.usage[v] = y.usage[v].Add(r)
}

// LaunchAM gives j's AM its container on node n; the AM starts at once and
// j's maps become pending.
func (y *YARN) LaunchAM(v *replay.JobView, n int32) {
	if !y.amPending[v] {
		panic(fmt.Sprintf("policytest: AM of job %s launched, which is not pending", v.ID()))
	}
	y.take(v, n, y.sizes[v].AM, "AM")
	y.amPending[v] = false
	y.amNode[v] = n
	j := y.jobs[v]
	j.PendingMaps = y.hidden[v]
	y.amLaunches = append(y.amLaunches, AMLaunch{At: y.now, Job: v.Index(), JobID: v.ID(), Node: n})
}

// LaunchMap starts map i of j on node n in a map container.
func (y *YARN) LaunchMap(v *replay.JobView, i int32, n int32) replay.Locality {
	if y.amPending[v] {
		panic(fmt.Sprintf("policytest: map %d of job %s launched before its AM", i, v.ID()))
	}
	y.take(v, n, y.sizes[v].Map, "map container")
	return y.Cluster.LaunchMap(v, i, n)
}

// LaunchReduce starts j's lowest-indexed pending reduce on node n in a
// reduce container, or returns -1 when j has none or its reduces are not
// ready.
func (y *YARN) LaunchReduce(v *replay.JobView, n int32) int32 {
	j := y.jobs[v]
	if !j.ReducesReady() || j.PendingReduces == 0 || y.amPending[v] {
		return -1
	}
	i := int32(slices.IndexFunc(j.Reduces, func(r replay.ReduceTask) bool { return r.State == replay.Pending }))
	y.take(v, n, y.sizes[v].Reduce, "reduce container")
	r := &j.Reduces[i]
	r.State, r.Node, r.LaunchUs = replay.Running, n, y.now
	j.PendingReduces--
	j.RunningReduces++
	if j.FirstLaunchUs < 0 {
		j.FirstLaunchUs = y.now
	}
	y.launches = append(y.launches, Launch{At: y.now, Job: j.Index, JobID: j.Trace.ID, Reduce: true, Task: i, Node: n})
	return i
}

// Preempt kills running map or reduce task of j: its container frees, its
// task is pending again (a map is then found by a scan of MapState, not by
// LocalMap, whose index has dropped it).
func (y *YARN) Preempt(v *replay.JobView, k replay.ContainerKind, task int32) bool {
	j := y.jobs[v]
	switch k {
	case replay.MapContainer:
		if task < 0 || int(task) >= len(j.Maps) || j.Maps[task].State != replay.Running {
			return false
		}
		m := &j.Maps[task]
		n := m.Node
		if m.Locality != replay.NodeLocal {
			y.remote--
		}
		m.State, m.Node = replay.Pending, -1
		j.RunningMaps--
		j.PendingMaps++
		y.release(v, n, y.sizes[v].Map)
		y.preempts = append(y.preempts, Preemption{At: y.now, Job: j.Index, JobID: j.Trace.ID, Kind: k, Task: task, Node: n})
		return true
	case replay.ReduceContainer:
		if task < 0 || int(task) >= len(j.Reduces) || j.Reduces[task].State != replay.Running {
			return false
		}
		r := &j.Reduces[task]
		n := r.Node
		r.State, r.Node = replay.Pending, -1
		j.RunningReduces--
		j.PendingReduces++
		y.release(v, n, y.sizes[v].Reduce)
		y.preempts = append(y.preempts, Preemption{At: y.now, Job: j.Index, JobID: j.Trace.ID, Kind: k, Task: task, Node: n})
		return true
	}
	return false
}
