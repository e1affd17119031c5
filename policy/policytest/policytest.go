// Package policytest is a fake replay.Cluster for unit tests of scheduling
// policies: a test sets the scene (nodes with free slots, jobs with their maps'
// replicas, the time, the random stream), calls a policy hook, and reads the
// launches the policy made, without the event engine. Like the Harness of
// Nomad's scheduler tests, the fake applies what the policy asks and records
// it; unlike the engine it never moves time, finishes a task or sends a
// heartbeat by itself: the test does (SetNow, FinishMap, FinishReduce,
// Heartbeat).
//
// The fake keeps the engine's rules a policy can observe: a launch needs a free
// slot of its kind and a pending task, or it panics as the engine does; a
// reduce launches only once its job's slow-start fraction of maps has finished
// (Hardware.SlowStart), in index order; locality is where the map's replicas
// lie; MapDuration is the map's node-local time plus the hardware model's
// remote read cost (Hardware.RemoteReadUs), as under the fixed network model.
// Heartbeats are aligned (as with heartbeat_jitter = false): by time t every
// node has sent t/interval + 1 of them.
package policytest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// Launch is one task a policy launched on the fake cluster.
type Launch struct {
	At       int64 // simulated time, µs
	Job      int32 // the job's index (submit order)
	JobID    string
	Reduce   bool
	Task     int32
	Node     int32
	Locality replay.Locality // of a map
}

// String is the launch as a line of a schedule, e.g. "0s A map 1 on node 2
// (NODE_LOCAL)".
func (l Launch) String() string {
	if l.Reduce {
		return fmt.Sprintf("%s %s reduce %d on node %d", replay.Duration(l.At), l.JobID, l.Task, l.Node)
	}
	return fmt.Sprintf("%s %s map %d on node %d (%s)", replay.Duration(l.At), l.JobID, l.Task, l.Node, l.Locality)
}

// Job describes a job to add to the fake cluster.
type Job struct {
	ID, User, Queue string
	// Maps holds, for each map, the nodes holding a replica of its input
	// (the same count for every map, at least one).
	Maps [][]int32
	// MapUs is every map's node-local duration (default 1 s); InputBytes and
	// OutputBytes its input and output (default 64 MB and none).
	MapUs                   int64
	InputBytes, OutputBytes int64
	// Reduces is the number of reduces, each copying ShuffleBytes.
	Reduces      int
	ShuffleBytes int64
}

// Cluster is a fake replay.Cluster. Build it with New; it is not safe for
// concurrent use.
type Cluster struct {
	hw       *replay.Hardware
	topo     *replay.Topology
	now      int64
	rng      *rand.Rand
	freeMap  []int32
	freeRed  []int32
	remote   int32
	active   []*replay.Job
	views    []*replay.JobView // Active's buffer
	jobs     map[*replay.JobView]*replay.Job
	mapUs    map[*replay.JobView]int64
	next     int32
	launches []Launch
}

var _ replay.Cluster = (*Cluster)(nil)

// New builds a fake cluster of hardware model hw, every slot free, time 0 and
// a random stream seeded with seed.
func New(hw replay.Hardware, seed uint64) *Cluster {
	c := &Cluster{hw: &hw, topo: replay.NewTopology(&hw, seed), rng: rand.New(rand.NewPCG(seed, 0)),
		jobs: map[*replay.JobView]*replay.Job{}, mapUs: map[*replay.JobView]int64{}}
	for _, n := range c.topo.Nodes {
		c.freeMap = append(c.freeMap, n.MapSlots)
		c.freeRed = append(c.freeRed, n.ReduceSlots)
	}
	return c
}

// Hardware returns a hardware model of racks racks of perRack nodes with the
// given slots per node, aligned heartbeats every second, replication 1 and
// slow-start 0, parsed as a hardware file would be.
func Hardware(racks, perRack, mapSlots, reduceSlots int) (replay.Hardware, error) {
	hw, err := replay.ParseHardware(fmt.Appendf(nil, `
name = "policytest"
racks = %d
nodes_per_rack = %d
map_slots = %d
reduce_slots = %d
heartbeat = "1s"
heartbeat_jitter = false
replication = 1
slow_start = 0
`, racks, perRack, mapSlots, reduceSlots))
	if err != nil {
		return hw, fmt.Errorf("policytest hardware: %w", err)
	}
	return hw, nil
}

