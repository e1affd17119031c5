package flow

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"testing"
)

const mb = 1e6 // bytes; the hand-computed cases use round megabytes

func mustResource(t *testing.T, n *Network, name string, capacity float64) ResourceID {
	t.Helper()
	id, err := n.AddResource(name, capacity)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustAdd(t *testing.T, n *Network, at int64, id FlowID, bytes int64, path ...ResourceID) []Change {
	t.Helper()
	ch, err := n.Add(at, id, bytes, path)
	if err != nil {
		t.Fatal(err)
	}
	return append([]Change(nil), ch...)
}

func mustRemove(t *testing.T, n *Network, at int64, id FlowID) []Change {
	t.Helper()
	ch, err := n.Remove(at, id)
	if err != nil {
		t.Fatal(err)
	}
	return append([]Change(nil), ch...)
}

func wantRates(t *testing.T, n *Network, want map[FlowID]float64) {
	t.Helper()
	for id, w := range want {
		got, ok := n.Rate(id)
		if !ok {
			t.Errorf("flow %d not active", id)
			continue
		}
		if math.Abs(got-w) > 1e-9*w {
			t.Errorf("flow %d rate %v B/s, want %v", id, got, w)
		}
	}
}

func wantFinish(t *testing.T, n *Network, want map[FlowID]int64) {
	t.Helper()
	for id, w := range want {
		got, ok := n.Finish(id)
		if !ok {
			t.Errorf("flow %d not active", id)
			continue
		}
		if got != w {
			t.Errorf("flow %d finishes at %d µs, want %d", id, got, w)
		}
	}
}

// wantChanges compares changes as sets: their order is deterministic but not
// specified.
func wantChanges(t *testing.T, got []Change, want ...Change) {
	t.Helper()
	got = slices.Clone(got)
	slices.SortFunc(got, func(a, b Change) int { return cmp.Compare(a.Flow, b.Flow) })
	if len(got) != len(want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("changes %v, want %v", got, want)
		}
	}
}

// Two flows on one 100 MB/s link get 50 MB/s each; when the 100 MB one ends at
// 2 s, the other (300 MB, 200 MB left) gets the whole link and ends at 4 s
// instead of 6 s.
func TestTwoFlowsOneLink(t *testing.T) {
	n := New()
	l := mustResource(t, n, "link", 100*mb)
	wantChanges(t, mustAdd(t, n, 0, 1, 100*mb, l), Change{1, 1_000_000})
	wantChanges(t, mustAdd(t, n, 0, 2, 300*mb, l), Change{1, 2_000_000}, Change{2, 6_000_000})
	wantRates(t, n, map[FlowID]float64{1: 50 * mb, 2: 50 * mb})
	if id, at, ok := n.Next(); !ok || id != 1 || at != 2_000_000 {
		t.Fatalf("Next = %d at %d (%v), want flow 1 at 2 s", id, at, ok)
	}
	if err := n.Advance(1_000_000); err != nil {
		t.Fatal(err)
	}
	if rem, _ := n.Remaining(2); math.Abs(rem-250*mb) > 1e-3 {
		t.Errorf("flow 2 has %v bytes left at 1 s, want 250 MB", rem)
	}
	wantChanges(t, mustRemove(t, n, 2_000_000, 1), Change{2, 4_000_000})
	wantRates(t, n, map[FlowID]float64{2: 100 * mb})
	if got := n.Load(l); math.Abs(got-100*mb) > 1e-6 {
		t.Errorf("link load %v, want 100 MB/s", got)
	}
	wantChanges(t, mustRemove(t, n, 4_000_000, 2))
	if _, _, ok := n.Next(); ok || n.Active() != 0 {
		t.Fatalf("flows left after both finished")
	}
}

