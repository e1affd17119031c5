package policy

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// Reduce scheduling of the Coupling Scheduler: the map/reduce mismatch (Alg. 1)
// and Wait Scheduling (Alg. 2) with data centrality (eq. 1).

// mismatchOf is Alg. 1: how far a job's reduce progress lags its map progress.
func mismatchOf(desiredMaps, desiredReduces, finishedMaps, pendingMaps, finishedReduces, runningReduces, pendingReduces int32, threshold float64) float64 {
	if pendingReduces <= 0 {
		return 0
	}
	if pendingMaps == 0 {
		return 4 + 1/float64(pendingReduces)
	}
	delta := 1 - math.Exp(-float64(desiredReduces)/threshold)
	unit := delta * float64(desiredMaps) / float64(desiredReduces)
	mapProgress := float64(finishedMaps) / unit
	redProgress := float64(finishedReduces + runningReduces + 1)
	return (mapProgress - redProgress) / float64(desiredReduces)
}

// WaitScheduling is the Coupling Scheduler's reduce placement as a
// ReducePicker: the map/reduce mismatch (Alg. 1) chooses a candidate job, and
// Wait Scheduling (Alg. 2) waits for a heartbeat from a node near its
// intermediate data (eq. 1) before launching its reduce; see Coupling for the
// rounds and the choices made. TaskFinished must be called at every task end
// (the candidate's list of nodes depends on its data and the free slots).
type WaitScheduling struct {
	threshold float64 // Alg. 1
	d         int     // list length D
	places    *ReducePlaces
	state     waitState

	// The candidate's D-best list depends only on where intermediate data lies
	// and which nodes have a free reduce slot without a reduce of the job, so it
	// is kept until a task ends or a reduce launches (listVer counts those).
	listVer  uint64
	listJob  *replay.JobView
	listAt   uint64
	listNode []int32

	// The candidates of the list before their shuffle (V_r in node order and
	// eq. 1's costs) change only when the candidate's map outputs do (at its
	// map ends: FinishedMaps) or the reduce slots or the candidate's reduce
	// places do (at reduce launches and ends: slotVer), so they are kept
	// across the list's recomputations for other jobs' task ends. Without the
	// lifecycle those are the only changes to reduce slots; with it (setup and
	// cleanup tasks take reduce slots unseen) they are rebuilt every time.
	slotVer   uint64
	rescan    bool // the lifecycle is on: rebuild the candidates every time
	candJob   *replay.JobView
	candMaps  int32
	candSlots uint64
	cands     []dCand
	candPlan  dPlan

	scratch        dBestScratch
	vrBuf, busyBuf []int32
	mark           []uint64 // markReduces: markGen on the nodes running a reduce of a job
	markGen        uint64
	env            clusterWait // FillReduces's, reused
}

// NewWaitScheduling is Wait Scheduling with the mismatch threshold of Alg. 1
// and lists of d nodes, reading and recording where reduces run in places.
func NewWaitScheduling(threshold float64, d int, places *ReducePlaces) *WaitScheduling {
	return &WaitScheduling{threshold: threshold, d: d, places: places}
}

// Init sizes the node marks and forgets the cached lists.
func (w *WaitScheduling) Init(s replay.Cluster) {
	w.mark = make([]uint64, len(s.Topology().Nodes))
	w.rescan = s.Hardware().Lifecycle
	w.listJob, w.candJob = nil, nil
}

// TaskFinished invalidates the cached D-best list, and after a reduce's end
// the candidates it is drawn from.
func (w *WaitScheduling) TaskFinished(reduce bool) {
	w.listVer++
	if reduce {
		w.slotVer++
	}
}

// JobFinished drops the job if it is the candidate.
func (w *WaitScheduling) JobFinished(j *replay.JobView) {
	if w.state.cand == j {
		w.state.reset()
	}
}

func (w *WaitScheduling) mismatch(j *replay.JobView) float64 {
	return mismatchOf(j.NumMaps(), j.NumReduces(), j.FinishedMaps(), j.PendingMaps(),
		j.FinishedReduces(), j.RunningReduces(), j.PendingReduces(), w.threshold)
}

