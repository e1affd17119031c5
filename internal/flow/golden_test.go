package flow

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// goldenExact and goldenQuantum are TestSolverGolden's checksums without
// and with a rate-update quantum. goldenExact is as main e19f5a1's solver
// computes it: the solver's data layout may change, its floating-point
// operations and their order may not. goldenQuantum is as main computes it
// since the equal share (h-provshare, 2026-11-28): a flow added while a
// solve is deferred gets the larger of its path's spare capacity and the
// equal share (quantum.go), where before it got the spare alone
// (0xbaaf324b5e32a0f1 was the two sums in one, before the split).
const (
	goldenExact   = 0xd9bca9f12cc5a66e
	goldenQuantum = 0xfd8087447bedfba8
)

// TestSolverGolden drives networks shaped like the engine's (a cluster of 6
// racks × 8 nodes with disks, 20 or 300 flows at first and an oversubscribed core; map reads, spills and
// weighted batch rounds, engineSpec) through flow ends, cancellations, batches
// of starts and rate probes, with and without a rate-update quantum, with the
// incremental solver and with full solves only, and checks a checksum of every
// change reported (flow, finish), every probed rate and every active flow's
// rate and finish after each step, bit for bit, against goldenExact (exact
// max-min) and goldenQuantum (a 1 s quantum): a refactoring of the solver
// must not move a single bit of a rate.
func TestSolverGolden(t *testing.T) {
	for _, c := range []struct {
		quantum int64
		want    uint64
	}{{0, goldenExact}, {1_000_000, goldenQuantum}} {
		h := fnv.New64a()
		var buf [8]byte
		put := func(v uint64) {
			binary.LittleEndian.PutUint64(buf[:], v)
			h.Write(buf[:])
		}
		for _, fullOnly := range []bool{false, true} {
			for seed := range uint64(4) {
				for _, initial := range []int{20, 300} {
					goldenRun(t, seed, initial, c.quantum, fullOnly, put)
				}
			}
		}
		if sum := h.Sum64(); sum != c.want {
			t.Errorf("quantum %d µs: checksum %#x, want %#x: a rate or finish time moved", c.quantum, sum, c.want)
		}
	}
}

// goldenRun is one network of TestSolverGolden, initial flows at first,
// feeding put what it checks.
func goldenRun(t *testing.T, seed uint64, initial int, quantum int64, fullOnly bool, put func(uint64)) {
	t.Helper()
	n := New()
	n.fullOnly = fullOnly
	top, err := Cluster{Racks: 6, NodesPerRack: 8, NICBytesPerSec: 125e6, UplinkBytesPerSec: 500e6,
		CoreRatio: 2, DisksPerNode: 1, DiskBytesPerSec: 100e6}.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.SetUpdateQuantum(quantum); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 13))
	g := newEngineSpecs(rng, top)
	var active []FlowID
	changes := func(ch []Change) {
		for _, c := range ch {
			put(uint64(c.Flow))
			put(uint64(c.Finish))
		}
	}
	specs := make([]Spec, initial)
	for i := range specs {
		specs[i] = g.spec()
		active = append(active, specs[i].ID)
	}
	ch, err := n.AddBatch(0, specs)
	if err != nil {
		t.Fatal(err)
	}
	changes(ch)
	for range 400 {
		if due, ok := n.Due(); ok {
			if _, at, ok := n.Next(); !ok || due <= at {
				ch, err := n.Settle(due)
				if err != nil {
					t.Fatal(err)
				}
				changes(ch)
			}
		}
		switch k := rng.IntN(10); {
		case k < 6: // the next flow finishes, and another starts
			id, at, ok := n.Next()
			if !ok {
				break
			}
			ch, err := n.Remove(at, id)
			if err != nil {
				t.Fatal(err)
			}
			changes(ch)
			active = slices.DeleteFunc(active, func(x FlowID) bool { return x == id })
			sp := g.spec()
			ch, err = n.AddBatch(at, []Spec{sp})
			if err != nil {
				t.Fatal(err)
			}
			changes(ch)
			active = append(active, sp.ID)
		case k < 7 && len(active) > 2: // two flows are cancelled
			i := rng.IntN(len(active) - 1)
			ids := []FlowID{active[i], active[i+1]}
			ch, err := n.RemoveBatch(n.Now(), ids)
			if err != nil {
				t.Fatal(err)
			}
			changes(ch)
			active = slices.Delete(active, i, i+2)
		case k < 8: // a rate probe
			g.draw()
			r, err := n.RateIfAdded(g.path)
			if err != nil {
				t.Fatal(err)
			}
			put(math.Float64bits(r))
		default: // a batch starts
			batch := make([]Spec, 1+rng.IntN(6))
			for i := range batch {
				batch[i] = g.spec()
				active = append(active, batch[i].ID)
			}
			ch, err := n.AddBatch(n.Now(), batch)
			if err != nil {
				t.Fatal(err)
			}
			changes(ch)
		}
		for _, id := range active {
			r, _ := n.Rate(id)
			fin, _ := n.Finish(id)
			put(math.Float64bits(r))
			put(uint64(fin))
		}
	}
}
