package policy

import (
	"cmp"
	"slices"

	"github.com/tracereplay/tracereplay/replay"
)

// The building blocks policies are composed of, as named extension points
// (the way the Kubernetes scheduler framework names its plugins' interfaces):
//
//   - a JobOrder ranks the jobs offered a free slot: SubmitOrder (FIFO),
//     FairOrder (the Fair Scheduler's pools);
//   - a MapPicker chooses which map of the job offered a slot to launch there,
//     or passes: BestEffortPicker, StrictPicker, DelayPicker (delay
//     scheduling), PeekingPicker (the Coupling Scheduler's Random Peeking);
//     a MapFiller offers a node's free map slots to the jobs in order;
//   - a ReducePicker fills a node's free reduce slots: GreedyReduces (in a
//     JobOrder), WaitScheduling (the Coupling Scheduler's Alg. 2).
//
// So FIFO is SubmitOrder + BestEffortPicker (StrictPicker for fifo-strict) +
// GreedyReduces; Fair is FairOrder + DelayPicker (StrictPicker for
// fair-strict) + GreedyReduces in FairOrder; Coupling is FairOrder +
// PeekingPicker + WaitScheduling. Blocks that keep per-job state have
// JobArrived and JobFinished methods, which the policy forwards its hooks to.

// JobOrder ranks the jobs competing for a free slot. A MapFiller or
// GreedyReduces sorts its candidates again after every launch, since running
// counts change.
type JobOrder interface {
	// Sort orders jobs, the candidates for one slot; running counts a job's
	// tasks of the slot's kind that hold a slot.
	Sort(jobs []*replay.JobView, running func(*replay.JobView) int32)
}

// SubmitOrder is FIFO: the jobs in the order the Cluster lists them (arrival).
type SubmitOrder struct{}

// Sort keeps the jobs in their order.
func (SubmitOrder) Sort([]*replay.JobView, func(*replay.JobView) int32) {}

// FairOrder is the Hadoop Fair Scheduler's order: jobs grouped in pools (one
// per user, or per queue), the pool furthest below its fair share first (fewest
// running tasks of the kind among the candidates; every pool has weight 1 and
// no minimum share), ties by pool name; within a pool the job with the fewest
// running tasks of the kind, ties by submit order.
type FairOrder struct {
	poolBy string
	ids    map[string]int32 // pool number by name, in order of first use
	names  []string         // pool names by number
	pool   []int32          // pool number by job index (jobs seen by JobArrived)
	rank   []int32          // by pool number: the pool's place among the names in order
	counts []int32          // running tasks per pool number while sorting
	keys   []fairKey        // the candidates' sort keys while sorting
}

// fairKey is one candidate's sort key: its pool, the pool's running count and
// its own.
type fairKey struct {
	poolRunning, running int32
	pool, index          int32
	rank                 int32 // the pool's name's rank (FairOrder.rank)
	j                    *replay.JobView
}

// less is the Fair order: the pool's running count, the pool's name, the
// job's running count, submit order.
func (a *fairKey) less(b *fairKey) bool {
	if a.poolRunning != b.poolRunning {
		return a.poolRunning < b.poolRunning
	}
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.running != b.running {
		return a.running < b.running
	}
	return a.index < b.index
}

// NewFairOrder returns the Fair order with pools by "user" or "queue".
func NewFairOrder(poolBy string) *FairOrder { return &FairOrder{poolBy: poolBy} }

// Init forgets every job.
func (o *FairOrder) Init() {
	o.ids = map[string]int32{}
	o.names, o.pool, o.counts, o.rank = o.names[:0], o.pool[:0], o.counts[:0], o.rank[:0]
}

// JobArrived puts the job in its pool.
func (o *FairOrder) JobArrived(j *replay.JobView) {
	name := poolOf(j, o.poolBy)
	id, ok := o.ids[name]
	if !ok {
		id = int32(len(o.names))
		o.ids[name] = id
		o.names = append(o.names, name)
		o.counts = append(o.counts, 0)
		o.rankPools()
	}
	k := int(j.Index())
	if k >= len(o.pool) {
		o.pool = append(o.pool, make([]int32, k+1-len(o.pool))...)
	}
	o.pool[k] = id
}