// markReduces stamps w.mark with a new generation on the nodes running a
// reduce of j, in O(those nodes).
func (w *WaitScheduling) markReduces(j *replay.JobView) {
	w.markGen++
	for n := range w.places.Nodes(j) {
		w.mark[n] = w.markGen
	}
}

// ReducePlaces records where each job's reduces run, per node, as they
// launch and end: a block that PeekingPicker (α) and WaitScheduling (busy
// nodes) share. WaitScheduling records its launches; the policy forwards job
// arrivals and ends and reduce ends.
type ReducePlaces struct {
	jobs map[int32]*jobPlaces
}

// jobPlaces counts a job's running reduces per node, running their sum;
// rebuilt from the job when the sum disagrees with RunningReduces.
type jobPlaces struct {
	on      map[int32]int32
	running int32
}

// NewReducePlaces returns an empty record.
func NewReducePlaces() *ReducePlaces { return &ReducePlaces{} }

// Init forgets every job.
func (r *ReducePlaces) Init() { r.jobs = map[int32]*jobPlaces{} }

// JobArrived starts recording the job.
func (r *ReducePlaces) JobArrived(j *replay.JobView) {
	r.jobs[j.Index()] = &jobPlaces{on: map[int32]int32{}}
}

// JobFinished forgets the job.
func (r *ReducePlaces) JobFinished(j *replay.JobView) { delete(r.jobs, j.Index()) }

// Launched counts reduce i of j, just launched, on its node.
func (r *ReducePlaces) Launched(j *replay.JobView, i int32) {
	if p := r.jobs[j.Index()]; p != nil {
		p.on[j.ReduceNode(i)]++
		p.running++
	}
}

// ReduceEnded counts reduce i of j, just ended, off its node.
func (r *ReducePlaces) ReduceEnded(j *replay.JobView, i int32) {
	if p := r.jobs[j.Index()]; p != nil {
		n := j.ReduceNode(i)
		if p.on[n]--; p.on[n] <= 0 {
			delete(p.on, n)
		}
		p.running--
	}
}

// Nodes returns the counts of j's running reduces per node, brought up to
// date. The map is the record's own: do not keep or modify it.
func (r *ReducePlaces) Nodes(j *replay.JobView) map[int32]int32 {
	p := r.jobs[j.Index()]
	if p.running != j.RunningReduces() {
		clear(p.on)
		p.running = 0
		for i := range j.NumReduces() {
			if j.ReduceState(i) == replay.Running {
				p.on[j.ReduceNode(i)]++
				p.running++
			}
		}
	}
	return p.on
}

// On reports whether a reduce of j runs on node n, in O(1).
func (r *ReducePlaces) On(j *replay.JobView, n int32) bool { return r.Nodes(j)[n] > 0 }

// hops is the hop distance between two nodes of the tree node – rack switch –
// core switch: 0 on the same node, 2 within a rack, 4 across racks.
func hops(topo *replay.Topology, u, v int32) int64 {
	switch {
	case u == v:
		return 0
	case topo.Nodes[u].Rack == topo.Nodes[v].Rack:
		return 2
	}
	return 4
}

// transferCost is eq. 1: the cost Σ_u w(u)·h(v, u) of moving to node v the
// intermediate data w(u) held on the nodes u of data.
func transferCost(topo *replay.Topology, data []int32, w func(int32) int64, v int32) int64 {
	var c int64
	for _, u := range data {
		c += w(u) * hops(topo, u, v)
	}
	return c
}

// dBest returns the list L: the (at most) d nodes of vr with the smallest
// transfer costs, in increasing order of cost, ties in a random order. The costs
// are eq. 1 in closed form for the tree: C(v) = 2·(W_rack(v) − w(v)) + 4·(W −
// W_rack(v)), with W the job's intermediate data and W_rack(v) the part of it in
// v's rack, which makes a list O(|V_d| + d·|V_r|).
func dBest(topo *replay.Topology, data []int32, w func(int32) int64, vr []int32, d int, rng *rand.Rand) []int32 {
	var sc dBestScratch
	return sc.dBest(topo, data, w, vr, d, rng, nil)
}

