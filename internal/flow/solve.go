package flow

import (
	"cmp"
	"math"
	"slices"
)

// resolve re-solves the connected component of flows reachable from the seed
// resources (through flows sharing resources) and applies the new rates. Flows
// never solved before (finish < 0) get their first rate and are always
// reported. It returns the flows whose finish times changed, in the order the
// component was found (deterministic, as everything here).
//
// Progressive filling: every resource's fair share is what it has left divided
// by the flows crossing it that have no rate yet. The resource with the
// smallest share is a bottleneck: all its unfixed flows get that share, which
// is subtracted from every other resource they cross. Repeat until every flow
// has a rate. A flow's rate is therefore the smallest share among its
// resources at the moment it is fixed, the definition of max-min fairness.
//
// The resources are taken in order of their initial share (sortByShare, a
// radix sort), merged with a min-heap keyed by (share, ID) of resources whose
// share grew. Fixing a flow at the smallest share can only raise the share of
// its other resources, so they are not moved but marked stale: a stale
// resource reaching the front is put in the heap with its current share, and
// one that is current at the front is the true minimum. A resource is waiting
// once at a time and each stale surfacing costs one push and pop, so the cost
// is O(E + R + S log R) for E (flow, resource) pairs, R resources and S stale
// surfacings (at most E).
//
// added are flows added since the last solve: the incremental solver re-solves
// them without freeing the flows of the resources they cross; the full solver
// takes their resources as seeds.
func (n *Network) resolve(seeds []ResourceID, added []*flowState) []Change {
	// After the incremental solver gives up, the next changes likely spread as
	// far (a shuffle across racks): it sits out 1, 2, 4, … up to 16 changes
	// after consecutive failures, and is tried on every change again after a
	// success.
	switch {
	case n.fullOnly:
	case n.localSkip > 0:
		n.localSkip--
	default:
		if changes, ok := n.resolveLocal(seeds, added); ok {
			n.localSolves++
			n.stats.LocalSolves++
			n.localFails = 0
			return changes
		}
		n.localSkip = 1 << min(n.localFails, 4)
		n.localFails++
		n.stats.LocalFailures++
	}
	n.fullSolves++
	n.stats.FullSolves++
	for _, f := range added {
		seeds = append(seeds, f.path...)
	}
	n.seeds = seeds[:0]
	comp := n.fill(seeds)
	n.stats.FullFlows += int64(len(comp))
	return n.apply(comp)
}

// apply gives the flows of a solve their new rates and bottlenecks, re-times
// those whose rate changed and returns the flows whose finish times moved
// (every flow never solved before among them). It clears flows, n.comp's
// storage.
func (n *Network) apply(flows []*flowState) []Change {
	changes := n.changes[:0]
	for _, f := range flows {
		n.setBott(f, f.newBott)
		if f.newRate != f.rate {
			for i, r := range f.path {
				n.res[r].used += f.w(i) * (f.newRate - f.rate)
			}
		}
		if f.finish < 0 {
			f.rate = f.newRate
			f.finish = n.now + durationUs(f.remaining, f.rate)
			n.fin.push(f)
			changes = append(changes, Change{Flow: f.id, Finish: f.finish})
			continue
		}
		if f.newRate == f.rate {
			continue
		}
		f.remaining = f.remainingAt(n.now)
		f.at = n.now
		f.rate = f.newRate
		fin := n.now + durationUs(f.remaining, f.rate)
		if fin != f.finish {
			f.finish = fin
			n.fin.fix(f.hidx)
			changes = append(changes, Change{Flow: f.id, Finish: fin})
		}
	}
	for i := range flows {
		flows[i] = nil
	}
	n.comp = flows[:0]
	n.changes = changes
	return changes
}

// fill finds the component reachable from the seed resources and sets every
// flow's newRate in it by progressive filling, without applying the rates. It
// returns the component's flows (n.comp's storage).
func (n *Network) fill(seeds []ResourceID) []*flowState {
	n.epoch++
	ep := n.epoch
	comp := n.comp[:0]
	cres := n.compRes[:0]
	for _, r := range seeds {
		if n.res[r].seen != ep {
			n.res[r].seen = ep
			cres = append(cres, r)
		}
	}
	for i := 0; i < len(cres); i++ {
		for _, e := range n.res[cres[i]].flows {
			f := e.f
			if f.seen == ep {
				continue
			}
			f.seen = ep
			comp = append(comp, f)
			for _, q := range f.path {
				if n.res[q].seen != ep {
					n.res[q].seen = ep
					cres = append(cres, q)
				}
			}
		}
	}

	n.progressiveFill(cres, ep)
	n.compRes = cres[:0]
	n.comp = comp
	return comp
}

