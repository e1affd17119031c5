package flow

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// fb3000 is samples/hardware/fb-3000.toml's cluster in bytes per second: 75
// racks × 40 nodes, 125 MB/s NICs, 1,250 MB/s rack uplinks (4:1 at the rack),
// one 100 MB/s disk per node.
func fb3000(coreRatio float64) Cluster {
	return Cluster{Racks: 75, NodesPerRack: 40, NICBytesPerSec: 125e6, UplinkBytesPerSec: 1250e6,
		CoreRatio: coreRatio, DisksPerNode: 1, DiskBytesPerSec: 100e6}
}

// BenchmarkAddRemove measures an engine's steady state on the 3,000-node
// cluster with 10,000 concurrent flows: each op removes the flow that finishes
// next, at its finish time, and starts a new one then, so the count stays at
// 10,000. A flow reads the source node's disk and crosses the network to a
// random node: anywhere ("all-to-all", like a shuffle, nearly every flow
// crossing racks) or in the same rack 90% of the time ("rack-local"); with a
// non-blocking core or one oversubscribed 4:1. ns/flow-op is ns/op over 2
// (one remove and one add per op), cpu-ns/flow-op the same in CPU time of the
// process (a fairer figure on a shared machine; it includes the garbage
// collector's), and retimed/op the number of flows whose finish time moved per
// op, besides the flow added. Each case runs with the incremental solver (as
// used) and with full re-solves of the component only.
func BenchmarkAddRemove(b *testing.B) {
	for _, bc := range []struct {
		name      string
		core      float64
		rackLocal float64
	}{
		{"all-to-all/core=1", 1, 0},
		{"all-to-all/core=4", 4, 0},
		{"rack-local/core=1", 1, 0.9},
		{"rack-local/core=4", 4, 0.9},
	} {
		for _, solver := range []string{"incremental", "full"} {
			b.Run(bc.name+"/"+solver, func(b *testing.B) {
				benchAddRemove(b, bc.core, bc.rackLocal, solver == "full")
			})
		}
	}
}

// benchAddRemove runs one case of BenchmarkAddRemove.
func benchAddRemove(b *testing.B, core, rackLocal float64, fullOnly bool) {
	n := New()
	n.fullOnly = fullOnly
	top, err := fb3000(core).Build(n)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3000, 10000))
	nodes := top.Nodes()
	var path []ResourceID
	next := FlowID(0)
	draw := func() {
		src := rng.IntN(nodes)
		dst := rng.IntN(nodes)
		if rng.Float64() < rackLocal {
			dst = top.Rack(src)*top.NodesPerRack + rng.IntN(top.NodesPerRack)
		}
		d, _ := top.Disk(src, 0)
		path = append(path[:0], d)
		path, _ = top.Path(path, src, dst)
	}
	add := func(at int64) int {
		draw()
		ch, err := n.Add(at, next, 1+rng.Int64N(256<<20), path)
		if err != nil {
			b.Fatal(err)
		}
		next++
		return len(ch) - 1
	}
	specs := make([]Spec, 10_000)
	for i := range specs {
		draw()
		specs[i] = Spec{ID: next, Bytes: 1 + rng.Int64N(256<<20), Path: slices.Clone(path)}
		next++
	}
	if _, err := n.AddBatch(0, specs); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := cpuNanos()
	retimed := 0
	for b.Loop() {
		id, at, _ := n.Next()
		ch, err := n.Remove(at, id)
		if err != nil {
			b.Fatal(err)
		}
		retimed += len(ch)
		retimed += add(at)
	}
	cpu := cpuNanos() - cpu0
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/flow-op")
	b.ReportMetric(float64(cpu)/float64(2*b.N), "cpu-ns/flow-op")
	b.ReportMetric(float64(retimed)/float64(b.N), "retimed/op")
	if n.Active() != 10_000 {
		b.Fatalf("%d flows active", n.Active())
	}
}

