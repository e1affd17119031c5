package flow

import "testing"

// TestUpdateQuantum works one resource of 1 MB/s by hand with a 10 s
// quantum:
//
//   - 0 s: A (20 MB) starts. The first change is solved at once: A gets
//     1 MB/s, finish 20 s; the next solve is due at 10 s.
//   - 2 s: B (2 MB) starts, deferred: its provisional rate is what its
//     resource has spare, 1 − 1 = 0 MB/s, so it waits; A keeps 1 MB/s.
//   - 10 s: the deferred solve: A has 10 MB left, B 2 MB, 0.5 MB/s each:
//     B finishes at 14 s, A at 30 s. The next solve is due at 20 s.
//   - 14 s: B ends, deferred: A keeps 0.5 MB/s (8 MB left, finish 30 s).
//   - 15 s: C (1 MB) starts, deferred: 1 − 0.5 = 0.5 MB/s spare, finish
//     17 s; A still 0.5 MB/s.
//   - 17 s: C ends, deferred.
//   - 20 s: the deferred solve: A has 8 − 6 × 0.5 = 5 MB left, alone at
//     1 MB/s: finish 25 s.
//
// Exact (no quantum): A alone 0–2 s, A and B at 0.5 MB/s 2–6 s (B done), A
// alone 6–15 s, A and C at 0.5 MB/s 15–17 s (C done), A alone after: A's
// 20 MB = 2 + 2 + 9 + 1 + 6, finish 23 s.
func TestUpdateQuantum(t *testing.T) {
	const s = int64(1e6)
	n := New()
	r, _ := n.AddResource("link", 1e6)
	path := []ResourceID{r}
	if err := n.SetUpdateQuantum(10 * s); err != nil {
		t.Fatal(err)
	}
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	want := func(id FlowID, fin int64) {
		t.Helper()
		if got, _ := n.Finish(id); got != fin {
			t.Errorf("at %d µs flow %d finishes at %d µs, want %d", n.Now(), id, got, fin)
		}
	}
	_, err := n.Add(0, 1, 20e6, path)
	step("add A", err)
	want(1, 20*s)
	if _, ok := n.Due(); ok {
		t.Error("a solve is deferred after the first change")
	}
	_, err = n.Add(2*s, 2, 2e6, path)
	step("add B", err)
	if rate, _ := n.Rate(2); rate != 0 {
		t.Errorf("B's provisional rate %v, want 0 (nothing spare)", rate)
	}
	want(1, 20*s)
	if due, ok := n.Due(); !ok || due != 10*s {
		t.Errorf("due %d µs, %v; want 10 s", due, ok)
	}
	_, err = n.Settle(10 * s)
	step("settle at 10 s", err)
	want(1, 30*s)
	want(2, 14*s)
	retimed := func(k int64) {
		t.Helper()
		if got := n.Stats().Retimed; got != k {
			t.Errorf("at %d µs Stats().Retimed = %d, want %d", n.Now(), got, k)
		}
	}
	retimed(2) // A and B, re-timed by the settle
	_, err = n.Remove(14*s, 2)
	step("end B", err)
	want(1, 30*s)
	_, err = n.Add(15*s, 3, 1e6, path)
	step("add C", err)
	want(3, 17*s)
	_, err = n.Remove(17*s, 3)
	step("end C", err)
	if due, ok := n.Due(); !ok || due != 20*s {
		t.Errorf("due %d µs, %v; want 20 s", due, ok)
	}
	_, err = n.Settle(20 * s)
	step("settle at 20 s", err)
	want(1, 25*s)
	retimed(3) // and A again
	// B waited at rate 0, C ran at what was spare: two provisional flows,
	// one at 0.
	if st := n.Stats(); st.Provisional != 2 || st.ProvisionalZero != 1 {
		t.Errorf("Stats() Provisional %d, ProvisionalZero %d; want 2 and 1", st.Provisional, st.ProvisionalZero)
	}

	// The same changes without a quantum.
	n = New()
	r, _ = n.AddResource("link", 1e6)
	path = []ResourceID{r}
	_, err = n.Add(0, 1, 20e6, path)
	step("add A", err)
	_, err = n.Add(2*s, 2, 2e6, path)
	step("add B", err)
	want(2, 6*s)
	_, err = n.Remove(6*s, 2)
	step("end B", err)
	_, err = n.Add(15*s, 3, 1e6, path)
	step("add C", err)
	want(3, 17*s)
	_, err = n.Remove(17*s, 3)
	step("end C", err)
	want(1, 23*s)
	if _, ok := n.Due(); ok {
		t.Error("a change was deferred without a quantum")
	}

	if err := New().SetUpdateQuantum(-1); err == nil {
		t.Error("a negative quantum was accepted")
	}
}