// progressiveFill sets newRate and newBott of every free flow (seen == ep)
// crossing the resources res (all the resources free flows cross), by
// progressive filling. Flows that are not free keep their rates, which are
// taken off their resources' capacities first.
func (n *Network) progressiveFill(cres []ResourceID, ep uint64) {
	// The resources sorted by initial share, then taken in that order merged
	// with a heap of those put back with a grown share.
	order := n.order[:0]
	for _, r := range cres {
		res := &n.res[r]
		res.left = res.capacity
		res.unfixed = 0
		res.unfixedW = 0
		for _, e := range res.flows {
			if f := e.f; f.seen == ep {
				f.fixed = false
				res.unfixed++
				res.unfixedW += e.w
			} else {
				res.left -= e.w * f.rate
			}
		}
		res.stale = false
		if res.unfixed > 0 {
			res.share = max(res.left, 0) / res.unfixedW
			order = append(order, heapEntry{res.share, r})
		}
	}
	n.sortTmp = sortByShare(order, n.sortTmp)
	h := n.rheap[:0]
	for next := 0; next < len(order) || len(h) > 0; {
		var top heapEntry
		if len(h) == 0 || (next < len(order) && cmpEntry(order[next], h[0]) < 0) {
			top = order[next]
			next++
		} else {
			top = h.pop()
		}
		res := &n.res[top.id]
		if res.unfixed == 0 {
			continue
		}
		if res.stale {
			res.stale = false
			h.push(heapEntry{res.share, top.id})
			continue
		}
		s := res.share
		for _, e := range res.flows {
			f := e.f
			if f.fixed || f.seen != ep {
				continue
			}
			f.fixed = true
			f.newRate = s
			f.newBott = top.id
			for i, q := range f.path {
				if q == top.id {
					continue
				}
				qr := &n.res[q]
				w := f.w(i)
				qr.left -= w * s
				qr.unfixed--
				qr.unfixedW -= w
				if qr.unfixed > 0 {
					if !(qr.unfixedW > 0) { // cancellation: sum again
						qr.unfixedW = n.unfixedWeight(q, ep)
					}
					qr.share = max(qr.left, 0) / qr.unfixedW
					qr.stale = true
				}
			}
		}
		res.unfixed = 0
	}
	n.rheap = h
	n.order = order[:0]
}

// unfixedWeight sums the weights of the free flows still without a rate on
// resource q, for when subtracting the fixed ones' weights lost them to
// rounding.
func (n *Network) unfixedWeight(q ResourceID, ep uint64) float64 {
	res := &n.res[q]
	s := 0.0
	for _, e := range res.flows {
		if f := e.f; f.seen == ep && !f.fixed {
			s += e.w
		}
	}
	return s
}

// heapEntry is a resource waiting in the solver's heap with the share it had
// when it was put there.
type heapEntry struct {
	share float64
	id    ResourceID
}

// sortByShare sorts entries by share, keeping the given order among equal
// shares (any order of equal shares gives the same rates; a fixed one keeps
// runs identical). It is a least-significant-digit radix sort on the bits of
// the shares, which for positive float64s order as unsigned integers: 8 passes
// of one byte, skipping the bytes all shares have in common, O(len) each. tmp
// is scratch space, returned for reuse.
func sortByShare(entries, tmp []heapEntry) []heapEntry {
	if len(entries) < 2 {
		return tmp
	}
	tmp = slices.Grow(tmp[:0], len(entries))[:len(entries)]
	src, dst := entries, tmp
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		count = [256]int{}
		for _, e := range src {
			count[byte(math.Float64bits(e.share)>>shift)]++
		}
		if count[byte(math.Float64bits(src[0].share)>>shift)] == len(src) {
			continue // every share has this byte: the pass would not move anything
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, e := range src {
			d := byte(math.Float64bits(e.share) >> shift)
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &entries[0] {
		copy(entries, src)
	}
	return tmp
}

// cmpEntry orders heap entries by (share, ID).
func cmpEntry(a, b heapEntry) int {
	if a.share != b.share {
		if a.share < b.share {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.id, b.id)
}

// resHeap is a binary min-heap of resources keyed by (share, ID).
type resHeap []heapEntry

func (h resHeap) less(i, j int) bool {
	if h[i].share != h[j].share {
		return h[i].share < h[j].share
	}
	return h[i].id < h[j].id
}

func (h resHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h resHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func (h *resHeap) push(e heapEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			return
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *resHeap) pop() heapEntry {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	(*h).down(0)
	return top
}

// finishHeap is an indexed min-heap of active flows keyed by (finish, ID),
// a total order, so the flows come out in the same order whatever the heap's
// shape. It is 4-ary and holds each flow's key beside it, so that sifting
// compares without reading the flows' records (the engine removes the
// first flow at each transfer end: tens of millions of times on a day of
// FB-2010). A flow's hidx is its index.
type finishHeap []finEntry

// finEntry is one flow in the finish heap with its key.
type finEntry struct {
	finish int64
	id     FlowID
	f      *flowState
}

// before orders entries by (finish, ID).
func (a *finEntry) before(b *finEntry) bool {
	if a.finish != b.finish {
		return a.finish < b.finish
	}
	return a.id < b.id
}

// up sifts entry i towards the root.
func (h finishHeap) up(i int) {
	e := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		h[i].f.hidx = i
		i = p
	}
	h[i] = e
	e.f.hidx = i
}

// down sifts entry i towards the leaves and reports whether it moved.
func (h finishHeap) down(i int) bool {
	start := i
	e := h[i]
	n := len(h)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k, end := c+1, min(c+4, n); k < end; k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&e) {
			break
		}
		h[i] = h[m]
		h[i].f.hidx = i
		i = m
	}
	h[i] = e
	e.f.hidx = i
	return i > start
}

// fix restores the order after flow h[i].f's finish time changed.
func (h finishHeap) fix(i int) {
	h[i].finish = h[i].f.finish
	if !h.down(i) {
		h.up(i)
	}
}

func (h *finishHeap) push(f *flowState) {
	*h = append(*h, finEntry{finish: f.finish, id: f.id, f: f})
	h.up(len(*h) - 1)
}

func (h *finishHeap) remove(f *flowState) {
	old := *h
	i := f.hidx
	last := len(old) - 1
	if i != last {
		old[i] = old[last]
		old[i].f.hidx = i
	}
	old[last] = finEntry{}
	*h = old[:last]
	f.hidx = -1
	if i != last {
		h.fix(i)
	}
}