// rankPools ranks the pools by name, after a new pool (pools are few: one
// per user or queue), so that sorting compares ranks instead of names.
func (o *FairOrder) rankPools() {
	by := make([]int32, len(o.names))
	for i := range by {
		by[i] = int32(i)
	}
	slices.SortFunc(by, func(a, b int32) int { return cmp.Compare(o.names[a], o.names[b]) })
	o.rank = slices.Grow(o.rank[:0], len(by))[:len(by)]
	for r, p := range by {
		o.rank[p] = int32(r)
	}
}

// JobFinished forgets the job.
func (o *FairOrder) JobFinished(*replay.JobView) {}

// Sort orders jobs by their pool's running count, the pool's name, their own
// running count, then submit order. (Every job has a distinct index, so the
// order is total and the result does not depend on the sorting algorithm:
// an insertion sort for the few candidates of most slots, pdqsort above.)
func (o *FairOrder) Sort(jobs []*replay.JobView, running func(*replay.JobView) int32) {
	if len(jobs) == 2 { // the most common case of several: two keys on the stack
		a, b := o.key(jobs[0], running), o.key(jobs[1], running)
		a.poolRunning, b.poolRunning = a.running, b.running
		if a.pool == b.pool {
			a.poolRunning += b.running
			b.poolRunning = a.poolRunning
		}
		if b.less(&a) {
			jobs[0], jobs[1] = jobs[1], jobs[0]
		}
		return
	}
	o.keys = o.keys[:0]
	for _, j := range jobs {
		p := o.pool[j.Index()]
		k := fairKey{running: running(j), pool: p, rank: o.rank[p], index: j.Index(), j: j}
		o.counts[k.pool] = 0
		o.keys = append(o.keys, k)
	}
	for i := range o.keys {
		o.counts[o.keys[i].pool] += o.keys[i].running
	}
	for i := range o.keys {
		o.keys[i].poolRunning = o.counts[o.keys[i].pool]
	}
	keys := o.keys
	if len(keys) <= 16 {
		for i := 1; i < len(keys); i++ {
			for k := i; k > 0 && keys[k].less(&keys[k-1]); k-- {
				keys[k], keys[k-1] = keys[k-1], keys[k]
			}
		}
	} else {
		slices.SortFunc(keys, func(a, b fairKey) int {
			switch {
			case a.index == b.index:
				return 0
			case a.less(&b):
				return -1
			}
			return 1
		})
	}
	for i := range keys {
		jobs[i] = keys[i].j
	}
}

// key is job j's sort key but for its pool's running count.
func (o *FairOrder) key(j *replay.JobView, running func(*replay.JobView) int32) fairKey {
	x := j.Index()
	p := o.pool[x]
	return fairKey{running: running(j), pool: p, rank: o.rank[p], index: x, j: j}
}

// poolOf names the pool a job belongs to under a "pool by" rule.
func poolOf(j *replay.JobView, by string) string {
	key := j.User()
	if by == "queue" {
		key = j.Queue()
	}
	if key == "" {
		return "default"
	}
	return key
}

// runningMaps and runningReduces are the running counts JobOrders sort by.
func runningMaps(j *replay.JobView) int32    { return j.RunningMaps() }
func runningReduces(j *replay.JobView) int32 { return j.RunningReduces() }

// MapPicker decides, for a free map slot of node n offered to job j, which map
// of j to launch there, or -1 to pass the slot on to the next job. It does not
// launch: the MapFiller does, right after.
type MapPicker interface {
	PickMap(c replay.Cluster, j *replay.JobView, n int32) int32
}

// BestEffortPicker picks the pending map closest to the node: node-local, then
// rack-local, then any (the lowest-indexed).
type BestEffortPicker struct{}

// PickMap returns the closest pending map; it never passes.
func (BestEffortPicker) PickMap(c replay.Cluster, j *replay.JobView, n int32) int32 {
	t, _ := bestMap(c, j, n, replay.OffRack)
	return t
}

// StrictPicker picks only a map whose input is on the node, and passes
// otherwise: delay scheduling with infinite delays.
type StrictPicker struct{}

