package replay

import (
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
	// emitted; intervals before next have been emitted.
	open   map[int64]map[int32][2]int64
	next   int64
	emit   func(NodeNetSample)
	now    *int64 // the current simulated time
	policy string // the run's policy name, for the rows (Sim.policyName)
	nodes  []int32
	// floor, if set, is the earliest start of a transfer still under way
	// (network = "flow" learns a transfer's bytes per interval only at its
	// end): intervals from it on stay open.
	floor func() int64
}

func newNetAcct(nodes int, width int64, series bool, now *int64, emit func(NodeNetSample)) netAcct {
	a := netAcct{width: width, series: series, in: make([]int64, nodes), out: make([]int64, nodes), now: now, emit: emit}
	if series {
		a.open = map[int64]map[int32][2]int64{}
	}
	return a
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
	m := a.open[k]
	if m == nil {
		m = map[int32][2]int64{}
		a.open[k] = m
	}
	c := m[node]
	c[dir] += x
	m[node] = c
}

// flush emits the open intervals before limit, in time then node order, and
// drops them; nodes that moved nothing in an interval are left out.
func (a *netAcct) flush(limit int64) {
	for len(a.open) > 0 && a.next < limit {
		if m, ok := a.open[a.next]; ok {
			a.nodes = a.nodes[:0]
			for n, c := range m {
				if c != [2]int64{} {
					a.nodes = append(a.nodes, n)
				}
			}
			slices.Sort(a.nodes)
			for _, n := range a.nodes {
				c := m[n]
				a.emit(NodeNetSample{TimeUs: a.next * a.width, Node: n, InBytes: c[0], OutBytes: c[1]})
			}
			delete(a.open, a.next)
		}
		a.next++
	}
	a.next = max(a.next, limit)
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
