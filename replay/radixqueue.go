package replay

import "math/bits"

// radixQueue is Sim.q, the queue of the scheduled events other than the
// heartbeats, the sweep and the arrivals: a radix heap on the events' times
// with a 4-ary heap (front) for the events at or before its base.
//
// Every event with t > base is in the bucket b[k] of the highest bit k in
// which t differs from base, so that every event of b[k] is later than every
// event of the buckets below it and than base. front holds the events with
// t <= base, in (t, ks) order. A pop that finds front empty makes the first
// non-empty bucket's least time base: that bucket's events at that time go
// to front, its others to lower buckets (settle). An event so moves down a
// few buckets, by appends to slices read in order, instead of sifting down
// the levels of a heap of thousands of events, each a cache miss.
//
// first does not move events: each bucket keeps its first event's place
// (bmin), so that base, moved only by pops, stays at or before now, and
// the events scheduled later (at or after now) go to the buckets, not to
// front, which then holds only the events of one time. Any event may be
// pushed, whatever its time: one at or before base goes to front.
//
// The pops come in (t, ks) order; events equal in (t, ks), which q does not
// hold (their keys are unique: Sim.seq's), would come out in an order that
// differs from eventQueue's (TestRadixQueueOrder).
//
// The zero radixQueue is empty, with base 0.
type radixQueue struct {
	front eventQueue
	base  int64
	mask  uint64        // bit k set when b[k] is not empty
	b     [64][]event   // b[k]: events with t > base whose highest bit differing from base is k
	bmin  [64]bucketMin // bmin[k]: b[k]'s first event in (t, ks) order, when b[k] is not empty
	n     int           // the events queued
}

// bucketMin is a bucket's first event in (t, ks) order and its index.
type bucketMin struct {
	t  int64
	ks uint64
	i  int
}

// len is the number of events queued.
func (r *radixQueue) len() int { return r.n }

// bucket is the bucket of an event at t > r.base. Two's complement numbers
// of one sign compare as their bits do, and a t > base of the other sign
// differs from base in bit 63: so the buckets' order is the times' order.
func (r *radixQueue) bucket(t int64) int {
	return bits.Len64(uint64(t^r.base)) - 1
}

func (r *radixQueue) push(e event) {
	r.n++
	if e.t <= r.base {
		r.front.push(e)
		return
	}
	r.toBucket(e)
}

// toBucket puts e, at t > r.base, in its bucket.
func (r *radixQueue) toBucket(e event) {
	k := r.bucket(e.t)
	if m := &r.bmin[k]; r.mask&(1<<k) == 0 || e.t < m.t || e.t == m.t && e.ks < m.ks {
		*m = bucketMin{e.t, e.ks, len(r.b[k])}
	}
	r.b[k] = append(r.b[k], e)
	r.mask |= 1 << k
}

// settle moves the events at the first non-empty bucket's least time to
// front when front is empty, and the bucket's others to lower buckets.
func (r *radixQueue) settle() {
	if len(r.front) > 0 || r.mask == 0 {
		return
	}
	k := bits.TrailingZeros64(r.mask)
	bk := r.b[k]
	m := r.bmin[k].t
	r.base = m
	r.b[k] = bk[:0]
	r.mask &^= 1 << k
	for _, e := range bk {
		if e.t == m {
			r.front.push(e)
			continue
		}
		r.toBucket(e) // below k: e.t and m agree from bit k up
	}
}

// first is the event pop would return; the queue must not be empty. It
// moves nothing: the pointer is good until the next push or pop.
func (r *radixQueue) first() *event {
	if len(r.front) > 0 {
		return &r.front[0]
	}
	k := bits.TrailingZeros64(r.mask)
	return &r.b[k][r.bmin[k].i]
}

// pop takes the first event; the queue must not be empty.
func (r *radixQueue) pop() event {
	r.settle()
	r.n--
	return r.front.pop()
}

// each calls f with every queued event, in no particular order.
func (r *radixQueue) each(f func(event)) {
	for _, e := range r.front {
		f(e)
	}
	for m := r.mask; m != 0; m &= m - 1 {
		for _, e := range r.b[bits.TrailingZeros64(m)] {
			f(e)
		}
	}
}

// any reports whether f is true of a queued event.
func (r *radixQueue) any(f func(event) bool) bool {
	found := false
	r.each(func(e event) { found = found || f(e) })
	return found
}