// SetNow sets the simulated time, in µs.
func (c *Cluster) SetNow(t int64) { c.now = t }

// SetRand replaces the policy's random stream, e.g. with one whose draws a
// test chooses.
func (c *Cluster) SetRand(r *rand.Rand) { c.rng = r }

// SetFree sets node n's free map and reduce slots.
func (c *Cluster) SetFree(n int32, maps, reduces int32) { c.freeMap[n], c.freeRed[n] = maps, reduces }

// Launches returns the launches so far, in order.
func (c *Cluster) Launches() []Launch { return slices.Clone(c.launches) }

// TakeLaunches returns the launches since the last call and forgets them.
func (c *Cluster) TakeLaunches() []Launch {
	l := c.launches
	c.launches = nil
	return l
}

// AddJob submits a job now: it becomes active, and its view is returned.
// Policies are not told; Arrive also calls the policy's JobArrived.
func (c *Cluster) AddJob(spec Job) (*replay.JobView, error) {
	maps := make([]replay.MapTask, len(spec.Maps))
	in := spec.InputBytes
	if in == 0 {
		in = 64 << 20
	}
	for i := range maps {
		maps[i] = replay.MapTask{InputBytes: in, OutputBytes: spec.OutputBytes}
	}
	reds := make([]replay.ReduceTask, spec.Reduces)
	for i := range reds {
		reds[i] = replay.ReduceTask{ShuffleBytes: spec.ShuffleBytes}
	}
	tj := &trace.Job{ID: spec.ID, User: spec.User, Queue: spec.Queue}
	j, err := replay.NewJob(c.next, tj, c.now, maps, reds, spec.Maps, c.topo)
	if err != nil {
		return nil, fmt.Errorf("policytest: job %q: %w", spec.ID, err)
	}
	c.next++
	v := j.View()
	c.jobs[v] = j
	c.mapUs[v] = spec.MapUs
	if spec.MapUs == 0 {
		c.mapUs[v] = 1_000_000
	}
	c.active = append(c.active, j)
	c.checkReady(j)
	return v, nil
}

// Arrive adds a job (AddJob) and calls p.JobArrived with it.
func (c *Cluster) Arrive(p replay.Policy, spec Job) (*replay.JobView, error) {
	v, err := c.AddJob(spec)
	if err != nil {
		return nil, err
	}
	p.JobArrived(c, v)
	return v, nil
}

// Heartbeat calls p.Heartbeat for node n and returns the launches it made.
func (c *Cluster) Heartbeat(p replay.Policy, n int32) []Launch {
	k := len(c.launches)
	p.Heartbeat(c, n)
	return slices.Clone(c.launches[k:])
}

// Job returns the engine side of view v, for a test to inspect or adjust.
func (c *Cluster) Job(v *replay.JobView) *replay.Job { return c.jobs[v] }

// FinishMap ends running map i of j now: its slot frees, its output is
// stored on its node, the job's reduces become ready at the slow-start
// fraction, and p.TaskFinished (then p.JobFinished if it was the job's last
// task) is called unless p is nil.
func (c *Cluster) FinishMap(p replay.Policy, v *replay.JobView, i int32) {
	j := c.jobs[v]
	m := &j.Maps[i]
	if m.State != replay.Running {
		panic(fmt.Sprintf("policytest: finishing map %d of job %s, which is not running", i, j.Trace.ID))
	}
	m.State, m.FinishUs = replay.Done, c.now
	c.freeMap[m.Node]++
	if m.Locality != replay.NodeLocal {
		c.remote--
	}
	j.RunningMaps--
	j.FinishedMaps++
	j.AddMapOutput(m.Node, m.OutputBytes, len(c.topo.Nodes))
	c.checkReady(j)
	if j.MapsDone() {
		j.LastMapEndUs = c.now
	}
	c.ended(p, j, false, i)
}

