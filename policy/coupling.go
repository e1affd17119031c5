package policy

import (
	"fmt"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// Coupling is the Coupling Scheduler of Tan, Meng and Zhang ("Coupling Task
// Progress for MapReduce Resource-Aware Scheduling", INFOCOM 2013), built on the
// Fair Scheduler's slot allocation:
//
//   - Maps (Random Peeking, Alg. 3 and eq. 3): each free map slot is offered to
//     the jobs in the Fair Scheduler's order (the allocation that ignores
//     locality). A job with a pending map whose input is on the node launches it
//     (p_j = 1); otherwise it launches a map there (rack-local if it has one)
//     with probability p_j = 1 − α_j (p̂_m^j)^β_j (1 − e^{−N̂_m}), where, over K
//     nodes sampled once per heartbeat, p̂_m^j is the fraction holding input of a
//     pending map of j and N̂_m = N·K_2/K estimates the nodes with a free map
//     slot; β_j = 0.1 + 0.9 (1 − exp(−M_p^j / max(N̂_m, 1))) with M_p^j the
//     job's pending maps; α_j is 0.7 when j has a pending map with input in the
//     node's rack and a reduce running on the node, 0.8 when it has such a map
//     but no reduce there, 1.0 otherwise. No delay: a job either launches now
//     or skips this heartbeat.
//   - Reduces (Alg. 1, mismatch): a job may ask for a reduce only while its
//     reduce progress (launched + 1) lags its map progress (finished maps over
//     the unit δ·maps/reduces, δ = 1 − exp(−reduces/threshold)); a job with no
//     pending map gets 4 + 1/pending reduces, above every job still mapping.
//   - Reduces (Alg. 2, Wait Scheduling): the job with the largest positive
//     mismatch becomes the candidate; for the next N heartbeats (N nodes) its
//     reduce may launch only on the "centrality" node L1 (the node with a free
//     reduce slot minimising Σ_u w(u)·h(u, v), eq. 1, w(u) the job's map
//     output on u and h the hop distance in the node/rack/core tree), for the
//     next N only on L2 (second and third of the D best), then on L3 (the rest
//     of the D best), then for N more on any node; after 4N it is dropped and
//     a candidate is chosen afresh.
//
// Choices where the paper is open, with reasons:
//   - A job that declines a slot (probability 1 − p_j) skips the whole
//     heartbeat, and the slot is offered to the next job in fair order: the
//     paper says the schedule "skips the current heartbeat for the considered
//     job", and delay scheduling, which peeking replaces, passes slots on too.
//   - Only jobs past the slow-start threshold with pending reduces compete in
//     Alg. 2: Hadoop's JobInProgress refuses reduces before slow-start under any
//     scheduler, so such a candidate could never launch.
//   - Heartbeats are counted as a JobTracker counts them: the simulator skips
//     heartbeats that cannot change anything (nodes with no free slot), so the
//     count is the larger of one more per heartbeat seen and the nodes' nominal
//     heartbeats since the count was last set (Cluster.HeartbeatsSent).
//   - The lists L1–L3 are recomputed from the data placement at each heartbeat
//     they are consulted, over V_r, the nodes that have a free reduce slot then
//     (the paper computes C_i(v) "for every v ∈ V_r"), leaving out those that
//     already run a reduce of the job unless all do; ties are broken by a
//     random order. The paper avoids two reduces of a job on a node "if
//     possible" and Alg. 2 (line 12) refuses such a node, so keeping it in a
//     list would only spend whole rounds waiting for a heartbeat that cannot
//     launch: with one candidate at a time, on the 62-node run of Fig. 16 that
//     halves the reduce slots in use and makes Coupling slower than Fair. In
//     the fourth round a node running a reduce of the job is used only when
//     every node with a free reduce slot runs one.
//   - Hop distances: 0 on the same node, 2 within a rack, 4 across racks.
//   - The candidate's heartbeat of selection launches nothing (Alg. 2, lines
//     4-8); a candidate that can no longer launch (finished) is dropped at once.
//
// Cost per heartbeat, N nodes and J active jobs: the Fair order of the jobs
// (O(J log J) per slot, as for fair); for each job offered a map slot without
// local input, p̂ in O(1) when every node is sampled (the count of nodes holding
// the job's pending input is updated at each of its launches in O(replication),
// and recounted over the nodes holding its input only if its pending maps
// changed some other way) or O(K) with k = K, and N̂ once per heartbeat in
// O(K) (O(N) when every node is sampled); Alg. 2 in O(1), except when the
// candidate's D-best list must be recomputed (after any task end or reduce
// launch): O(N + |V_d| + d·|V_r|), whose |V_r| random draws for the tie order
// are part of the model. Where the candidate's reduces run is counted per node
// as they launch and end, not rescanned from the job's reduces.
//
// Parameters: threshold (Alg. 1, default 3), d (list length D, default 7), k
// (peeking sample size, 0 = every node, the paper's setting for its testbed),
// beta (a fixed β for every job, as in the paper's Figs. 11 and 15; default:
// β_j from pending maps), pool-by (as for fair).
type Coupling struct {
	replay.Base
	name      string
	fair      *Fair
	threshold float64
	d         int
	k         int
	beta      float64 // < 0: β_j from pending maps

	jobs map[int32]*couplingJob
	hb   uint64 // heartbeats seen; stamps per-heartbeat caches
	peek peekSample
	wait waitState

	// The candidate's D-best list depends only on where intermediate data lies
	// and which nodes have a free reduce slot without a reduce of the job, so it
	// is kept until a task ends or a reduce launches (listVer counts those).
	listVer  uint64
	listJob  *replay.JobView
	listAt   uint64
	listNode []int32

	scratch        dBestScratch
	vrBuf, busyBuf []int32
	mapNode        []bool   // node has map slots (is sampled when k = 0)
	mark           []uint64 // markReduces: markGen on the nodes running a reduce of a job
	markGen        uint64
	picked         *replay.JobView
	pickedMap      int32 // the map peekPick last chose, launched by Fair right after
}

// couplingJob is the per-job state of the Coupling Scheduler.
type couplingJob struct {
	skipped uint64 // the heartbeat in which the job declined a map slot
	k1      int    // sampled nodes with input of a pending map of the job
	k1Stamp uint64 // heartbeat k1 was counted in

	// localNodes counts the map nodes holding input of a pending map of the
	// job (k1 when every node is sampled), updated at each of the job's map
	// launches; it is right while PendingMaps is localAt, and recounted when
	// the pending maps changed some other way.
	localNodes int
	localAt    int32
	// redOn counts the job's running reduces per node, redRunning their sum;
	// rebuilt from the job when the sum disagrees with RunningReduces.
	redOn      map[int32]int32
	redRunning int32
}

func newCoupling(r *ParamReader) (replay.Policy, error) {
	c := &Coupling{
		fair:      &Fair{poolBy: r.String("pool-by", "user", "user", "queue")},
		threshold: r.Float("threshold", 3),
		d:         r.Int("d", 7),
		k:         r.Int("k", 0),
		beta:      r.Float("beta", -1),
	}
	if !(c.threshold > 0) {
		r.errs = append(r.errs, fmt.Sprintf("threshold=%v: want a positive number", c.threshold))
	}
	if c.d < 1 {
		r.errs = append(r.errs, fmt.Sprintf("d=%d: want at least 1", c.d))
	}
	if c.k < 0 {
		r.errs = append(r.errs, fmt.Sprintf("k=%d: want 0 (every node) or a sample size", c.k))
	}
	if _, set := r.params["beta"]; set && !(c.beta > 0) {
		r.errs = append(r.errs, fmt.Sprintf("beta=%v: want a positive number", c.beta))
	}
	c.name = r.spec()
	c.fair.name = c.name
	return c, nil
}

// Name is the registry name with parameters.
func (c *Coupling) Name() string { return c.name }

// Init prepares the Fair allocation and the policy's state.
func (c *Coupling) Init(s replay.Cluster) {
	c.fair.Init(s)
	c.jobs = map[int32]*couplingJob{}
	c.peek.init(s, c.k)
	c.mapNode = make([]bool, len(s.Topology().Nodes))
	c.mark = make([]uint64, len(s.Topology().Nodes))
	for _, n := range c.peek.all {
		c.mapNode[n] = true
	}
}

// JobArrived registers the job with the fair allocation.
func (c *Coupling) JobArrived(s replay.Cluster, j *replay.JobView) {
	c.fair.JobArrived(s, j)
	c.jobs[j.Index()] = &couplingJob{localAt: -1, redOn: map[int32]int32{}}
}

// TaskFinished invalidates the cached D-best list: the job's intermediate data or
// the free reduce slots changed.
func (c *Coupling) TaskFinished(_ replay.Cluster, j *replay.JobView, reduce bool, i int32) {
	c.listVer++
	if cj := c.jobs[j.Index()]; reduce && cj != nil {
		n := j.ReduceNode(i)
		if cj.redOn[n]--; cj.redOn[n] <= 0 {
			delete(cj.redOn, n)
		}
		cj.redRunning--
	}
}

// reduceLaunched counts reduce i of j, just launched, on its node.
func (c *Coupling) reduceLaunched(j *replay.JobView, i int32) {
	if cj := c.jobs[j.Index()]; cj != nil {
		cj.redOn[j.ReduceNode(i)]++
		cj.redRunning++
	}
}

// reduceOn reports whether a reduce of j runs on node n, in O(1).
func (c *Coupling) reduceOn(j *replay.JobView, n int32) bool {
	cj := c.jobs[j.Index()]
	if cj.redRunning != j.RunningReduces() {
		clear(cj.redOn)
		cj.redRunning = 0
		for i := range j.NumReduces() {
			if j.ReduceState(i) == replay.Running {
				cj.redOn[j.ReduceNode(i)]++
				cj.redRunning++
			}
		}
	}
	return cj.redOn[n] > 0
}

// markReduces stamps c.mark with a new generation on the nodes running a
// reduce of j, in O(those nodes).
func (c *Coupling) markReduces(j *replay.JobView) {
	c.reduceOn(j, 0) // brings the counts up to date
	c.markGen++
	for n := range c.jobs[j.Index()].redOn {
		c.mark[n] = c.markGen
	}
}

// localMapNodes is the number of map nodes holding input of a pending map of
// j: O(replication) after one of the job's launches, O(nodes holding its input)
// when recounted.
func (c *Coupling) localMapNodes(j *replay.JobView) int {
	c.notePicked()
	cj := c.jobs[j.Index()]
	if cj.localAt != j.PendingMaps() {
		cj.localNodes = j.CountLocalMapNodes(func(n int32) bool { return c.mapNode[n] })
		cj.localAt = j.PendingMaps()
	}
	return cj.localNodes
}

// notePicked updates the count of local map nodes of the job whose map
// peekPick chose last, once Fair has launched it: each replica holder that
// has no other pending map of the job drops out.
func (c *Coupling) notePicked() {
	j, t := c.picked, c.pickedMap
	if j == nil {
		return
	}
	c.picked = nil
	cj := c.jobs[j.Index()]
	if cj == nil || j.MapState(t) == replay.Pending || cj.localAt != j.PendingMaps()+1 {
		return // not launched, or the count is stale anyway
	}
	reps := j.Replicas(t)
	for k, r := range reps {
		if c.mapNode[r] && !slices.Contains(reps[:k], r) && !j.HasLocalMap(r) {
			cj.localNodes--
		}
	}
	cj.localAt = j.PendingMaps()
}

// JobFinished forgets the job.
func (c *Coupling) JobFinished(s replay.Cluster, j *replay.JobView) {
	c.fair.JobFinished(s, j)
	delete(c.jobs, j.Index())
	if c.wait.cand == j {
		c.wait.reset()
	}
}

// Heartbeat fills the node's map slots by Random Peeking over the fair order,
// then runs one step of Wait Scheduling for reduces.
func (c *Coupling) Heartbeat(s replay.Cluster, n int32) {
	c.hb++
	c.fair.fillMaps(s, n, c.peekPick)
	c.notePicked()
	c.waitStep(s, n)
}
