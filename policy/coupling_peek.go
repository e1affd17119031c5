package policy

import (
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// Random Peeking Scheduling for maps (Coupling paper, Alg. 3 and eq. 3).

// PeekingPicker is the Coupling Scheduler's Random Peeking (Alg. 3, eq. 3) as
// a MapPicker: a job with a pending map whose input is on the node launches it;
// otherwise it launches a map there (rack-local if it has one) with
// probability p_j (eq. 3), and else skips the rest of the heartbeat. Its
// per-heartbeat caches are stamped by Heartbeat, which the policy calls at the
// start of each heartbeat, and Settle, called after the MapFiller is done,
// accounts for the last map it picked.
type PeekingPicker struct {
	k      int     // sample size K; 0: every map node
	beta   float64 // < 0: β_j from pending maps
	places *ReducePlaces

	jobs      map[int32]*peekJob
	hb        uint64 // heartbeats seen; stamps per-heartbeat caches
	sample    peekSample
	mapNode   []bool // node has map slots (is sampled when k = 0)
	picked    *replay.JobView
	pickedMap int32 // the map PickMap last chose, launched by the MapFiller right after

	// With every node sampled, the nodes with a free map slot are counted as
	// slots change rather than over all nodes at each heartbeat: free is the
	// count before the current heartbeat, whose node hbNode had a free map
	// slot at its start when hbFree (only its slots change during it); map
	// ends are counted in by MapEnded, and setup and cleanup tasks' slots
	// (the lifecycle) by OtherMapSlot. Kept so only when the policy sees
	// every change of a map slot: not under speculation (the engine's
	// copies) or modelled faults, and no more after an observed copy
	// (Coupling.OtherSlot turns incr off).
	incr   bool
	free   int
	hbNode int32
	hbFree bool
}

// peekJob is Random Peeking's state of one job.
type peekJob struct {
	skipped uint64 // the heartbeat in which the job declined a map slot
	k1      int    // sampled nodes with input of a pending map of the job
	k1Stamp uint64 // heartbeat k1 was counted in

	// localNodes counts the map nodes holding input of a pending map of the
	// job (k1 when every node is sampled), updated at each of the job's map
	// launches; it is right while PendingMaps is localAt, and recounted when
	// the pending maps changed some other way.
	localNodes int
	localAt    int32
}

// NewPeekingPicker is Random Peeking over a sample of k nodes (0: all), with
// a fixed β when beta > 0, α from where reduces run as places records them.
func NewPeekingPicker(k int, beta float64, places *ReducePlaces) *PeekingPicker {
	return &PeekingPicker{k: k, beta: beta, places: places}
}

// Init indexes the map nodes.
func (p *PeekingPicker) Init(s replay.Cluster) {
	p.jobs = map[int32]*peekJob{}
	p.sample.init(s, p.k)
	p.mapNode = make([]bool, len(s.Topology().Nodes))
	p.free = 0
	for _, n := range p.sample.all {
		p.mapNode[n] = true
		if s.FreeMapSlots(n) > 0 {
			p.free++
		}
	}
	p.incr = p.sample.k == len(p.sample.all) && !unseenTasks(s.Hardware())
	p.hbNode = -1
}

// JobArrived starts the job's state.
func (p *PeekingPicker) JobArrived(j *replay.JobView) { p.jobs[j.Index()] = &peekJob{localAt: -1} }

// JobFinished forgets the job.
func (p *PeekingPicker) JobFinished(j *replay.JobView) { delete(p.jobs, j.Index()) }

// Heartbeat starts a heartbeat of node n: a new sample, and every job may be
// offered slots again.
func (p *PeekingPicker) Heartbeat(s replay.Cluster, n int32) {
	p.hb++
	if p.incr {
		p.hbNode, p.hbFree = n, s.FreeMapSlots(n) > 0
	}
}

// Settle accounts for the map PickMap chose last, once launched, and for the
// heartbeat's node in the count of nodes with a free map slot.
func (p *PeekingPicker) Settle(s replay.Cluster) {
	p.notePicked()
	if p.incr && p.hbNode >= 0 {
		p.free += b2i(s.FreeMapSlots(p.hbNode) > 0) - b2i(p.hbFree)
		p.hbNode = -1
	}
}

// MapEnded counts node n in the nodes with a free map slot if the map that
// just ended there freed its only one.
func (p *PeekingPicker) MapEnded(s replay.Cluster, n int32) {
	if p.incr && p.mapNode[n] && s.FreeMapSlots(n) == 1 {
		p.free++
	}
}

// OtherMapSlot counts node n in or out of the nodes with a free map slot
// after a map slot there was taken (taken) or freed by a task the policy did
// not launch (a setup or cleanup task), outside the policy's heartbeats.
func (p *PeekingPicker) OtherMapSlot(s replay.Cluster, n int32, taken bool) {
	if !p.incr || !p.mapNode[n] {
		return
	}
	switch f := s.FreeMapSlots(n); {
	case taken && f == 0:
		p.free--
	case !taken && f == 1:
		p.free++
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// localMapNodes is the number of map nodes to which a pending map of j is
// local (holding its input; every map node while a map without input is
// pending): O(replication) after one of the job's launches, O(nodes holding
// its input) when recounted (O(nodes) while a map without input is pending).
func (p *PeekingPicker) localMapNodes(j *replay.JobView) int {
	p.notePicked()
	pj := p.jobs[j.Index()]
	if pj.localAt != j.PendingMaps() {
		pj.localNodes = j.CountLocalMapNodes(func(n int32) bool { return p.mapNode[n] })
		pj.localAt = j.PendingMaps()
	}
	return pj.localNodes
}

// notePicked updates the count of local map nodes of the job whose map
// PickMap chose last, once the MapFiller has launched it: each replica holder
// that has no other pending map of the job drops out.
func (p *PeekingPicker) notePicked() {
	j, t := p.picked, p.pickedMap
	if j == nil {
		return
	}
	p.picked = nil
	pj := p.jobs[j.Index()]
	if pj == nil || j.MapState(t) == replay.Pending || pj.localAt != j.PendingMaps()+1 {
		return // not launched, or the count is stale anyway
	}
	reps := j.Replicas(t)
	if len(reps) == 0 {
		// A map without input, local on every node: while another is pending
		// every map node still counts; after the last, recount (localAt stays
		// stale).
		return
	}
	for k, r := range reps {
		if p.mapNode[r] && !slices.Contains(reps[:k], r) && !j.HasLocalMap(r) {
			pj.localNodes--
		}
	}
	pj.localAt = j.PendingMaps()
}

// Launch weights α_j of eq. 3.
const (
	alphaRackAndReduce = 0.7 // input in the node's rack and a reduce of the job on the node
	alphaRack          = 0.8 // input in the node's rack, no reduce of the job on the node
	alphaElse          = 1.0
)

// peekBeta is β_j of eq. 3: 0.1 + 0.9·(1 − exp(−M_p / max(N̂_m, 1))), larger when
// the job has many pending maps for the free slots.
func peekBeta(pendingMaps int32, nm float64) float64 {
	return 0.1 + 0.9*(1-math.Exp(-float64(pendingMaps)/max(nm, 1)))
}

// peekProb is eq. 3 for a job without input on the node: the probability of
// launching a map there now, 1 − α·p̂^β·(1 − e^{−N̂}).
func peekProb(alpha, pm, beta, nm float64) float64 {
	return 1 - alpha*math.Pow(pm, beta)*(1-math.Exp(-nm))
}

// peekSample is the K nodes sampled in one heartbeat and how many of them have a
// free map slot.
type peekSample struct {
	all   []int32 // map-capable nodes
	nodes []int32 // this heartbeat's sample
	k     int     // sample size; len(all) when 0 or larger
	k2    int
	stamp uint64 // heartbeat the sample was drawn in
}

func (p *peekSample) init(s replay.Cluster, k int) {
	p.all = p.all[:0]
	for _, n := range s.Topology().Nodes {
		if n.MapSlots > 0 {
			p.all = append(p.all, n.ID)
		}
	}
	p.k = len(p.all)
	if k > 0 && k < p.k {
		p.k = k
	}
	p.nodes = p.all
	p.stamp = 0
}

// draw samples K nodes for heartbeat hb (all nodes when K = N, without drawing)
// and counts those with a free map slot: over the sample, or, when known, from
// free, the count before the heartbeat, corrected for its node n (had: it had
// a free map slot at the heartbeat's start).
func (p *peekSample) draw(s replay.Cluster, hb uint64, known bool, free int, n int32, had bool) {
	if p.stamp == hb {
		return
	}
	p.stamp = hb
	if known && p.k == len(p.all) {
		p.k2 = free - b2i(had) + b2i(s.FreeMapSlots(n) > 0)
		return
	}
	if p.k < len(p.all) {
		// A partial Fisher-Yates shuffle of the persistent permutation: its
		// first k entries are a uniform sample.
		rng := s.Rand()
		for i := range p.k {
			r := i + rng.IntN(len(p.all)-i)
			p.all[i], p.all[r] = p.all[r], p.all[i]
		}
		p.nodes = p.all[:p.k]
	}
	p.k2 = 0
	for _, n := range p.nodes {
		if s.FreeMapSlots(n) > 0 {
			p.k2++
		}
	}
}

// launchProb is p_j of eq. 3 for job j, which has no input on node n.
func (p *PeekingPicker) launchProb(s replay.Cluster, j *replay.JobView, n int32) float64 {
	p.sample.draw(s, p.hb, p.incr && p.hbNode >= 0, p.free, p.hbNode, p.hbFree)
	cj := p.jobs[j.Index()]
	if cj.k1Stamp != p.hb {
		cj.k1Stamp, cj.k1 = p.hb, 0
		if len(p.sample.nodes) == len(p.sample.all) {
			cj.k1 = p.localMapNodes(j) // every node sampled
		} else {
			for _, u := range p.sample.nodes {
				if j.HasLocalMap(u) {
					cj.k1++
				}
			}
		}
	}
	k := float64(len(p.sample.nodes))
	pm := float64(cj.k1) / k
	nm := float64(len(p.sample.all)) * float64(p.sample.k2) / k
	beta := p.beta
	if beta < 0 {
		beta = peekBeta(j.PendingMaps(), nm)
	}
	alpha := alphaElse
	if j.RackMap(s.Topology().Nodes[n].Rack) >= 0 {
		alpha = alphaRack
		if p.places.On(j, n) {
			alpha = alphaRackAndReduce
		}
	}
	return peekProb(alpha, pm, beta, nm)
}

// PickMap is Alg. 3 for one slot offered to job j: a map with input on the
// node launches; otherwise a map (rack-local if any) launches with probability
// p_j, and else the job skips this heartbeat.
func (p *PeekingPicker) PickMap(s replay.Cluster, j *replay.JobView, n int32) int32 {
	p.notePicked()
	if t := j.LocalMap(n); t >= 0 {
		p.picked, p.pickedMap = j, t
		return t
	}
	pj := p.jobs[j.Index()]
	if pj.skipped == p.hb {
		return -1
	}
	if pr := p.launchProb(s, j, n); pr >= 1 || s.Rand().Float64() < pr {
		t, _ := bestMap(s, j, n, replay.OffRack)
		if t >= 0 {
			p.picked, p.pickedMap = j, t
		}
		return t
	}
	pj.skipped = p.hb
	return -1
}
