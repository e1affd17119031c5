package policy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// barGreedyCase is a hand-worked compile-time run: every task prefers server 0 only,
// C_loc 10 s, C_rem(r) = 10 + q·r s, all servers start idle at 0.
type barGreedyCase struct {
	name     string
	spec     string
	servers  int
	tasks    int
	q        int64
	server   []int32 // where each task goes
	release  []int64 // when it is handed out, s
	makespan int64   // s
	remote   int
}

// TestGreedyHandWorked, with a nil rng (a random pick takes the last task of the
// solver's list: after t0 is taken by swap-remove the list is t_last, t1, …):
//
//   - hds, 2 servers, 3 tasks: s0 takes t0 at 0; s1 at 0 has nothing local and
//     takes t1 remote (11 s); s0 takes t2 at 10. Makespan 20, 1 remote.
//   - ds0.5 (limit 1 skip), same: s1 skips at 0, asks again at 3 and takes t1
//     remote (3 + 11 = 14); s0 ends at 20.
//   - gcc util 0.4 (skip while busy > 0.8 servers): s1 skips while s0 is busy
//     and never takes a task; s0 runs all three, makespan 30, all local.
//   - hds, 3 servers, 5 tasks, q 5: s1 takes t3 remote (15 s) at 0, s2 takes t2
//     at 0 (r = 2: 20 s), which re-prices s1's task to 20 s; s0 takes t1 at 10,
//     and at 20 s the tie among all three goes to s0, which takes t4 locally.
//     Without the re-pricing s1 would have asked at 15 and taken it remote.
func TestGreedyHandWorked(t *testing.T) {
	cases := []barGreedyCase{
		{"hds", "hds", 2, 3, 1, []int32{0, 1, 0}, []int64{0, 0, 10}, 20, 1},
		{"ds", "ds0.15:threshold=0.5", 2, 3, 1, []int32{0, 1, 0}, []int64{0, 3, 10}, 20, 1},
		{"gcc", "gcc:util=0.4", 2, 3, 1, []int32{0, 0, 0}, []int64{0, 10, 20}, 30, 0},
		{"renew", "hds", 3, 5, 5, []int32{0, 0, 2, 1, 0}, []int64{0, 10, 0, 0, 20}, 30, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &replay.AllocProblem{Servers: c.servers, Replication: 1, Replicas: make([]int32, c.tasks),
				Init: make([]int64, c.servers), LocalCost: 10 * sec, Q: c.q * sec}
			a, err := NewAllocator(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			alloc, err := a.Allocate(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			rel := make([]int64, len(alloc.Release))
			for i, r := range alloc.Release {
				rel[i] = r / sec
			}
			if !slices.Equal(alloc.Server, c.server) || !slices.Equal(rel, c.release) {
				t.Errorf("servers %v released at %v s; want %v at %v", alloc.Server, rel, c.server, c.release)
			}
			o, err := p.Evaluate(alloc, nil)
			if err != nil {
				t.Fatal(err)
			}
			if o.Makespan != c.makespan*sec || o.Remote != c.remote {
				t.Errorf("makespan %d s, remote %d; want %d s, %d", o.Makespan/sec, o.Remote, c.makespan, c.remote)
			}
		})
	}
}

// TestGreedyTotalAndDeterministic: on random instances every greedy rule hands
// out every task once, and the same rng seed gives the same allocation.
func TestGreedyTotalAndDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 100 {
		p := barRandomProblem(rng, 2+rng.IntN(30), 1+rng.IntN(80), 1+rng.IntN(2), int64(rng.IntN(500))*sec, int64(rng.IntN(5))*sec)
		for _, spec := range []string{"hds", "ds0.15", "ds0.25", "gcc"} {
			a, _ := NewAllocator(spec)
			b, _ := NewAllocator(spec)
			x, err := a.Allocate(p, rand.New(rand.NewPCG(uint64(i), 9)))
			if err != nil {
				t.Fatal(err)
			}
			y, _ := b.Allocate(p, rand.New(rand.NewPCG(uint64(i), 9)))
			if !slices.Equal(x.Server, y.Server) || !slices.Equal(x.Release, y.Release) {
				t.Fatalf("%s, instance %d: two runs with the same seed differ", spec, i)
			}
			if _, err := p.Evaluate(x, nil); err != nil {
				t.Fatalf("%s, instance %d: %v", spec, i, err)
			}
		}
	}
}

// TestMaxCoverHandWorked on the placement of Examples 1-4. Iteration 1 (threshold
// 0.3 + 1 = 1.3) covers only t2 on s3; bal-assign prices the six others at the
// virtual cost C_rem(6) = 1.6 and gives t1 → s3, t3 → s3, t4 → s3, t5 → s2,
// t6 → s3, t7 → s2. Really t1 and t6 are remote at 1.2: loads 5.7 (s3) and 6.2
// (s2), makespan 6.2. No later iteration does better (iteration 8, the first to
// cover every task, gives the balanced 8.1), so the first 6.2 is returned.
func TestMaxCoverHandWorked(t *testing.T) {
	p := barExamplePlacement()
	var mc MaxCoverSolver
	got := mc.Solve(p)
	if want := []int32{2, 2, 2, 2, 1, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("allocation %v, want %v", got, want)
	}
	o, _ := p.Evaluate(&replay.Allocation{Server: got}, nil)
	if o.Makespan != 62*barTenth || o.Remote != 2 {
		t.Errorf("makespan %d, remote %d; want 6.2 s, 2", o.Makespan, o.Remote)
	}
}

// TestMaxCoverEqualLoadsIsFischer: with equal initial loads the threshold of
// iteration k is τ = k local tasks per server; on three tasks that all prefer
// server 0 of two, τ = 1 covers one task and puts the two others remote on s1
// then s0 (virtual C_rem(2) = 12), τ = 2 covers two and puts the third on s1,
// τ = 3 covers all three on s0. Makespans with q = 1: 22, 20 (s0 two local, s1
// one remote at 11), 30: the second is returned.
func TestMaxCoverEqualLoadsIsFischer(t *testing.T) {
	p := &replay.AllocProblem{Servers: 2, Replication: 1, Replicas: []int32{0, 0, 0}, Init: []int64{0, 0},
		LocalCost: 10 * sec, Q: sec}
	var mc MaxCoverSolver
	got := mc.Solve(p)
	o, _ := p.Evaluate(&replay.Allocation{Server: got}, nil)
	if o.Makespan != 20*sec || o.Remote != 1 {
		t.Errorf("allocation %v: makespan %d s, remote %d; want 20 s, 1", got, o.Makespan/sec, o.Remote)
	}
}
