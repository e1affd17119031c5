package replay

import (
	"math/rand/v2"
	"testing"
)

// TestWakeQueueHand walks the wake-up queue through a hand-made case. Nodes
// 0..4 are pushed at times 30, 50, 40 (before the FIFO's last, 50: to the
// heap), 60 and 20 (to the heap); node 1 (in the FIFO) and node 4 (the heap's
// head) are removed; node 1 is queued again at 70, after node 3's 60: FIFO.
// So the order is 0 at 30, 2 at 40, 3 at 60, 1 at 70, and the stale FIFO entry
// of node 1 at 50 is never returned.
func TestWakeQueueHand(t *testing.T) {
	var q wakeQueue
	q.init(5)
	for _, p := range []struct {
		n int32
		t int64
	}{{0, 30}, {1, 50}, {2, 40}, {3, 60}, {4, 20}} {
		q.push(p.n, p.t)
	}
	if n, at, _ := q.first(); n != 4 || at != 20 {
		t.Fatalf("first = node %d at %d, want node 4 at 20", n, at)
	}
	q.remove(1)
	q.remove(4)
	q.push(1, 70)
	want := []struct {
		n int32
		t int64
	}{{0, 30}, {2, 40}, {3, 60}, {1, 70}}
	for _, w := range want {
		n, at, ok := q.first()
		if !ok || n != w.n || at != w.t {
			t.Fatalf("first = node %d at %d (%v), want node %d at %d", n, at, ok, w.n, w.t)
		}
		q.remove(n)
	}
	if !q.empty() {
		t.Fatal("queue not empty")
	}
	if _, _, ok := q.first(); ok {
		t.Fatal("first of an empty queue")
	}
}

// TestWakeQueueRandom pushes and removes nodes at random, mostly in time
// order, and checks first against a scan of the queued nodes, after two of
// every three changes (so that first's cache meets changes one at a time and
// two in a row).
func TestWakeQueueRandom(t *testing.T) {
	const nodes = 64
	rng := rand.New(rand.NewPCG(3, 4))
	var q wakeQueue
	q.init(nodes)
	queued := map[int32]int64{}
	used := map[int64]bool{} // wake-up times are distinct
	now := int64(0)
	for step := range 50000 {
		n := int32(rng.IntN(nodes))
		if _, ok := queued[n]; ok {
			q.remove(n)
			delete(queued, n)
		} else {
			at := now + 1000 + rng.Int64N(100)
			if rng.IntN(8) == 0 {
				at = now + rng.Int64N(1000)
			}
			if used[at] {
				continue
			}
			used[at] = true
			q.push(n, at)
			queued[n] = at
		}
		now += rng.Int64N(20)
		if step%3 == 1 {
			continue
		}
		bn, bt, ok := int32(-1), int64(0), false
		for k, v := range queued {
			if !ok || v < bt {
				bn, bt, ok = k, v, true
			}
		}
		n2, t2, ok2 := q.first()
		if ok2 != ok || ok && (n2 != bn || t2 != bt) {
			t.Fatalf("first = node %d at %d (%v), want node %d at %d (%v)", n2, t2, ok2, bn, bt, ok)
		}
		if q.empty() != (len(queued) == 0) {
			t.Fatalf("empty = %v with %d queued", q.empty(), len(queued))
		}
	}
}
