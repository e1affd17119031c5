package policy

import "github.com/tracereplay/tracereplay/replay"

// MaxCoverSolver is MaxCover-BalAssign (Fischer, Su and Yin, "Assigning tasks
// for efficiency in Hadoop", SPAA 2010, Alg. 2), BAR's strongest baseline. It
// produces a sequence of total allocations under an increasing threshold τ and
// returns the one of least makespan. Each iteration has two phases:
//
//   - max-cover: the largest set of tasks that can run locally with no server
//     above the threshold, by max-flow (augmenting paths) in the network of
//     Alg. 1 with a capacity on each server; the previous iteration's flow is
//     feasible for the next, so it is grown, not recomputed;
//   - bal-assign: every task max-cover left out goes, in index order, to the
//     server of least virtual load, where a task costs C_loc if that server
//     holds its input and otherwise the virtual cost C_rem(u), u the number of
//     tasks left out — the pessimistic guess that all of them end remote, since
//     the real remote count is not known yet.
//
// The iterations stop once max-cover covers every task. Fischer et al.'s servers
// start empty and τ caps each server's local tasks; BAR's problem adds initial
// loads, so the threshold here is a load: iteration k lets server s take
// ⌊(min L_init + k·C_loc − L_init(s)) / C_loc⌋ local tasks, which is exactly τ = k
// when every initial load is equal. Each allocation is judged by its real
// makespan (Eq. 8), and the first of the least is kept.
type MaxCoverSolver struct {
	net  flowNet
	heap srvHeap
	cur  []int32
	best []int32
	fin  []int64
}

// Solve returns the allocation in a slice owned by the solver, valid until the
// next call. p must be valid.
func (mc *MaxCoverSolver) Solve(p *replay.AllocProblem) []int32 {
	n, m := p.Servers, p.Tasks()
	f := &mc.net
	f.build(p)
	mc.cur, mc.best = grow(mc.cur, m), grow(mc.best, m)
	mc.fin = grow(mc.fin, n)
	lmin := p.Init[0]
	for _, l := range p.Init {
		lmin = min(lmin, l)
	}
	bestMs := int64(-1)
	covered := 0
	for k := int64(1); ; k++ {
		h := lmin + k*p.LocalCost
		for s := range int32(n) {
			if f.deadS[s] || f.adjStart[s+1] == f.adjStart[s] || p.Init[s] > h {
				continue
			}
			limit := int32((h - p.Init[s]) / p.LocalCost)
			for f.num[s] < limit && f.augment(s) {
				covered++
			}
		}
		ms := mc.balAssign(p, m-covered)
		if bestMs < 0 || ms < bestMs {
			bestMs = ms
			copy(mc.best, mc.cur)
		}
		if covered == m {
			return mc.best
		}
	}
}

// balAssign completes the max-cover flow into mc.cur and returns its makespan.
func (mc *MaxCoverSolver) balAssign(p *replay.AllocProblem, left int) int64 {
	f := &mc.net
	copy(mc.cur, f.alloc)
	keys := mc.fin
	for s := range keys {
		keys[s] = p.Init[s] + int64(f.num[s])*p.LocalCost
	}
	mc.heap.heapify(keys)
	virtual := p.RemoteCost(left)
	for t, s := range mc.cur {
		if s >= 0 {
			continue
		}
		s = mc.heap.top()
		mc.cur[t] = s
		c := virtual
		if p.Prefers(int32(t), s) {
			c = p.LocalCost
		}
		mc.heap.fix(s, mc.heap.key[s]+c)
	}
	o, _ := p.Evaluate(&replay.Allocation{Server: mc.cur}, mc.fin)
	return o.Makespan
}
