package flow

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// checkMaxMin checks the definition of max-min fairness, independently of how
// the rates were found: no resource carries more than its capacity, and every
// flow has a bottleneck, a saturated resource on its path where no flow gets
// more than it does. It also checks the finish heap against the flows.
func checkMaxMin(n *Network) error {
	const tol = 1e-9
	for r := range n.res {
		res := &n.res[r]
		if load := n.Load(ResourceID(r)); load > res.capacity*(1+tol) {
			return fmt.Errorf("resource %s carries %v > capacity %v", res.name, load, res.capacity)
		}
		held := 0
		for _, e := range res.flows {
			if e.f.bott == ResourceID(r) {
				held++
			}
		}
		if held != res.bottled {
			return fmt.Errorf("resource %s: %d flows have it as their bottleneck, counted %d", res.name, held, res.bottled)
		}
	}
	for id, f := range n.flows.all() {
		if !(f.rate > 0) {
			return fmt.Errorf("flow %d has rate %v", id, f.rate)
		}
		bottleneck := false
		for _, r := range f.path {
			res := &n.res[r]
			if n.Load(r) < res.capacity*(1-tol) {
				continue
			}
			max := 0.0
			for _, e := range res.flows {
				max = math.Max(max, e.f.rate)
			}
			if f.rate >= max*(1-tol) {
				bottleneck = true
				break
			}
		}
		if !bottleneck {
			return fmt.Errorf("flow %d (rate %v) has no bottleneck on its path", id, f.rate)
		}
	}
	var min *flowState
	for _, f := range n.flows.all() {
		if min == nil || f.finish < min.finish || (f.finish == min.finish && f.id < min.id) {
			min = f
		}
		if f.finish < n.now {
			return fmt.Errorf("flow %d finishes at %d before the clock %d", f.id, f.finish, n.now)
		}
	}
	if err := checkFinishHeap(n); err != nil {
		return err
	}
	id, at, ok := n.Next()
	if ok != (min != nil) || (ok && (id != min.id || at != min.finish)) {
		return fmt.Errorf("Next = %d at %d (%v), want the earliest finish %v", id, at, ok, min)
	}
	return nil
}

// checkFinishHeap checks the finish heap against the active flows: one
// entry each, at the place the flow's hidx gives, holding the flow with its
// ID and finish time, and no entry before its parent.
func checkFinishHeap(n *Network) error {
	h := n.fin
	if len(h) != n.Active() {
		return fmt.Errorf("finish heap: %d entries for %d active flows", len(h), n.Active())
	}
	for _, f := range n.flows.all() {
		if f.hidx < 0 || f.hidx >= len(h) {
			return fmt.Errorf("finish heap: flow %d at place %d of %d", f.id, f.hidx, len(h))
		}
		if e := h[f.hidx]; e.f != f || e.id != f.id || e.finish != f.finish {
			return fmt.Errorf("finish heap: flow %d (finish %d) at place %d, which holds flow %d (finish %d)", f.id, f.finish, f.hidx, e.id, e.finish)
		}
	}
	for i := 1; i < len(h); i++ {
		if p := (i - 1) / 4; h[i].before(&h[p]) {
			return fmt.Errorf("finish heap: entry %d (flow %d) before its parent %d (flow %d)", i, h[i].id, p, h[p].id)
		}
	}
	return nil
}

