package replay

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tracereplay/tracereplay/trace"
)

// Cluster is the view of a run that a Policy gets: the time, the free slots of
// each node, the topology and where map inputs lie, the simulator's own cost
// estimates, read-only views of the active jobs, and the two ways to act on the
// run, LaunchMap and LaunchReduce. *Sim implements it; policy/policytest has a
// fake that records launches, so that a policy's decision can be tested
// without the engine.
//
// Like the Kubernetes scheduler framework's Handle, it is narrow on purpose: a
// policy cannot reach the event queue, the metrics or a job's counters, only
// read them and launch.
type Cluster interface {
	// Now is the current simulated time in µs.
	Now() int64
	// Rand is the policy's own random stream.
	Rand() *rand.Rand
	// Hardware is the run's hardware model. It is the run's own: read it,
	// never modify it.
	Hardware() *Hardware
	// Topology is the run's nodes and racks. It is the run's own: read it,
	// never modify it.
	Topology() *Topology
	// Active returns the jobs that have arrived (with the lifecycle: whose
	// setup is done) and not finished, in submission order (job index,
	// whenever each became active: candidates.go). The slice is the
	// simulator's, current until the hook returns: do not modify it or keep
	// it.
	Active() []*JobView
	// MapCandidates returns the jobs of Active that have a pending map
	// (PendingMaps > 0), in submission order, without looking at the others.
	// The slice is the simulator's: do not modify it. A launch that changes
	// the candidates makes a new list, so the slice in hand stays as it was
	// (it may be ranged over while launching) but is current only until the
	// next launch.
	MapCandidates() []*JobView
	// ReduceCandidates returns the jobs of Active that have a reduce that
	// may launch (ReducesReady and PendingReduces > 0; on a YARN cluster
	// LaunchReduce may still decline one that its AM has not asked for), in
	// submission order, without looking at the others; the slice is the
	// simulator's, as MapCandidates' is.
	ReduceCandidates() []*JobView
	// FreeMapSlots is the number of idle map slots on node n.
	FreeMapSlots(n int32) int32
	// FreeReduceSlots is the number of idle reduce slots on node n.
	FreeReduceSlots(n int32) int32
	// RunningRemoteMaps is the number of maps now reading their input over
	// the network.
	RunningRemoteMaps() int32
	// HeartbeatsSent is the number of periodic heartbeats all nodes have sent
	// at or before time t on their nominal schedules (Sim.HeartbeatsSent).
	HeartbeatsSent(t int64) int64
	// Locality is how close node n is to the input of map i of j (NodeLocal
	// on every node for a map without input: MapTask.NoInput).
	Locality(j *JobView, i int32, n int32) Locality
	// MapDuration is the time map i of j would take if launched on node n
	// now: the simulator's own estimate, the one LaunchMap uses.
	MapDuration(j *JobView, i int32, n int32) int64
	// RemoteReadUs is the time, rounded up to a µs, that the simulator's
	// fixed and "bar" network models add to a map reading b bytes of input
	// at distance loc (RackLocal or OffRack) while remote maps read
	// remotely, this one included: b over the NIC rate within a rack, over
	// the smaller of the NIC rate and the rack uplink's per-node share across
	// racks, or BAR's q·remote under network = "bar". (Under network = "flow"
	// and in trace mode, MapDuration is the estimate.)
	RemoteReadUs(b int64, loc Locality, remote int32) int64
	// LaunchMap starts map i of j on node n, which must have a free map slot,
	// and returns its locality. Launching a map that is not pending is a
	// policy bug and panics.
	LaunchMap(j *JobView, i int32, n int32) Locality
	// LaunchReduce starts j's next pending reduce on node n, which must have
	// a free reduce slot, and returns its index; it returns -1 and launches
	// nothing when j has no pending reduce or its slow-start threshold is
	// not reached.
	LaunchReduce(j *JobView, n int32) int32
}

