package replay

import "testing"

// TestFlowStepPlace checks where a flow network's step sits among the
// events (stepAt): at the time of the last event handled, right after it (a
// heartbeat scheduled before that event fell due before the step, one after
// it did not); at a later time, before every event of that time (no
// heartbeat of that time fell due before it). Cancelling and parking read
// that place (cancelled, beforeNow, the park log).
func TestFlowStepPlace(t *testing.T) {
	s := &Sim{now: 100, curSeq: 40}
	s.stepAt(100)
	if s.now != 100 || s.curSeq != 40 {
		t.Fatalf("a step at the last event's time: now %d, seq %d; want 100, 40", s.now, s.curSeq)
	}
	if !s.cancelled(100, 38) || s.cancelled(100, 42) || !s.cancelled(99, 1000) {
		t.Error("a step at the last event's time: the heartbeats before that event fell due before it, and only they")
	}
	s.stepAt(150)
	if s.now != 150 || s.curSeq != 0 {
		t.Fatalf("a later step: now %d, seq %d; want 150, 0", s.now, s.curSeq)
	}
	if s.cancelled(150, 2) || s.beforeNow(150, 1) || !s.cancelled(149, 1<<40) {
		t.Error("a later step: a heartbeat of its time fell due before it, or one before it did not")
	}
}
