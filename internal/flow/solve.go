package flow

import (
	"cmp"
	"slices"
)

// resolve re-solves the connected component of flows reachable from the seed
// resources (through flows sharing resources) and applies the new rates. added
// is the flow just added, if any, which is always reported. It returns the
// flows whose finish times changed, sorted by flow ID.
//
// Progressive filling: every resource's fair share is what it has left divided
// by the flows crossing it that have no rate yet. The resource with the
// smallest share is a bottleneck: all its unfixed flows get that share, which
// is subtracted from every other resource they cross. Repeat until every flow
// has a rate. A flow's rate is therefore the smallest share among its
// resources at the moment it is fixed, the definition of max-min fairness.
// Resources sit in an indexed heap keyed by (share, ID), so ties are broken by
// resource ID and the result is deterministic; each (flow, resource) pair
// updates the heap once, hence O(E log R) for E pairs and R resources.
func (n *Network) resolve(seeds []ResourceID, added *flowState) []Change {
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
		for _, f := range n.res[cres[i]].flows {
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

	h := n.rheap[:0]
	for _, r := range cres {
		res := &n.res[r]
		res.left = res.capacity
		res.unfixed = len(res.flows)
		if res.unfixed == 0 {
			res.hidx = -1
			continue
		}
		res.share = res.left / float64(res.unfixed)
		res.hidx = len(h)
		h = append(h, r)
	}
	for _, f := range comp {
		f.fixed = false
	}
	n.rheap = h
	n.rheap.init(n.res)

	for len(n.rheap) > 0 {
		r := n.rheap.popMin(n.res)
		res := &n.res[r]
		s := res.share
		for _, f := range res.flows {
			if f.fixed {
				continue
			}
			f.fixed = true
			f.newRate = s
			for _, q := range f.path {
				if q == r {
					continue
				}
				qr := &n.res[q]
				qr.left -= s
				qr.unfixed--
				if qr.unfixed == 0 {
					n.rheap.remove(n.res, qr.hidx)
					continue
				}
				left := qr.left
				if left < 0 {
					left = 0
				}
				qr.share = left / float64(qr.unfixed)
				n.rheap.fix(n.res, qr.hidx)
			}
		}
		res.unfixed = 0
	}

	changes := n.changes[:0]
	if added != nil {
		added.rate = added.newRate
		added.finish = n.now + durationUs(added.remaining, added.rate)
		n.fin.push(added)
		changes = append(changes, Change{Flow: added.id, Finish: added.finish})
	}
	for _, f := range comp {
		if f == added || f.newRate == f.rate {
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
	slices.SortFunc(changes, func(a, b Change) int { return cmp.Compare(a.Flow, b.Flow) })
	for i := range comp {
		comp[i] = nil
	}
	n.comp = comp[:0]
	n.compRes = cres[:0]
	n.changes = changes
	return changes
}

// resHeap is an indexed min-heap of resources keyed by (share, ID); each
// resource's hidx is its place in the heap.
type resHeap []ResourceID

func (h resHeap) less(res []resource, i, j int) bool {
	a, b := &res[h[i]], &res[h[j]]
	if a.share != b.share {
		return a.share < b.share
	}
	return h[i] < h[j]
}

func (h resHeap) swap(res []resource, i, j int) {
	h[i], h[j] = h[j], h[i]
	res[h[i]].hidx = i
	res[h[j]].hidx = j
}

func (h resHeap) init(res []resource) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(res, i)
	}
}

func (h resHeap) up(res []resource, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(res, i, p) {
			return
		}
		h.swap(res, i, p)
		i = p
	}
}

func (h resHeap) down(res []resource, i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h.less(res, r, l) {
			m = r
		}
		if !h.less(res, m, i) {
			break
		}
		h.swap(res, i, m)
		i = m
	}
	return i > start
}

func (h resHeap) fix(res []resource, i int) {
	if !h.down(res, i) {
		h.up(res, i)
	}
}

func (h *resHeap) popMin(res []resource) ResourceID {
	r := (*h)[0]
	h.remove(res, 0)
	return r
}

func (h *resHeap) remove(res []resource, i int) {
	old := *h
	last := len(old) - 1
	removed := old[i]
	if i != last {
		old.swap(res, i, last)
	}
	*h = old[:last]
	res[removed].hidx = -1
	if i != last {
		(*h).fix(res, i)
	}
}

// finishHeap is an indexed min-heap of active flows keyed by (finish, ID).
type finishHeap []*flowState

func (h finishHeap) less(i, j int) bool {
	if h[i].finish != h[j].finish {
		return h[i].finish < h[j].finish
	}
	return h[i].id < h[j].id
}

func (h finishHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hidx = i
	h[j].hidx = j
}

func (h finishHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h finishHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

func (h finishHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *finishHeap) push(f *flowState) {
	f.hidx = len(*h)
	*h = append(*h, f)
	h.up(f.hidx)
}

func (h *finishHeap) remove(f *flowState) {
	old := *h
	i := f.hidx
	last := len(old) - 1
	if i != last {
		old.swap(i, last)
	}
	old[last] = nil
	*h = old[:last]
	f.hidx = -1
	if i != last {
		h.fix(i)
	}
}
