package flow

import (
	"math"
	"testing"
)

// TestUpdateQuantum works one resource of 1 MB/s by hand with a 10 s
// quantum:
//
//   - 0 s: A (20 MB) starts. The first change is solved at once: A gets
//     1 MB/s, finish 20 s; the next solve is due at 10 s.
//   - 2 s: B (6 MB) starts, deferred. Nothing is spare (1 − 1), so B gets
//     the equal share, 1 / 2 = 0.5 MB/s: finish 14 s. A keeps 1 MB/s; the
//     link carries 1.5 MB/s until the solve.
//   - 10 s: the deferred solve: A has 10 MB left, B 2 MB, 0.5 MB/s each: A
//     finishes at 30 s (re-timed), B still at 14 s. The next solve is due
//     at 20 s.
//   - 14 s: B ends, deferred: A keeps 0.5 MB/s (8 MB left, finish 30 s).
//   - 15 s: C and D (1 MB each) start together, deferred; the equal share
//     is 1 / 3 MB/s. C gets the spare, 1 − 0.5 = 0.5 MB/s, more than the
//     share: finish 17 s. D finds nothing spare and gets the share: finish
//     18 s. The link carries 4/3 MB/s.
//   - 17 s, 18 s: C and D end, deferred.
//   - 20 s: the deferred solve: A has 8 − 6 × 0.5 = 5 MB left, alone at
//     1 MB/s: finish 25 s.
//
// Exact (no quantum): A alone 0–2 s, A and B at 0.5 MB/s 2–14 s (B done), A
// alone 14–15 s, A, C and D at 1/3 MB/s 15–18 s (C and D done), A alone
// after: A's 20 MB = 2 + 6 + 1 + 1 + 10, finish 28 s.
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
	wantLoad := func(load float64) {
		t.Helper()
		if got := n.Load(r); math.Abs(got-load) > 1e-6 {
			t.Errorf("at %d µs the link carries %v B/s, want %v", n.Now(), got, load)
		}
	}
	_, err := n.Add(0, 1, 20e6, path)
	step("add A", err)
	want(1, 20*s)
	if _, ok := n.Due(); ok {
		t.Error("a solve is deferred after the first change")
	}
	_, err = n.Add(2*s, 2, 6e6, path)
	step("add B", err)
	if rate, _ := n.Rate(2); rate != 0.5e6 {
		t.Errorf("B's provisional rate %v, want the equal share 0.5 MB/s (nothing spare)", rate)
	}
	want(1, 20*s)
	want(2, 14*s)
	wantLoad(1.5e6)
	if due, ok := n.Due(); !ok || due != 10*s {
		t.Errorf("due %d µs, %v; want 10 s", due, ok)
	}
	_, err = n.Settle(10 * s)
	step("settle at 10 s", err)
	want(1, 30*s)
	want(2, 14*s)
	wantLoad(1e6)
	retimed := func(k int64) {
		t.Helper()
		if got := n.Stats().Retimed; got != k {
			t.Errorf("at %d µs Stats().Retimed = %d, want %d", n.Now(), got, k)
		}
	}
	retimed(1) // A, re-timed by the settle; B's finish did not move
	_, err = n.Remove(14*s, 2)
	step("end B", err)
	want(1, 30*s)
	_, err = n.AddBatch(15*s, []Spec{{ID: 3, Bytes: 1e6, Path: path}, {ID: 4, Bytes: 1e6, Path: path}})
	step("add C and D", err)
	if rate, _ := n.Rate(3); rate != 0.5e6 {
		t.Errorf("C's provisional rate %v, want what is spare, 0.5 MB/s", rate)
	}
	want(3, 17*s)
	want(4, 18*s)
	wantLoad(0.5e6 + 0.5e6 + 1e6/3)
	_, err = n.Remove(17*s, 3)
	step("end C", err)
	_, err = n.Remove(18*s, 4)
	step("end D", err)
	if due, ok := n.Due(); !ok || due != 20*s {
		t.Errorf("due %d µs, %v; want 20 s", due, ok)
	}
	_, err = n.Settle(20 * s)
	step("settle at 20 s", err)
	want(1, 25*s)
	retimed(2) // and A again
	// B got the share, C the spare, D the share: three provisional flows,
	// none at 0.
	if st := n.Stats(); st.Provisional != 3 || st.ProvisionalZero != 0 {
		t.Errorf("Stats() Provisional %d, ProvisionalZero %d; want 3 and 0", st.Provisional, st.ProvisionalZero)
	}

	// The same changes without a quantum.
	n = New()
	r, _ = n.AddResource("link", 1e6)
	path = []ResourceID{r}
	_, err = n.Add(0, 1, 20e6, path)
	step("add A", err)
	_, err = n.Add(2*s, 2, 6e6, path)
	step("add B", err)
	want(2, 14*s)
	_, err = n.Remove(14*s, 2)
	step("end B", err)
	_, err = n.AddBatch(15*s, []Spec{{ID: 3, Bytes: 1e6, Path: path}, {ID: 4, Bytes: 1e6, Path: path}})
	step("add C and D", err)
	want(3, 18*s)
	want(4, 18*s)
	_, err = n.RemoveBatch(18*s, []FlowID{3, 4})
	step("end C and D", err)
	want(1, 28*s)
	if _, ok := n.Due(); ok {
		t.Error("a change was deferred without a quantum")
	}

	if err := New().SetUpdateQuantum(-1); err == nil {
		t.Error("a negative quantum was accepted")
	}
}