// FinishReduce ends running reduce i of j now, as FinishMap does a map.
func (c *Cluster) FinishReduce(p replay.Policy, v *replay.JobView, i int32) {
	j := c.jobs[v]
	r := &j.Reduces[i]
	if r.State != replay.Running {
		panic(fmt.Sprintf("policytest: finishing reduce %d of job %s, which is not running", i, j.Trace.ID))
	}
	r.State, r.FinishUs = replay.Done, c.now
	c.freeRed[r.Node]++
	j.RunningReduces--
	j.FinishedReduces++
	c.ended(p, j, true, i)
}

func (c *Cluster) ended(p replay.Policy, j *replay.Job, reduce bool, i int32) {
	done := j.MapsDone() && j.FinishedReduces == int32(len(j.Reduces))
	if done {
		c.active = slices.DeleteFunc(c.active, func(x *replay.Job) bool { return x == j })
	}
	if p == nil {
		return
	}
	p.TaskFinished(c, j.View(), reduce, i)
	if done {
		p.JobFinished(c, j.View())
	}
}

// checkReady marks j's reduces launchable once its slow-start fraction of
// maps has finished, as the engine does.
func (c *Cluster) checkReady(j *replay.Job) {
	if j.ReducesReady() || len(j.Reduces) == 0 {
		return
	}
	if j.FinishedMaps >= int32(math.Ceil(c.hw.SlowStart*float64(len(j.Maps)))) {
		j.SetReducesReady(true)
	}
}

// Now is the simulated time (SetNow).
func (c *Cluster) Now() int64 { return c.now }

// Rand is the policy's random stream (SetRand).
func (c *Cluster) Rand() *rand.Rand { return c.rng }

// Hardware is the fake's hardware model.
func (c *Cluster) Hardware() *replay.Hardware { return c.hw }

// Topology is the fake's nodes and racks.
func (c *Cluster) Topology() *replay.Topology { return c.topo }

// Active returns the unfinished jobs in the order they were added, in a
// buffer the next call overwrites.
func (c *Cluster) Active() []*replay.JobView {
	c.views = c.views[:0]
	for _, j := range c.active {
		c.views = append(c.views, j.View())
	}
	return c.views
}

// MapCandidates returns the unfinished jobs with a pending map, in the order
// they were added, in a new slice.
func (c *Cluster) MapCandidates() []*replay.JobView {
	var out []*replay.JobView
	for _, j := range c.active {
		if j.PendingMaps > 0 {
			out = append(out, j.View())
		}
	}
	return out
}

// ReduceCandidates returns the unfinished jobs with a reduce that may launch
// (ReducesReady and a pending reduce), in the order they were added, in a new
// slice.
func (c *Cluster) ReduceCandidates() []*replay.JobView {
	var out []*replay.JobView
	for _, j := range c.active {
		if j.ReducesReady() && j.PendingReduces > 0 {
			out = append(out, j.View())
		}
	}
	return out
}

// FreeMapSlots is node n's free map slots.
func (c *Cluster) FreeMapSlots(n int32) int32 { return c.freeMap[n] }

// FreeReduceSlots is node n's free reduce slots.
func (c *Cluster) FreeReduceSlots(n int32) int32 { return c.freeRed[n] }

// RunningRemoteMaps is the number of running maps launched away from their
// input.
func (c *Cluster) RunningRemoteMaps() int32 { return c.remote }

// HeartbeatsSent is the aligned heartbeats all nodes have sent by time t:
// nodes × (t/interval + 1).
func (c *Cluster) HeartbeatsSent(t int64) int64 {
	if t < 0 {
		return 0
	}
	return int64(len(c.topo.Nodes)) * (t/int64(c.hw.Heartbeat) + 1)
}

// Locality is how close node n is to map i of j's replicas: NodeLocal
// everywhere for a map without input (no replicas), as the engine has it.
func (c *Cluster) Locality(v *replay.JobView, i int32, n int32) replay.Locality {
	reps := v.Replicas(i)
	if len(reps) == 0 {
		return replay.NodeLocal
	}
	best := replay.OffRack
	for _, r := range reps {
		if r == n {
			return replay.NodeLocal
		}
		if c.topo.Nodes[r].Rack == c.topo.Nodes[n].Rack {
			best = replay.RackLocal
		}
	}
	return best
}

