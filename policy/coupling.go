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
//     heartbeats that cannot change anything (nodes with no free slot, parked
//     nodes), so the count is the nodes' nominal heartbeats since it was last
//     set (Cluster.HeartbeatsSent), plus one for each heartbeat seen at the
//     same instant as the last one counted (nodes sharing a heartbeat phase,
//     which the nominal count has already counted).
//   - The lists L1–L3 are the D nodes of least cost (eq. 1) over V_r, the
//     nodes that have a free reduce slot when the list is consulted (the paper
//     computes C_i(v) "for every v ∈ V_r"), leaving out those that already
//     run a reduce of the job unless all do. Ties are broken by "a random
//     order", which is drawn once per candidate and map output: each node
//     gets an independent uniform priority keyed by (the run's seed, the job,
//     its finished maps), so the order stays the same while the job's
//     intermediate data does and is drawn afresh when a map of the job ends.
//     The paper does not say when the order is drawn; a list that reshuffled
//     its ties at every heartbeat (or at every other job's task end) would
//     move L1 during a round, and a round of N heartbeats waits for exactly
//     one heartbeat of each node only if L1 stays put. Drawn so, the list is a
//     function of the cluster's state and not of which heartbeats were seen,
//     which lets the simulator skip heartbeats (below). The paper avoids two
//     reduces of a job on a node "if possible" and Alg. 2 (line 12) refuses
//     such a node, so keeping it in a list would only spend whole rounds
//     waiting for a heartbeat that cannot launch: with one candidate at a
//     time, on the 62-node run of Fig. 16 that halves the reduce slots in use
//     and makes Coupling slower than Fair. In the fourth round a node running
//     a reduce of the job is used only when every node with a free reduce
//     slot runs one.
//   - Hop distances: 0 on the same node, 2 within a rack, 4 across racks.
//   - The candidate's heartbeat of selection launches nothing (Alg. 2, lines
//     4-8); a candidate that can no longer launch (finished) is dropped at once.
//
// Cost per heartbeat, N nodes, J active jobs, V_r the nodes with a free
// reduce slot and V_d those holding the candidate's intermediate data:
//   - Maps: nothing when no active job has a pending map (a count kept at
//     arrivals, ends and launches, without speculation and modelled faults);
//     else the Fair order of the jobs with pending maps, O(J log J) per free
//     map slot (as for fair; not bounded by what changed). For each job
//     offered a slot without local input, p̂ in O(1) when every node is
//     sampled (the count of nodes holding its pending input is updated at each
//     of its launches in O(replication), recounted over the nodes holding its
//     input only if its pending maps changed some other way), else O(K); N̂
//     once per heartbeat in O(1) when every node is sampled (the nodes with a
//     free map slot are counted as the policy's launches and map ends, and
//     the lifecycle's setup and cleanup tasks (OtherSlot), change them;
//     without speculation, whose copies take slots unseen) and O(K)
//     otherwise.
//   - Reduces (Alg. 2): the nominal heartbeat count (Cluster.HeartbeatsSent
//     answers a repeated time from its last answer, else walks on over at
//     most 8 phases from it or finds the time's place among the phases by
//     buckets: O(the phases in one bucket), a few), then O(1) with the list
//     valid, except
//     (a) choosing a candidate, O(J), once per launch or drop, and only after
//     a change to some job's tasks (when none could be chosen, later
//     heartbeats do not look again), with the instant of its fourth round
//     for the parked nodes (Waking.HeartbeatTime, O(1)); (b) the list after a reduce's launch or end: the first d ranked
//     nodes still in V_r, O(d + ranked nodes passed over); (c) ranking the
//     candidate's nodes (one pass over the N nodes, eq. 1's costs over V_d,
//     the d least costs and the sort of the T nodes that can be listed: O(N +
//     |V_d| + d·|V_r| + T log T)), only when the candidate changed to
//     another job or fewer than d ranked nodes are left in V_r (with
//     speculation or modelled faults: after any task end). A setup or
//     cleanup task's slot is (b) for the list, or a reduce's end for the
//     ranking when it frees one (OtherSlot). A map end of the ranked job re-ranks from the ranked
//     nodes and the map's rack, O(T log T + nodes per rack); a reduce's end
//     ranks its node in place if it can be listed, O(log T) and a copy of
//     the ranked nodes after it.
//
// Parked nodes (replay.Waker, IdleUntil). One candidate at a time launches
// one reduce when its node's heartbeat comes, so the run lasts about
// (reduces × the wait for that heartbeat), and a node's heartbeat can do
// something only if it has a free map slot while a map is pending (Random
// Peeking launches or draws), or it is in the list of the round its
// heartbeat falls in, or that is the fourth round or later, or there is no
// candidate and one can be chosen. Every other heartbeat is skipped: the
// node is parked until its first heartbeat that may matter, and woken
// earlier by what can change that: its own slots freeing (the engine), the
// first pending maps (the next heartbeat of a node with a free map slot,
// and from it the next, while maps are pending), with no candidate any
// change to the jobs' tasks (the next heartbeat, which may choose one), a
// new candidate (its list's nodes, at the end of the heartbeat that chose
// it), a change of the list between heartbeats that moves n to another
// group (at once: a map end of the candidate, a reduce slot freed by a
// reduce's end or taken or freed by a setup or cleanup task, which moves
// the nodes after it: WaitScheduling.WakeList), a failed launch (every
// parked node) and the candidate's fourth round (every parked node, at its
// first instant); while a setup or cleanup task waits for a slot the engine
// parks no node. Reduces becoming ready wake nothing (ReducesReadyWake:
// only the candidate's reduces launch, on the nodes answered for). The
// count is nominal and the list a function of the state, so the results
// are those of handling every heartbeat (TestCouplingParkedChangesNothing,
// with and without the lifecycle; TestCouplingNoReadyWakes); on FB-2010
// the events fall from 93 to 4.0 per task without the lifecycle and from
// 89.5 to 4.0 with it (docs/performance.md, "Coupling's day, h-coupling").
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
	// scan the jobs; kept (counted) only without the engine's speculation
	// and modelled faults (unseenTasks), like the peeking count.
	pending int64
	counted bool

	// parkable: the policy sees every change of a slot and of a task's
	// state (counted; the lifecycle's setup and cleanup tasks through
	// OtherSlot), so it can answer IdleUntil; cleared for the rest of the run
	// by a speculative copy (OtherSlot).
	parkable bool
}

