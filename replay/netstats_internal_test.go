package replay

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNetSeal replays random transfers (instantaneous, short and spanning
// many intervals, at random ends, with the clock moving forward and a floor
// held back by transfers under way) through the accounting and checks that
// what it emits is, in order, every interval's per-node totals computed
// directly (spread into a map), and that old intervals were sealed and the
// sealed ones' later counts too.
func TestNetSeal(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		const nodes, width = 150, 10 // nodes over two bitmap words (denseCounts)
		var now int64
		var got []NodeNetSample
		a := newNetAcct(nodes, width, true, &now, func(s NodeNetSample) { got = append(got, s) })
		type key struct {
			k    int64
			node int32
		}
		want := map[key][2]int64{}
		// count adds a transfer to want, spread as spreadRef does.
		count := func(u, v int32, b, t0, t1 int64, ends TransferEnds) {
			for _, p := range spreadRef(b, t0, t1, width) {
				if ends != EndsIn {
					c := want[key{p[0], u}]
					want[key{p[0], u}] = [2]int64{c[0], c[1] + p[1]}
				}
				if ends != EndsOut {
					c := want[key{p[0], v}]
					want[key{p[0], v}] = [2]int64{c[0] + p[1], c[1]}
				}
			}
		}
		// Transfers under way: each ends at its end with its bytes; the
		// floor is the earliest start among them.
		type xfer struct {
			u, v      int32
			b, t0, t1 int64
			ends      TransferEnds
		}
		var live []xfer
		a.floor = func() int64 {
			m := int64(math.MaxInt64)
			for _, x := range live {
				m = min(m, x.t0)
			}
			return m
		}
		sealed, late, long := 0, 0, 0
		for range 3000 {
			now += rng.Int64N(4)
			if rng.IntN(3) > 0 {
				d := rng.Int64N(30)
				if rng.IntN(50) == 0 {
					d = rng.Int64N(3000) // a long one
				}
				live = append(live, xfer{u: int32(rng.IntN(nodes)), v: int32(rng.IntN(nodes)), b: rng.Int64N(1e6),
					t0: now, t1: now + d, ends: TransferEnds(rng.IntN(3))})
			}
			// End those due, earliest first.
			slices.SortStableFunc(live, func(x, y xfer) int { return cmp.Compare(x.t1, y.t1) })
			for len(live) > 0 && live[0].t1 <= now {
				x := live[0]
				a.transferEnds(x.u, x.v, x.b, x.t0, x.t1, x.ends) // still under way, as in the engine
				live = live[1:]
				count(x.u, x.v, x.b, x.t0, x.t1, x.ends)
			}
			long = max(long, len(a.long))
			for _, iv := range a.open {
				if iv != nil && iv.sealed != nil {
					sealed++
					if len(iv.nodes) > 0 {
						late++
					}
				}
			}
		}
		for len(live) > 0 {
			x := live[0]
			now = max(now, x.t1)
			a.transferEnds(x.u, x.v, x.b, x.t0, x.t1, x.ends)
			live = live[1:]
			count(x.u, x.v, x.b, x.t0, x.t1, x.ends)
		}
		a.flush(math.MaxInt64)
		var exp []NodeNetSample
		for k, c := range want {
			if c != [2]int64{} {
				exp = append(exp, NodeNetSample{TimeUs: k.k * width, Node: k.node, InBytes: c[0], OutBytes: c[1]})
			}
		}
		slices.SortFunc(exp, func(x, y NodeNetSample) int {
			return cmp.Or(cmp.Compare(x.TimeUs, y.TimeUs), cmp.Compare(x.Node, y.Node))
		})
		if !slices.Equal(got, exp) {
			n := 0
			for n < min(len(got), len(exp)) && got[n] == exp[n] {
				n++
			}
			t.Fatalf("seed %d: %d rows emitted, want %d; first difference at row %d", seed, len(got), len(exp), n)
		}
		if sealed == 0 || late == 0 || long == 0 {
			t.Fatalf("seed %d: %d sealed intervals seen, %d with later counts, at most %d long transfers kept: the test does not exercise sealing and long transfers", seed, sealed, late, long)
		}
	}
}

// spreadRef is b bytes spread evenly over [t0, t1) by intervals of width,
// as netAcct.spread's doc says, one interval at a time: pairs of an
// interval and its bytes, the last taking the rounding remainder; an
// instantaneous transfer counts in the interval holding t0.
func spreadRef(b, t0, t1, width int64) [][2]int64 {
	if t1 <= t0 {
		return [][2]int64{{t0 / width, b}}
	}
	var l [][2]int64
	left := b
	for t := t0; t < t1; {
		k := t / width
		end := min(t1, (k+1)*width)
		part := left
		if end < t1 {
			part = int64(float64(b) * float64(end-t) / float64(t1-t0))
		}
		l = append(l, [2]int64{k, part})
		left -= part
		t = end
	}
	return l
}