// dBestScratch holds dBest's working memory between calls.
type dBestScratch struct {
	rack []int64
	own  []int64 // costs: per node, its share of the data (0 outside data)
	cs   []dCand
	best []dCand
	low  []int64 // plan's d least costs
	at   []int32 // pick's tracked candidate (+1) at each position, 0 if none
	fin  []dCand // pick's tracked candidates, cost and final position
}

type dCand struct {
	node int32
	cost int64
}

// dPlan is what a list's draw needs of its candidates: how many there are
// and, by position before the shuffle, those that can be in the list (cost at
// most the d-th least: any other has d nodes before it in every order).
type dPlan struct {
	n   int
	at0 []int32 // per position: index in tr + 1, 0 for a candidate that cannot be listed
	tr  []dCand
}

// dBest is dBest reusing sc's memory, the list appended to l[:0].
func (sc *dBestScratch) dBest(topo *replay.Topology, data []int32, w func(int32) int64, vr []int32, d int, rng *rand.Rand, l []int32) []int32 {
	sc.cs = sc.costs(topo, data, func(k int) int64 { return w(data[k]) }, vr, sc.cs[:0])
	var p dPlan
	sc.plan(sc.cs, d, &p)
	return sc.pick(&p, d, rng, l)
}

// costs appends to cs the nodes of vr, in their order, with eq. 1's cost in
// closed form; a node whose rack holds none of the data costs 4W without
// looking up its own share. wAt(k) is the data on data[k] (the nodes
// holding data; there is none elsewhere), kept in a per-node scratch array
// for the nodes of vr: O(|V_d| + |V_r|).
func (sc *dBestScratch) costs(topo *replay.Topology, data []int32, wAt func(k int) int64, vr []int32, cs []dCand) []dCand {
	var total int64
	if cap(sc.rack) < len(topo.RackNames) {
		sc.rack = make([]int64, len(topo.RackNames))
	}
	if len(sc.own) < len(topo.Nodes) {
		sc.own = make([]int64, len(topo.Nodes))
	}
	rack, own := sc.rack[:len(topo.RackNames)], sc.own
	clear(rack)
	for k, u := range data {
		x := wAt(k)
		own[u] = x
		total += x
		rack[topo.Nodes[u].Rack] += x
	}
	for _, v := range vr {
		c := 4 * total // no data in v's rack, so none on v
		if inRack := rack[topo.Nodes[v].Rack]; inRack != 0 {
			c = 2*(inRack-own[v]) + 4*(total-inRack)
		}
		cs = append(cs, dCand{v, c})
	}
	for _, u := range data {
		own[u] = 0
	}
	return cs
}

// plan prepares p for drawing lists of d from the candidates cs, in
// O(len(cs)·d).
func (sc *dBestScratch) plan(cs []dCand, d int, p *dPlan) {
	low := sc.low[:0]
	for _, c := range cs {
		k := len(low)
		if k == d && c.cost >= low[k-1] {
			continue
		}
		for k > 0 && c.cost < low[k-1] {
			k--
		}
		low = slices.Insert(low, k, c.cost)
		low = low[:min(len(low), d)]
	}
	sc.low = low
	p.n = len(cs)
	p.at0 = append(p.at0[:0], make([]int32, len(cs))...)
	p.tr = p.tr[:0]
	for i, c := range cs {
		if len(low) > 0 && c.cost <= low[len(low)-1] {
			p.tr = append(p.tr, c)
			p.at0[i] = int32(len(p.tr))
		}
	}
}