// engineSpecs draws flows shaped like the engine's under network = "flow",
// flow_shuffle = "batch" (h-fill's BenchmarkSettle, branch h-fill): map reads
// from a node's disk (half of them local, the rest across the network),
// spills to a disk, and batch rounds, a reduce's disk and NIC in (and
// downlink, for a round from other racks) with 2 to 8 sources each loading
// its disk and NIC out, and for a far round its rack's uplink, by its share
// of the round's bytes.
type engineSpecs struct {
	rng  *rand.Rand
	top  *Topology
	path []ResourceID
	wts  []float64 // nil: unweighted
	srcs []int
	next FlowID
}

func newEngineSpecs(rng *rand.Rand, top *Topology) *engineSpecs {
	return &engineSpecs{rng: rng, top: top}
}

// draw sets path and wts to a new flow's.
func (g *engineSpecs) draw() {
	rng, top := g.rng, g.top
	nodes := top.Nodes()
	disk := func(node int) ResourceID { d, _ := top.Disk(node, 0); return d }
	g.path, g.wts = g.path[:0], g.wts[:0]
	dst := rng.IntN(nodes)
	switch k := rng.IntN(10); {
	case k < 4: // a map read
		src := dst
		if rng.IntN(2) == 0 {
			src = rng.IntN(nodes)
		}
		g.path = append(g.path, disk(src))
		if src != dst {
			g.path, _ = top.Path(g.path, src, dst)
			g.path = append(g.path, disk(dst))
		}
	case k < 6: // a spill
		g.path = append(g.path, disk(dst))
	default: // a batch round
		far := rng.IntN(2) == 0
		g.path, _ = top.Inbound(g.path, dst, far)
		g.path = append(g.path, disk(dst))
		for range len(g.path) {
			g.wts = append(g.wts, 1)
		}
		g.srcs = g.srcs[:0]
		first, end := top.RackNodes(top.Rack(dst))
		for len(g.srcs) < 2+rng.IntN(min(7, end-first-2)) {
			s := first + rng.IntN(end-first)
			if far {
				s = rng.IntN(nodes)
			}
			if s == dst || slices.Contains(g.srcs, s) || (far && top.Rack(s) == top.Rack(dst)) {
				continue
			}
			g.srcs = append(g.srcs, s)
		}
		share := make([]float64, top.Racks())
		var racks []int
		for _, s := range g.srcs {
			w := 1 / float64(len(g.srcs))
			o, _ := top.NICOut(s)
			g.path = append(g.path, disk(s), o)
			g.wts = append(g.wts, w, w)
			if rk := top.Rack(s); far {
				if share[rk] == 0 {
					racks = append(racks, rk)
				}
				share[rk] += w
			}
		}
		for _, rk := range racks {
			u, _ := top.Uplink(rk)
			g.path = append(g.path, u)
			g.wts = append(g.wts, share[rk])
		}
	}
}

// spec draws a new flow, its ID the next.
func (g *engineSpecs) spec() Spec {
	g.draw()
	sp := Spec{ID: g.next, Bytes: 1 + g.rng.Int64N(256<<20), Path: slices.Clone(g.path)}
	if len(g.wts) > 0 {
		sp.Weights = slices.Clone(g.wts)
	}
	g.next++
	return sp
}

// BenchmarkSettle measures the deferred re-solves of the rate-update quantum
// on the 3,000-node cluster with about 2,400 flows under way, the size of a
// full re-solve on FB-2010's day under network = "flow", flow_shuffle =
// "batch", flow_update = "1s" (docs/network-model.md, "Cheaper re-solves"),
// h-fill's benchmark: each op is one quantum of 1 s, in which the flows that
// finish end and as many new ones start (all deferred), then Settle. The
// flows are engineSpecs'. ns/flow is the settles' time over the flows they
// re-solved (incremental and full), cpu-ns/flow the same in the process's
// CPU time; flows/op those flows, ends/op the flows that ended (and started)
// in a quantum, and end-cpu-ns/end the CPU time of those ends and starts
// (Remove and AddBatch, deferred) per end. Each case runs with the
// incremental solver (as used) and with full re-solves only.
func BenchmarkSettle(b *testing.B) {
	for _, solver := range []string{"incremental", "full"} {
		b.Run(solver, func(b *testing.B) { benchSettle(b, solver == "full") })
	}
}

