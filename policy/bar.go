package policy

import (
	"math"

	"github.com/tracereplay/tracereplay/replay"
)

// BAR is BAR (Jin et al., "BAR: An efficient data locality driven task scheduling
// algorithm for cloud computing", CCGrid 2011) as an online placement policy, and,
// with mb set, MaxCover-BalAssign (Fischer et al., SPAA 2010) in the same frame.
// The paper allocates one job statically; here each job gets its turn when it
// arrives: the map nodes' current loads become L_init, the job's maps are
// allocated by the static algorithm (BARSolver, MaxCoverSolver), and each map is
// queued on its allocated node. A node's heartbeat launches the head of its
// queue, so jobs are served first come, first served, and a map runs where the
// plan put it, local or remote. Reduces go to the first job in submit order whose
// slow-start threshold is met, as under FIFO.
//
// The cost model, in what a JobTracker knows: C_loc is the job's mean map time
// when local; C_rem(r) = C_loc + q·r with q the hardware's bar_q under the "bar"
// network model, and C_loc + the mean input's transfer time at the NIC rate under
// the fixed one (q = 0). A node with k map slots runs k maps at once, so for the
// algorithm a task costs 1/k of its time there. A node's load is the remaining
// planned time of the maps running on it (their planned cost from launch, never
// the simulator's finish time) plus the planned cost of its queue, over k.
//
// Choices where the paper is silent: the plan is fixed once made (no stealing
// when estimates err); a job's maps are queued in index order on each node.
//
// How the plan's remote cost differs from what the simulator then charges
// (Cluster.MapDuration, Cluster.RemoteReadUs), kept as it is because using the
// simulator's cost would change BAR's plans and so its results:
//   - fixed (and flow) network: BAR adds ⌈mean input bytes of the job /
//     nic_mb_per_s⌉ to every remote map, rack-local or off-rack alike; the
//     simulator adds ⌈each map's own input bytes / link rate⌉, the link rate
//     being the NIC within a rack but min(NIC, rack_uplink_mb_per_s /
//     nodes_per_rack), the rack uplink's per-node share, across racks (under
//     flow, the flow model's estimate instead);
//   - "bar" network: BAR charges q·r with r the number of the job's maps its
//     plan puts away from their input; the simulator charges each remote map
//     q·r with r the remote maps running cluster-wide when it launches, itself
//     included;
//   - trace mode: the simulator rescales a map's observed duration to its
//     locality; BAR still uses the model above.
//
// C_loc is the simulator's own: the mean of MapDuration on each map's first
// replica.
//
// A map without input (no replicas: replay.MapTask.NoInput) is local on every
// node and reads nothing, so it is left out of the allocation problem, whose
// tasks each prefer the servers holding their input: after the job's other
// maps are planned, each in index order is queued at cost C_loc on the map
// node with the least load (running plus queued planned time; the first
// among equals). The mean input in the fixed network's remote cost is over the
// maps with input; C_loc is over all the job's maps.
type BAR struct {
	replay.Base
	name string
	mb   bool

	bar   BARSolver
	mc    MaxCoverSolver
	prob  replay.AllocProblem
	out   []int32
	work  []int64 // per server: remaining planned time of its running maps (JobArrived)
	tasks []int32 // the job's maps with input, the problem's tasks (JobArrived)

	nodeOf   []int32 // server index -> node
	serverOf []int32 // node -> server index, -1 for nodes without map slots
	slots    int64   // map slots per map node
	queue    [][]barQueued
	queued   []int64 // per node: planned time of its queue
	qbytes   []int64 // per node: input bytes of its queue
	running  [][]barRunning
	reduces  GreedyReduces
}

var _ replay.QueuedLoader = (*BAR)(nil)

type barQueued struct {
	job  *replay.JobView
	task int32
	cost int64 // planned duration, µs
}

type barRunning struct {
	job  int32
	task int32
	end  int64 // launch + planned duration
}

func newBAR(mb bool) func(*ParamReader) (replay.Policy, error) {
	return func(r *ParamReader) (replay.Policy, error) {
		return &BAR{name: r.spec(), mb: mb}, nil
	}
}

// Name is the registry name.
func (b *BAR) Name() string { return b.name }

// Init indexes the map nodes.
func (b *BAR) Init(s replay.Cluster) {
	nodes := s.Topology().Nodes
	b.serverOf = make([]int32, len(nodes))
	for i, n := range nodes {
		b.serverOf[i] = -1
		if n.MapSlots > 0 {
			b.serverOf[i] = int32(len(b.nodeOf))
			b.nodeOf = append(b.nodeOf, int32(i))
			b.slots = int64(n.MapSlots)
		}
	}
	b.queue = make([][]barQueued, len(nodes))
	b.running = make([][]barRunning, len(nodes))
	b.queued = make([]int64, len(nodes))
	b.qbytes = make([]int64, len(nodes))
	b.prob.Servers = len(b.nodeOf)
	b.work = make([]int64, len(b.nodeOf))
	b.prob.Init = make([]int64, len(b.nodeOf))
	b.reduces = GreedyReduces{Order: SubmitOrder{}}
}

