package replay

// heapItem is an element of a minHeap: *T orders itself before another.
type heapItem[T any] interface {
	*T
	before(*T) bool
}

// minHeap is a binary min-heap of T in the order of (*T).before, for the
// sweeps over a trace (peakUse's edges, slotWaits' points) and the observed
// run's pending task rows. Elements that compare equal leave in an order
// fixed by the pushes and pops alone, so a run is deterministic. Not for the
// simulator's event queue, which has its own.
type minHeap[T any, P heapItem[T]] []T

func (h *minHeap[T, P]) push(x T) {
	*h = append(*h, x)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !P(&s[i]).before(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// pop removes and returns the least element; the slot it frees is zeroed
// (an element's strings are not kept).
func (h *minHeap[T, P]) pop() T {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	var zero T
	s[last] = zero
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && P(&s[l]).before(&s[m]) {
			m = l
		}
		if r < len(s) && P(&s[r]).before(&s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
