package policy

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/replay"
)

// barFig9Instance is the largest instance of Fig. 9: 12,800 tasks, 2,000 servers, 3
// rack-aware replicas, C_loc 20 s, under one case of Table IV.
func barFig9Instance(b *testing.B, tasks int, c replay.AllocCase) *replay.AllocProblem {
	b.Helper()
	st := &replay.AllocStudy{Systems: []replay.AllocSystem{{Name: "fig9", Servers: 2000, Tasks: tasks}}, Cases: []replay.AllocCase{c}}
	p, err := st.Instance(st.Systems[0], c, 1)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

var barBenchCases = []replay.AllocCase{
	{Name: "a", Q: replay.Duration(10 * time.Second / time.Microsecond), W: replay.Duration(40 * time.Second / time.Microsecond)},
	{Name: "b", Q: replay.Duration(1 * time.Second / time.Microsecond), W: replay.Duration(1000 * time.Second / time.Microsecond)},
	{Name: "c", Q: replay.Duration(10 * time.Second / time.Microsecond), W: replay.Duration(1000 * time.Second / time.Microsecond)},
}

// BenchmarkStatic12800 times every static allocator on 12,800 tasks and 2,000
// servers (the right end of Fig. 9). Compare bar with hds for the ratio the
// issue asks for: go test ./policy -run '^$' -bench Static12800.
func BenchmarkStatic12800(b *testing.B) {
	for _, c := range barBenchCases {
		p := barFig9Instance(b, 12800, c)
		for _, name := range []string{"bar", "hds", "ds0.15", "ds0.25", "gcc", "maxcover-balassign"} {
			b.Run(fmt.Sprintf("case=%s/%s", c.Name, name), func(b *testing.B) {
				a, err := NewAllocator(name)
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 1))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := a.Allocate(p, rng); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
