package replay

import (
	"math/rand/v2"
	"testing"
)

// TestEventQueueOrder pushes random events, popping some as it goes, and checks
// they come out in (time, sequence) order.
func TestEventQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var seq uint64
	var last event
	popped := 0
	check := func() {
		e := q.pop()
		if popped > 0 && e.before(&last) {
			t.Fatalf("popped %+v after %+v", e, last)
		}
		last = e
		popped++
	}
	now := int64(0)
	for range 20000 {
		if rng.IntN(3) > 0 || len(q) == 0 {
			seq++
			q.push(event{t: now + rng.Int64N(50), seq: seq})
		} else {
			check()
			now = last.t
		}
	}
	for len(q) > 0 {
		check()
	}
	if popped != int(seq) {
		t.Fatalf("popped %d of %d", popped, seq)
	}
}
