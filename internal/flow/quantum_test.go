package flow

import "testing"

// TestUpdateQuantum works one resource of 1 MB/s by hand, with a 10 s
// quantum and without:
//
//   - 0 s: A (20 MB) starts. The first change is solved at once: A gets
//     1 MB/s, finish 20 s; the next solve is due at 10 s.
//   - 2 s: B (2 MB) starts, deferred: its provisional rate is 1 MB/s over 2
//     flows, 0.5 MB/s, finish 2 + 4 = 6 s; A keeps 1 MB/s (the resource
//     carries 1.5 MB/s until the solve). Due: 10 s.
//   - 6 s: B ends, deferred; A still at 1 MB/s, finish 20 s.
//   - 10 s: the deferred solve: A has sent 10 MB, 10 MB left alone at
//     1 MB/s: finish still 20 s. Nothing is deferred; the next solve is due at
//     20 s.
//   - 20 s: A ends: solved at once (20 ≥ 20).
//
// Exact (quantum 0): A alone 0–2 s (2 MB), A and B at 0.5 MB/s 2–6 s (B's
// 2 MB, A's 2 MB), A alone from 6 s with 16 MB: finish 22 s, B at 6 s.
func TestUpdateQuantum(t *testing.T) {
	const s = int64(1e6)
	for _, c := range []struct {
		quantum, aFinish int64
	}{{10 * s, 20 * s}, {0, 22 * s}} {
		n := New()
		r, _ := n.AddResource("link", 1e6)
		if err := n.SetUpdateQuantum(c.quantum); err != nil {
			t.Fatal(err)
		}
		path := []ResourceID{r}
		if _, err := n.Add(0, 1, 20e6, path); err != nil {
			t.Fatal(err)
		}
		if _, ok := n.Due(); ok {
			t.Errorf("quantum %d: a solve is deferred after the first change", c.quantum)
		}
		if _, err := n.Add(2*s, 2, 2e6, path); err != nil {
			t.Fatal(err)
		}
		if fin, _ := n.Finish(2); fin != 6*s {
			t.Errorf("quantum %d: B finishes at %d µs, want 6 s", c.quantum, fin)
		}
		due, ok := n.Due()
		if c.quantum > 0 && (!ok || due != 10*s) || c.quantum == 0 && ok {
			t.Errorf("quantum %d: due %d µs, %v", c.quantum, due, ok)
		}
		if rate, _ := n.Rate(1); c.quantum > 0 && rate != 1e6 {
			t.Errorf("quantum %d: A's rate %v before the solve, want its last, 1e6", c.quantum, rate)
		}
		if _, err := n.Remove(6*s, 2); err != nil {
			t.Fatal(err)
		}
		if c.quantum > 0 {
			if _, err := n.Settle(10 * s); err != nil {
				t.Fatal(err)
			}
			if _, ok := n.Due(); ok {
				t.Errorf("quantum %d: still deferred after Settle", c.quantum)
			}
		}
		if id, fin, _ := n.Next(); id != 1 || fin != c.aFinish {
			t.Errorf("quantum %d: next flow %d at %d µs, want A at %d", c.quantum, id, fin, c.aFinish)
		}
		if _, err := n.Remove(c.aFinish, 1); err != nil {
			t.Fatal(err)
		}
		if _, ok := n.Due(); ok {
			t.Errorf("quantum %d: A's end was deferred", c.quantum)
		}
	}
	if err := New().SetUpdateQuantum(-1); err == nil {
		t.Error("a negative quantum was accepted")
	}
}