// pick draws the list from p's candidates into l[:0]: it makes exactly the
// draws rng.Shuffle over the candidates would (n − 1 numbers, Fisher-Yates
// from the last position down, inlined), following only the candidates that
// can be listed, each final once the shuffle passes its position, and lists
// the d of least cost in the shuffled order, a node going after those of
// equal cost: the list of shuffling every candidate and keeping the d best by
// insertion. O(n) for the draws, plus O(tracked·d).
func (sc *dBestScratch) pick(p *dPlan, d int, rng *rand.Rand, l []int32) []int32 {
	at := append(sc.at[:0], p.at0...)
	fin := sc.fin[:0]
	for i := p.n - 1; i > 0; i-- {
		j := int(rng.Uint64N(uint64(i + 1)))
		a, b := at[i], at[j]
		at[i], at[j] = b, a
		if b != 0 {
			fin = append(fin, dCand{b - 1, int64(i)})
		}
	}
	if p.n > 0 && at[0] != 0 {
		fin = append(fin, dCand{at[0] - 1, 0})
	}
	sc.at, sc.fin = at, fin
	// fin is in decreasing final position: insert from its end.
	best := sc.best[:0]
	for f := len(fin) - 1; f >= 0; f-- {
		c := p.tr[fin[f].node]
		k := len(best)
		if k == d && c.cost >= best[k-1].cost {
			continue
		}
		for k > 0 && c.cost < best[k-1].cost {
			k--
		}
		if k < d {
			best = slices.Insert(best, k, c)
			best = best[:min(len(best), d)]
		}
	}
	sc.best = best
	l = l[:0]
	for _, c := range best {
		l = append(l, c.node)
	}
	return l
}

// inList reports whether v is in group i (1, 2 or 3) of list l: L1 is its first
// node, L2 the second and third, L3 the rest.
func inList(l []int32, i int, v int32) bool {
	lo, hi := [4]int{0, 0, 1, 3}[i], [4]int{0, 1, 3, len(l)}[i]
	return slices.Contains(l[min(lo, len(l)):min(hi, len(l))], v)
}

// waitEnv is what a step of Wait Scheduling asks of the cluster about the
// candidate job on the node that sent the heartbeat.
type waitEnv interface {
	inList(i int, v int32) bool // v is in L_i of the candidate
	busy(v int32) bool          // v runs a reduce of the candidate
	unavoidable() bool          // every node with a free reduce slot runs one
	launch(v int32) bool        // launch a reduce of the candidate on v
}

// waitState is the static state of Alg. 2 (candidate and wait); the count also
// remembers the nominal heartbeat count at which it was last set.
type waitState struct {
	cand   *replay.JobView
	wait   int64
	offset int64 // value the count was last set to
	sentAt int64 // Cluster.HeartbeatsSent then
}

func (w *waitState) reset() { *w = waitState{} }

// set gives the count a value at the moment sent heartbeats have been sent.
func (w *waitState) set(count, sent int64) { w.wait, w.offset, w.sentAt = count, count, sent }

// step is lines 10-27 of Alg. 2 for a heartbeat from v on a cluster of n nodes,
// sent the nominal heartbeat count now; it reports whether a reduce launched.
func (w *waitState) step(v int32, n, sent int64, env waitEnv) bool {
	w.wait = max(w.wait+1, w.offset+sent-w.sentAt)
	for i := int64(1); i <= 3; i++ {
		if (i-1)*n < w.wait && w.wait <= i*n && env.inList(int(i), v) && !env.busy(v) {
			if env.launch(v) {
				w.reset()
				return true
			}
			w.set(i*n+1, sent)
			break
		}
	}
	if 3*n < w.wait && w.wait <= 4*n && (!env.busy(v) || env.unavoidable()) && env.launch(v) {
		w.reset()
		return true
	}
	if w.wait > 4*n {
		w.reset()
	}
	return false
}

// FillReduces runs Alg. 2 for a heartbeat from node v.
func (ws *WaitScheduling) FillReduces(s replay.Cluster, v int32) {
	w := &ws.state
	if w.cand != nil && !canReduce(w.cand) {
		w.reset()
	}
	if w.cand == nil {
		if j, m := ws.largestMismatch(s); m > 0 {
			w.cand = j
			w.set(0, s.HeartbeatsSent(s.Now()))
		}
		return
	}
	ws.env = clusterWait{w: ws, s: s, j: w.cand}
	w.step(v, int64(len(s.Topology().Nodes)), s.HeartbeatsSent(s.Now()), &ws.env)
}

