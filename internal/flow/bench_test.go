package flow

import (
	"math/rand/v2"
	"slices"
	"testing"
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