// PickMap returns a node-local pending map, or -1.
func (StrictPicker) PickMap(c replay.Cluster, j *replay.JobView, n int32) int32 {
	t, _ := bestMap(c, j, n, replay.NodeLocal)
	return t
}

// bestMap returns the pending map of j that is closest to node n, no farther than
// maxLevel, and its level; -1 when there is none.
func bestMap(s replay.Cluster, j *replay.JobView, n int32, maxLevel replay.Locality) (int32, replay.Locality) {
	if j.PendingMaps() == 0 {
		return -1, 0
	}
	if t := j.LocalMap(n); t >= 0 {
		return t, replay.NodeLocal
	}
	if maxLevel >= replay.RackLocal {
		if t := j.RackMap(s.Topology().Nodes[n].Rack); t >= 0 {
			return t, replay.RackLocal
		}
	}
	if maxLevel >= replay.OffRack {
		if t := j.AnyMap(); t >= 0 {
			return t, s.Locality(j, t, n)
		}
	}
	return -1, 0
}

// MapFiller offers a node's free map slots to the jobs with pending maps, in a
// JobOrder, until a MapPicker takes each; it holds the candidates between
// offers.
type MapFiller struct {
	jobs []*replay.JobView
}

// Fill fills node n's free map slots: each slot is offered to the jobs with
// pending maps in order (re-sorted after every launch) until pick takes it; a
// slot no job takes stays free until the next heartbeat.
func (f *MapFiller) Fill(c replay.Cluster, n int32, order JobOrder, pick MapPicker) {
	if c.FreeMapSlots(n) == 0 {
		return
	}
	f.Start(c)
	f.fill(c, n, order, pick)
}

// fill is Fill after Start. It reports whether it ended with a slot that every
// candidate declined (rather than with no free slot or no candidate left).
func (f *MapFiller) fill(c replay.Cluster, n int32, order JobOrder, pick MapPicker) bool {
	for c.FreeMapSlots(n) > 0 && len(f.jobs) > 0 {
		order.Sort(f.jobs, runningMaps)
		if !f.Offer(c, n, pick) {
			return true
		}
	}
	return false
}

// Start takes the active jobs with pending maps, in the Cluster's order, as
// the candidates (Cluster.MapCandidates, copied: Offer drops a job whose
// last pending map it launches, and a JobOrder sorts them).
func (f *MapFiller) Start(c replay.Cluster) {
	f.jobs = append(f.jobs[:0], c.MapCandidates()...)
}

// Offer offers one free slot of node n to the candidates in their order,
// launches the map the first taker picks (dropping the job from the
// candidates if that was its last pending map) and reports whether one took
// it.
func (f *MapFiller) Offer(c replay.Cluster, n int32, pick MapPicker) bool {
	for k, j := range f.jobs {
		t := pick.PickMap(c, j, n)
		if t < 0 {
			continue
		}
		c.LaunchMap(j, t, n)
		if j.PendingMaps() == 0 {
			f.jobs = slices.Delete(f.jobs, k, k+1)
		}
		return true
	}
	return false
}

// ReducePicker fills node n's free reduce slots, or leaves them free.
type ReducePicker interface {
	FillReduces(c replay.Cluster, n int32)
}

// GreedyReduces launches reduces wherever a reduce slot is free: the slots go
// to the jobs whose slow-start threshold is met and that have a pending reduce,
// in Order sorted by running reduces and re-sorted after every launch.
type GreedyReduces struct {
	Order JobOrder
	jobs  []*replay.JobView
}

// FillReduces fills node n's free reduce slots.
func (g *GreedyReduces) FillReduces(c replay.Cluster, n int32) {
	if c.FreeReduceSlots(n) == 0 {
		return
	}
	g.jobs = append(g.jobs[:0], c.ReduceCandidates()...) // copied: sorted, and dropped from below
	for c.FreeReduceSlots(n) > 0 && len(g.jobs) > 0 {
		g.Order.Sort(g.jobs, runningReduces)
		j := g.jobs[0]
		c.LaunchReduce(j, n)
		if !canReduce(j) {
			g.jobs = g.jobs[1:]
		}
	}
}

// canReduce reports whether j has a reduce that may launch now.
func canReduce(j *replay.JobView) bool { return j.ReducesReady() && j.PendingReduces() > 0 }
