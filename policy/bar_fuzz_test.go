package policy

import (
	"math/rand/v2"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// barProblemFromBytes decodes an arbitrary small problem: servers, replication, C_loc,
// q and extra from the first bytes, then per server a load and per task the
// first of its replicas, which sit on consecutive (so distinct) servers.
func barProblemFromBytes(data []byte) *replay.AllocProblem {
	at := 0
	next := func() int {
		if at >= len(data) {
			return 0
		}
		at++
		return int(data[at-1])
	}
	servers := 1 + next()%12
	p := &replay.AllocProblem{Servers: servers, Replication: 1 + next()%min(3, servers),
		LocalCost: int64(1+next()%30) * sec, Q: int64(next()%11) * sec, RemoteExtra: int64(next()%3) * sec}
	for range servers {
		p.Init = append(p.Init, int64(next()*next()%2000)*sec/10)
	}
	tasks := 1 + next()%40
	for range tasks {
		base := next()
		for k := range p.Replication {
			p.Replicas = append(p.Replicas, int32((base+k)%servers))
		}
	}
	return p
}

// FuzzStaticAllocators: every static allocator returns a total allocation of
// any valid problem; the balance phase satisfies the balance policy; BAR never
// does worse than its balanced allocation.
func FuzzStaticAllocators(f *testing.F) {
	f.Add([]byte{3, 1, 9, 1, 0, 71, 1, 42, 1, 3, 1, 7, 0, 1, 1, 2, 2, 0, 2, 0, 0, 1, 0, 1, 0, 1})
	f.Add([]byte{11, 2, 19, 10, 2, 200, 200, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 39})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := barProblemFromBytes(data)
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded an invalid problem: %v", err)
		}
		var b balancer
		b.balance(p)
		barCheckBalanced(t, p, b.net.alloc)
		bal, _ := p.Evaluate(&replay.Allocation{Server: b.net.alloc}, nil)
		for _, name := range StaticNames() {
			a, err := NewAllocator(name)
			if err != nil {
				t.Fatal(err)
			}
			alloc, err := a.Allocate(p, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			o, err := p.Evaluate(alloc, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if name == "bar" && o.Makespan > bal.Makespan {
				t.Fatalf("bar makespan %d worse than balanced %d", o.Makespan, bal.Makespan)
			}
		}
	})
}