// settleQuantum is BenchmarkSettle's and BenchmarkEnds' rate-update
// quantum, 1 s in µs.
const settleQuantum = 1_000_000

// settleNetwork is BenchmarkSettle's and BenchmarkEnds' network: fb-3000's
// shape under a 1 s quantum with 2,400 engine-shaped flows started at 0,
// and the generator that drew them, to draw the flows that follow.
func settleNetwork(b *testing.B, fullOnly bool) (*Network, *engineSpecs) {
	b.Helper()
	const active = 2400
	n := New()
	n.fullOnly = fullOnly
	top, err := fb3000(1).Build(n)
	if err != nil {
		b.Fatal(err)
	}
	if err := n.SetUpdateQuantum(settleQuantum); err != nil {
		b.Fatal(err)
	}
	g := newEngineSpecs(rand.New(rand.NewPCG(2010, 3000)), top)
	specs := make([]Spec, active)
	for i := range specs {
		specs[i] = g.spec()
	}
	if _, err := n.AddBatch(0, specs); err != nil {
		b.Fatal(err)
	}
	return n, g
}

// benchSettle runs one case of BenchmarkSettle.
func benchSettle(b *testing.B, fullOnly bool) {
	n, g := settleNetwork(b, fullOnly)
	one := make([]Spec, 1)
	st0 := n.Stats()
	var cpu, wall, endCPU int64
	changes := 0
	for b.Loop() {
		due := n.Now() + settleQuantum
		cpu0 := cpuNanos()
		for {
			id, at, ok := n.Next()
			if !ok || at >= due {
				break
			}
			if _, err := n.Remove(at, id); err != nil {
				b.Fatal(err)
			}
			changes++
			one[0] = g.spec()
			if _, err := n.AddBatch(at, one); err != nil {
				b.Fatal(err)
			}
		}
		cpu1, t0 := cpuNanos(), time.Now()
		endCPU += cpu1 - cpu0
		if _, err := n.Settle(due); err != nil {
			b.Fatal(err)
		}
		wall += time.Since(t0).Nanoseconds()
		cpu += cpuNanos() - cpu1
	}
	st := n.Stats()
	flows := float64(st.LocalFlows + st.FullFlows - st0.LocalFlows - st0.FullFlows)
	b.ReportMetric(float64(wall)/flows, "ns/flow")
	b.ReportMetric(float64(cpu)/flows, "cpu-ns/flow")
	b.ReportMetric(flows/float64(b.N), "flows/op")
	b.ReportMetric(float64(changes)/float64(b.N), "ends/op")
	b.ReportMetric(float64(endCPU)/float64(changes), "end-cpu-ns/end")
}

// BenchmarkEnds measures the bookkeeping of flow ends and starts alone (the
// network's Remove and AddBatch paths, the finish heap's removal and push),
// as BenchmarkSettle's end-cpu-ns/end does but without drawing the flows in
// the timed part: BenchmarkSettle's network and 1 s quantum, each op one
// quantum in which every flow that finishes is removed and a flow drawn
// beforehand (engineSpecs) starts in its place with its ID, as the engine
// reuses a freed ID; then Settle, not timed. cpu-ns/end is the CPU time of
// one Remove and one AddBatch of one flow, ends/op their number a quantum.
func BenchmarkEnds(b *testing.B) {
	n, g := settleNetwork(b, false)
	pool := make([]Spec, 1<<14)
	for i := range pool {
		pool[i] = g.spec()
	}
	one := make([]Spec, 1)
	var cpu int64
	ends, next := 0, 0
	for b.Loop() {
		due := n.Now() + settleQuantum
		cpu0 := cpuNanos()
		for {
			id, at, ok := n.Next()
			if !ok || at >= due {
				break
			}
			if _, err := n.Remove(at, id); err != nil {
				b.Fatal(err)
			}
			one[0] = pool[next%len(pool)]
			one[0].ID = id
			next++
			if _, err := n.AddBatch(at, one); err != nil {
				b.Fatal(err)
			}
			ends++
		}
		cpu += cpuNanos() - cpu0
		if _, err := n.Settle(due); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(ends), "cpu-ns/end")
	b.ReportMetric(float64(ends)/float64(b.N), "ends/op")
}
