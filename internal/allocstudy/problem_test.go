package allocstudy

import (
	"strings"
	"testing"
)

const allocSec = 1_000_000

func TestEvaluate(t *testing.T) {
	// Two servers at 0 and 5 s; t0 prefers s0, t1 prefers s1, t2 prefers s0;
	// C_loc 10 s, C_rem(r) = 10 + 2 + 1·r s.
	p := &Problem{Servers: 2, Replication: 1, Replicas: []int32{0, 1, 0}, Init: []int64{0, 5 * allocSec},
		LocalCost: 10 * allocSec, RemoteExtra: 2 * allocSec, Q: allocSec}
	cases := []struct {
		name     string
		a        Allocation
		makespan int64
		remote   int
		err      string
	}{
		{name: "all local", a: Allocation{Server: []int32{0, 1, 0}}, makespan: 20 * allocSec},
		{name: "one remote", a: Allocation{Server: []int32{0, 1, 1}}, makespan: 28 * allocSec, remote: 1},          // s1: 5+10+13
		{name: "two remote", a: Allocation{Server: []int32{1, 0, 0}}, makespan: 24 * allocSec, remote: 2},          // s0: 14+10, s1: 5+14
		{name: "idle server ignored", a: Allocation{Server: []int32{0, 0, 0}}, makespan: 33 * allocSec, remote: 1}, // 10+13+10
		{name: "release binds", a: Allocation{Server: []int32{0, 1, 0}, Release: []int64{0, 0, 30 * allocSec}}, makespan: 40 * allocSec},
		{name: "order matters with releases", a: Allocation{Server: []int32{0, 1, 0}, Release: []int64{20 * allocSec, 0, 0},
			Order: []int32{2, 1, 0}}, makespan: 30 * allocSec},
		{name: "short", a: Allocation{Server: []int32{0}}, err: "covers 1 tasks"},
		{name: "bad server", a: Allocation{Server: []int32{0, 2, 0}}, err: "outside 0..1"},
		{name: "bad order", a: Allocation{Server: []int32{0, 1, 0}, Order: []int32{0, 0, 1}}, err: "not a permutation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := p.Evaluate(&c.a, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.Makespan != c.makespan || o.Remote != c.remote || o.Local != 3-c.remote {
				t.Errorf("makespan %v s, remote %d, local %d; want %v s, %d", float64(o.Makespan)/allocSec, o.Remote, o.Local,
					float64(c.makespan)/allocSec, c.remote)
			}
		})
	}
}

func TestProblemValidate(t *testing.T) {
	ok := Problem{Servers: 2, Replication: 1, Replicas: []int32{0, 1}, Init: []int64{0, 0}, LocalCost: 1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Problem){
		"no server":     func(p *Problem) { p.Servers = 0 },
		"replication":   func(p *Problem) { p.Replication = 0 },
		"loads":         func(p *Problem) { p.Init = []int64{0} },
		"cost":          func(p *Problem) { p.LocalCost = 0 },
		"replica range": func(p *Problem) { p.Replicas = []int32{0, 2} },
		"negative load": func(p *Problem) { p.Init = []int64{0, -1} },
	} {
		p := ok
		p.Replicas, p.Init = append([]int32(nil), ok.Replicas...), append([]int64(nil), ok.Init...)
		mut(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
