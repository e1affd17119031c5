package policy

import (
	"math"
	"math/rand/v2"

	"github.com/tracereplay/tracereplay/replay"
)

// greedyRule is the run-time rule a compile-time greedy allocation simulates.
type greedyRule uint8

const (
	ruleHDS greedyRule = iota // Hadoop default: a local task, else a random one
	ruleDS                    // delay scheduling with a skip counter
	ruleGCC                   // good-cache-compute: wait for locality only when busy
)

// GreedySolver runs one of BAR §V's run-time schedulers (HDS, DS, GCC) in the
// compile-time scheme of §V-B: servers sit in a min-heap keyed by the time they
// next ask for work, initially L_init; the least is popped and the rule either
// hands it a task — a local one when any is left (the lowest-indexed), else a
// random one, which is remote — after which it asks again when its work ends, or
// skips it. "The remote cost is renewed when a remote task is allocated": every
// remote task handed out so far is re-priced at C_rem(r) for the new remote count
// r, so the servers running remote tasks finish later, as Eq. 3 has it for the
// partial allocation.
//
// DS skips a server that has no local task and counts the skip; once the count
// has reached its threshold (a fraction of the servers) the server gets a random
// task instead and the count restarts from zero (§V); launching a local task
// also restarts it, as in Zaharia et al.'s Alg. 1, which §V cites. GCC skips such
// a server only while the servers busy with work exceed its utilisation
// threshold (Raicu et al.'s good-cache-compute; see the gcc policy). Choices the
// paper leaves open: a skipped server idles for Wait (a heartbeat, 3 s by
// default) before it asks again, and a task handed out at time T starts no
// earlier than T, so the time lost waiting for locality counts in the makespan.
// The re-pricing shifts a server's finish by q per remote task it ran, ignoring
// any idle gap that could absorb it; the makespan reported is Evaluate's, exact.
type GreedySolver struct {
	rule      greedyRule
	Threshold float64 // DS: skips allowed, as a fraction of the servers
	Util      float64 // GCC: skip only while busy servers > Util × servers
	Wait      int64   // µs a skipped server idles before asking again

	adjStart, adj []int32 // server -> tasks preferring it
	next          []int32 // per server: cursor into its tasks
	free, fpos    []int32 // unassigned tasks (swap-remove) and their positions
	fin           []int64 // per server: when its work ends at the current C_rem
	nrem          []int32 // per server: remote tasks handed to it
	remSrv        []int32 // servers with a remote task
	ask, busy     srvHeap // busy holds the servers whose work has not ended
	alloc         replay.Allocation
}

// buildAdj fills start/adj with each server's preferring tasks, ascending:
// server s's are adj[start[s]:start[s+1]]. cursor is scratch space of at least
// p.Servers entries.
func buildAdj(p *replay.AllocProblem, start, adj, cursor []int32) ([]int32, []int32) {
	n := p.Servers
	start = grow(start, n+1)
	clear(start)
	for _, s := range p.Replicas {
		start[s+1]++
	}
	for s := range n {
		start[s+1] += start[s]
	}
	adj = grow(adj, len(p.Replicas))
	copy(cursor, start[:n])
	for t := range p.Tasks() {
		for _, s := range p.Preferred(int32(t)) {
			adj[cursor[s]] = int32(t)
			cursor[s]++
		}
	}
	return start, adj
}

// Solve allocates p's tasks. The result is the solver's own and valid until the
// next call. rng picks the random tasks; with a nil rng the last unassigned
// task in the solver's list is taken.
func (g *GreedySolver) Solve(p *replay.AllocProblem, rng *rand.Rand) *replay.Allocation {
	n, m := p.Servers, p.Tasks()
	g.next = grow(g.next, n)
	g.adjStart, g.adj = buildAdj(p, g.adjStart, g.adj, g.next)
	copy(g.next, g.adjStart[:n])
	g.free, g.fpos = grow(g.free, m), grow(g.fpos, m)
	a := &g.alloc
	a.Server, a.Release, a.Order = grow(a.Server, m), grow(a.Release, m), grow(a.Order, m)[:0]
	for t := range m {
		g.free[t], g.fpos[t], a.Server[t] = int32(t), int32(t), -1
	}
	g.fin, g.nrem = grow(g.fin, n), grow(g.nrem, n)
	copy(g.fin, p.Init)
	clear(g.nrem)
	g.remSrv = g.remSrv[:0]
	g.ask.heapify(p.Init)
	g.busy.heapify(p.Init)
	idle := 0
	limit := int(math.Round(g.Threshold * float64(n)))
	skips, remote := 0, 0
	for len(g.free) > 0 {
		s := g.ask.top()
		now := g.ask.key[s]
		for g.busy.len() > 0 && g.busy.key[g.busy.top()] <= now {
			g.busy.pop()
			idle++
		}
		t := g.localTask(s)
		if t < 0 {
			switch g.rule {
			case ruleDS:
				if skips < limit {
					skips++
					g.ask.fix(s, now+g.Wait)
					continue
				}
			case ruleGCC:
				if float64(n-idle) > g.Util*float64(n) {
					g.ask.fix(s, now+g.Wait)
					continue
				}
			}
			k := len(g.free) - 1
			if rng != nil {
				k = rng.IntN(len(g.free))
			}
			t = g.free[k]
		}
		skips = 0
		g.take(t)
		a.Server[t], a.Release[t] = s, now
		a.Order = append(a.Order, t)
		cost := p.LocalCost
		if !p.Prefers(t, s) {
			remote++
			cost = p.RemoteCost(remote)
			g.renew(p.Q, s, now, &idle)
			if g.nrem[s] == 0 {
				g.remSrv = append(g.remSrv, s)
			}
			g.nrem[s]++
		}
		g.fin[s] = max(g.fin[s], now) + cost
		g.ask.fix(s, g.fin[s])
		idle--
		g.busy.push(s, g.fin[s])
	}
	return a
}

// renew re-prices the remote tasks handed out so far at one more remote task:
// each server's work ends q later per remote task it has. Server self is being
// handed a task and is in neither heap's right place yet: only its finish moves.
func (g *GreedySolver) renew(q int64, self int32, now int64, idle *int) {
	if q == 0 {
		return
	}
	for _, s := range g.remSrv {
		g.fin[s] += int64(g.nrem[s]) * q
		if s == self {
			continue
		}
		if g.busy.has(s) {
			g.busy.fix(s, g.fin[s])
		} else if g.fin[s] > now {
			g.busy.push(s, g.fin[s])
			*idle--
		}
		if g.ask.key[s] < g.fin[s] {
			g.ask.fix(s, g.fin[s])
		}
	}
}

// localTask returns the lowest-indexed unassigned task that prefers s, or -1.
func (g *GreedySolver) localTask(s int32) int32 {
	for end := g.adjStart[s+1]; g.next[s] < end; g.next[s]++ {
		if t := g.adj[g.next[s]]; g.alloc.Server[t] < 0 {
			return t
		}
	}
	return -1
}

// take removes task t from the unassigned list.
func (g *GreedySolver) take(t int32) {
	i, last := g.fpos[t], g.free[len(g.free)-1]
	g.free[i], g.fpos[last] = last, i
	g.free = g.free[:len(g.free)-1]
	g.alloc.Server[t] = 0 // marked assigned; the caller sets the server
}