// JobArrived plans the job's maps and queues them on their nodes.
func (b *BAR) JobArrived(s replay.Cluster, j *replay.JobView) {
	p := &b.prob
	now := s.Now()
	for k, n := range b.nodeOf {
		var work int64
		for _, r := range b.running[n] {
			work += max(0, r.end-now)
		}
		p.Init[k] = (work + b.queued[n]) / b.slots
		b.work[k] = work
	}
	m := int(j.NumMaps())
	p.Replication = 0
	p.Replicas = p.Replicas[:0]
	b.tasks = b.tasks[:0]
	var local, bytes float64
	for i := range int32(m) {
		reps := j.Replicas(i)
		if len(reps) == 0 { // no input: the same everywhere
			local += float64(s.MapDuration(j, i, b.nodeOf[0]))
			continue
		}
		p.Replication = len(reps)
		b.tasks = append(b.tasks, i)
		for _, n := range reps {
			p.Replicas = append(p.Replicas, b.serverOf[n])
		}
		local += float64(s.MapDuration(j, i, reps[0]))
		bytes += float64(j.MapInputBytes(i))
	}
	cloc := max(1, int64(math.Round(local/float64(m))))
	hw := s.Hardware()
	var extra, q int64
	if hw.Network == "bar" {
		q = int64(hw.BARq)
	} else if len(b.tasks) > 0 {
		extra = int64(math.Ceil(bytes / float64(len(b.tasks)) / hw.NICMBps))
	}
	p.LocalCost, p.RemoteExtra, p.Q = max(1, cloc/b.slots), extra/b.slots, q/b.slots
	switch {
	case len(b.tasks) == 0:
		b.out = b.out[:0]
	case b.mb:
		b.out = b.mc.Solve(p)
	default:
		b.out = b.bar.Solve(p, s.Rand(), b.out)
	}
	remote := 0
	for i, srv := range b.out {
		if !p.Prefers(int32(i), srv) {
			remote++
		}
	}
	crem := cloc + extra + q*int64(remote)
	for i, srv := range b.out {
		n := b.nodeOf[srv]
		cost := crem
		if p.Prefers(int32(i), srv) {
			cost = cloc
		}
		t := b.tasks[i]
		b.queue[n] = append(b.queue[n], barQueued{job: j, task: t, cost: cost})
		b.queued[n] += cost
		b.qbytes[n] += j.MapInputBytes(t)
	}
	if len(b.tasks) == m {
		return
	}
	for i := range int32(m) {
		if len(j.Replicas(i)) > 0 {
			continue
		}
		best := 0
		for k := range b.nodeOf {
			if b.work[k]+b.queued[b.nodeOf[k]] < b.work[best]+b.queued[b.nodeOf[best]] {
				best = k
			}
		}
		n := b.nodeOf[best]
		b.queue[n] = append(b.queue[n], barQueued{job: j, task: i, cost: cloc})
		b.queued[n] += cloc
	}
}

// Heartbeat launches the head of the node's queue into its free map slots, then
// reduces in submit order.
func (b *BAR) Heartbeat(s replay.Cluster, n int32) {
	for s.FreeMapSlots(n) > 0 && len(b.queue[n]) > 0 {
		q := b.queue[n][0]
		b.queue[n][0] = barQueued{}
		b.queue[n] = b.queue[n][1:]
		b.queued[n] -= q.cost
		b.qbytes[n] -= q.job.MapInputBytes(q.task)
		s.LaunchMap(q.job, q.task, n)
		b.running[n] = append(b.running[n], barRunning{job: q.job.Index(), task: q.task, end: s.Now() + q.cost})
	}
	b.reduces.FillReduces(s, n)
}

// TaskFinished forgets a finished map's planned end.
func (b *BAR) TaskFinished(_ replay.Cluster, j *replay.JobView, reduce bool, task int32) {
	if reduce {
		return
	}
	n := j.MapNode(task)
	r := b.running[n]
	for k := range r {
		if r[k].job == j.Index() && r[k].task == task {
			r[k] = r[len(r)-1]
			b.running[n] = r[:len(r)-1]
			return
		}
	}
}

// QueuedInputBytes is the input of the maps waiting in node n's queue.
func (b *BAR) QueuedInputBytes(n int32) int64 { return b.qbytes[n] }