// A rack uplink of 150 MB/s carries three cross-rack flows whose NICs (100
// MB/s) have room to spare: 50 MB/s each. When one ends, the other two get 75.
func TestRackUplinkThreeFlows(t *testing.T) {
	n := New()
	top, err := Cluster{Racks: 2, NodesPerRack: 3, NICBytesPerSec: 100 * mb, UplinkBytesPerSec: 150 * mb,
		CoreRatio: 1, DisksPerNode: 1, DiskBytesPerSec: 1000 * mb}.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p, err := top.Path(nil, i, 3+i)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != 4 {
			t.Fatalf("cross-rack path %v: want NIC out, uplink, downlink, NIC in", p)
		}
		// Sizes 50, 100, 150 MB.
		mustAdd(t, n, 0, FlowID(i), int64(i+1)*50*mb, p...)
	}
	wantRates(t, n, map[FlowID]float64{0: 50 * mb, 1: 50 * mb, 2: 50 * mb})
	wantFinish(t, n, map[FlowID]int64{0: 1_000_000, 1: 2_000_000, 2: 3_000_000})
	// Flow 0 ends at 1 s. Flows 1 and 2 have 50 and 100 MB left at 75 MB/s:
	// they end at 1 + 2/3 s and 1 + 4/3 s, rounded up to the microsecond.
	wantChanges(t, mustRemove(t, n, 1_000_000, 0), Change{1, 1_666_667}, Change{2, 2_333_334})
	wantRates(t, n, map[FlowID]float64{1: 75 * mb, 2: 75 * mb})
	up := top.up[0]
	if got := n.Load(up); math.Abs(got-150*mb) > 1e-6 {
		t.Errorf("uplink load %v, want 150 MB/s", got)
	}
	// Flow 1 ends at 1_666_667 µs; flow 2 had 100 - 75·(2/3 + 1e-6) MB left.
	// Exactly: 100 MB - 75 MB/s × 0.666667 s = 49.999975 MB at 100 MB/s
	// (its NIC) = 0.49999975 s → 1_666_667 + 499_999.75 → 2_166_667 µs.
	wantChanges(t, mustRemove(t, n, 1_666_667, 1), Change{2, 2_166_667})
	wantRates(t, n, map[FlowID]float64{2: 100 * mb})
}