// MapDuration is the map's node-local time plus, away from its input, the
// hardware model's remote read cost with this map counted among the remote
// ones.
func (c *Cluster) MapDuration(v *replay.JobView, i int32, n int32) int64 {
	d := c.mapUs[v]
	if loc := c.Locality(v, i, n); loc != replay.NodeLocal {
		d += c.RemoteReadUs(v.MapInputBytes(i), loc, c.remote+1)
	}
	return d
}

// RemoteReadUs is the hardware model's remote read cost
// (replay.Hardware.RemoteReadUs).
func (c *Cluster) RemoteReadUs(b int64, loc replay.Locality, remote int32) int64 {
	return c.hw.RemoteReadUs(b, loc, remote)
}

// LaunchMap starts map i of j on node n and records it; it panics, as the
// engine does, when the map is not pending or n has no free map slot.
func (c *Cluster) LaunchMap(v *replay.JobView, i int32, n int32) replay.Locality {
	j := c.jobs[v]
	m := &j.Maps[i]
	if m.State != replay.Pending || c.freeMap[n] <= 0 {
		panic(fmt.Sprintf("policytest: map %d of job %s launched on node %d: task state %d, free map slots %d",
			i, j.Trace.ID, n, m.State, c.freeMap[n]))
	}
	loc := c.Locality(v, i, n)
	d := c.MapDuration(v, i, n)
	c.freeMap[n]--
	m.State, m.Node, m.Locality, m.LaunchUs, m.FinishUs = replay.Running, n, loc, c.now, c.now+d
	if loc != replay.NodeLocal {
		c.remote++
	}
	j.PendingMaps--
	j.RunningMaps++
	if j.FirstLaunchUs < 0 {
		j.FirstLaunchUs = c.now
	}
	c.launches = append(c.launches, Launch{At: c.now, Job: j.Index, JobID: j.Trace.ID, Task: i, Node: n, Locality: loc})
	return loc
}

// LaunchReduce starts j's next pending reduce on node n and records it, or
// returns -1 when j has none or its reduces are not ready; it panics, as the
// engine does, when n has no free reduce slot.
func (c *Cluster) LaunchReduce(v *replay.JobView, n int32) int32 {
	j := c.jobs[v]
	if c.freeRed[n] <= 0 {
		panic(fmt.Sprintf("policytest: a reduce of job %s launched on node %d with %d free reduce slots", j.Trace.ID, n, c.freeRed[n]))
	}
	if !j.ReducesReady() || j.PendingReduces == 0 {
		return -1
	}
	i := int32(len(j.Reduces)) - j.PendingReduces
	r := &j.Reduces[i]
	c.freeRed[n]--
	r.State, r.Node, r.LaunchUs = replay.Running, n, c.now
	j.PendingReduces--
	j.RunningReduces++
	if j.FirstLaunchUs < 0 {
		j.FirstLaunchUs = c.now
	}
	c.launches = append(c.launches, Launch{At: c.now, Job: j.Index, JobID: j.Trace.ID, Reduce: true, Task: i, Node: n})
	return i
}

// Draws returns a random stream whose Float64 draws are fs in turn, cycling:
// a test of a decision taken with a probability chooses the draw (near 0 to
// take it, near 1 to decline). Only Float64 draws are meaningful; a policy
// that draws integers from it may loop in the rejection sampling of
// math/rand/v2, so use it only where the decision draws floats.
func Draws(fs ...float64) *rand.Rand {
	if len(fs) == 0 {
		fs = []float64{0.5}
	}
	return rand.New(&draws{fs: fs})
}

type draws struct {
	fs []float64
	k  int
}

// Uint64 returns the next draw as the 53 low bits Float64 reads.
func (d *draws) Uint64() uint64 {
	f := min(max(d.fs[d.k%len(d.fs)], 0), 1-1.0/(1<<53))
	d.k++
	return uint64(f * (1 << 53))
}