// randomOps drives a network through adds, cancellations and finishes chosen
// by rng, checking after each that the network is max-min fair, that the
// reported changes are exactly the finish times that moved, and that an
// incremental solve equals solving the same flows from scratch with the full
// solver. fullOnly turns the incremental solver off in the network driven;
// weighted gives two thirds of the flows random usage weights (Spec.Weights)
// in (0.01, 1] on their resources.
func randomOps(t *testing.T, rng *rand.Rand, steps int, fullOnly, weighted bool) {
	t.Helper()
	n := New()
	n.fullOnly = fullOnly
	nres := 1 + rng.IntN(12)
	caps := make([]float64, nres)
	for r := range nres {
		caps[r] = float64(1+rng.IntN(5)) * math.Pow(10, float64(6+rng.IntN(3)))
		mustResource(t, n, fmt.Sprint("r", r), caps[r])
	}
	next := FlowID(0)
	for step := range steps {
		before := map[FlowID]int64{}
		for id, f := range n.flows.all() {
			before[id] = f.finish
		}
		var ch []Change
		var err error
		var op string
		nextID, nextAt, any := n.Next()
		switch k := rng.IntN(10); {
		case any && k < 3: // the next flow finishes
			op = fmt.Sprintf("finish %d at %d", nextID, nextAt)
			ch, err = n.Remove(nextAt, nextID)
			delete(before, nextID)
		case n.Active() > 0 && k < 4: // a random flow is cancelled now
			ids := make([]FlowID, 0, n.flows.len())
			for id := range n.flows.all() {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			id := ids[rng.IntN(len(ids))]
			op = fmt.Sprintf("cancel %d", id)
			ch, err = n.Remove(n.now, id)
			delete(before, id)
		case k == 4: // up to three flows start together
			var specs []Spec
			for range 1 + rng.IntN(3) {
				perm := rng.Perm(nres)[:1+rng.IntN(min(nres, 4))]
				path := make([]ResourceID, len(perm))
				for i, p := range perm {
					path[i] = ResourceID(p)
				}
				specs = append(specs, Spec{ID: next, Bytes: rng.Int64N(1e9), Path: path, Weights: randWeights(rng, len(path), weighted)})
				next++
			}
			op = fmt.Sprintf("add batch %v at %d", specs, n.now)
			ch, err = n.AddBatch(n.now, specs)
		default: // a flow starts, now or before the next finish
			at := n.now
			if any && nextAt > n.now {
				at += rng.Int64N(nextAt - n.now + 1)
			} else if !any {
				at += rng.Int64N(1_000_000)
			}
			perm := rng.Perm(nres)[:1+rng.IntN(min(nres, 4))]
			path := make([]ResourceID, len(perm))
			for i, p := range perm {
				path[i] = ResourceID(p)
			}
			bytes := rng.Int64N(1e9)
			ws := randWeights(rng, len(path), weighted)
			op = fmt.Sprintf("add %d (%d B on %v, weights %v) at %d", next, bytes, path, ws, at)
			probe, perr := n.RateIfAdded(path)
			if perr != nil {
				t.Fatalf("step %d RateIfAdded(%v): %v", step, path, perr)
			}
			for id, f := range n.flows.all() {
				if f.finish != before[id] {
					t.Fatalf("step %d: RateIfAdded moved flow %d", step, id)
				}
			}
			ch, err = n.AddBatch(at, []Spec{{ID: next, Bytes: bytes, Path: path, Weights: ws}})
			// RateIfAdded solves the whole component; Add may solve only a
			// region around the new flow: the same rate up to rounding
			// (RateIfAdded's flow has weights 1).
			if got, _ := n.Rate(next); err == nil && ws == nil && math.Abs(got-probe) > 1e-12*probe {
				t.Fatalf("step %d %s: rate %v, RateIfAdded said %v", step, op, got, probe)
			}
			next++
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", step, op, err)
		}
		if err := checkMaxMin(n); err != nil {
			t.Fatalf("step %d %s: %v", step, op, err)
		}
		reported := map[FlowID]bool{}
		for _, c := range ch {
			if reported[c.Flow] {
				t.Fatalf("step %d %s: flow %d reported twice: %v", step, op, c.Flow, ch)
			}
			reported[c.Flow] = true
			if fin, ok := n.Finish(c.Flow); !ok || fin != c.Finish {
				t.Fatalf("step %d %s: change %v but the flow finishes at %d", step, op, c, fin)
			}
		}
		for id, f := range n.flows.all() {
			if old, had := before[id]; had && old != f.finish && !reported[id] {
				t.Fatalf("step %d %s: flow %d moved from %d to %d unreported", step, op, id, old, f.finish)
			}
			if _, had := before[id]; !had && !reported[id] {
				t.Fatalf("step %d %s: new flow %d not reported", step, op, id)
			}
		}
		// The same flows solved from scratch, added in reverse ID order, have
		// the same rates.
		fresh := New()
		fresh.fullOnly = true
		for r := range nres {
			mustResource(t, fresh, "", caps[r])
		}
		ids := make([]FlowID, 0, n.flows.len())
		for id := range n.flows.all() {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		slices.Reverse(ids)
		fresh.now = n.now
		for _, id := range ids {
			f := n.flows.get(id)
			var ws []float64
			if len(f.weight) > 0 {
				ws = f.weight
			}
			if _, err := fresh.AddBatch(n.now, []Spec{{ID: id, Bytes: 1e12, Path: f.path, Weights: ws}}); err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range ids {
			got, want := n.flows.get(id).rate, fresh.flows.get(id).rate
			if math.Abs(got-want) > 1e-9*want {
				t.Fatalf("step %d %s: flow %d rate %v incrementally, %v from scratch", step, op, id, got, want)
			}
		}
	}
}

func TestRandomOpsInvariants(t *testing.T) { randomOpsSeeds(t, 13, false) }

// TestRandomOpsWeighted is TestRandomOpsInvariants with flows that load
// their resources by random weights.
func TestRandomOpsWeighted(t *testing.T) { randomOpsSeeds(t, 17, true) }

// randomOpsSeeds runs randomOps over 200 seeds (40 in the fast lane) of the
// generator stream stream, with or without random weights.
func randomOpsSeeds(t *testing.T, stream uint64, weighted bool) {
	t.Helper()
	seeds := 200
	if testgate.IsFast() {
		seeds = 40
	}
	for s := range seeds {
		rng := rand.New(rand.NewPCG(uint64(s), stream))
		randomOps(t, rng, 60, s%2 == 0, weighted)
	}
}

// randWeights draws the usage weights of a flow over k resources: nil when
// not weighted or for a third of the flows, else each in (0.01, 1], 1 for a
// third of them.
func randWeights(rng *rand.Rand, k int, weighted bool) []float64 {
	if !weighted || rng.IntN(3) == 0 {
		return nil
	}
	ws := make([]float64, k)
	for i := range ws {
		ws[i] = 1
		if rng.IntN(3) != 0 {
			ws[i] = 0.01 + 0.99*rng.Float64()
		}
	}
	return ws
}

// FuzzOps runs randomOps from fuzzer-chosen seeds and lengths.
func FuzzOps(f *testing.F) {
	f.Add(uint64(1), uint64(2), uint8(50))
	f.Add(uint64(99), uint64(0), uint8(200))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, steps uint8) {
		// At most 40 steps: every step re-solves all flows from scratch to
		// check the incremental solver, so the cost of a run grows with the
		// square of its steps. 255 steps gave about 70 executions a second,
		// under scripts/fuzz.sh's floor; 64 gave 16,108 in 20 s here but
		// 6,541 on a CI machine, twice the floor; 40 keep the fuzzer trying
		// seeds instead of lengths (TestRandomOpsInvariants runs 60).
		randomOps(t, rand.New(rand.NewPCG(s1, s2)), 1+int(steps)%40, s1%2 == 0, s2%2 == 1)
	})
}

// Identical calls give identical results, bit for bit.
func TestDeterministic(t *testing.T) {
	run := func() []Change {
		var all []Change
		n := New()
		top, err := Cluster{Racks: 4, NodesPerRack: 5, NICBytesPerSec: 125e6, UplinkBytesPerSec: 250e6,
			CoreRatio: 2, DisksPerNode: 2, DiskBytesPerSec: 100e6}.Build(n)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 7))
		for i := range 300 {
			if id, at, ok := n.Next(); ok && rng.IntN(2) == 0 {
				ch, err := n.Remove(at, id)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, Change{id, at})
				all = append(all, ch...)
				continue
			}
			src, dst := rng.IntN(20), rng.IntN(20)
			p, _ := top.Path(nil, src, dst)
			d, _ := top.Disk(src, rng.IntN(2))
			ch, err := n.Add(n.Now(), FlowID(i), 1+rng.Int64N(1e9), append(p, d))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, ch...)
		}
		return all
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatal("two identical runs differ")
	}
	if len(a) < 300 {
		t.Fatalf("only %d changes", len(a))
	}
}