var _ Cluster = (*Sim)(nil)

// Active returns the jobs that have arrived and not finished, in submission
// order (Cluster.Active): the simulator's list of their views, changed only
// when a job arrives or finishes (addActive, removeActive). Jobs arrive and
// finish only between a policy's hooks, so within a hook every call returns
// the same jobs.
func (s *Sim) Active() []*JobView { return s.views }

// Locality is how close node n is to map i of job j: NodeLocal on every node
// for a map without input (MapTask.NoInput; Locality says why).
func (s *Sim) Locality(j *JobView, i int32, n int32) Locality { return s.locality(j.j, i, n) }

// MapDuration is the time map i of job j would take if launched on node n now.
func (s *Sim) MapDuration(j *JobView, i int32, n int32) int64 {
	d, _, _ := s.mapCost(j.j, i, n)
	return d
}

// RemoteReadUs is the time the fixed and "bar" network models add to a map
// reading b bytes of input at distance loc with remote maps reading remotely,
// this one included (Cluster.RemoteReadUs); mapCost adds the same.
func (s *Sim) RemoteReadUs(b int64, loc Locality, remote int32) int64 {
	return int64(math.Ceil(s.netm.ReadUs(b, loc, remote)))
}

// RemoteReadUs is the time, rounded up to a µs, that the fixed and "bar"
// network models add to a map reading b bytes of input at distance loc (not
// node-local) while remote maps read remotely, this one included: the cost the
// simulator charges at launch (Cluster.RemoteReadUs).
func (h *Hardware) RemoteReadUs(b int64, loc Locality, remote int32) int64 {
	return int64(math.Ceil(h.NetworkModel().ReadUs(b, loc, remote)))
}

// LaunchMap starts map i of job j on node n (Cluster.LaunchMap).
func (s *Sim) LaunchMap(j *JobView, i int32, n int32) Locality { return s.launchMap(j.j, i, n) }

// LaunchReduce starts job j's next pending reduce on node n (Cluster.LaunchReduce).
func (s *Sim) LaunchReduce(j *JobView, n int32) int32 { return s.launchReduce(j.j, n) }

// JobView is a policy's read-only view of a Job: the counters and task states
// it decides by, through methods, and no way to change them. The engine owns
// the Job and hands each policy hook the job's one view (Job.View), so views
// of the same job are the same pointer and may be compared and used as map
// keys.
type JobView struct{ j *Job }

// View returns the job's read-only view, the same pointer on every call.
func (j *Job) View() *JobView {
	if j.view.j == nil {
		j.view.j = j
	}
	return &j.view
}

// Index is the job's position in the replayed workload (submit order).
func (v *JobView) Index() int32 { return v.j.Index }

// ID is the job's trace ID.
func (v *JobView) ID() string { return v.j.Trace.ID }

// User is the user who submitted the job.
func (v *JobView) User() string { return v.j.Trace.User }

// Queue is the queue the job was submitted to.
func (v *JobView) Queue() string { return v.j.Trace.Queue }

// SubmitUs is when the job was submitted.
func (v *JobView) SubmitUs() int64 { return v.j.SubmitUs }

// IdealUs is the lower bound on the job's flowtime: alone, no heartbeat
// latency, all maps local.
func (v *JobView) IdealUs() int64 { return v.j.IdealUs }

// NumMaps is the number of the job's maps.
func (v *JobView) NumMaps() int32 { return v.j.NumMaps() }

// NumReduces is the number of the job's reduces.
func (v *JobView) NumReduces() int32 { return int32(len(v.j.Reduces)) }

// PendingMaps is the number of the job's maps waiting for a slot.
func (v *JobView) PendingMaps() int32 { return v.j.PendingMaps }

// RunningMaps is the number of the job's maps holding a slot.
func (v *JobView) RunningMaps() int32 { return v.j.RunningMaps }

