package policy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// barRandomProblem draws a small instance: servers, tasks, replicas per task on
// distinct servers, initial loads on [0, w], C_loc 20 s and q.
func barRandomProblem(rng *rand.Rand, servers, tasks, repl int, w, q int64) *replay.AllocProblem {
	p := &replay.AllocProblem{Servers: servers, Replication: repl, LocalCost: 20 * sec, Q: q}
	for range tasks {
		perm := rng.Perm(servers)[:repl]
		for _, s := range perm {
			p.Replicas = append(p.Replicas, int32(s))
		}
	}
	for range servers {
		p.Init = append(p.Init, rng.Int64N(w+1))
	}
	return p
}

// barLiteralBalance is Alg. 1 as printed, without our shortcuts: every iteration
// clears the visited marks, scans all servers for the least-loaded unvisited one
// and grows a breadth-first tree over unvisited nodes; a tree that finds no
// unassigned task is marked visited for the rest of the iteration.
func barLiteralBalance(p *replay.AllocProblem) []int32 {
	n, m := p.Servers, p.Tasks()
	alloc := make([]int32, m)
	for i := range alloc {
		alloc[i] = -1
	}
	num := make([]int64, n)
	for range m {
		visS := make([]bool, n)
		visT := make([]bool, m)
		for found := false; !found; {
			s0 := -1
			for s := range n {
				if !visS[s] && (s0 < 0 || p.Init[s]+num[s]*p.LocalCost < p.Init[s0]+num[s0]*p.LocalCost) {
					s0 = s
				}
			}
			inS := map[int]int{s0: -1} // server -> task it was reached through
			inT := map[int]int{}       // task -> server it was reached from
			queue := []int{s0}
			for qi := 0; qi < len(queue) && !found; qi++ {
				u := queue[qi]
				for t := range m {
					if !p.Prefers(int32(t), int32(u)) || int(alloc[t]) == u || visT[t] {
						continue
					}
					if _, ok := inT[t]; ok {
						continue
					}
					inT[t] = u
					if alloc[t] < 0 {
						for x := t; ; {
							v := inT[x]
							alloc[x] = int32(v)
							if v == s0 {
								break
							}
							x = inS[v]
						}
						num[s0]++
						found = true
						break
					}
					if _, ok := inS[int(alloc[t])]; !ok && !visS[alloc[t]] {
						inS[int(alloc[t])] = t
						queue = append(queue, int(alloc[t]))
					}
				}
			}
			if !found {
				for s := range inS {
					visS[s] = true
				}
				for t := range inT {
					visT[t] = true
				}
			}
		}
	}
	return alloc
}

// barBestLocal is the least makespan over every local total allocation, by
// exhaustion.
func barBestLocal(p *replay.AllocProblem) int64 {
	m := p.Tasks()
	choice := make([]int, m)
	alloc := make([]int32, m)
	best := int64(-1)
	for {
		for t := range m {
			alloc[t] = p.Preferred(int32(t))[choice[t]]
		}
		o, _ := p.Evaluate(&replay.Allocation{Server: alloc}, nil)
		if best < 0 || o.Makespan < best {
			best = o.Makespan
		}
		t := 0
		for t < m && choice[t] == p.Replication-1 {
			choice[t] = 0
			t++
		}
		if t == m {
			return best
		}
		choice[t]++
	}
}

// TestBalanceProperties, on random instances: the balance phase assigns every
// task to a preferred server following the balance policy, makes exactly the
// choices of Alg. 1 run literally, and reaches the least makespan of all local
// allocations (Theorem 1).
func TestBalanceProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var b balancer
	for i := range 300 {
		servers := 2 + rng.IntN(5)
		repl := 1 + rng.IntN(min(3, servers))
		tasks := 1 + rng.IntN(8)
		if repl == 3 {
			tasks = min(tasks, 6)
		}
		p := barRandomProblem(rng, servers, tasks, repl, []int64{0, 30 * sec, 200 * sec}[i%3], sec)
		b.balance(p)
		barCheckBalanced(t, p, b.net.alloc)
		if lit := barLiteralBalance(p); !slices.Equal(lit, b.net.alloc) {
			t.Fatalf("instance %d: balance %v, Alg. 1 literally %v", i, b.net.alloc, lit)
		}
		o, _ := p.Evaluate(&replay.Allocation{Server: b.net.alloc}, nil)
		if best := barBestLocal(p); o.Makespan != best {
			t.Fatalf("instance %d: balanced makespan %d, best local %d", i, o.Makespan, best)
		}
	}
}

// TestBalanceLargeMatchesLiteral checks the shortcuts on instances big enough for
// long augmenting paths and failed searches.
func TestBalanceLargeMatchesLiteral(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b balancer
	for i := range 20 {
		p := barRandomProblem(rng, 10+rng.IntN(20), 30+rng.IntN(60), 1+rng.IntN(3), int64(rng.IntN(300))*sec, sec)
		b.balance(p)
		if lit := barLiteralBalance(p); !slices.Equal(lit, b.net.alloc) {
			t.Fatalf("instance %d: balance differs from Alg. 1 run literally", i)
		}
		barCheckBalanced(t, p, b.net.alloc)
	}
}

// TestBARNeverWorseThanBalanced: the reduce phase returns B or a better R, and a
// reused solver gives what a fresh one gives.
func TestBARNeverWorseThanBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var reused BARSolver
	var out []int32
	for i := range 200 {
		p := barRandomProblem(rng, 1+rng.IntN(12), 1+rng.IntN(40), 1, int64(rng.IntN(200))*sec, int64(rng.IntN(10))*sec)
		if p.Servers >= 3 && i%2 == 0 {
			p = barRandomProblem(rng, p.Servers, p.Tasks(), 3, p.Init[0], p.Q)
		}
		var fresh BARSolver
		want := fresh.Solve(p, rand.New(rand.NewPCG(uint64(i), 0)), nil)
		out = reused.Solve(p, rand.New(rand.NewPCG(uint64(i), 0)), out)
		if !slices.Equal(want, out) {
			t.Fatalf("instance %d: reused solver %v, fresh %v", i, out, want)
		}
		bar, err := p.Evaluate(&replay.Allocation{Server: out}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bal, _ := p.Evaluate(&replay.Allocation{Server: fresh.bal.net.alloc}, nil)
		if bar.Makespan > bal.Makespan {
			t.Fatalf("instance %d: BAR makespan %d worse than balanced %d", i, bar.Makespan, bal.Makespan)
		}
	}
}
