package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Per-node network accounting (the Coupling paper's Fig. 14 plots, at each time,
// the largest number of bytes any node sent or received).
//
// A transfer of b bytes from node u to node v over [t0, t1) counts b bytes out of
// u and into v; for the time series its bytes are spread evenly over the time it
// takes and summed per timeline interval. Counted transfers: remote map input
// (from the replica it reads, over the map's whole run) and, under the topology
// shuffle, each fetch of map output by a reduce on another node. The uniform
// shuffle has no per-node sources, so its bytes appear only in
// RunSummary.NetworkBytes.

// The rows, NodeResult and NodeNetSample, are in internal/results.

// netAcct accumulates per-node network bytes, in total and per interval.
//
// The per-interval counts are kept only for the intervals still open: a
// transfer starts at the current simulated time or later (a map's remote read
// at its launch, a shuffle fetch when both ends are ready), so the intervals
// before the current one are complete; each transfer emits those, in time then
// node order, and drops them. Memory follows the transfers
// in flight, not nodes × simulated time.
type netAcct struct {
	NopObserver
	width   int64
	series  bool
	in, out []int64 // totals per node
	// open holds the bytes in and out per node of each interval not yet
	// emitted, open[i] those of interval next+i (nil: none counted yet; the
	// last is never nil); intervals before next have been emitted. pool
	// holds emitted intervals for reuse.
	open   []*netInterval
	pool   []*netInterval
	next   int64
	emit   func(NodeNetSample)
	now    *int64 // the current simulated time
	policy string // the run's policy name, for the rows (Sim.policyName)
	// floor, if set, is the earliest start of a transfer still under way
	// (network = "flow" learns a transfer's bytes per interval only at its
	// end): intervals from it on stay open.
	floor func() int64
}

func newNetAcct(nodes int, width int64, series bool, now *int64, emit func(NodeNetSample)) netAcct {
	a := netAcct{width: width, series: series, in: make([]int64, nodes), out: make([]int64, nodes), now: now, emit: emit}
	return a
}

// netInterval is one open interval's counts: an entry per node counted in
// it, in the order of their first count, found by node through a small
// open-addressing table (Before, a Go map per interval keyed by node, whose
// lookups were 7% of a flow run's CPU; a slot per cluster node in every
// interval was as fast but held 12 KB an interval on fb-3000, and a flow
// run keeps thousands of intervals open behind a long transfer.)
type netInterval struct {
	tab   []int32 // 1 + an index in nodes, 0 empty; a power of two long
	nodes []netCount
}

// find is node's index in nodes, adding an entry when it has none.
func (iv *netInterval) find(node int32) int {
	if 2*(len(iv.nodes)+1) > len(iv.tab) {
		iv.grow()
	}
	mask := uint32(len(iv.tab) - 1)
	for h := uint32(node) * 0x9E3779B1 & mask; ; h = (h + 1) & mask {
		e := iv.tab[h] - 1
		if e < 0 {
			iv.nodes = append(iv.nodes, netCount{node: node})
			iv.tab[h] = int32(len(iv.nodes))
			return len(iv.nodes) - 1
		}
		if iv.nodes[e].node == node {
			return int(e)
		}
	}
}

// grow doubles the table (8 slots at first) and re-enters the nodes.
func (iv *netInterval) grow() {
	k := max(8, 2*len(iv.tab))
	if cap(iv.tab) >= k {
		iv.tab = iv.tab[:k]
		clear(iv.tab)
	} else {
		iv.tab = make([]int32, k)
	}
	mask := uint32(k - 1)
	for i, c := range iv.nodes {
		h := uint32(c.node) * 0x9E3779B1 & mask
		for iv.tab[h] != 0 {
			h = (h + 1) & mask
		}
		iv.tab[h] = int32(i + 1)
	}
}

// netCount is one node's bytes in ([0]) and out ([1]) in an interval.
type netCount struct {
	node int32
	c    [2]int64
}

// Transfer makes the accounting an observer of the run's bus (bus.go): it
// counts each transfer.
// A transfer counted at one end (e.Ends) adds nothing at the other.
func (a *netAcct) Transfer(e TransferEvent) {
	a.transferEnds(e.Src, e.Dst, e.Bytes, e.Start, e.End, e.Ends)
}

// transfer counts b bytes moved from u to v over [t0, t1).
func (a *netAcct) transfer(u, v int32, b int64, t0, t1 int64) {
	a.transferEnds(u, v, b, t0, t1, EndsBoth)
}

// transferEnds counts b bytes moved from u to v over [t0, t1) at the ends
// given.
func (a *netAcct) transferEnds(u, v int32, b int64, t0, t1 int64, ends TransferEnds) {
	if ends != EndsIn {
		a.out[u] += b
	}
	if ends != EndsOut {
		a.in[v] += b
	}
	if a.series {
		limit := *a.now / a.width
		if a.floor != nil {
			limit = min(limit, a.floor()/a.width)
		}
		a.flush(limit)
		if ends != EndsIn {
			a.spread(u, 1, b, t0, t1)
		}
		if ends != EndsOut {
			a.spread(v, 0, b, t0, t1)
		}
	}
}

// spread adds b bytes evenly over [t0, t1) to node's interval counts in
// direction dir (0 in, 1 out); the last interval takes the rounding remainder.
// An instantaneous transfer counts in the interval holding t0.
func (a *netAcct) spread(node int32, dir int, b int64, t0, t1 int64) {
	if t1 <= t0 {
		a.add(t0/a.width, node, dir, b)
		return
	}
	left := b
	for t := t0; t < t1; {
		k := t / a.width
		end := min(t1, (k+1)*a.width)
		part := left
		if end < t1 {
			part = int64(float64(b) * float64(end-t) / float64(t1-t0))
		}
		a.add(k, node, dir, part)
		left -= part
		t = end
	}
}

func (a *netAcct) add(k int64, node int32, dir int, x int64) {
	if k < a.next {
		panic(fmt.Sprintf("network accounting: a transfer into interval %d, already emitted up to %d", k, a.next))
	}
	i := int(k - a.next)
	for len(a.open) <= i {
		a.open = append(a.open, nil)
	}
	iv := a.open[i]
	if iv == nil {
		if p := len(a.pool); p > 0 {
			iv, a.pool = a.pool[p-1], a.pool[:p-1]
		} else {
			iv = &netInterval{}
		}
		a.open[i] = iv
	}
	iv.nodes[iv.find(node)].c[dir] += x
}

// flush emits the open intervals before limit, in time then node order, and
// drops them; nodes that moved nothing in an interval are left out.
func (a *netAcct) flush(limit int64) {
	for len(a.open) > 0 && a.next < limit {
		if iv := a.open[0]; iv != nil {
			slices.SortFunc(iv.nodes, func(x, y netCount) int { return cmp.Compare(x.node, y.node) })
			for _, e := range iv.nodes {
				if e.c != [2]int64{} {
					a.emit(NodeNetSample{TimeUs: a.next * a.width, Node: e.node, InBytes: e.c[0], OutBytes: e.c[1]})
				}
			}
			iv.nodes = iv.nodes[:0]
			clear(iv.tab)
			a.pool = append(a.pool, iv)
		}
		a.open[0] = nil
		a.open = a.open[1:]
		a.next++
	}
	a.next = max(a.next, limit)
}

// openIntervals is the number of intervals holding counts not yet emitted.
func (a *netAcct) openIntervals() int {
	k := 0
	for _, iv := range a.open {
		if iv != nil {
			k++
		}
	}
	return k
}

// policyName is the run's policy name, asked of the policy once.
func (s *Sim) policyName() string {
	if s.net.policy == "" {
		s.net.policy = s.pol.Name()
	}
	return s.net.policy
}

// summariseNodes writes the per-node results, in node id order, and emits the
// intervals still open.
func (s *Sim) summariseNodes() {
	name := s.policyName()
	a := &s.net
	for i := range s.topo.Nodes {
		n := &s.topo.Nodes[i]
		s.res.Nodes = append(s.res.Nodes, NodeResult{Policy: name, Node: n.ID, Host: n.Host,
			Rack: s.topo.RackNames[n.Rack], NetInBytes: a.in[i], NetOutBytes: a.out[i]})
	}
	if a.series {
		a.flush(math.MaxInt64)
	}
}
