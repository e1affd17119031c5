package flow

import (
	"fmt"
	"math"
)

// The rate-update quantum, an approximation of max-min sharing for runs with
// thousands of flows crossing racks, where every start or end re-times most
// active flows (docs/network-model.md, "Cost in the engine").
//
// With a quantum q > 0, the network re-solves at most once per q: a change at
// or after the next solve time (the last solve's time plus q) is solved at
// once, exactly as without a quantum; a change before it is deferred. Flows
// keep their rates until the deferred solve: a flow removed early leaves its
// rate unused, and a flow added early runs at a provisional rate. On each
// resource of its path it may go at the larger of two rates, what the
// resource has spare (capacity minus the load of the flows crossing it) over
// the flow's weight there, and the resource's equal share (capacity over the
// sum of the weights of the flows crossing it, the new one included); its
// rate is the smallest of these over its path.
//
// The equal share is the rate max-min gives every flow bottlenecked on a
// resource whose flows all have it as their bottleneck: the flows already there
// keep their rates until the solve, so a resource may carry more than its
// capacity until then, by at most one equal share for each flow added
// across it since the last solve. Before h-provshare (2026-11-28) a
// provisional rate was the spare alone: every flow joining a saturated
// resource (under max-min every bottleneck is one) waited at rate 0 for the
// solve, up to q, which delayed short tasks most; on FB-2010's first 3,000
// jobs under fair, 40% of the flows added while a solve was deferred waited
// so at q = 1 s (61% at the default 10 ms), and at q = 10 s the median
// job's flowtime grew from 7.19 s (q = 100 ms) to 11.39 s
// (docs/network-model.md, "An equal share while a solve is deferred").
// Capacity freed early still stays idle for at most q. The engine asks Due
// when the deferred solve falls and calls Settle then.

// SetUpdateQuantum sets the rate-update quantum in µs: 0, the default, is
// exact max-min after every change; a positive q re-solves at most once per q.
// It is an error to set a negative quantum or to change it while changes are
// deferred.
func (n *Network) SetUpdateQuantum(q int64) error {
	if q < 0 || q > maxDuration {
		return fmt.Errorf("flow: rate-update quantum %d µs: want 0 (exact) or a positive duration", q)
	}
	if len(n.dirty) > 0 || len(n.added) > 0 {
		return fmt.Errorf("flow: rate-update quantum changed with a re-solve deferred")
	}
	n.quantum = q
	return nil
}

// Due is the time of the deferred re-solve; ok is false when nothing is
// deferred.
func (n *Network) Due() (at int64, ok bool) {
	if len(n.dirty) == 0 && len(n.added) == 0 {
		return 0, false
	}
	return n.nextSolve, true
}

// Settle advances the clock to t as Advance does and re-solves the changes
// deferred by the quantum, returning the flows whose finish times moved (the
// slice is reused by the next call). With nothing deferred it only advances
// the clock.
func (n *Network) Settle(t int64) ([]Change, error) {
	if err := n.checkTime(t); err != nil {
		return nil, fmt.Errorf("flow: settling deferred changes: %w", err)
	}
	n.now = t
	if len(n.dirty) == 0 && len(n.added) == 0 {
		return nil, nil
	}
	// Every flow a settle reports was already timed: those added since the
	// last solve have their provisional finish times.
	ch := n.solveNow(nil, false)
	n.stats.Retimed += int64(len(ch))
	return ch, nil
}

// deferring reports whether a change at the clock's time waits for the next
// solve.
func (n *Network) deferring() bool { return n.quantum > 0 && n.now < n.nextSolve }

// solveNow re-solves the deferred changes and seeds at the clock's time and
// starts the next quantum; added says the seeds are the paths of flows just
// added (else of flows just removed).
//
// The flows added since the last solve (n.added) are re-solved with the
// resources they cross checked, not freed: the incremental solver pulls in a
// resource only when its bottleneck check fails there (incremental.go). A
// resource that lost flows is left out of the seeds unless a flow crossing it
// has it as its bottleneck: every other flow there is held by a saturated
// resource elsewhere whose flows did not change, so it keeps its rate, and a
// resource carrying less cannot go over its capacity. Seeding such a resource
// would free every flow crossing it (a rack uplink: hundreds) for nothing and
// push the incremental solver past its limit into a full re-solve.
func (n *Network) solveNow(seeds []ResourceID, added bool) []Change {
	keep := seeds[:0]
	if !added {
		for _, r := range seeds {
			if n.holdsBottleneck(r) {
				keep = append(keep, r)
			}
		}
	}
	for _, r := range n.dirty {
		if n.holdsBottleneck(r) {
			keep = append(keep, r)
		}
		n.res[r].dirty = false
	}
	n.dirty = n.dirty[:0]
	if n.quantum > 0 {
		n.nextSolve = n.now + n.quantum
		n.stats.QuantumSolves++
	}
	n.seeds = keep[:0]
	ch := n.resolve(keep, n.added)
	for i, f := range n.added {
		f.addIdx = -1
		n.added[i] = nil
	}
	n.added = n.added[:0]
	return ch
}

// holdsBottleneck reports whether a flow crossing resource r has r as its
// bottleneck (the resource where the last solve fixed its rate), O(1).
func (n *Network) holdsBottleneck(r ResourceID) bool { return n.res[r].bottled > 0 }

// deferChange marks a change's resources for the next solve.
func (n *Network) deferChange(path []ResourceID) {
	for _, r := range path {
		if !n.res[r].dirty {
			n.res[r].dirty = true
			n.dirty = append(n.dirty, r)
		}
	}
}

// provisional gives a flow added while a solve is deferred its provisional
// rate (the quantum's doc above: on each resource of its path the larger of
// the spare capacity over its weight there and the equal share; the smallest
// over the path) and finish time, and returns its change. The flow is already
// in its resources' lists and weight sums, so the share counts it.
func (n *Network) provisional(f *flowState) Change {
	rate := math.Inf(1)
	for i, r := range f.path {
		res := &n.res[r]
		rate = min(rate, max((res.capacity-res.used)/f.w(i), res.capacity/res.wsum))
	}
	n.stats.Provisional++
	if rate == 0 {
		n.stats.ProvisionalZero++
	}
	for i, r := range f.path {
		n.res[r].used += f.w(i) * rate
	}
	f.rate = rate
	n.setBott(f, f.path[0])
	f.finish = n.now + durationUs(f.remaining, rate)
	n.fin.push(f)
	return Change{Flow: f.id, Finish: f.finish}
}