// netCountsOrNil is iv's unsealed counts, its dense ones in node order or
// its table's (nil for a nil interval); it changes nothing.
func (iv *netInterval) netCountsOrNil() []netCount {
	if iv == nil {
		return nil
	}
	if d := iv.dense; d != nil {
		var l []netCount
		for node := range len(d.c) / 2 {
			if d.bits[node>>6]&(1<<(uint(node)&63)) != 0 {
				l = append(l, netCount{node: int32(node), c: [2]int64{d.c[2*node], d.c[2*node+1]}})
			}
		}
		return l
	}
	return iv.nodes
}

// TestInflightTally adds and ends random transfers between nodes and checks
// the earliest start against the live ones, and that the tally holds no
// more than about twice the distinct start times under way (one long
// transfer at the front must not keep every later start time).
func TestInflightTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var c inflightTally
	var live []Transfer
	local := Transfer{Kind: TransferSpill, Src: 3, Dst: 3}
	c.add(&local, 0) // not between nodes: not counted
	if c.earliest() != math.MaxInt64 {
		t.Fatalf("a spill counted: earliest %d", c.earliest())
	}
	long := Transfer{Kind: TransferFetch, Src: 1, Dst: 2, Start: 0}
	c.add(&long, 0)
	for now := int64(1); now < 200_000; now++ {
		for range rng.IntN(3) {
			x := Transfer{Kind: TransferMapRead, Src: 1, Dst: 2, Start: now}
			c.add(&x, now)
			live = append(live, x)
		}
		for len(live) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(min(len(live), 8))
			c.done(&live[i])
			live = slices.Delete(live, i, i+1)
		}
		if c.earliest() != 0 {
			t.Fatalf("at %d: earliest %d with the transfer of 0 under way", now, c.earliest())
		}
		distinct := map[int64]bool{0: true}
		if now%1000 == 0 {
			for _, x := range live {
				distinct[x.Start] = true
			}
			if n := len(c.at) - c.head; n > 2*len(distinct)+1024 {
				t.Fatalf("at %d: tally holds %d start times for %d distinct under way", now, n, len(distinct))
			}
		}
	}
	c.done(&long)
	want := int64(math.MaxInt64)
	for _, x := range live {
		want = min(want, x.Start)
	}
	if c.earliest() != want {
		t.Fatalf("earliest %d, want %d", c.earliest(), want)
	}
}

// transferRecorder records the transfers the bus carries.
type transferRecorder struct {
	NopObserver
	n int
}

func (r *transferRecorder) Transfer(TransferEvent) { r.n++ }

// TestCrossesNodes: a transfer counts in the tally behind the per-node
// series' floor exactly when flowTransferred reports bytes for it.
func TestCrossesNodes(t *testing.T) {
	for _, x := range []Transfer{
		{Kind: TransferMapRead, Src: 1, Dst: 1}, {Kind: TransferMapRead, Src: 1, Dst: 2},
		{Kind: TransferSpill, Src: 2, Dst: 2},
		{Kind: TransferFetch, Src: 1, Dst: 1}, {Kind: TransferFetch, Src: 1, Dst: 2},
		{Kind: TransferFetch, Round: roundOwn + 1, Src: 1, Dst: 1}, {Kind: TransferFetch, Round: roundRack + 1, Src: 1, Dst: 1},
		{Kind: TransferFetch, Round: roundFar + 1, Src: 1, Dst: 1},
		{Kind: TransferOutput, Src: 1, Dst: 1, Pipeline: []int32{1}}, {Kind: TransferOutput, Src: 1, Dst: 1, Pipeline: []int32{1, 2, 2}},
		{Kind: TransferOutput, Src: 1, Dst: 2, Pipeline: []int32{2}}, {Kind: TransferOutput, Merge: true, Src: 1, Dst: 1, Pipeline: []int32{1}},
	} {
		x.Bytes = 100
		var s Sim
		r := &transferRecorder{}
		s.bus.register(r, onTransfer)
		s.flowTransferred(x, 10)
		if x.crossesNodes() != (r.n > 0) {
			t.Errorf("%+v: crossesNodes %v, %d transfers reported", x, x.crossesNodes(), r.n)
		}
	}
}
