package policy

import (
	"math"
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
// rounds and the choices made. Changed must be called at every job arrival,
// job end and task end (TaskFinished at a task end): the candidate's list of
// nodes depends on its data and the free slots, and the mismatches on the
// jobs' tasks.
type WaitScheduling struct {
	threshold float64 // Alg. 1
	d         int     // list length D
	places    *ReducePlaces
	state     waitState

	// keySeed keys the lists' tie orders (drawn once at Init from the
	// policy's stream): the order of a list's ties is a function of the
	// candidate and its finished maps (listKey), not of when it is drawn.
	keySeed uint64

	// The candidate's D-best list is the first d nodes of V_r by (eq. 1's
	// cost, keyed tie order). Its costs and order change only with the
	// candidate's map outputs (its map ends: FinishedMaps); V_r changes at
	// reduce launches (the candidate's, after which a new one is chosen) and
	// ends (one node joins). So rk ranks the nodes that can be listed once
	// per candidate and finished maps, and a list is the first d of them
	// still in V_r (walked again after a reduce launch or end: slotVer).
	// Under speculation and modelled faults (tasks that take slots unseen:
	// rescan) the list is rebuilt after any task end or reduce launch
	// (listVer counts those). The lifecycle's setup and cleanup tasks'
	// reduce slots come through OtherReduceSlot.
	listVer  uint64
	slotVer  uint64
	listJob  *replay.JobView
	listMaps int32
	listSlot uint64
	listAt   uint64
	listNode []int32
	rescan   bool
	rk       ranking

	// Parked nodes (Coupling.IdleUntil): ver counts the changes to the jobs'
	// mismatches (job arrivals and ends, task ends, launches); noCandAt is
	// the ver at which no job could become the candidate (noCand set).
	// told is the last list whose nodes were woken (WakeList), of the
	// candidate toldJob (nil: none since a candidate was chosen) at its
	// finished maps toldMaps and free reduce slots toldSlot (slotVer).
	ver      uint64
	noCandAt uint64
	noCand   bool
	toldJob  *replay.JobView
	toldMaps int32
	toldSlot uint64
	told     []int32
	waking   replay.Waking // nil when the cluster parks no node
	// armed is the count whose fourth round WakeAllAt was last given (its
	// candidate nil when none is).
	armed waitState

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

// Init sizes the node marks, forgets the cached lists and draws the key of
// the lists' tie orders.
func (w *WaitScheduling) Init(s replay.Cluster) {
	w.mark = make([]uint64, len(s.Topology().Nodes))
	hw := s.Hardware()
	w.rescan = unseenTasks(hw)
	w.listJob, w.toldJob, w.rk.job = nil, nil, nil
	topo := s.Topology()
	w.rk.mark = make([]uint64, len(topo.Nodes))
	w.rk.racks = make([][]int32, len(topo.RackNames))
	for _, n := range topo.Nodes {
		w.rk.racks[n.Rack] = append(w.rk.racks[n.Rack], n.ID)
	}
	w.state.reset()
	w.armed.reset()
	w.noCand = false
	w.keySeed = s.Rand().Uint64()
	w.waking, _ = s.(replay.Waking)
}

// TaskFinished notes the end of a task of j on node n: the list may gain n
// (a reduce's end), which moves the nodes after n to later groups, or change
// whole (the candidate's map end); the parked nodes whose group changed are
// woken (WakeList); see Changed.
func (w *WaitScheduling) TaskFinished(s replay.Cluster, j *replay.JobView, reduce bool, n int32) {
	w.listVer++
	if reduce {
		w.slotVer++
		w.rk.slotFreed(s, w, n)
	} else {
		w.rk.mapEnded(s, w, j, n)
	}
	w.Changed(s)
	if reduce || j == w.state.cand {
		w.WakeList(s)
	}
}

// OtherReduceSlot notes that a task the policy did not launch (a setup or
// cleanup task) took (taken) or freed a reduce slot of node n, outside the
// policy's heartbeats: V_r lost or may have gained n. A freed slot ranks n,
// as a reduce's end does (ranking.slotFreed; the engine wakes n). Either
// moves the list's nodes after n to other groups (a taken slot also puts the
// node after the list's last into it), so the parked nodes whose group
// changed are woken (WakeList): O(d² + the ranked nodes passed over).
func (w *WaitScheduling) OtherReduceSlot(s replay.Cluster, n int32, taken bool) {
	w.listVer++
	w.slotVer++
	if !taken {
		w.rk.slotFreed(s, w, n)
	}
	w.WakeList(s)
}

// Changed notes a change to the jobs' mismatches (a job's arrival or end, a
// task's end). For parked nodes: with no candidate, the next heartbeat may
// choose one, so it is handled (WakeNext).
func (w *WaitScheduling) Changed(s replay.Cluster) {
	w.ver++
	if w.waking != nil && w.state.cand == nil {
		w.waking.WakeNext()
	}
}

// JobFinished drops the job if it is the candidate; see Changed.
func (w *WaitScheduling) JobFinished(s replay.Cluster, j *replay.JobView) {
	if w.state.cand == j {
		w.state.reset()
		w.arm(s)
	}
	w.Changed(s)
}

// arm gives the engine (WakeAllAt) the first instant of the candidate's
// fourth round, when any node may launch its reduce, so that parked nodes
// need not wake for it (IdleUntil), or withdraws it when there is no
// candidate; only when the count was set anew (a candidate chosen, a failed
// launch). The instant is the first at which the count passes 3N: count(t) =
// offset + HeartbeatsSent(t) − sentAt, so the time of the (sentAt + 3N + 1 −
// offset)-th nominal heartbeat (Waking.HeartbeatTime, O(1)).
func (w *WaitScheduling) arm(s replay.Cluster) {
	st := &w.state
	if w.waking == nil || w.rescan || st.cand == w.armed.cand && st.offset == w.armed.offset && st.sentAt == w.armed.sentAt {
		return
	}
	w.armed = *st
	if st.cand == nil {
		w.waking.WakeAllAt(-1)
		return
	}
	// count(t) > 3N from the (sentAt + 3N + 1 − offset)-th nominal heartbeat.
	n3 := 3 * int64(len(s.Topology().Nodes))
	w.waking.WakeAllAt(w.waking.HeartbeatTime(st.sentAt + n3 + 1 - st.offset))
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
//
// On, asked at most heartbeats and parking questions (IdleUntil), is a short
// scan of the node's entries (at most its reduce slots while the counts agree
// with the job) after a comparison with the job asked about last: no map
// look-up on that path.
type ReducePlaces struct {
	jobs map[int32]*jobPlaces
	// at lists, per node (grown on demand), the jobs with a reduce running
	// there and how many: the same counts as the jobs' on maps.
	at [][]placeCount
	// last is the record of job lastIdx, the job asked about last.
	lastIdx int32
	last    *jobPlaces
}

// placeCount is a job's running reduces on one node.
type placeCount struct{ job, n int32 }

// jobPlaces counts a job's running reduces per node, running their sum;
// rebuilt from the job when the sum disagrees with RunningReduces.
type jobPlaces struct {
	on      map[int32]int32
	running int32
}

// NewReducePlaces returns an empty record.
func NewReducePlaces() *ReducePlaces { return &ReducePlaces{} }

// Init forgets every job.
func (r *ReducePlaces) Init() {
	r.jobs = map[int32]*jobPlaces{}
	r.at = r.at[:0]
	r.last = nil
}

// JobArrived starts recording the job.
func (r *ReducePlaces) JobArrived(j *replay.JobView) {
	r.jobs[j.Index()] = &jobPlaces{on: map[int32]int32{}}
	if r.lastIdx == j.Index() {
		r.last = nil
	}
}

// JobFinished forgets the job, and its entries in the nodes' lists.
func (r *ReducePlaces) JobFinished(j *replay.JobView) {
	idx := j.Index()
	if p := r.jobs[idx]; p != nil {
		for n := range p.on {
			r.count(idx, n, -p.on[n])
		}
		if r.last == p {
			r.last = nil
		}
	}
	delete(r.jobs, idx)
}

// job is j's record, nil if j is not recorded; the last one asked about
// without a map look-up.
func (r *ReducePlaces) job(j *replay.JobView) *jobPlaces {
	idx := j.Index()
	if r.last != nil && r.lastIdx == idx {
		return r.last
	}
	p := r.jobs[idx]
	if p != nil {
		r.lastIdx, r.last = idx, p
	}
	return p
}

// count adds d to job's running reduces on node n in the node's list,
// dropping the entry at zero or below; a negative d on a node without an
// entry changes nothing (as the on maps, which keep positive counts only).
func (r *ReducePlaces) count(job, n, d int32) {
	if int(n) >= len(r.at) {
		if d <= 0 {
			return
		}
		r.at = append(r.at, make([][]placeCount, int(n)+1-len(r.at))...)
	}
	l := r.at[n]
	for k := range l {
		if l[k].job == job {
			if l[k].n += d; l[k].n <= 0 {
				l[k] = l[len(l)-1]
				r.at[n] = l[:len(l)-1]
			}
			return
		}
	}
	if d > 0 {
		r.at[n] = append(l, placeCount{job, d})
	}
}

// Launched counts reduce i of j, just launched, on its node.
func (r *ReducePlaces) Launched(j *replay.JobView, i int32) {
	if p := r.job(j); p != nil {
		n := j.ReduceNode(i)
		p.on[n]++
		p.running++
		r.count(j.Index(), n, 1)
	}
}

// ReduceEnded counts reduce i of j, just ended, off its node.
func (r *ReducePlaces) ReduceEnded(j *replay.JobView, i int32) {
	if p := r.job(j); p != nil {
		n := j.ReduceNode(i)
		if p.on[n]--; p.on[n] <= 0 {
			delete(p.on, n)
		}
		p.running--
		r.count(j.Index(), n, -1)
	}
}

// Nodes returns the counts of j's running reduces per node, brought up to
// date. The map is the record's own: do not keep or modify it.
func (r *ReducePlaces) Nodes(j *replay.JobView) map[int32]int32 {
	return r.synced(j).on
}

// synced is j's record, recounted from the job (the map and the nodes'
// lists) when its sum disagrees with RunningReduces.
func (r *ReducePlaces) synced(j *replay.JobView) *jobPlaces {
	p := r.job(j)
	if p.running != j.RunningReduces() {
		idx := j.Index()
		for n, c := range p.on {
			r.count(idx, n, -c)
		}
		clear(p.on)
		p.running = 0
		for i := range j.NumReduces() {
			if j.ReduceState(i) == replay.Running {
				n := j.ReduceNode(i)
				p.on[n]++
				p.running++
				r.count(idx, n, 1)
			}
		}
	}
	return p
}

// On reports whether a reduce of j runs on node n, in O(the jobs with a
// reduce running on n).
func (r *ReducePlaces) On(j *replay.JobView, n int32) bool {
	r.synced(j)
	if int(n) >= len(r.at) {
		return false
	}
	idx := j.Index()
	for _, e := range r.at[n] {
		if e.job == idx {
			return true
		}
	}
	return false
}

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
// transfer costs, in increasing order of cost, ties in the random order keyed
// by key (tiePrio). The costs are eq. 1 in closed form for the tree: C(v) =
// 2·(W_rack(v) − w(v)) + 4·(W − W_rack(v)), with W the job's intermediate data
// and W_rack(v) the part of it in v's rack, which makes a list O(|V_d| +
// d·|V_r|).
func dBest(topo *replay.Topology, data []int32, w func(int32) int64, vr []int32, d int, key uint64) []int32 {
	var sc dBestScratch
	return sc.dBest(topo, data, w, vr, d, key, nil)
}

// mix64 is SplitMix64's finalizer: a bijection of uint64 whose outputs look
// independent for inputs that differ in a few bits.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ z>>31
}

// listKey is the key of the tie order of the lists of job with finished
// maps: the same inputs give the same order, a new map output a new one.
func listKey(seed uint64, job, maps int32) uint64 {
	h := mix64(seed + 0x9e3779b97f4a7c15*(uint64(uint32(job))+1))
	return mix64(h + 0x9e3779b97f4a7c15*(uint64(uint32(maps))+1))
}

// tiePrio is node n's place in the random order of ties keyed by key: the
// nodes of equal cost are listed by increasing tiePrio (then node), which,
// the priorities being independent and uniform, is a uniformly random order
// of them, and needs a priority only for the nodes that can be listed.
func tiePrio(key uint64, n int32) uint64 {
	return mix64(key ^ 0xd1b54a32d192ed03*(uint64(uint32(n))+1))
}

// dBestScratch holds dBest's working memory between calls.
type dBestScratch struct {
	rack  []int64
	own   []int64 // costs: per node, its share of the data (0 outside data)
	data  []int32 // the nodes own is set on, until the next costs
	total int64   // the data's total, for costOf
	cs    []dCand
	best  []dCand
	low   []int64 // plan's d least costs
}

type dCand struct {
	node int32
	cost int64
	prio uint64 // pick's tiePrio
}

// dPlan is what a list's draw needs of its candidates: those that can be in
// the list (cost at most the d-th least: any other has d nodes before it in
// every order), in the order of V_r.
type dPlan struct {
	tr []dCand
}

// dBest is dBest reusing sc's memory, the list appended to l[:0].
func (sc *dBestScratch) dBest(topo *replay.Topology, data []int32, w func(int32) int64, vr []int32, d int, key uint64, l []int32) []int32 {
	sc.cs = sc.costs(topo, data, func(k int) int64 { return w(data[k]) }, vr, sc.cs[:0])
	var p dPlan
	sc.plan(sc.cs, d, &p)
	return sc.pick(&p, d, key, l)
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
	for _, u := range sc.data {
		own[u] = 0
	}
	sc.data = append(sc.data[:0], data...)
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
		cs = append(cs, dCand{node: v, cost: c})
	}
	sc.total = total
	return cs
}

// costOf is eq. 1's cost of node v for the data of the last costs, in O(1).
func (sc *dBestScratch) costOf(topo *replay.Topology, v int32) int64 {
	if inRack := sc.rack[topo.Nodes[v].Rack]; inRack != 0 {
		return 2*(inRack-sc.own[v]) + 4*(sc.total-inRack)
	}
	return 4 * sc.total
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
	p.tr = p.tr[:0]
	for _, c := range cs {
		if len(low) > 0 && c.cost <= low[len(low)-1] {
			p.tr = append(p.tr, c)
		}
	}
}

// before orders candidates for a list: by cost, ties by the keyed priority,
// then by node.
func (a dCand) before(b dCand) bool {
	if a.cost != b.cost {
		return a.cost < b.cost
	}
	if a.prio != b.prio {
		return a.prio < b.prio
	}
	return a.node < b.node
}

// pick lists into l[:0] the d of p's candidates that come first by cost, ties
// in the random order keyed by key: O(T·d) for the T candidates that can be
// listed, and no draw from any stream.
func (sc *dBestScratch) pick(p *dPlan, d int, key uint64, l []int32) []int32 {
	best := sc.best[:0]
	for _, c := range p.tr {
		c.prio = tiePrio(key, c.node)
		k := len(best)
		if k == d && !c.before(best[k-1]) {
			continue
		}
		for k > 0 && c.before(best[k-1]) {
			k--
		}
		best = slices.Insert(best, k, c)
		best = best[:min(len(best), d)]
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
// remembers the nominal heartbeat count at which it was last set, and the
// time of the last heartbeat that stepped or set it.
type waitState struct {
	cand   *replay.JobView
	wait   int64
	offset int64 // value the count was last set to
	sentAt int64 // Cluster.HeartbeatsSent then
	at     int64 // time of the last step or set
}

func (w *waitState) reset() { *w = waitState{} }

// set gives the count a value at time now, when sent heartbeats have been
// sent.
func (w *waitState) set(count, sent, now int64) {
	w.wait, w.offset, w.sentAt, w.at = count, count, sent, now
}

// count is the count at a heartbeat at time now, sent the nominal count then:
// the nominal heartbeats since it was set, plus one for each heartbeat seen
// at the same instant as the last step or set (nodes sharing a heartbeat
// phase), which the nominal count has already counted. It does not depend on
// which heartbeats of other instants were seen, so parked nodes' skipped
// heartbeats count as if handled.
func (w *waitState) count(sent, now int64) int64 {
	c := w.offset + sent - w.sentAt
	if now == w.at {
		c = max(w.wait+1, c)
	}
	return c
}

// step is lines 10-27 of Alg. 2 for a heartbeat from v at time now on a
// cluster of n nodes, sent the nominal heartbeat count then; it reports
// whether a reduce launched.
func (w *waitState) step(v int32, n, sent, now int64, env waitEnv) bool {
	w.wait, w.at = w.count(sent, now), now
	for i := int64(1); i <= 3; i++ {
		if (i-1)*n < w.wait && w.wait <= i*n && env.inList(int(i), v) && !env.busy(v) {
			if env.launch(v) {
				w.reset()
				return true
			}
			w.set(i*n+1, sent, now)
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
	now := s.Now()
	if w.cand == nil {
		if ws.noCand && ws.noCandAt == ws.ver {
			return // no job's mismatch changed since none could be chosen
		}
		if j, m := ws.largestMismatch(s); m > 0 {
			w.cand = j
			w.set(0, s.HeartbeatsSent(now), now)
			ws.toldJob = nil // WakeList wakes its list's nodes
		} else {
			ws.noCand, ws.noCandAt = true, ws.ver
		}
		ws.arm(s)
		return
	}
	ws.env = clusterWait{w: ws, s: s, j: w.cand}
	jumped := w.offset
	launched := w.step(v, int64(len(s.Topology().Nodes)), s.HeartbeatsSent(now), now, &ws.env)
	switch {
	case launched || w.cand == nil:
		if ws.waking != nil {
			ws.waking.WakeNext() // the next heartbeat chooses a candidate
		}
	case w.offset != jumped && ws.waking != nil:
		// A failed launch moved the count on to the next round: a parked
		// node's wake-up may come after its heartbeat in a round it is
		// listed in, or in the fourth. Rare: wake them all.
		ws.waking.WakeAllAt(now)
	}
	ws.arm(s)
}

// largestMismatch returns the job with the largest mismatch among those that
// may launch a reduce, ties broken at random (a draw only when the largest is
// positive, so that it becomes the candidate).
func (w *WaitScheduling) largestMismatch(s replay.Cluster) (*replay.JobView, float64) {
	var best []*replay.JobView
	bestM := math.Inf(-1)
	for _, j := range s.ReduceCandidates() {
		switch m := w.mismatch(j); {
		case m > bestM:
			best, bestM = append(best[:0], j), m
		case m == bestM:
			best = append(best, j)
		}
	}
	switch {
	case len(best) == 0:
		return nil, 0
	case len(best) == 1 || bestM <= 0:
		return best[0], bestM
	}
	return best[s.Rand().IntN(len(best))], bestM
}

// ranking is the nodes that can be in a job's lists while its finished maps
// stay the same: those of V_r, when built, whose cost is at most the d-th
// least (bound; math.MaxInt64 when V_r had at most d nodes), sorted by
// (cost, keyed tie order). A node that joins V_r later with a cost at most
// bound is ranked then (slotFreed); so while at least d ranked nodes are in
// V_r, the first d of them are the list, since every other node of V_r costs
// more than bound.
type ranking struct {
	job      *replay.JobView
	maps     int32
	key      uint64
	ok       bool
	fromBusy bool // built from the nodes running a reduce of the job: V_r was empty
	bound    int64
	ranked   []dCand
	mark     []uint64 // gen on the ranked nodes
	gen      uint64
	racks    [][]int32 // the nodes of each rack
	set      []dCand   // mapEnded's candidates
}

// build ranks j's candidates from the nodes with a free reduce slot: O(N +
// |V_d| + d·|V_r| + T log T), T the ranked nodes.
func (r *ranking) build(s replay.Cluster, w *WaitScheduling, j *replay.JobView) {
	topo := s.Topology()
	w.markReduces(j)
	vr, busy := w.vrBuf[:0], w.busyBuf[:0]
	for k := range topo.Nodes {
		n := topo.Nodes[k].ID
		if s.FreeReduceSlots(n) > 0 {
			if w.mark[n] == w.markGen {
				busy = append(busy, n)
			} else {
				vr = append(vr, n)
			}
		}
	}
	w.vrBuf, w.busyBuf = vr, busy
	r.fromBusy = len(vr) == 0
	if r.fromBusy {
		vr = busy
	}
	sc := &w.scratch
	sc.cs = sc.costs(topo, j.MapOutputNodes(), j.MapOutputAt, vr, sc.cs[:0])
	var p dPlan
	p.tr = r.ranked[:0]
	sc.plan(sc.cs, w.d, &p)
	r.bound = math.MaxInt64
	if len(sc.low) == w.d {
		r.bound = sc.low[w.d-1]
	}
	r.finish(j, w, p.tr)
}

// mapEnded re-ranks j's nodes after one of its maps ended on node u, if the
// ranking is j's of one map before: the costs change by the same amount
// (4x, x the new output) on every node outside u's rack and by less inside
// it, so no node outside the ranking or u's rack can now be listed, and the
// new ranking is drawn from those (its costs updated in O(1) for u's
// output, the tie order keyed anew). O(T log T + nodes per rack); else it
// goes stale (built afresh when next asked for).
func (r *ranking) mapEnded(s replay.Cluster, w *WaitScheduling, j *replay.JobView, u int32) {
	if !r.ok || r.job != j || w.rescan {
		return
	}
	if r.fromBusy || r.maps != j.FinishedMaps()-1 {
		r.ok = false
		return
	}
	topo := s.Topology()
	valid := func(n int32) bool { return s.FreeReduceSlots(n) > 0 && !w.places.On(j, n) }
	set := r.set[:0]
	for _, x := range r.ranked {
		if valid(x.node) {
			set = append(set, x)
		}
	}
	if len(set) < w.d && r.bound != math.MaxInt64 {
		r.ok = false // nodes beyond the ranking may be listed now
		r.set = set
		return
	}
	sc := &w.scratch
	if x := j.MapOutputBytes(u); x != sc.own[u] {
		if sc.own[u] == 0 {
			sc.data = append(sc.data, u)
		}
		dx := x - sc.own[u]
		sc.own[u] = x
		sc.rack[topo.Nodes[u].Rack] += dx
		sc.total += dx
	}
	rack := topo.Nodes[u].Rack
	for _, n := range r.racks[rack] {
		if r.mark[n] != r.gen && valid(n) {
			set = append(set, dCand{node: n})
		}
	}
	for i := range set {
		set[i].cost = sc.costOf(topo, set[i].node)
	}
	var p dPlan
	p.tr = r.ranked[:0]
	sc.plan(set, w.d, &p)
	r.set = set
	r.bound = math.MaxInt64
	if len(sc.low) == w.d {
		r.bound = sc.low[w.d-1]
	}
	r.finish(j, w, p.tr)
}

// finish keys the ranking's tie order for j's finished maps and sorts tr,
// the nodes that can be listed, into it.
func (r *ranking) finish(j *replay.JobView, w *WaitScheduling, tr []dCand) {
	r.job, r.maps, r.key, r.ok = j, j.FinishedMaps(), listKey(w.keySeed, j.Index(), j.FinishedMaps()), true
	r.gen++
	for i := range tr {
		tr[i].prio = tiePrio(r.key, tr[i].node)
		r.mark[tr[i].node] = r.gen
	}
	slices.SortFunc(tr, func(a, b dCand) int {
		if a.before(b) {
			return -1
		}
		return 1 // no two are equal: nodes differ
	})
	r.ranked = tr
}

// slotFreed notes that node n may have joined V_r (a reduce ended there): a
// node that can be listed (cost at most bound) and is not ranked is ranked,
// in its place by (cost, keyed tie order): O(log T) and a copy of the
// ranked nodes after it.
func (r *ranking) slotFreed(s replay.Cluster, w *WaitScheduling, n int32) {
	if !r.ok || w.rescan {
		return
	}
	if r.fromBusy {
		r.ok = false
		return
	}
	if r.mark[n] == r.gen {
		return
	}
	c := dCand{node: n, cost: w.scratch.costOf(s.Topology(), n), prio: tiePrio(r.key, n)}
	if c.cost > r.bound {
		return
	}
	k, _ := slices.BinarySearchFunc(r.ranked, c, func(a, b dCand) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	r.ranked = slices.Insert(r.ranked, k, c)
	r.mark[n] = r.gen
}

// list returns the candidate j's D-best list: O(1) while it is valid (no
// reduce launched or ended since), else the first d ranked nodes still in
// V_r, O(d + the ranked nodes passed over), after ranking j's nodes afresh
// (ranking.build) if its finished maps changed, a node joined V_r that could
// be listed, or fewer than d ranked nodes are left in V_r; under the lifecycle
// and speculation, built afresh after any task end or reduce launch.
func (c *WaitScheduling) list(s replay.Cluster, j *replay.JobView) []int32 {
	maps := j.FinishedMaps()
	if c.listJob == j && c.listMaps == maps && c.listSlot == c.slotVer && (!c.rescan || c.listAt == c.listVer) {
		return c.listNode
	}
	r := &c.rk
	fresh := false
	if c.rescan || !r.ok || r.job != j || r.maps != maps {
		r.build(s, c, j)
		fresh = true
	}
	for {
		l := c.listNode[:0]
		for _, x := range r.ranked {
			if s.FreeReduceSlots(x.node) > 0 && (r.fromBusy || !c.places.On(j, x.node)) {
				if l = append(l, x.node); len(l) == c.d {
					break
				}
			}
		}
		c.listNode = l
		// Ranked from the nodes without a reduce of j, with none of them
		// left in V_r (a setup or cleanup task took the last one's slot),
		// the list is drawn from those with one (ranking.build).
		if len(l) == c.d || fresh || r.bound == math.MaxInt64 && !r.fromBusy && len(l) > 0 {
			break
		}
		r.build(s, c, j)
		fresh = true
	}
	c.listJob, c.listMaps, c.listSlot, c.listAt = j, maps, c.slotVer, c.listVer
	return c.listNode
}

// WakeList wakes the parked nodes of the candidate's list whose group (L1,
// L2 or L3) is not the one they had in the list last told (every node of
// the list for a new candidate), when the candidate may still launch in the
// first three rounds, where a node launches only if it is in the round's
// group (Coupling.IdleUntil answers from a node's group). A node that left
// the list wakes when it was told to, and does nothing then. It is called
// at the end of each heartbeat (a new candidate, FillReduces) and at each
// change of the list between heartbeats: a map end of the candidate and a
// reduce slot freed or taken (a node joining or leaving V_r moves the nodes
// after it to another group: TaskFinished, OtherReduceSlot), so the nodes
// are woken before any of their heartbeats. O(1) while the list is
// unchanged, else the list's cost (list) and O(d²) to compare the groups.
func (ws *WaitScheduling) WakeList(s replay.Cluster) {
	w := &ws.state
	if ws.waking == nil || ws.rescan || w.cand == nil || !canReduce(w.cand) {
		return
	}
	n := int64(len(s.Topology().Nodes))
	if w.offset+s.HeartbeatsSent(s.Now())-w.sentAt >= 3*n {
		return // every later heartbeat is in the fourth round or later
	}
	l := ws.list(s, w.cand)
	if ws.toldJob == w.cand && ws.toldMaps == ws.listMaps && ws.toldSlot == ws.listSlot {
		return // the list told
	}
	same := ws.toldJob == w.cand
	for i, v := range l {
		if !same || listGroup(slices.Index(ws.told, v)) != listGroup(i) {
			ws.waking.Wake(v)
		}
	}
	ws.told = append(ws.told[:0], l...)
	ws.toldJob, ws.toldMaps, ws.toldSlot = w.cand, ws.listMaps, ws.listSlot
}

// listGroup is the group (1: L1, 2: L2, 3: L3) of the i-th node of a list,
// 0 for i < 0 (not in the list).
func listGroup(i int) int {
	switch {
	case i < 0:
		return 0
	case i == 0:
		return 1
	case i < 3:
		return 2
	}
	return 3
}

// IdleUntil is the reduce side of Coupling.IdleUntil for node n, right after
// its heartbeat: the time of n's first later heartbeat at which Alg. 2 may do
// something (math.MaxInt64 if none), as long as nothing else happens. With no
// candidate: none while no job can become one (noCand, until a change: then
// Changed has the next heartbeat handled), else now. With a candidate, n's
// k-th next heartbeat has the count c + k·N (c the count now: N nominal
// heartbeats per interval, and n's phase is its own), so it is in round r0 +
// k (r0 the round now). In rounds 1-3 it matters if n is then in the round's
// list with a free reduce slot and no reduce of the candidate; the fourth
// round (launch anywhere, then the drop after 4N) wakes every parked node
// (arm), so a node whose next heartbeat is in it stays awake and the others
// need not wake for it. O(1) with the list valid.
func (ws *WaitScheduling) IdleUntil(s replay.Cluster, n int32) int64 {
	w := &ws.state
	now := s.Now()
	if w.cand == nil {
		if ws.noCand && ws.noCandAt == ws.ver {
			return math.MaxInt64
		}
		return now
	}
	if !canReduce(w.cand) || ws.rescan {
		return now
	}
	nn := int64(len(s.Topology().Nodes))
	c := w.offset + s.HeartbeatsSent(now) - w.sentAt
	if w.at == now {
		c = w.wait
	}
	r0 := int64(0)
	if c > 0 {
		r0 = (c + nn - 1) / nn
	}
	if r0 >= 3 {
		return now // its next heartbeat is in the fourth round or later
	}
	if s.FreeReduceSlots(n) == 0 || ws.places.On(w.cand, n) {
		return math.MaxInt64
	}
	iv := int64(s.Hardware().Heartbeat)
	l := ws.list(s, w.cand)
	for r := r0 + 1; r <= 3; r++ {
		if inList(l, int(r), n) {
			return now + (r-r0)*iv
		}
	}
	return math.MaxInt64
}

// clusterWait answers Wait Scheduling's questions from the simulator.
type clusterWait struct {
	w *WaitScheduling
	s replay.Cluster
	j *replay.JobView
}

// hasReduce reports whether a reduce of j runs on node n.
func (e *clusterWait) hasReduce(n int32) bool { return e.w.places.On(e.j, n) }

// inList is Wait Scheduling's list test, O(1) while the list is valid
// (WaitScheduling.list).
func (e *clusterWait) inList(i int, v int32) bool {
	if e.s.FreeReduceSlots(v) == 0 {
		return false // not in V_r, so in no list
	}
	return inList(e.w.list(e.s, e.j), i, v)
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
	if e.s.FreeReduceSlots(v) == 0 {
		return false
	}
	i := e.s.LaunchReduce(e.j, v)
	if i < 0 {
		return false
	}
	e.w.listVer++
	e.w.slotVer++
	e.w.ver++
	e.w.places.Launched(e.j, i)
	return true
}
