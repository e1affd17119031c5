package policy

import (
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
)

// Units of the paper's examples: C_loc = 1 and loads like 7.1, written here in
// tenths as whole seconds of microseconds (1 = 1 s), so that every sum is exact.
const barTenth = 100_000

// barExamplePlacement is Fig. 2 of the paper, which the text does not reproduce; it
// is reconstructed from Examples 1, 2 and 4. Example 1 makes t5 and t7 remote on
// s3 and t1, t2, t6 local on s2 and t3, t4 local on s3; Example 2 lets t1 and t7
// swap servers, so both prefer s1 and s2; Example 4 has t7 alone on s1 and s2
// with three tasks, so s3 holds exactly three replicas (t2, t3, t4) and the
// others' second replicas are on s1. Servers and tasks are 0-based here: s1 is 0.
func barExamplePlacement() *replay.AllocProblem {
	return &replay.AllocProblem{
		Servers:     3,
		Replication: 2,
		Replicas: []int32{
			0, 1, // t1
			1, 2, // t2
			2, 0, // t3
			2, 0, // t4
			0, 1, // t5
			0, 1, // t6
			0, 1, // t7
		},
		Init:      []int64{71 * barTenth, 42 * barTenth, 3 * barTenth}, // Table I
		LocalCost: 10 * barTenth,                                       // C_loc = 1
		Q:         1 * barTenth,                                        // C_rem(r) = 1 + 0.1·r
	}
}

// TestExample1Makespan: allocation β of Table II has two remote tasks costing
// 1.2 each, final loads 7.1 (idle), 7.2 and 4.7, and makespan 7.2.
func TestExample1Makespan(t *testing.T) {
	p := barExamplePlacement()
	beta := &replay.Allocation{Server: []int32{1, 1, 2, 2, 2, 1, 2}} // Table II
	o, err := p.Evaluate(beta, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Makespan != 72*barTenth || o.Remote != 2 || o.Local != 5 {
		t.Errorf("β: makespan %d, remote %d, local %d; want 7.2 s, 2, 5", o.Makespan, o.Remote, o.Local)
	}
	if c := p.RemoteCost(2); c != 12*barTenth {
		t.Errorf("C_rem(2) = %d, want 1.2 s", c)
	}
}

func barServerLoads(p *replay.AllocProblem, alloc []int32) []int64 {
	l := slices.Clone(p.Init)
	for _, s := range alloc {
		l[s] += p.LocalCost
	}
	return l
}

// barCheckBalanced verifies the balance policy (Definition 6, Eq. 9): no task's
// server, without it, is more loaded than any server it prefers.
func barCheckBalanced(t *testing.T, p *replay.AllocProblem, alloc []int32) {
	t.Helper()
	l := barServerLoads(p, alloc)
	for task, s := range alloc {
		if !p.Prefers(int32(task), s) {
			t.Fatalf("task %d on server %d, which it does not prefer", task, s)
		}
		for _, o := range p.Preferred(int32(task)) {
			if l[s]-p.LocalCost > l[o] {
				t.Fatalf("task %d on server %d (load %d) although it prefers server %d (load %d)", task, s, l[s], o, l[o])
			}
		}
	}
}

// TestExample2Balanced: the balance phase gives Fig. 3's allocation: t7 on s1,
// t1, t5, t6 on s2, t2, t3, t4 on s3, loads 8.1, 7.2, 3.3 (Example 4 starts from
// it), and it satisfies the balance policy.
func TestExample2Balanced(t *testing.T) {
	p := barExamplePlacement()
	var b balancer
	b.balance(p)
	want := []int32{1, 2, 2, 2, 1, 1, 0}
	if !slices.Equal(b.net.alloc, want) {
		t.Errorf("balanced allocation %v, want %v", b.net.alloc, want)
	}
	if l := barServerLoads(p, b.net.alloc); !slices.Equal(l, []int64{81 * barTenth, 72 * barTenth, 33 * barTenth}) {
		t.Errorf("loads %v, want 8.1, 7.2, 3.3 s", l)
	}
	barCheckBalanced(t, p, b.net.alloc)
}

// TestExample3AugmentingPath: servers with initial loads 3.1, 2.2, 1.9; flow f²
// has t'2 on s'2 and t'3 on s'3 (loads 3.1, 3.2, 2.9: the only reading of Fig.
// 5(a) that gives the loads the text states). s'3 is least loaded, and the path
// s'3 → t'2 → s'2 → t'1 → n^T gives B(t'1) = s'2, B(t'2) = B(t'3) = s'3. The
// whole balance phase from an empty flow reaches the same allocation.
func TestExample3AugmentingPath(t *testing.T) {
	p := &replay.AllocProblem{
		Servers: 3, Replication: 2,
		Replicas:  []int32{0, 1, 1, 2, 2, 0}, // t'1 {s'1, s'2}, t'2 {s'2, s'3}, t'3 {s'3, s'1}
		Init:      []int64{31 * barTenth, 22 * barTenth, 19 * barTenth},
		LocalCost: 10 * barTenth,
	}
	want := []int32{1, 2, 2}
	var f flowNet
	f.build(p)
	f.alloc[1], f.alloc[2] = 1, 2
	f.num[1], f.num[2] = 1, 1
	if !f.augment(2) {
		t.Fatal("no augmenting path from s'3")
	}
	if !slices.Equal(f.alloc, want) || !slices.Equal(f.num, []int32{0, 1, 2}) {
		t.Errorf("after the path: allocation %v, counts %v; want %v, [0 1 2]", f.alloc, f.num, want)
	}
	var b balancer
	b.balance(p)
	if !slices.Equal(b.net.alloc, want) {
		t.Errorf("balance phase: %v, want %v", b.net.alloc, want)
	}
}

// TestExample4Reduce: loop 1 moves t7 to the pool (M_exp 7.2, makespan 7.2), loop
// 2 a task of s2 (M_exp 6.2, makespan 6.2), loop 3 overshoots M_exp 5.2 and the
// phase returns loop 2's allocation, makespan 6.2.
//
// The paper reports loop 3's makespan as 7.2; that is s3 taking all three pooled
// tasks (3.3 + 3 × 1.3). Step 5 as written puts the third on the least-loaded
// server, s2 at 5.2, for 6.5. Both exceed M_exp and lose to loop 2, so the result
// is the same.
func TestExample4Reduce(t *testing.T) {
	p := barExamplePlacement()
	type loop struct{ expected, makespan int64 }
	var got []loop
	b := &BARSolver{Trace: func(_ int, e, m int64) { got = append(got, loop{e, m}) }}
	out := b.Solve(p, nil, nil)
	want := []loop{{72 * barTenth, 72 * barTenth}, {62 * barTenth, 62 * barTenth}, {52 * barTenth, 65 * barTenth}}
	if !slices.Equal(got, want) {
		t.Errorf("reduce loops (M_exp, makespan) %v, want %v", got, want)
	}
	o, err := p.Evaluate(&replay.Allocation{Server: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Makespan != 62*barTenth || o.Remote != 2 {
		t.Errorf("BAR: makespan %d, remote %d; want 6.2 s and 2 (t7 and a task of s2)", o.Makespan, o.Remote)
	}
	if out[6] != 2 {
		t.Errorf("t7 on server %d, want s3", out[6]+1)
	}
}