// FinishedMaps is the number of the job's maps that have finished.
func (v *JobView) FinishedMaps() int32 { return v.j.FinishedMaps }

// PendingReduces is the number of the job's reduces not launched yet.
func (v *JobView) PendingReduces() int32 { return v.j.PendingReduces }

// RunningReduces is the number of the job's reduces holding a slot.
func (v *JobView) RunningReduces() int32 { return v.j.RunningReduces }

// FinishedReduces is the number of the job's reduces that have finished.
func (v *JobView) FinishedReduces() int32 { return v.j.FinishedReduces }

// Running is the number of the job's tasks holding a slot.
func (v *JobView) Running() int32 { return v.j.Running() }

// MapsDone reports whether every map of the job has finished.
func (v *JobView) MapsDone() bool { return v.j.MapsDone() }

// ReducesReady reports whether the job's reduces may launch: the slow-start
// fraction of its maps has finished.
func (v *JobView) ReducesReady() bool { return v.j.ReducesReady() }

// LastMapEndUs is when the job's last map ended, -1 until every map has.
func (v *JobView) LastMapEndUs() int64 { return v.j.LastMapEndUs }

// MapInputBytes is the input of map i. It, MapNode, MapLaunchUs and
// MapFinishUs read the map's record, which the engine drops once every map
// of the job has finished, after the last one's end has been reported
// (TaskFinished): ask them no later (Job.Maps).
func (v *JobView) MapInputBytes(i int32) int64 { return v.j.Maps[i].InputBytes }

// MapState is where map i is in its life (Done for every map once the job's
// map records were dropped: Job.Maps).
func (v *JobView) MapState(i int32) TaskState {
	if v.j.retired {
		return Done
	}
	return v.j.Maps[i].State
}

// MapNode is the node map i runs or ran on, -1 before its launch.
func (v *JobView) MapNode(i int32) int32 { return v.j.Maps[i].Node }

// MapLaunchUs is when map i was launched.
func (v *JobView) MapLaunchUs(i int32) int64 { return v.j.Maps[i].LaunchUs }

// MapFinishUs is when map i finishes (as reported), once launched.
func (v *JobView) MapFinishUs(i int32) int64 { return v.j.Maps[i].FinishUs }

// ReduceLaunchUs is when reduce i was launched.
func (v *JobView) ReduceLaunchUs(i int32) int64 { return v.j.Reduces[i].LaunchUs }

// ReduceFinishUs is when reduce i finishes (as reported), once its reduce
// phase has started.
func (v *JobView) ReduceFinishUs(i int32) int64 { return v.j.Reduces[i].FinishUs }

// ReduceState is where reduce i is in its life.
func (v *JobView) ReduceState(i int32) TaskState { return v.j.Reduces[i].State }

// ReduceNode is the node reduce i runs or ran on.
func (v *JobView) ReduceNode(i int32) int32 { return v.j.Reduces[i].Node }

// ReduceShuffleBytes is the intermediate data reduce i copies.
func (v *JobView) ReduceShuffleBytes(i int32) int64 { return v.j.Reduces[i].ShuffleBytes }

// Replicas returns the nodes holding map i's input block. The slice is the
// job's own: do not keep or modify it.
func (v *JobView) Replicas(i int32) []int32 { return v.j.Replicas(i) }

// LocalMap returns a pending map whose input is on node n, or -1; among
// several, the lowest index.
func (v *JobView) LocalMap(n int32) int32 { return v.j.LocalMap(n) }

// RackMap returns a pending map with a replica in rack r, or -1.
func (v *JobView) RackMap(r int32) int32 { return v.j.RackMap(r) }

// AnyMap returns the lowest-indexed pending map, or -1.
func (v *JobView) AnyMap() int32 { return v.j.AnyMap() }

// HasLocalMap reports whether a pending map has its input on node n.
func (v *JobView) HasLocalMap(n int32) bool { return v.j.HasLocalMap(n) }