var (
	_ replay.Waker       = (*Coupling)(nil)
	_ replay.SlotWatcher = (*Coupling)(nil)
	_ replay.ReadyWaker  = (*Coupling)(nil)
)

// unseenTasks reports whether the engine runs attempts the policy is not
// told of and that take slots or change a task's state: its speculative
// copies (speculation) and modelled faults (failed attempts, stragglers).
// The lifecycle's setup and cleanup tasks are not among them: Coupling
// follows their slots (OtherSlot).
func unseenTasks(hw *replay.Hardware) bool {
	return hw.Speculation != "none" || hw.AttemptFailureRate > 0 || hw.StragglerFraction > 0
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
	c.pending, c.counted = 0, !unseenTasks(s.Hardware())
	c.parkable = c.counted
	c.order.Init()
	c.places.Init()
	c.peek.Init(s)
	c.wait.Init(s)
}

// JobArrived registers the job with the fair order and the blocks; if it
// brings the first pending maps, it has the next heartbeat of a node with a
// free map slot handled (IdleUntil).
func (c *Coupling) JobArrived(s replay.Cluster, j *replay.JobView) {
	before := c.pending
	c.pending += int64(j.PendingMaps())
	c.order.JobArrived(j)
	c.places.JobArrived(j)
	c.peek.JobArrived(j)
	if w, ok := s.(replay.Waking); ok && before == 0 && c.pending > 0 {
		w.WakeFirst(s.Now())
	}
	c.wait.Changed(s)
}

// TaskFinished tells Wait Scheduling that the job's intermediate data or the
// free reduce slots changed, and counts a reduce's end off its node.
func (c *Coupling) TaskFinished(s replay.Cluster, j *replay.JobView, reduce bool, i int32) {
	var n int32
	if reduce {
		n = j.ReduceNode(i)
		c.places.ReduceEnded(j, i)
	} else {
		n = j.MapNode(i)
		c.peek.MapEnded(s, n)
	}
	c.wait.TaskFinished(s, j, reduce, n)
}

// JobFinished forgets the job. A job that ends before its maps (it failed:
// the engine dropped its pending maps unseen, replay/jobfail.go) has the
// pending maps counted afresh over the other active jobs, O(J).
func (c *Coupling) JobFinished(s replay.Cluster, j *replay.JobView) {
	if j.FinishedMaps() < j.NumMaps() {
		c.pending = 0
		for _, a := range s.Active() {
			if a.Index() != j.Index() {
				c.pending += int64(a.PendingMaps())
			}
		}
	} else {
		c.pending -= int64(j.PendingMaps())
	}
	c.order.JobFinished(j)
	c.places.JobFinished(j)
	c.peek.JobFinished(j)
	c.wait.JobFinished(s, j)
}

