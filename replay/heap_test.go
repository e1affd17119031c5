package replay

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestEventSize checks that an event stays 24 bytes: the kind is packed into
// the sequence number's word (event.ks), not a padded field of its own.
func TestEventSize(t *testing.T) {
	if n := unsafe.Sizeof(event{}); n != 24 {
		t.Fatalf("event is %d bytes, want 24", n)
	}
}

// TestEventPacking checks that every kind and large sequence numbers of both
// parities come back from an event unchanged.
func TestEventPacking(t *testing.T) {
	for k := evArrival; k <= evSpecKill; k++ {
		for _, key := range []uint64{0, 1, 2, 12345<<1 | 1, 1<<58 - 1, 1 << 58} {
			e := mkEvent(-7, key, k, -3, 1<<31-1)
			if e.key() != key || e.kind() != k || e.t != -7 || e.a != -3 || e.b != 1<<31-1 {
				t.Fatalf("mkEvent(key %d, kind %d) = %+v: key %d kind %d", key, k, e, e.key(), e.kind())
			}
		}
	}
}

// TestEventQueueOrder pushes random events of random kinds, popping some as it
// goes, and checks they come out in (time, sequence number) order, whatever
// their kinds.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var seq uint64
	var last event
	popped, n := 0, 0
	check := func() {
		e := q.pop()
		if popped > 0 && (e.t < last.t || e.t == last.t && e.key() < last.key()) {
			t.Fatalf("popped %+v after %+v", e, last)
		}
		last = e
		popped++
	}
	now := int64(0)
	for range 20000 {
		if rng.IntN(3) > 0 || len(q) == 0 {
			seq += 1 + uint64(rng.IntN(2)) // keys of both parities
			n++
			q.push(mkEvent(now+rng.Int64N(50), seq, eventKind(rng.IntN(int(evSpecKill)+1)), 0, 0))
		} else {
			check()
			now = last.t
		}
	}
	for len(q) > 0 {
		check()
	}
	if popped != n {
		t.Fatalf("popped %d of %d", popped, n)
	}
}

// popInOrder is eventQueue.pop as it was before the tournament without
// branches (beforeBit): the reference for TestEventQueueLayout.
func popInOrder(q *eventQueue) event {
	h := *q
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = last
	}
	*q = h
	return top
}

// TestEventQueueLayout checks that pop leaves the heap exactly as the
// comparison-by-comparison pop does, slot by slot, with many events equal in
// (time, key) (WakeFirst's heartbeats share key 0), negative times and times
// far apart: equal events come out in an order that depends on the heap's
// layout, so the layout, not only the order of the keys, must not change.
func TestEventQueueLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 40 {
		var q, ref eventQueue
		span := int64(1) << (round % 40) // from every event at one time to times far apart
		for op := range 6000 {
			if rng.IntN(5) < 3 || len(q) == 0 {
				var key uint64
				if rng.IntN(3) > 0 {
					key = uint64(rng.IntN(4)) // ties
				} else {
					key = rng.Uint64N(1 << 58)
				}
				tm := rng.Int64N(span) - span/2
				if rng.IntN(50) == 0 {
					tm = []int64{math.MinInt64, math.MaxInt64, -1, 0}[rng.IntN(4)]
				}
				e := mkEvent(tm, key, eventKind(rng.IntN(int(evSpecKill)+1)), int32(op), int32(round))
				q.push(e)
				ref.push(e)
			} else if got, want := q.pop(), popInOrder(&ref); got != want {
				t.Fatalf("round %d op %d: pop = %+v, want %+v", round, op, got, want)
			}
			if !slices.Equal(q, ref) {
				t.Fatalf("round %d op %d: the heap's layout differs from the reference's", round, op)
			}
		}
	}
}

// TestHeartbeatsSent checks the closed form against counting each node's ticks.
func TestHeartbeatsSentClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	iv := int64(3_000_000)
	s := &Sim{hw: &Hardware{Heartbeat: Duration(iv)}}
	for range 50 {
		s.nodes = append(s.nodes, nodeState{phase: rng.Int64N(iv)})
	}
	s.nodes[0].phase, s.nodes[1].phase = 0, iv-1
	s.orderPhases()
	times := []int64{-1, 0, 1, iv - 1, iv, iv + 1, 7*iv + 12345, rng.Int64N(100 * iv)}
	// Increasing times, as a policy asks at each heartbeat (the walk from the
	// previous answer), some equal, some in the next interval.
	tm := int64(0)
	for range 400 {
		times = append(times, tm)
		tm += rng.Int64N(iv / 20)
	}
	// Steps over more phases than the walk takes (hbSentWalk), as when the
	// nodes between two heartbeats that ask are parked: the search after it.
	for range 400 {
		times = append(times, tm)
		tm += rng.Int64N(iv / 2)
	}
	for _, n := range s.phaseOrder { // at each node's tick, in order
		times = append(times, 5*iv+s.nodes[n].phase)
	}
	for _, tm := range times {
		var want int64
		for _, n := range s.nodes {
			if tm >= n.phase {
				want += (tm-n.phase)/iv + 1
			}
		}
		if got := s.HeartbeatsSent(tm); got != want {
			t.Errorf("HeartbeatsSent(%d) = %d, want %d", tm, got, want)
		}
		if got := s.HeartbeatsSent(tm); got != want { // asked again: the last answer
			t.Errorf("HeartbeatsSent(%d) again = %d, want %d", tm, got, want)
		}
	}
	// HeartbeatTime is its inverse: the first time the count reaches k.
	for k := int64(1); k <= 5*int64(len(s.nodes)); k++ {
		tm := s.HeartbeatTime(k)
		if s.HeartbeatsSent(tm) < k || s.HeartbeatsSent(tm-1) >= k {
			t.Fatalf("HeartbeatTime(%d) = %d: HeartbeatsSent there %d, a µs before %d", k, tm, s.HeartbeatsSent(tm), s.HeartbeatsSent(tm-1))
		}
	}
}

// TestPrefetchMapGuards: the prefetch of the next map end's record reads
// nothing it should not: a job already gone (nil), a job whose map records
// were dropped (retireMaps) and an index past the maps are skipped.
func TestPrefetchMapGuards(t *testing.T) {
	s := &Sim{jobs: []*Job{nil, {}, {Maps: make([]MapTask, 2)}}}
	for _, c := range [][2]int32{{0, 0}, {1, 0}, {2, 1}, {2, 2}, {2, -1}} {
		s.prefetchMap(c[0], c[1])
	}
}