// CountLocalMapNodes returns the number of nodes n for which keep(n) holds
// (every node when keep is nil) that hold a replica of a pending map of the
// job (Job.CountLocalMapNodes).
func (v *JobView) CountLocalMapNodes(keep func(n int32) bool) int {
	return v.j.CountLocalMapNodes(keep)
}

// MapOutputBytes is the intermediate data of the job's finished maps stored on
// node n.
func (v *JobView) MapOutputBytes(n int32) int64 { return v.j.MapOutputBytes(n) }

// MapOutputAt is the intermediate data stored on MapOutputNodes()[k], in
// O(1).
func (v *JobView) MapOutputAt(k int) int64 { return v.j.MapOutputAt(k) }

// MapOutputNodes lists the nodes holding intermediate data of the job, in the
// order their first map output appeared. The slice is the job's own: do not
// keep or modify it.
func (v *JobView) MapOutputNodes() []int32 { return v.j.MapOutputNodes() }

// NewJob builds a job outside a run, for fake clusters that test policies
// without the engine (policy/policytest): job index of the workload, trace job
// tj, its maps and reduces (their sizes; states are set pending), and each
// map's replicas on topo's nodes (the same count for every map, except that a
// map of 0 input bytes with an empty list has no input: MapTask.NoInput). Its counters
// say every task is pending and its reduces are not ready. A fake engine
// launches and finishes its tasks by writing the Job's exported fields and
// with SetReducesReady and AddMapOutput; policies see only its View.
func NewJob(index int32, tj *trace.Job, submitUs int64, maps []MapTask, reduces []ReduceTask, replicas [][]int32, topo *Topology) (*Job, error) {
	j := &Job{Index: index, Trace: tj, SubmitUs: submitUs, Maps: maps, Reduces: reduces,
		FirstLaunchUs: -1, LastMapEndUs: -1, firstRed: -1, lastRed: -1}
	if len(replicas) != len(maps) {
		return nil, fmt.Errorf("job %d: %d replica lists for %d maps", index, len(replicas), len(maps))
	}
	for _, r := range replicas {
		if len(r) > 0 {
			j.replication = int32(len(r))
			break
		}
	}
	for i, r := range replicas {
		if len(r) == 0 && maps[i].InputBytes == 0 {
			j.Maps[i].noInput = true
			for range j.replication {
				j.replicas = append(j.replicas, 0) // never read: Replicas is empty
			}
			continue
		}
		if int32(len(r)) != j.replication || len(r) == 0 {
			return nil, fmt.Errorf("job %d, map %d: %d replicas, want %d (at least 1, or none for a map of 0 input bytes)", index, i, len(r), j.replication)
		}
		for _, n := range r {
			if n < 0 || int(n) >= len(topo.Nodes) {
				return nil, fmt.Errorf("job %d, map %d: replica on node %d of %d", index, i, n, len(topo.Nodes))
			}
		}
		j.replicas = append(j.replicas, r...)
	}
	for i := range j.Maps {
		j.Maps[i].State, j.Maps[i].Node, j.Maps[i].specNode, j.Maps[i].specWon = Pending, -1, -1, false
	}
	for i := range j.Reduces {
		j.Reduces[i].State, j.Reduces[i].Node = Pending, -1
	}
	j.PendingMaps, j.PendingReduces = int32(len(maps)), int32(len(reduces))
	j.index(topo)
	return j, nil
}

// SetReducesReady sets whether the job's reduces may launch (the slow-start
// threshold, which the engine sets itself); for fake clusters.
func (j *Job) SetReducesReady(ready bool) { j.ready = ready }

// AddMapOutput records b bytes of intermediate data stored on node n of a
// cluster of nodes nodes, as a finished map's would be; for fake clusters.
func (j *Job) AddMapOutput(n int32, b int64, nodes int) {
	if b > 0 {
		j.out.add(n, b, nodes, nil)
	}
}
