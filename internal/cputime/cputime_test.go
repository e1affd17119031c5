package cputime

import "testing"

// TestProcessCounts: a second of busy work shows as CPU time, and the clock
// never goes back.
func TestProcessCounts(t *testing.T) {
	a := Process()
	x := 0
	for i := range 200_000_000 {
		x += i & 3
	}
	b := Process()
	if b <= a {
		t.Errorf("CPU time went from %v to %v over a busy loop (%d)", a, b, x)
	}
}