// A disk of 120 MB/s serves two tasks: 60 MB/s each; the 60 MB read ends at
// 1 s and the 120 MB write then has 60 MB left at 120 MB/s: done at 1.5 s.
func TestDiskSharedByTwoTasks(t *testing.T) {
	n := New()
	top, err := Cluster{Racks: 1, NodesPerRack: 2, NICBytesPerSec: 100 * mb, UplinkBytesPerSec: 100 * mb,
		CoreRatio: 1, DisksPerNode: 2, DiskBytesPerSec: 120 * mb}.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	d, err := top.Disk(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if name := n.ResourceName(d); name != "node1/disk1" {
		t.Fatalf("disk named %q", name)
	}
	other, _ := top.Disk(1, 0)
	mustAdd(t, n, 0, 10, 60*mb, d)
	mustAdd(t, n, 0, 11, 120*mb, d)
	mustAdd(t, n, 0, 12, 120*mb, other) // the node's other disk is not shared
	wantRates(t, n, map[FlowID]float64{10: 60 * mb, 11: 60 * mb, 12: 120 * mb})
	wantFinish(t, n, map[FlowID]int64{10: 1_000_000, 11: 2_000_000, 12: 1_000_000})
	if id, at, _ := n.Next(); id != 10 || at != 1_000_000 {
		t.Fatalf("Next = %d at %d: want flow 10 (smallest ID of the two ending at 1 s)", id, at)
	}
	// Flows ending in the same microsecond may be removed in any order; flow
	// 12 shares nothing with 11.
	wantChanges(t, mustRemove(t, n, 1_000_000, 12))
	wantChanges(t, mustRemove(t, n, 1_000_000, 10), Change{11, 1_500_000})
}

// The classic max-min example: a 10 MB/s link carries flows A, B and C; C also
// crosses a 2 MB/s link, where it is bottlenecked. C gets 2, and A and B share
// the 8 left: 4 each (an equal split would give each 10/3). A fourth flow D on
// a 100 MB/s link shared only with C gets what C leaves: 98.
func TestBottleneckElsewhereLeavesSpare(t *testing.T) {
	n := New()
	big := mustResource(t, n, "big", 10*mb)
	small := mustResource(t, n, "small", 2*mb)
	wide := mustResource(t, n, "wide", 100*mb)
	mustAdd(t, n, 0, 'A', 40*mb, big)
	mustAdd(t, n, 0, 'B', 80*mb, big)
	mustAdd(t, n, 0, 'C', 10*mb, big, small, wide)
	mustAdd(t, n, 0, 'D', 980*mb, wide)
	wantRates(t, n, map[FlowID]float64{'A': 4 * mb, 'B': 4 * mb, 'C': 2 * mb, 'D': 98 * mb})
	// A fifth flow on the big link would get (10 - 2) / 3 MB/s: C is still
	// held to 2 by the small link.
	if got, err := n.RateIfAdded([]ResourceID{big}); err != nil || math.Abs(got-8*mb/3) > 1e-6 {
		t.Errorf("RateIfAdded(big) = %v, %v; want 8/3 MB/s", got, err)
	}
	if _, err := n.RateIfAdded([]ResourceID{big, big}); !errors.Is(err, ErrDuplicateResource) {
		t.Errorf("RateIfAdded with a repeated resource: err %v", err)
	}
	wantRates(t, n, map[FlowID]float64{'A': 4 * mb, 'B': 4 * mb, 'C': 2 * mb, 'D': 98 * mb})
	wantFinish(t, n, map[FlowID]int64{'C': 5_000_000, 'D': 10_000_000, 'A': 10_000_000, 'B': 20_000_000})
	// C ends at 5 s: A and B get 5 each, D gets 100. A has 20 MB left → 9 s;
	// B has 60 → 17 s; D has 490 → 9.9 s.
	wantChanges(t, mustRemove(t, n, 5_000_000, 'C'), Change{'A', 9_000_000}, Change{'B', 17_000_000}, Change{'D', 9_900_000})
	wantRates(t, n, map[FlowID]float64{'A': 5 * mb, 'B': 5 * mb, 'D': 100 * mb})
}

// An oversubscribed core: 2 racks, uplinks 200 MB/s, ratio 4 → the core
// carries 2·200/4 = 100 MB/s, shared by two cross-rack flows: 50 each although
// their NICs (100) and uplinks (200) have room. A rack-local flow is unaffected.
func TestOversubscribedCore(t *testing.T) {
	n := New()
	top, err := Cluster{Racks: 2, NodesPerRack: 2, NICBytesPerSec: 100 * mb, UplinkBytesPerSec: 200 * mb,
		CoreRatio: 4, DisksPerNode: 1, DiskBytesPerSec: 100 * mb}.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	core, ok := top.Core()
	if !ok || n.Capacity(core) != 100*mb {
		t.Fatalf("core %v (%v), want 100 MB/s", n.Capacity(core), ok)
	}
	p02, _ := top.Path(nil, 0, 2)
	p13, _ := top.Path(nil, 1, 3)
	p23, _ := top.Path(nil, 2, 3)
	if len(p02) != 5 || len(p23) != 2 {
		t.Fatalf("paths %v and %v: want 5 resources across racks, 2 within", p02, p23)
	}
	mustAdd(t, n, 0, 1, 100*mb, p02...)
	mustAdd(t, n, 0, 2, 100*mb, p13...)
	ch := mustAdd(t, n, 0, 3, 100*mb, p23...)
	// Flow 3 shares node 3's NIC in with flow 2 (50 MB/s): it gets the other 50.
	wantChanges(t, ch, Change{3, 2_000_000})
	wantRates(t, n, map[FlowID]float64{1: 50 * mb, 2: 50 * mb, 3: 50 * mb})
	if p, _ := top.Path(nil, 1, 1); len(p) != 0 {
		t.Fatalf("path within a node %v, want none", p)
	}
	// Inbound is the tail of every path into the node: p02's last three
	// (core, rack 1's downlink, node 2's NIC in) from another rack, p23's
	// last (node 3's NIC in) from its rack.
	if in, _ := top.Inbound(nil, 2, true); !slices.Equal(in, p02[2:]) {
		t.Fatalf("inbound across racks %v, want %v", in, p02[2:])
	}
	if in, _ := top.Inbound(nil, 3, false); !slices.Equal(in, p23[1:]) {
		t.Fatalf("inbound within a rack %v, want %v", in, p23[1:])
	}
	if _, err := top.Inbound(nil, 4, false); !errors.Is(err, ErrNode) {
		t.Fatalf("inbound to node 4 of 4: err %v", err)
	}
}

// A change re-solves only the flows connected to it: flows on unrelated
// resources are neither reported nor re-timed.
func TestOnlyConnectedComponentChanges(t *testing.T) {
	n := New()
	a := mustResource(t, n, "a", 10*mb)
	b := mustResource(t, n, "b", 10*mb)
	mustAdd(t, n, 0, 1, 10*mb, a)
	mustAdd(t, n, 0, 2, 10*mb, b)
	wantChanges(t, mustAdd(t, n, 500_000, 3, 10*mb, a), Change{1, 1_500_000}, Change{3, 2_500_000})
	wantFinish(t, n, map[FlowID]int64{2: 1_000_000})
	// Flow 4 crosses b and c (1 MB/s): it gets 1 and flow 2 the 9 left of b;
	// flow 2's 5 MB left take 0.5556 s.
	c := mustResource(t, n, "c", 1*mb)
	ch := mustAdd(t, n, 500_000, 4, 1*mb, b, c)
	wantChanges(t, ch, Change{2, 1_055_556}, Change{4, 1_500_000})
	// Flow 5 on c alone halves flow 4; flow 2 then gets 9.5: re-timed again,
	// but flows 1 and 3 on a are untouched.
	ch = mustAdd(t, n, 500_000, 5, 1*mb, c)
	for _, x := range ch {
		if x.Flow == 1 || x.Flow == 3 {
			t.Fatalf("flow %d on an unrelated resource re-timed: %v", x.Flow, ch)
		}
	}
}

// A flow's rate that does not move is not reported even when its component is
// re-solved.
func TestUnchangedRateNotReported(t *testing.T) {
	n := New()
	nic := mustResource(t, n, "nic", 10*mb)
	up := mustResource(t, n, "up", 100*mb)
	mustAdd(t, n, 0, 1, 10*mb, nic, up) // limited to 10 by its NIC
	ch := mustAdd(t, n, 0, 2, 10*mb, up)
	wantChanges(t, ch, Change{2, 111_112}) // 10 MB at 90 MB/s = 0.1111… s
}

func TestZeroByteFlowFinishesAtOnce(t *testing.T) {
	n := New()
	l := mustResource(t, n, "l", mb)
	wantChanges(t, mustAdd(t, n, 7, 1, 0, l), Change{1, 7})
	wantChanges(t, mustRemove(t, n, 7, 1))
}

func TestFinishRounding(t *testing.T) {
	for _, tc := range []struct {
		bytes float64
		rate  float64
		want  int64
	}{
		{100, 50, 2_000_000},
		{1, 3e6, 1},           // a third of a µs rounds up to 1
		{3, 3e6, 1},           // exactly 1 µs
		{1e8, 3e7, 3_333_334}, // 3.333…3 s
		{0, 1, 0},
		{2e8, 6e7, 3_333_334},
		{1e15, 1e-3, maxDuration},
	} {
		if got := durationUs(tc.bytes, tc.rate); got != tc.want {
			t.Errorf("durationUs(%v, %v) = %d, want %d", tc.bytes, tc.rate, got, tc.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	n := New()
	for _, c := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := n.AddResource("x", c); !errors.Is(err, ErrCapacity) {
			t.Errorf("capacity %v: err %v, want ErrCapacity", c, err)
		}
	}
	if n.NumResources() != 0 {
		t.Fatalf("bad resources were added")
	}
	l := mustResource(t, n, "l", mb)
	mustAdd(t, n, 10, 1, mb, l) // finishes at 1_000_010
	for _, tc := range []struct {
		name string
		err  error
		f    func() error
	}{
		{"negative bytes", ErrBytes, func() error { _, err := n.Add(10, 2, -1, []ResourceID{l}); return err }},
		{"empty path", ErrEmptyPath, func() error { _, err := n.Add(10, 2, 1, nil); return err }},
		{"unknown resource", ErrUnknownResource, func() error { _, err := n.Add(10, 2, 1, []ResourceID{5}); return err }},
		{"negative resource", ErrUnknownResource, func() error { _, err := n.Add(10, 2, 1, []ResourceID{-1}); return err }},
		{"repeated resource", ErrDuplicateResource, func() error { _, err := n.Add(10, 2, 1, []ResourceID{l, l}); return err }},
		{"duplicate flow", ErrDuplicateFlow, func() error { _, err := n.Add(10, 1, 1, []ResourceID{l}); return err }},
		{"add before clock", ErrTimeBackwards, func() error { _, err := n.Add(9, 2, 1, []ResourceID{l}); return err }},
		{"add after a finish", ErrPastFinish, func() error { _, err := n.Add(1_000_011, 2, 1, []ResourceID{l}); return err }},
		{"advance before clock", ErrTimeBackwards, func() error { return n.Advance(3) }},
		{"add beyond MaxTime", ErrTimeRange, func() error { _, err := n.Add(MaxTime+1, 2, 1, []ResourceID{l}); return err }},
		{"remove beyond MaxTime", ErrTimeRange, func() error { _, err := n.Remove(math.MaxInt64, 1); return err }},
		{"advance after a finish", ErrPastFinish, func() error { return n.Advance(2_000_000) }},
		{"remove unknown", ErrUnknownFlow, func() error { _, err := n.Remove(10, 9); return err }},
		{"remove before clock", ErrTimeBackwards, func() error { _, err := n.Remove(9, 1); return err }},
		{"remove after its finish", ErrPastFinish, func() error { _, err := n.Remove(1_000_011, 1); return err }},
	} {
		if err := tc.f(); !errors.Is(err, tc.err) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
		}
	}
	// Nothing changed.
	if n.Active() != 1 || n.Now() != 10 {
		t.Fatalf("state changed by rejected calls: %d flows, clock %d", n.Active(), n.Now())
	}
	wantFinish(t, n, map[FlowID]int64{1: 1_000_010})
}

func TestClusterBadInput(t *testing.T) {
	good := Cluster{Racks: 2, NodesPerRack: 2, NICBytesPerSec: 1, UplinkBytesPerSec: 1, CoreRatio: 2, DisksPerNode: 1, DiskBytesPerSec: 1}
	for _, tc := range []struct {
		name string
		edit func(*Cluster)
		err  error
	}{
		{"no racks", func(c *Cluster) { c.Racks = 0 }, ErrTopology},
		{"negative nodes", func(c *Cluster) { c.NodesPerRack = -1 }, ErrTopology},
		{"no disks", func(c *Cluster) { c.DisksPerNode = 0 }, ErrTopology},
		{"both shapes", func(c *Cluster) { c.RackSizes = []int{2, 2} }, ErrTopology},
		{"empty rack", func(c *Cluster) { c.Racks, c.NodesPerRack, c.RackSizes = 0, 0, []int{2, 0} }, ErrTopology},
		{"zero NIC", func(c *Cluster) { c.NICBytesPerSec = 0 }, ErrCapacity},
		{"negative uplink", func(c *Cluster) { c.UplinkBytesPerSec = -5 }, ErrCapacity},
		{"NaN disk", func(c *Cluster) { c.DiskBytesPerSec = math.NaN() }, ErrCapacity},
		{"zero ratio", func(c *Cluster) { c.CoreRatio = 0 }, ErrRatio},
		{"negative ratio", func(c *Cluster) { c.CoreRatio = -2 }, ErrRatio},
		{"infinite ratio", func(c *Cluster) { c.CoreRatio = math.Inf(1) }, ErrRatio},
	} {
		c := good
		tc.edit(&c)
		n := New()
		if _, err := c.Build(n); !errors.Is(err, tc.err) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
		}
		if n.NumResources() != 0 {
			t.Errorf("%s: resources added by a rejected cluster", tc.name)
		}
	}
	n := New()
	top, err := good.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := top.Path(nil, 0, 4); !errors.Is(err, ErrNode) {
		t.Errorf("path to node 4 of 4: err %v", err)
	}
	if _, err := top.Disk(0, 1); !errors.Is(err, ErrNode) {
		t.Errorf("disk 1 of 1: err %v", err)
	}
	// 4 nodes × (2 NIC + 1 disk) + 2 racks × 2 links + core.
	if got := n.NumResources(); got != 17 {
		t.Errorf("%d resources, want 17", got)
	}
}

// A batch gives the same rates and finish times as the same flows added or
// removed one by one, and reports every flow whose finish moved.
func TestBatchMatchesOneByOne(t *testing.T) {
	build := func() (*Network, []Spec) {
		n := New()
		top, err := Cluster{Racks: 3, NodesPerRack: 4, NICBytesPerSec: 125 * mb, UplinkBytesPerSec: 300 * mb,
			CoreRatio: 2, DisksPerNode: 1, DiskBytesPerSec: 100 * mb}.Build(n)
		if err != nil {
			t.Fatal(err)
		}
		var specs []Spec
		for i := range 30 {
			src, dst := (i*7)%12, (i*5+3)%12
			p, _ := top.Path(nil, src, dst)
			d, _ := top.Disk(src, 0)
			specs = append(specs, Spec{ID: FlowID(i), Bytes: int64(i+1) * 10 * mb, Path: append(p, d)})
		}
		return n, specs
	}
	one, specs := build()
	for _, sp := range specs {
		mustAdd(t, one, 5, sp.ID, sp.Bytes, sp.Path...)
	}
	batch, _ := build()
	ch, err := batch.AddBatch(5, specs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch) != len(specs) {
		t.Fatalf("batch reported %d of %d new flows", len(ch), len(specs))
	}
	same := func(when string) {
		t.Helper()
		for _, sp := range specs {
			r1, ok1 := one.Rate(sp.ID)
			r2, ok2 := batch.Rate(sp.ID)
			f1, _ := one.Finish(sp.ID)
			f2, _ := batch.Finish(sp.ID)
			if ok1 != ok2 || math.Abs(r1-r2) > 1e-9*r1 || f1 != f2 {
				t.Fatalf("%s: flow %d: one by one %v B/s until %d µs, batch %v until %d", when, sp.ID, r1, f1, r2, f2)
			}
		}
	}
	same("after adding")
	if err := checkMaxMin(batch); err != nil {
		t.Fatal(err)
	}
	// Cancel a third of the flows at the first finish time.
	_, at, _ := one.Next()
	var ids []FlowID
	for i := 0; i < 30; i += 3 {
		ids = append(ids, FlowID(i))
	}
	for _, id := range ids {
		mustRemove(t, one, at, id)
	}
	before := map[FlowID]int64{}
	for _, sp := range specs {
		before[sp.ID], _ = batch.Finish(sp.ID)
	}
	ch, err = batch.RemoveBatch(at, ids)
	if err != nil {
		t.Fatal(err)
	}
	same("after removing")
	reported := map[FlowID]bool{}
	for _, c := range ch {
		reported[c.Flow] = true
	}
	for _, sp := range specs {
		if f, ok := batch.Finish(sp.ID); ok && f != before[sp.ID] && !reported[sp.ID] {
			t.Fatalf("flow %d moved from %d to %d unreported", sp.ID, before[sp.ID], f)
		}
	}
}

func TestBatchBadInput(t *testing.T) {
	n := New()
	l := mustResource(t, n, "l", mb)
	mustAdd(t, n, 0, 1, mb, l)    // finishes at 1 s
	mustAdd(t, n, 0, 2, 10*mb, l) // finishes at 11 s
	before := n.Active()
	if _, err := n.AddBatch(0, []Spec{{ID: 3, Bytes: 1, Path: []ResourceID{l}}, {ID: 3, Bytes: 1, Path: []ResourceID{l}}}); !errors.Is(err, ErrDuplicateFlow) {
		t.Errorf("ID twice in a batch: err %v", err)
	}
	if _, err := n.AddBatch(0, []Spec{{ID: 3, Bytes: 1, Path: []ResourceID{l}}, {ID: 4, Bytes: -1, Path: []ResourceID{l}}}); !errors.Is(err, ErrBytes) {
		t.Errorf("bad second spec: err %v", err)
	}
	if _, err := n.RemoveBatch(0, []FlowID{1, 1}); !errors.Is(err, ErrUnknownFlow) {
		t.Errorf("ID twice in a removal: err %v", err)
	}
	// Removing flow 2 at 5 s passes flow 1's finish at 2 s: rejected, and
	// flow 1 is still the next to finish.
	if _, err := n.RemoveBatch(5_000_000, []FlowID{2}); !errors.Is(err, ErrPastFinish) {
		t.Errorf("removal after another flow's finish: err %v", err)
	}
	if n.Active() != before {
		t.Fatalf("%d flows after rejected batches, want %d", n.Active(), before)
	}
	if id, at, _ := n.Next(); id != 1 || at != 2_000_000 {
		t.Fatalf("Next = %d at %d after a rejected removal, want flow 1 at 2 s", id, at)
	}
	// Both at flow 1's finish is fine.
	if _, err := n.RemoveBatch(2_000_000, []FlowID{2, 1}); err != nil || n.Active() != 0 {
		t.Fatalf("removing both at 2 s: %v, %d left", err, n.Active())
	}
}

// Racks of different sizes (a cluster derived from a trace): nodes are
// numbered rack by rack, and the core counts every rack.
func TestUnevenRacks(t *testing.T) {
	n := New()
	top, err := Cluster{RackSizes: []int{1, 3, 2}, NICBytesPerSec: 100 * mb, UplinkBytesPerSec: 200 * mb,
		CoreRatio: 2, DisksPerNode: 1, DiskBytesPerSec: 100 * mb}.Build(n)
	if err != nil {
		t.Fatal(err)
	}
	if top.Nodes() != 6 || top.NumRacks() != 3 {
		t.Fatalf("%d nodes in %d racks, want 6 in 3", top.Nodes(), top.NumRacks())
	}
	for node, rack := range []int{0, 1, 1, 1, 2, 2} {
		if got := top.Rack(node); got != rack {
			t.Errorf("node %d in rack %d, want %d", node, got, rack)
		}
	}
	if first, end := top.RackNodes(1); first != 1 || end != 4 {
		t.Errorf("rack 1 holds nodes [%d, %d), want [1, 4)", first, end)
	}
	core, _ := top.Core()
	if got := n.Capacity(core); got != 300*mb {
		t.Errorf("core %v B/s, want 3 racks × 200 MB/s / 2 = 300 MB/s", got)
	}
	within, _ := top.Path(nil, 2, 3)
	across, _ := top.Path(nil, 3, 4)
	if len(within) != 2 || len(across) != 5 {
		t.Errorf("paths %v (within rack 1) and %v (rack 1 to 2)", within, across)
	}
	if got := n.ResourceName(across[1]); got != "rack1/uplink" {
		t.Errorf("node 3 leaves through %q, want rack1/uplink", got)
	}
	if got := n.ResourceName(across[3]); got != "rack2/downlink" {
		t.Errorf("node 4 enters through %q, want rack2/downlink", got)
	}
}

// A flow may start in the very microsecond another on its resource finishes,
// before that one is removed: the finishing flow keeps its finish time and is
// not reported, and the new flow's rate is the shared one until the removal.
func TestAddAtAnotherFlowsFinish(t *testing.T) {
	n := New()
	l := mustResource(t, n, "l", 10*mb)
	mustAdd(t, n, 0, 1, 10*mb, l) // alone: ends at 1 s
	ch := mustAdd(t, n, 1_000_000, 2, 10*mb, l)
	wantChanges(t, ch, Change{2, 3_000_000}) // 5 MB/s while flow 1 is still there
	wantFinish(t, n, map[FlowID]int64{1: 1_000_000})
	wantChanges(t, mustRemove(t, n, 1_000_000, 1), Change{2, 2_000_000})
}

// TestWeightedFlows: flows that load a resource by a fraction of their rate
// (Spec.Weights), computed by hand. One link of 30 MB/s: A loads it by 0.5,
// B by 1. Progressive filling raises both alike until 0.5x + x = 30 MB/s:
// both get 20 MB/s, A using 10 of the link and B 20. A second link of
// 4 MB/s on A's path caps A at 4 MB/s; the first link then has 30 − 0.5·4
// = 28 MB/s left for B. With the quantum, a weighted flow added while a
// solve is deferred gets the larger of what its path has spare divided by
// its weight and the equal share, capacity over the weights crossing it.
func TestWeightedFlows(t *testing.T) {
	n := New()
	link := mustResource(t, n, "link", 30e6)
	if _, err := n.AddBatch(0, []Spec{
		{ID: 1, Bytes: 40e6, Path: []ResourceID{link}, Weights: []float64{0.5}},
		{ID: 2, Bytes: 40e6, Path: []ResourceID{link}},
	}); err != nil {
		t.Fatal(err)
	}
	for id := FlowID(1); id <= 2; id++ {
		if rate, _ := n.Rate(id); math.Abs(rate-20e6) > 1e-6 {
			t.Errorf("flow %d: rate %v, want 20 MB/s", id, rate)
		}
		if fin, _ := n.Finish(id); fin != 2_000_000 {
			t.Errorf("flow %d finishes at %d µs, want 2 s", id, fin)
		}
	}
	if load := n.Load(link); math.Abs(load-30e6) > 1e-6 {
		t.Errorf("link load %v, want 30 MB/s", load)
	}

	for _, fullOnly := range []bool{false, true} {
		n := New()
		n.fullOnly = fullOnly
		link := mustResource(t, n, "link", 30e6)
		thin := mustResource(t, n, "thin", 4e6)
		if _, err := n.Add(0, 2, 40e6, []ResourceID{link}); err != nil {
			t.Fatal(err)
		}
		if _, err := n.AddBatch(0, []Spec{{ID: 1, Bytes: 40e6, Path: []ResourceID{thin, link}, Weights: []float64{1, 0.5}}}); err != nil {
			t.Fatal(err)
		}
		a, _ := n.Rate(1)
		b, _ := n.Rate(2)
		if math.Abs(a-4e6) > 1e-6 || math.Abs(b-28e6) > 1e-6 {
			t.Errorf("fullOnly %v: rates %v, %v; want 4 and 28 MB/s", fullOnly, a, b)
		}
	}

	q := New()
	link = mustResource(t, q, "link", 30e6)
	if err := q.SetUpdateQuantum(1_000_000); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Add(0, 4, 1e9, []ResourceID{link}); err != nil { // solved at once: 30 MB/s
		t.Fatal(err)
	}
	if _, err := q.AddBatch(10, []Spec{{ID: 5, Bytes: 1e9, Path: []ResourceID{link}, Weights: []float64{0.25}}}); err != nil {
		t.Fatal(err)
	}
	// Nothing spare: the equal share, 30 MB/s over the weights 1 + 0.25, is
	// 24 MB/s, the rate the solve gives it below.
	if rate, _ := q.Rate(5); rate != 24e6 {
		t.Errorf("provisional rate %v with the link full, want the equal share 24 MB/s", rate)
	}
	if _, err := q.Settle(1_000_000); err != nil {
		t.Fatal(err)
	}
	// Solved: 0.25x + x = 30 MB/s, x = 24 MB/s each.
	for id := FlowID(4); id <= 5; id++ {
		if rate, _ := q.Rate(id); math.Abs(rate-24e6) > 1e-6 {
			t.Errorf("after the solve flow %d: rate %v, want 24 MB/s", id, rate)
		}
	}
	if _, err := q.Remove(2_000_000, 4); err != nil { // solved at once: 5 alone, 30/0.25
		t.Fatal(err)
	}
	if rate, _ := q.Rate(5); math.Abs(rate-120e6) > 1e-6 {
		t.Errorf("flow 5 alone: rate %v, want 120 MB/s (30 MB/s / 0.25)", rate)
	}
}

// TestWeightBadInput: weights must match the path and be positive and finite.
func TestWeightBadInput(t *testing.T) {
	n := New()
	r := mustResource(t, n, "r", 1e6)
	for _, ws := range [][]float64{{}, {1, 1}, {0}, {-1}, {math.NaN()}, {math.Inf(1)}} {
		if _, err := n.AddBatch(0, []Spec{{ID: 1, Bytes: 1, Path: []ResourceID{r}, Weights: ws}}); !errors.Is(err, ErrWeight) {
			t.Errorf("weights %v: error %v, want ErrWeight", ws, err)
		}
	}
}

// TestResourceListsShrink: a resource's flow lists give back their backing
// array once most of the flows that crossed it have ended, and the flows
// still on it keep their order and their rates.
func TestResourceListsShrink(t *testing.T) {
	n := New()
	link := mustResource(t, n, "link", 100*mb)
	other := mustResource(t, n, "other", 100*mb)
	for i := range 1000 {
		if _, err := n.Add(0, FlowID(i), int64(1+i)*mb, []ResourceID{link, other}); err != nil {
			t.Fatal(err)
		}
	}
	peak := cap(n.res[link].flows)
	for i := range 990 {
		if _, err := n.Remove(0, FlowID(i)); err != nil {
			t.Fatal(err)
		}
	}
	res := &n.res[link]
	if len(res.flows) != 10 || cap(res.flows) > 64 {
		t.Fatalf("10 flows left of 1,000: a list of capacity %d (at the peak %d)", cap(res.flows), peak)
	}
	for k, e := range res.flows {
		f := e.f
		if f.slot[f.pathIndex(link)] != k || f.rate != 10*mb {
			t.Fatalf("flow %d at %d: slot %d, rate %v", f.id, k, f.slot[f.pathIndex(link)], f.rate)
		}
	}
}
