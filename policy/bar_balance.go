package policy

import "github.com/tracereplay/tracereplay/replay"

// flowNet is the flow network G_f of BAR's Alg. 1 (and Fischer et al.'s
// max-cover) in the form its augmenting paths need: arcs server → task for every
// replica (capacity 1), task → sink (capacity 1), and the current flow as the
// server each task is assigned to. In the residual graph a server reaches every
// task it holds a replica of and is not assigned, and a task reaches the server
// it is assigned to (the reverse of its saturated arc); an unassigned task
// reaches the sink. The search state (epoch marks, parents, queues) lives here
// too, so that repeated solves allocate nothing once warm.
type flowNet struct {
	adjStart []int32 // server s's tasks are adj[adjStart[s]:adjStart[s+1]], ascending
	adj      []int32
	alloc    []int32 // task -> server, -1 unassigned
	num      []int32 // tasks assigned per server

	epoch   uint32
	seenS   []uint32 // server marks by search epoch
	seenT   []uint32
	deadS   []bool // no augmenting path from or through it, now or later
	deadT   []bool
	viaTask []int32 // server -> the task (assigned to it) the search came through
	from    []int32 // task -> the server the search came from
	queue   []int32 // servers of the current search tree
	tasks   []int32 // tasks of the current search tree
}

// build sets up the network for p with an empty flow.
func (f *flowNet) build(p *replay.AllocProblem) {
	n, m := p.Servers, p.Tasks()
	f.viaTask = grow(f.viaTask, n)
	f.adjStart, f.adj = buildAdj(p, f.adjStart, f.adj, f.viaTask)
	f.alloc = grow(f.alloc, m)
	for i := range f.alloc {
		f.alloc[i] = -1
	}
	f.num = grow(f.num, n)
	clear(f.num)
	f.seenS = grow(f.seenS, n)
	f.seenT = grow(f.seenT, m)
	clear(f.seenS)
	clear(f.seenT)
	f.epoch = 0
	f.deadS = grow(f.deadS, n)
	f.deadT = grow(f.deadT, m)
	clear(f.deadS)
	clear(f.deadT)
	f.from = grow(f.from, m)
}

// augment grows a breadth-first search tree from server s0 in the residual graph
// (Edmonds-Karp) over nodes not known dead. If it reaches an unassigned task it
// pushes one unit of flow along the path — s0 gains a task and every other server
// on the path swaps one task for another — and returns true. Otherwise every node
// of the tree is marked dead: the tree is closed under residual arcs and holds no
// unassigned task, and augmenting elsewhere never changes arcs inside it, so no
// later search can succeed through it either (Alg. 1 marks them visited for the
// iteration; keeping the mark is what makes repeated failures cheap).
func (f *flowNet) augment(s0 int32) bool {
	f.epoch++
	if f.epoch == 0 { // wrapped: clear the marks once every 2^32 searches
		clear(f.seenS)
		clear(f.seenT)
		f.epoch = 1
	}
	ep := f.epoch
	f.queue = append(f.queue[:0], s0)
	f.tasks = f.tasks[:0]
	f.seenS[s0] = ep
	for qi := 0; qi < len(f.queue); qi++ {
		u := f.queue[qi]
		for _, t := range f.adj[f.adjStart[u]:f.adjStart[u+1]] {
			a := f.alloc[t]
			if a == u || f.seenT[t] == ep || f.deadT[t] {
				continue
			}
			f.seenT[t] = ep
			f.from[t] = u
			f.tasks = append(f.tasks, t)
			if a < 0 {
				f.flip(s0, t)
				return true
			}
			if f.seenS[a] != ep && !f.deadS[a] {
				f.seenS[a] = ep
				f.viaTask[a] = t
				f.queue = append(f.queue, a)
			}
		}
	}
	for _, s := range f.queue {
		f.deadS[s] = true
	}
	for _, t := range f.tasks {
		f.deadT[t] = true
	}
	return false
}

// flip pushes the unit of flow found by augment: task t, unassigned, goes to the
// server the search reached it from; the task that server was reached through
// moves to its own predecessor, and so on back to s0.
func (f *flowNet) flip(s0, t int32) {
	for {
		u := f.from[t]
		f.alloc[t] = u
		if u == s0 {
			f.num[s0]++
			return
		}
		t = f.viaTask[u]
	}
}

// balancer runs BAR's balance phase.
type balancer struct {
	net  flowNet
	heap srvHeap
}

// balance is Alg. 1 (BAA): until every task is assigned, take the unvisited server
// of least load L_init + Num(s)·C_loc (ties to the lower index) and search an
// augmenting path from it; on success it gains a task, otherwise the search tree
// is visited and the next least-loaded server is tried. The result, in b.net.alloc,
// is a balanced total allocation (Definition 6). Alg. 1 as printed loops while
// τ < m, one iteration short of assigning every task; we run the m iterations its
// text and Theorem 3 describe.
//
// Servers that hold no replica can never be the start of a path and are left out;
// servers whose search failed are dead for good (see augment), which is the same
// choice Alg. 1 makes, found faster.
func (b *balancer) balance(p *replay.AllocProblem) {
	f := &b.net
	f.build(p)
	b.heap.reset(p.Servers)
	for s := range p.Servers {
		if f.adjStart[s+1] > f.adjStart[s] {
			b.heap.push(int32(s), p.Init[s])
		}
	}
	for assigned := p.Tasks(); assigned > 0; {
		s0 := b.heap.top()
		if f.deadS[s0] {
			b.heap.pop()
			continue
		}
		if f.augment(s0) {
			b.heap.fix(s0, p.Init[s0]+int64(f.num[s0])*p.LocalCost)
			assigned--
		} else {
			b.heap.pop()
		}
	}
}
