package policy

import "github.com/tracereplay/tracereplay/replay"

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
// Cost per heartbeat, N nodes, J active jobs, V_r the nodes with a free
// reduce slot and V_d those holding the candidate's intermediate data:
//   - Maps: nothing when no active job has a pending map (a count kept at
//     arrivals, ends and launches, without the lifecycle and speculation);
//     else the Fair order of the jobs with pending maps, O(J log J) per free
//     map slot (as for fair; not bounded by what changed). For each job
//     offered a slot without local input, p̂ in O(1) when every node is
//     sampled (the count of nodes holding its pending input is updated at each
//     of its launches in O(replication), recounted over the nodes holding its
//     input only if its pending maps changed some other way), else O(K); N̂
//     once per heartbeat in O(1) when every node is sampled (the nodes with a
//     free map slot are counted as the policy's launches and map ends change
//     them; without the lifecycle and speculation, whose tasks take slots
//     unseen) and O(K) otherwise.
//   - Reduces (Alg. 2): the nominal heartbeat count, O(1) amortized
//     (Cluster.HeartbeatsSent walks on from its answer at the previous
//     heartbeat over the nodes whose tick passed since; O(log N) at the first
//     call of a heartbeat interval), then O(1), except (a) choosing a
//     candidate, O(J), once per launch or drop, and (b) redrawing the candidate's D-best list at its first consultation after any
//     task end or reduce launch: the model draws |V_r| − 1 numbers for the tie
//     order (rng.Shuffle's draws, made exactly), so a redraw is O(|V_r|) draws
//     plus O(T·d) for the T candidates whose cost is at most the d-th least.
//     The candidates themselves (V_r in node order and eq. 1's costs, built in
//     O(N + |V_d| + |V_r|·d)) are rebuilt only when what they depend on changed: the
//     candidate's map outputs (its map ends), the reduce slots or its reduces'
//     places (reduce launches and ends), or, under the lifecycle, every time.
//     Where the candidate's reduces run is counted per node as they launch and
//     end.
//
// The number of heartbeats is the larger cost on a big cluster: while any
// reduce waits for its list's node, every node with a free slot heartbeats
// (the simulator skips only heartbeats that cannot change anything), and one
// candidate at a time launches one reduce when its node's heartbeat comes, so
// the run lasts about (reduces × the wait for that heartbeat) with all N nodes
// heartbeating (docs/performance.md, FB-2010: 93.6 events per task). Those
// heartbeats are not skipped (parked, as fair's idle nodes are): which
// heartbeat first consults the list after a task end decides how many draws
// a redraw makes (|V_r| then) and whether two task ends share one redraw,
// and the heartbeat after the count passes 4N drops the candidate, so
// skipping one can move the policy's random stream and with it the schedule
// (read from the code; not tried).
//
// Memory: O(J + N) of its own (a few words per job, the node marks and the
// list's candidates); of a job whose maps are all done the engine keeps only
// counts and the map output per node (it drops the per-map records:
// Sim.retireMaps), so a job of Coupling's backlog waiting for its reduces
// holds its reduces' records and O(N) words, not its maps
// (docs/performance.md).
//
// Parameters: threshold (Alg. 1, default 3), d (list length D, default 7), k
// (peeking sample size, 0 = every node, the paper's setting for its testbed),
// beta (a fixed β for every job, as in the paper's Figs. 11 and 15; default:
// β_j from pending maps), pool-by (as for fair).
//
// Composition: FairOrder (the fair allocation), PeekingPicker (maps) and
// WaitScheduling (reduces), which share where each job's reduces run
// (ReducePlaces: Random Peeking's α and Wait Scheduling's busy nodes).
type Coupling struct {
	replay.Base
	name   string
	order  *FairOrder
	maps   MapFiller
	peek   *PeekingPicker
	wait   *WaitScheduling
	places *ReducePlaces

	// pending is the active jobs' pending maps, counted at arrivals, ends and
	// the heartbeats' launches, so that a heartbeat when none waits does not
	// scan the jobs; kept (counted) only without the lifecycle and
	// speculation, like the peeking count.
	pending int64
	counted bool
}

func newCoupling(r *ParamReader) (replay.Policy, error) {
	poolBy := r.String("pool-by", "user", "user", "queue")
	threshold := r.Float("threshold", 3)
	d := r.Int("d", 7)
	k := r.Int("k", 0)
	beta := r.Float("beta", -1)
	if !(threshold > 0) {
		r.Errorf("threshold=%v: want a positive number", threshold)
	}
	if d < 1 {
		r.Errorf("d=%d: want at least 1", d)
	}
	if k < 0 {
		r.Errorf("k=%d: want 0 (every node) or a sample size", k)
	}
	if r.IsSet("beta") && !(beta > 0) {
		r.Errorf("beta=%v: want a positive number", beta)
	}
	places := NewReducePlaces()
	return &Coupling{
		name:   r.spec(),
		order:  NewFairOrder(poolBy),
		peek:   NewPeekingPicker(k, beta, places),
		wait:   NewWaitScheduling(threshold, d, places),
		places: places,
	}, nil
}

// Name is the registry name with parameters.
func (c *Coupling) Name() string { return c.name }

// Init prepares the fair order and the blocks' state.
func (c *Coupling) Init(s replay.Cluster) {
	hw := s.Hardware()
	c.pending, c.counted = 0, !hw.Lifecycle && hw.Speculation == "none"
	c.order.Init()
	c.places.Init()
	c.peek.Init(s)
	c.wait.Init(s)
}

// JobArrived registers the job with the fair order and the blocks.
func (c *Coupling) JobArrived(_ replay.Cluster, j *replay.JobView) {
	c.pending += int64(j.PendingMaps())
	c.order.JobArrived(j)
	c.places.JobArrived(j)
	c.peek.JobArrived(j)
}

// TaskFinished tells Wait Scheduling that the job's intermediate data or the
// free reduce slots changed, and counts a reduce's end off its node.
func (c *Coupling) TaskFinished(s replay.Cluster, j *replay.JobView, reduce bool, i int32) {
	c.wait.TaskFinished(reduce)
	if reduce {
		c.places.ReduceEnded(j, i)
	} else {
		c.peek.MapEnded(s, j.MapNode(i))
	}
}

// JobFinished forgets the job.
func (c *Coupling) JobFinished(_ replay.Cluster, j *replay.JobView) {
	c.pending -= int64(j.PendingMaps())
	c.order.JobFinished(j)
	c.places.JobFinished(j)
	c.peek.JobFinished(j)
	c.wait.JobFinished(j)
}

// Heartbeat fills the node's map slots by Random Peeking over the fair order
// (skipped, as it would change nothing, when no active job has a pending map),
// then runs one step of Wait Scheduling for reduces.
func (c *Coupling) Heartbeat(s replay.Cluster, n int32) {
	c.peek.Heartbeat(s, n)
	if !c.counted || c.pending > 0 {
		free := s.FreeMapSlots(n)
		c.maps.Fill(s, n, c.order, c.peek)
		c.pending -= int64(free - s.FreeMapSlots(n)) // only its launches change n's map slots
	}
	c.peek.Settle(s)
	c.wait.FillReduces(s, n)
}
