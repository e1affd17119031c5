package policy

import (
	"math/rand/v2"

	"github.com/tracereplay/tracereplay/replay"
)

// BARSolver computes BAR allocations (Alg. 3: balance, then reduce). It keeps its
// working memory between calls, so solving many problems allocates only when a
// problem is larger than any before; it is not safe for concurrent use.
type BARSolver struct {
	bal balancer

	load    []int64 // L_p loads: L_init + C_loc per task still local
	cnt     []int32 // tasks still local per server
	lstart  []int32 // server s's local tasks are ltask[lstart[s] : lstart[s]+cnt[s]]
	ltask   []int32
	pool    []int32 // the remote task pool P, in the order tasks entered it
	maxHeap srvHeap // active servers of L_p by load, keys negated
	minHeap srvHeap

	// Trace, if set, is called at the end of every loop of the reduce phase with
	// the loop number (from 1), the expected makespan M_exp and the makespan of R.
	Trace func(loop int, expected, makespan int64)
}

// Solve returns BAR's total allocation of p's tasks in out (resized to the task
// count). rng chooses the task taken off the most-loaded server in each reduce
// loop (RandomTask); with a nil rng the most recently placed one is taken. p must
// be valid (see replay.AllocProblem.Validate).
func (b *BARSolver) Solve(p *replay.AllocProblem, rng *rand.Rand, out []int32) []int32 {
	if p.Tasks() == 0 {
		return out[:0]
	}
	b.bal.balance(p)
	return b.reduce(p, b.bal.net.alloc, rng, out)
}

// reduce is Alg. 2 on the balanced allocation bal. Each loop moves one task from
// the most-loaded active server of the local partial allocation L_p into the
// remote pool P, sets the expected makespan M_exp to L_p's largest load, prices
// every pooled task at C_rem(|P|) and places the pool one task at a time on the
// least-loaded server (which is a server of load at most M_exp − C_rem whenever
// one exists, as step 5 asks, and the least-loaded server otherwise). As long as
// the pool fits under M_exp the makespan of R is M_exp and the loop goes on; the
// first loop where it does not returns the better of R and the previous R.
//
// Whether the pool fits under M_exp needs no placement: the least-loaded-first
// placement keeps every pooled task at most M_exp exactly when the servers
// together have room for |P| tasks of cost C_rem below M_exp, i.e. when
// Σ_s ⌊(M_exp − L_s)/C_rem⌋ over servers with L_s ≤ M_exp − C_rem is at least |P|.
// So a loop costs O(n) and the pool is placed only for the allocation returned.
func (b *BARSolver) reduce(p *replay.AllocProblem, bal []int32, rng *rand.Rand, out []int32) []int32 {
	n, m := p.Servers, p.Tasks()
	b.load = grow(b.load, n)
	b.cnt = grow(b.cnt, n)
	b.lstart = grow(b.lstart, n+1)
	b.ltask = grow(b.ltask, m)
	clear(b.cnt)
	for _, s := range bal {
		b.cnt[s]++
	}
	b.lstart[0] = 0
	for s := range n {
		b.lstart[s+1] = b.lstart[s] + b.cnt[s]
		b.load[s] = p.Init[s] + int64(b.cnt[s])*p.LocalCost
	}
	fill := grow(b.pool, n) // cursor per server, reused below as the pool
	copy(fill, b.lstart[:n])
	for t, s := range bal {
		b.ltask[fill[s]] = int32(t)
		fill[s]++
	}
	b.pool = fill[:0]
	b.maxHeap.reset(n)
	for s := range n {
		if b.cnt[s] > 0 {
			b.maxHeap.push(int32(s), -b.load[s])
		}
	}
	prev := -b.maxHeap.key[b.maxHeap.top()] // makespan of R_pre, B to start with
	for loop := 1; ; loop++ {
		// Steps 1-2: a task of the most-loaded active server goes to the pool.
		smax := b.maxHeap.top()
		k := b.cnt[smax] - 1
		if rng != nil {
			k = int32(rng.IntN(int(b.cnt[smax])))
		}
		seg := b.ltask[b.lstart[smax] : b.lstart[smax]+b.cnt[smax]]
		seg[k], seg[len(seg)-1] = seg[len(seg)-1], seg[k]
		b.pool = append(b.pool, seg[len(seg)-1])
		b.cnt[smax]--
		b.load[smax] -= p.LocalCost
		if b.cnt[smax] == 0 {
			b.maxHeap.remove(smax)
			b.load[smax] = p.Init[smax]
		} else {
			b.maxHeap.fix(smax, -b.load[smax])
		}
		// Steps 3-4: expected makespan and remote cost.
		crem := p.RemoteCost(len(b.pool))
		expected := int64(-1) // no active server left: nothing fits
		if b.maxHeap.len() > 0 {
			expected = -b.maxHeap.key[b.maxHeap.top()]
		}
		// Step 5, shortcut: does the pool fit under M_exp?
		if expected >= 0 && b.room(expected, crem, int64(len(b.pool))) {
			if b.Trace != nil {
				b.Trace(loop, expected, expected)
			}
			prev = expected
			continue
		}
		// Step 6: R overshoots M_exp; return the better of R and R_pre.
		out = b.place(p, bal, out)
		got := b.makespan(p, out, crem)
		if b.Trace != nil {
			b.Trace(loop, expected, got)
		}
		if got < prev {
			return out
		}
		last := b.pool[len(b.pool)-1]
		b.pool = b.pool[:len(b.pool)-1]
		b.cnt[smax]++ // only the count matters from here on
		out[last] = smax
		return b.placeInto(p, out)
	}
}

// room reports whether the servers, at their L_p loads, have room for need tasks
// of cost c without any exceeding limit.
func (b *BARSolver) room(limit, c, need int64) bool {
	var fit int64
	for _, l := range b.load {
		if l+c <= limit {
			fit += (limit - l) / c
			if fit >= need {
				return true
			}
		}
	}
	return false
}

// place writes R: every task still local stays on its balanced server, and the
// pool is placed by placeInto.
func (b *BARSolver) place(p *replay.AllocProblem, bal []int32, out []int32) []int32 {
	out = grow(out, len(bal))
	copy(out, bal)
	return b.placeInto(p, out)
}

// placeInto places the pooled tasks of out one at a time on the least-loaded
// server at C_rem(|P|) each, starting from the loads of the tasks not pooled.
func (b *BARSolver) placeInto(p *replay.AllocProblem, out []int32) []int32 {
	crem := p.RemoteCost(len(b.pool))
	keys := b.load
	for s := range keys {
		keys[s] = p.Init[s] + int64(b.cnt[s])*p.LocalCost
	}
	b.minHeap.heapify(keys)
	for _, t := range b.pool {
		s := b.minHeap.top()
		out[t] = s
		b.minHeap.fix(s, b.minHeap.key[s]+crem)
	}
	return out
}

// makespan is the largest final load of an active server when every pooled task
// costs crem, as the reduce loop prices R.
func (b *BARSolver) makespan(p *replay.AllocProblem, out []int32, crem int64) int64 {
	var ms int64
	for s := range p.Servers {
		if b.cnt[s] > 0 {
			ms = max(ms, p.Init[s]+int64(b.cnt[s])*p.LocalCost)
		}
	}
	for _, t := range b.pool {
		ms = max(ms, b.minHeap.key[out[t]])
	}
	return ms
}
