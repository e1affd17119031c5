package flow

// The incremental solver. After a flow starts or ends, max-min rates usually
// move only near it: flows bottlenecked on its resources, the flows those
// release or squeeze on their other resources, and so on. resolveLocal
// re-solves a region that starts as the changed resources and grows until
// the result provably is the max-min allocation of the whole network, which
// is unique and characterised by two conditions: no resource carries more
// than its capacity, and every flow has a bottleneck, a saturated resource
// where no flow gets more than it does.
//
// The flows crossing the region's resources are free; every other flow keeps
// its rate, which is taken off its resources' capacities, and the free flows
// are solved by progressive filling (progressiveFill). Capacities hold by
// construction. The bottleneck condition can only fail on a resource outside
// the region that free flows cross, for a free flow whose bottleneck it is
// (a kept flow there gets more) or a kept flow whose bottleneck it was (it is
// no longer saturated, or a flow there now gets more). Each such resource
// joins the region and the solve is repeated; when none fails, every flow has
// a bottleneck: free ones by the check, kept ones by the check or because
// their bottleneck's flows did not change. When the region grows past a
// quarter of the active flows, or after maxLocalRounds solves, the solver
// gives up and the whole component is re-solved (fill): under contention on
// shared uplinks nearly every rate moves, and the full solve is then cheaper.

// localTol is the relative tolerance of the incremental solver's checks
// (saturation and "no flow gets more"), far below the 1e-6 to which the
// solver matches SimGrid and above floating-point noise.
const localTol = 1e-12

// maxLocalRounds bounds the incremental solver's solves per change.
const maxLocalRounds = 8

// resolveLocal re-solves around the seed resources as described above and
// applies the result; ok is false, with nothing applied, when it gave up.
//
// The flows added are free from the start, and the resources they cross are
// checked but not in the region: a new flow on a resource with spare capacity
// frees nobody else.
func (n *Network) resolveLocal(seeds []ResourceID, added []*flowState) (changes []Change, ok bool) {
	n.epoch++
	ep := n.epoch
	free := n.comp[:0]
	touched := n.compRes[:0] // the resources free flows cross
	limit := max(64, n.flows.len()/4)
	// grow adds a resource to the region; false when the free flows pass the
	// limit (the walk stops there).
	grow := func(r ResourceID) bool {
		res := &n.res[r]
		if res.region == ep {
			return true
		}
		res.region = ep
		if res.seen != ep {
			res.seen = ep
			touched = append(touched, r)
		}
		for _, e := range res.flows {
			f := e.f
			if f.seen == ep {
				continue
			}
			f.seen = ep
			free = append(free, f)
			if len(free) > limit {
				return false
			}
			for _, q := range f.path {
				if n.res[q].seen != ep {
					n.res[q].seen = ep
					touched = append(touched, q)
				}
			}
		}
		return true
	}
	defer func() {
		n.stats.LocalFlows += int64(len(free))
		n.compRes = touched[:0]
		if !ok {
			for i := range free {
				free[i] = nil
			}
			n.comp = free[:0]
		}
	}()
	for _, r := range seeds {
		if !grow(r) {
			return nil, false
		}
	}
	for _, f := range added {
		if f.seen == ep {
			continue
		}
		f.seen = ep
		free = append(free, f)
		if len(free) > limit {
			return nil, false
		}
		for _, q := range f.path {
			if n.res[q].seen != ep {
				n.res[q].seen = ep
				touched = append(touched, q)
			}
		}
	}
	for round := 0; ; round++ {
		if round == maxLocalRounds {
			return nil, false
		}
		n.progressiveFill(touched, ep)
		grew := false
		for _, q := range touched {
			res := &n.res[q]
			if res.region == ep || n.bottleneckHolds(q, ep) {
				continue
			}
			if !grow(q) {
				return nil, false
			}
			grew = true
		}
		if !grew {
			break
		}
	}
	return n.apply(free), true
}

// bottleneckHolds checks resource q, outside the region, after a local solve:
// every free flow whose bottleneck q is gets at least as much as every kept
// flow there, and every kept flow whose bottleneck q was is still at least as
// fast as every flow there, with q saturated.
func (n *Network) bottleneckHolds(q ResourceID, ep uint64) bool {
	res := &n.res[q]
	load, maxKept, maxAll := 0.0, 0.0, 0.0
	for _, e := range res.flows {
		f := e.f
		r := f.rate
		if f.seen == ep {
			r = f.newRate
		} else {
			maxKept = max(maxKept, r)
		}
		load += e.w * r
		maxAll = max(maxAll, r)
	}
	saturated := load >= res.capacity*(1-localTol)
	for _, e := range res.flows {
		if f := e.f; f.seen == ep {
			if f.newBott == q && (!saturated || f.newRate < maxKept*(1-localTol)) {
				return false
			}
		} else if f.bott == q && (!saturated || f.rate < maxAll*(1-localTol)) {
			return false
		}
	}
	return true
}