// Heartbeat fills the node's map slots by Random Peeking over the fair order
// (skipped, as it would change nothing, when no active job has a pending map),
// then runs one step of Wait Scheduling for reduces, and wakes the parked
// nodes of a new list (WaitScheduling.WakeList).
func (c *Coupling) Heartbeat(s replay.Cluster, n int32) {
	c.peek.Heartbeat(s, n)
	if !c.counted || c.pending > 0 {
		free := s.FreeMapSlots(n)
		c.maps.Fill(s, n, c.order, c.peek)
		launched := int64(free - s.FreeMapSlots(n)) // only its launches change n's map slots
		c.pending -= launched
		if launched != 0 || !c.counted {
			c.wait.ver++ // the jobs' pending maps, in their mismatches
		}
		if w, ok := s.(replay.Waking); ok && c.pending > 0 {
			w.WakeFirst(s.Now()) // the next map heartbeat offers its slot too
		}
	}
	c.peek.Settle(s)
	c.wait.FillReduces(s, n)
	c.wait.WakeList(s)
}

// IdleUntil is replay.Waker: node n's heartbeats before the returned time
// would change nothing. A heartbeat with a free map slot while a job has a
// pending map runs Random Peeking (a launch or a draw): never idle then. Else
// only Wait Scheduling can act (WaitScheduling.IdleUntil): it waits for the
// heartbeat of a listed node in its first three rounds and takes any node in
// the fourth. What can make a skipped heartbeat matter earlier wakes n: its
// own slots freeing (the engine), the first pending maps (JobArrived), and
// a new candidate or list (WaitScheduling.Changed and WakeList; a reduce
// slot taken by a setup or cleanup task: OtherSlot). Under the lifecycle the
// engine itself keeps nodes awake while a setup or cleanup task waits (a
// heartbeat that takes one does not run the policy). Not under speculation
// or modelled faults, whose tasks the policy does not see, nor after an
// observed speculative copy (OtherSlot): never idle then. O(1) with the
// candidate's list valid.
func (c *Coupling) IdleUntil(s replay.Cluster, n int32) int64 {
	if !c.parkable || s.FreeMapSlots(n) > 0 && c.pending > 0 {
		return s.Now()
	}
	return c.wait.IdleUntil(s, n)
}

// ReducesReadyWake is replay.ReadyWaker: false, the engine need not wake
// the parked nodes with a free reduce slot when a job's reduces become ready
// (or after a heartbeat that took a setup or cleanup task). Only the
// candidate's reduces launch, on the nodes IdleUntil answers for: a job whose
// reduces become ready is not the candidate (the candidate is chosen among
// the ready jobs), and with no candidate the hooks of the event that made it
// ready (JobArrived, TaskFinished: WaitScheduling.Changed) have the next
// heartbeat handled, which may choose one. Those wake-ups were most of the
// heartbeats a parked run handled (docs/performance.md, "Coupling's day").
func (c *Coupling) ReducesReadyWake() bool { return false }

// OtherSlot is replay.SlotWatcher. A setup or cleanup task (the lifecycle)
// took or freed a slot of node n: a map slot counts n in or out of Random
// Peeking's nodes with a free map slot (O(1)); a reduce slot changes V_r,
// so Wait Scheduling walks its list again, and, when taken, wakes the
// parked nodes of the new list (WaitScheduling.OtherReduceSlot). Any other
// kind (a speculative copy's slot, a losing attempt's slot freed after its
// map's end was reported) the counts do not follow: Random Peeking counts
// over the nodes from then on, and no node is parked any more (every parked
// node is woken), for the rest of the run.
func (c *Coupling) OtherSlot(s replay.Cluster, n int32, kind replay.TaskKind, mapSlot, taken bool) {
	if kind != replay.TaskSetup && kind != replay.TaskCleanup {
		c.peek.incr = false
		if c.parkable {
			c.parkable = false
			if w, ok := s.(replay.Waking); ok {
				w.WakeAllAt(s.Now())
			}
		}
		return
	}
	if mapSlot {
		c.peek.OtherMapSlot(s, n, taken)
		return
	}
	c.wait.OtherReduceSlot(s, n, taken)
}