// sortByShare agrees with a stable sort by share, on shares drawn to collide.
func TestSortByShare(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var tmp []heapEntry
	for _, size := range []int{0, 1, 2, 3, 17, 1000} {
		for range 20 {
			entries := make([]heapEntry, size)
			for i := range entries {
				entries[i] = heapEntry{share: float64(1+rng.IntN(50)) * math.Pow(10, float64(rng.IntN(12)-3)) / float64(1+rng.IntN(4)), id: ResourceID(i)}
			}
			want := slices.Clone(entries)
			slices.SortStableFunc(want, func(a, b heapEntry) int { return cmp.Compare(a.share, b.share) })
			tmp = sortByShare(entries, tmp)
			if !slices.Equal(entries, want) {
				t.Fatalf("size %d: got %v, want %v", size, entries, want)
			}
		}
	}
}

// On a cluster with a few hundred flows, the incremental solver meets regions
// it solves and regions past its limit that it hands to the full solver; the
// result is max-min fair and equals a full solve from scratch throughout.
func TestIncrementalOnCluster(t *testing.T) {
	cl := Cluster{Racks: 4, NodesPerRack: 8, NICBytesPerSec: 125e6, UplinkBytesPerSec: 400e6,
		CoreRatio: 2, DisksPerNode: 2, DiskBytesPerSec: 100e6}
	n := New()
	top, err := cl.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(13, 2026))
	const steps = 1500
	next := FlowID(0)
	for step := range steps {
		before := map[FlowID]int64{}
		for id, f := range n.flows.all() {
			before[id] = f.finish
		}
		var ch []Change
		if id, at, ok := n.Next(); ok && (n.Active() > 300 || rng.IntN(3) == 0) {
			ch, err = n.Remove(at, id)
		} else {
			src, dst := rng.IntN(cl.Nodes()), rng.IntN(cl.Nodes())
			if rng.IntN(2) == 0 { // half the transfers stay in the rack
				first, end := top.RackNodes(top.Rack(src))
				dst = first + rng.IntN(end-first)
			}
			d, _ := top.Disk(src, rng.IntN(2))
			p, _ := top.Path([]ResourceID{d}, src, dst)
			ch, err = n.Add(n.Now(), next, 1+rng.Int64N(1e9), p)
			next++
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		reported := map[FlowID]bool{}
		for _, c := range ch {
			reported[c.Flow] = true
		}
		for id, f := range n.flows.all() {
			if old, had := before[id]; (had && old != f.finish || !had) && !reported[id] {
				t.Fatalf("step %d: flow %d moved from %d to %d unreported", step, id, old, f.finish)
			}
		}
		if step%25 != 0 {
			continue
		}
		if err := checkMaxMin(n); err != nil {
			t.Fatalf("step %d (%d flows): %v", step, n.Active(), err)
		}
		fresh := New()
		fresh.fullOnly = true
		if _, err := cl.Build(fresh); err != nil {
			t.Fatal(err)
		}
		fresh.now = n.now
		var specs []Spec
		for id, f := range n.flows.all() {
			specs = append(specs, Spec{ID: id, Bytes: 1e12, Path: f.path})
		}
		slices.SortFunc(specs, func(a, b Spec) int { return cmp.Compare(a.ID, b.ID) })
		if _, err := fresh.AddBatch(n.now, specs); err != nil {
			t.Fatal(err)
		}
		for id, f := range n.flows.all() {
			if want := fresh.flows.get(id).rate; math.Abs(f.rate-want) > 1e-9*want {
				t.Fatalf("step %d: flow %d rate %v, full solve from scratch %v", step, id, f.rate, want)
			}
		}
	}
	t.Logf("%d changes solved locally, %d by the full solver", n.localSolves, n.fullSolves)
	if n.localSolves < steps/10 || n.fullSolves < steps/10 {
		t.Fatalf("%d changes solved locally and %d in full: the test should exercise both", n.localSolves, n.fullSolves)
	}
}
