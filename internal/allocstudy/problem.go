// Package allocstudy is the static task allocation problem of BAR (Jin et al.,
// CCGrid 2011) and its allocation study (§V): the problem and its cost model,
// the Allocator interface that package policy implements, and the runner that
// allocates every instance of a study with every algorithm and writes the rows
// (internal/results.AllocRow). It does not import the simulator: package replay
// builds a study's instances (HDFS placement over its topology) and hands them
// to Run.
package allocstudy

import (
	"fmt"
	"math/rand/v2"
)

// Problem is the static task allocation problem of BAR (Jin et al., CCGrid
// 2011, §III): m tasks of one job, n homogeneous servers, each task preferring the
// servers that hold a replica of its input block, an initial load per server, and
// the cost model C(t) = C_loc for a local task and C_rem(r) = C_loc + RemoteExtra +
// Q·r for a remote one, r being the number of remote tasks of the allocation
// (Eq. 2). RemoteExtra is 0 in the paper; the online policies use it for a fixed
// transfer time. Costs and loads are integer microseconds, so every comparison is
// exact.
type Problem struct {
	Servers     int
	Replication int     // preferred servers per task
	Replicas    []int32 // task i prefers Replicas[i*Replication : (i+1)*Replication]
	Init        []int64 // L_init per server
	LocalCost   int64   // C_loc
	RemoteExtra int64
	Q           int64 // network factor q
}

// Tasks is the number of tasks m.
func (p *Problem) Tasks() int {
	if p.Replication <= 0 {
		return 0
	}
	return len(p.Replicas) / p.Replication
}

// Preferred returns the servers task t prefers, S_pre(t).
func (p *Problem) Preferred(t int32) []int32 {
	r := p.Replication
	return p.Replicas[int(t)*r : int(t)*r+r]
}

// Prefers reports whether server s holds task t's input.
func (p *Problem) Prefers(t, s int32) bool {
	for _, x := range p.Preferred(t) {
		if x == s {
			return true
		}
	}
	return false
}

// RemoteCost is C_rem(r), the cost of every remote task when r tasks are remote.
func (p *Problem) RemoteCost(r int) int64 {
	return p.LocalCost + p.RemoteExtra + p.Q*int64(r)
}

// Validate checks that the problem is well formed: every task has at least one
// preferred server, every server index is in range, costs are positive.
func (p *Problem) Validate() error {
	if p.Servers < 1 {
		return fmt.Errorf("allocation problem: %d servers, want at least 1", p.Servers)
	}
	if p.Replication < 1 || len(p.Replicas)%p.Replication != 0 {
		return fmt.Errorf("allocation problem: %d replica entries for replication %d", len(p.Replicas), p.Replication)
	}
	if len(p.Init) != p.Servers {
		return fmt.Errorf("allocation problem: %d initial loads for %d servers", len(p.Init), p.Servers)
	}
	if p.LocalCost <= 0 || p.RemoteExtra < 0 || p.Q < 0 {
		return fmt.Errorf("allocation problem: C_loc %d must be positive, remote extra %d and q %d not negative",
			p.LocalCost, p.RemoteExtra, p.Q)
	}
	for i, s := range p.Replicas {
		if s < 0 || int(s) >= p.Servers {
			return fmt.Errorf("allocation problem: task %d prefers server %d, outside 0..%d", i/p.Replication, s, p.Servers-1)
		}
	}
	for s, l := range p.Init {
		if l < 0 {
			return fmt.Errorf("allocation problem: server %d has negative initial load %d", s, l)
		}
	}
	return nil
}

// Allocation is a total allocation: the server of every task. Release, when set,
// is the earliest time each task may start (a run-time scheduler simulated at
// compile time hands a task out when a server asks for work, §V-B); Order, when
// set, is the order in which the tasks were handed out, which is the order each
// server runs its tasks in. Without them every task is released at 0 and the
// makespan is exactly Eq. 8.
type Allocation struct {
	Server  []int32
	Release []int64
	Order   []int32
}

// Outcome is what an allocation achieves under the problem's cost model.
type Outcome struct {
	Makespan int64 // Eq. 8: the largest final load of an active server
	Local    int   // l^α, tasks placed on a preferred server
	Remote   int   // r^α
}

// Evaluate computes the allocation's makespan and locality. Each server starts at
// its initial load and runs its tasks one after the other, in Order if given, a
// task starting no earlier than its Release; a local task costs C_loc and every
// remote task C_rem(r^α) (Eqs. 1-8). finish is scratch space of at least Servers
// entries, or nil.
func (p *Problem) Evaluate(a *Allocation, finish []int64) (Outcome, error) {
	m := p.Tasks()
	if len(a.Server) != m {
		return Outcome{}, fmt.Errorf("allocation covers %d tasks, the problem has %d", len(a.Server), m)
	}
	if a.Release != nil && len(a.Release) != m || a.Order != nil && len(a.Order) != m {
		return Outcome{}, fmt.Errorf("allocation: release or order length differs from the %d tasks", m)
	}
	var o Outcome
	for t, s := range a.Server {
		if s < 0 || int(s) >= p.Servers {
			return Outcome{}, fmt.Errorf("allocation: task %d on server %d, outside 0..%d", t, s, p.Servers-1)
		}
		if p.Prefers(int32(t), s) {
			o.Local++
		}
	}
	o.Remote = m - o.Local
	rem := p.RemoteCost(o.Remote)
	if cap(finish) < p.Servers {
		finish = make([]int64, p.Servers)
	}
	finish = finish[:p.Servers]
	copy(finish, p.Init)
	if a.Order != nil {
		seen := make([]bool, m)
		for _, t := range a.Order {
			if t < 0 || int(t) >= m || seen[t] {
				return Outcome{}, fmt.Errorf("allocation: order is not a permutation of the %d tasks (entry %d)", m, t)
			}
			seen[t] = true
		}
	}
	for k := range m {
		t := int32(k)
		if a.Order != nil {
			t = a.Order[k]
		}
		s := a.Server[t]
		f := finish[s]
		if a.Release != nil {
			f = max(f, a.Release[t])
		}
		if p.Prefers(t, s) {
			f += p.LocalCost
		} else {
			f += rem
		}
		finish[s] = f
		o.Makespan = max(o.Makespan, f)
	}
	return o, nil
}

// Allocator computes an allocation for a problem; policy implements BAR and the
// baselines of its §V behind this interface (neither replay nor allocstudy imports policy).
type Allocator interface {
	// Name is the algorithm's registry name.
	Name() string
	// Allocate returns a total allocation of p's tasks; rng is the only source of
	// randomness it may use.
	Allocate(p *Problem, rng *rand.Rand) (*Allocation, error)
}