// largestMismatch returns the job with the largest mismatch among those that
// may launch a reduce, ties broken at random.
func (w *WaitScheduling) largestMismatch(s replay.Cluster) (*replay.JobView, float64) {
	var best []*replay.JobView
	bestM := math.Inf(-1)
	for _, j := range s.Active() {
		if !canReduce(j) {
			continue
		}
		switch m := w.mismatch(j); {
		case m > bestM:
			best, bestM = append(best[:0], j), m
		case m == bestM:
			best = append(best, j)
		}
	}
	switch len(best) {
	case 0:
		return nil, 0
	case 1:
		return best[0], bestM
	}
	return best[s.Rand().IntN(len(best))], bestM
}

// clusterWait answers Wait Scheduling's questions from the simulator.
type clusterWait struct {
	w *WaitScheduling
	s replay.Cluster
	j *replay.JobView
	l []int32 // the D-best list, computed on first use
}

// hasReduce reports whether a reduce of j runs on node n.
func (e *clusterWait) hasReduce(n int32) bool { return e.w.places.On(e.j, n) }

// inList is Wait Scheduling's list test, O(1) while the list is valid.
// Redrawing the list (after any task end or reduce launch) makes the |V_r| − 1
// draws of its random tie order, V_r the nodes with a free reduce slot, in
// O(|V_r|) plus O(T·d) for the T candidates that can be listed; rebuilding the
// candidates (one pass over the N nodes, eq. 1's costs over V_d, the nodes
// holding the candidate's intermediate data, and the d least costs: O(N +
// |V_d| + d·|V_r|)) happens only after the candidate's map ends, reduce
// launches and ends, or at every redraw under the lifecycle.
func (e *clusterWait) inList(i int, v int32) bool {
	if e.s.FreeReduceSlots(v) == 0 {
		return false // not in V_r, so in no list
	}
	if e.l == nil && e.w.listJob == e.j && e.w.listAt == e.w.listVer {
		e.l = e.w.listNode
	}
	if e.l == nil {
		c := e.w
		if c.rescan || c.candJob != e.j || c.candMaps != e.j.FinishedMaps() || c.candSlots != c.slotVer {
			topo := e.s.Topology()
			c.markReduces(e.j)
			vr, busy := c.vrBuf[:0], c.busyBuf[:0]
			for k := range topo.Nodes {
				n := topo.Nodes[k].ID
				if e.s.FreeReduceSlots(n) > 0 {
					if c.mark[n] == c.markGen {
						busy = append(busy, n)
					} else {
						vr = append(vr, n)
					}
				}
			}
			c.vrBuf, c.busyBuf = vr, busy
			if len(vr) == 0 {
				vr = busy
			}
			c.cands = c.scratch.costs(topo, e.j.MapOutputNodes(), e.j.MapOutputAt, vr, c.cands[:0])
			c.scratch.plan(c.cands, c.d, &c.candPlan)
			c.candJob, c.candMaps, c.candSlots = e.j, e.j.FinishedMaps(), c.slotVer
		}
		e.l = c.scratch.pick(&c.candPlan, c.d, e.s.Rand(), c.listNode)
		c.listJob, c.listAt, c.listNode = e.j, c.listVer, e.l
	}
	return inList(e.l, i, v)
}

func (e *clusterWait) busy(v int32) bool { return e.hasReduce(v) }

func (e *clusterWait) unavoidable() bool {
	for _, n := range e.s.Topology().Nodes {
		if e.s.FreeReduceSlots(n.ID) > 0 && !e.hasReduce(n.ID) {
			return false
		}
	}
	return true
}

func (e *clusterWait) launch(v int32) bool {
	e.w.listVer++
	if e.s.FreeReduceSlots(v) == 0 {
		return false
	}
	i := e.s.LaunchReduce(e.j, v)
	if i < 0 {
		return false
	}
	e.w.slotVer++
	e.w.places.Launched(e.j, i)
	return true
}
