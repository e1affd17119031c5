package policy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// hpfspCheckSlack compares each queued job's slack with eq. (6) recomputed from
// scratch, and the queue's order and positions.
func hpfspCheckSlack(t *testing.T, ss *slackSystem) {
	t.Helper()
	hpfspCheckSlackTol(t, ss, 1e-9)
}

// hpfspCheckSlackTol is hpfspCheckSlack with a tolerance relative to the largest v or w in
// the queue (rounding grows with the number of updates).
func hpfspCheckSlackTol(t *testing.T, ss *slackSystem, tol float64) {
	t.Helper()
	scale := 1.0
	for _, j := range ss.q {
		scale = max(scale, math.Abs(j.v), math.Abs(j.w))
	}
	want := ss.eq6()
	for k, j := range ss.q {
		if j.pos != k {
			t.Fatalf("job %d at position %d records position %d", j.id, k, j.pos)
		}
		if k > 0 && !before(ss.q[k-1], j) {
			t.Fatalf("queue out of order at position %d", k)
		}
		if math.IsInf(want[k], 1) != math.IsInf(j.s, 1) || !math.IsInf(j.s, 1) && math.Abs(j.s-want[k]) > tol*scale {
			t.Fatalf("job %d: incremental slack %g, eq. (6) gives %g", j.id, j.s, want[k])
		}
	}
}

// hpfspState is a queued job's (id, v, w, s) as the hand computation writes it.
type hpfspState struct {
	id      int32
	v, w, s float64
}

func hpfspExpectQueue(t *testing.T, step string, ss *slackSystem, want []hpfspState) {
	t.Helper()
	hpfspCheckSlack(t, ss)
	if len(ss.q) != len(want) {
		t.Fatalf("%s: %d jobs queued, want %d", step, len(ss.q), len(want))
	}
	for k, w := range want {
		g := ss.q[k]
		if g.id != w.id || math.Abs(g.v-w.v) > 1e-12 || math.Abs(g.w-w.w) > 1e-12 || math.Abs(g.s-w.s) > 1e-12 {
			t.Errorf("%s: position %d holds job %d (v %g, w %g, s %g), want job %d (v %g, w %g, s %g)",
				step, k+1, g.id, g.v, g.w, g.s, w.id, w.v, w.w, w.s)
		}
	}
}

// TestSlackSystemHandWorked follows three jobs A (0), B (1), C (2) through
// arrivals, service, re-estimates and departures; every vector below was worked
// by hand from eqs. (6)-(17) and is checked against eq. (6) as well.
func TestSlackSystemHandWorked(t *testing.T) {
	ss := &slackSystem{eps: 1e-9}
	a := &slackJob{id: 0, v: 6, w: 6, pos: -1}
	b := &slackJob{id: 1, v: 3, w: 3, pos: -1}
	c := &slackJob{id: 2, v: 9, w: 9, pos: -1}

	ss.insert(a) // m = 1: s_A = 6 − 6
	hpfspExpectQueue(t, "A arrives", ss, []hpfspState{{0, 6, 6, 0}})
	ss.insert(b) // B goes ahead; A gains v_B − w_B = 0; s_B = 2·3 − 3
	hpfspExpectQueue(t, "B arrives", ss, []hpfspState{{1, 3, 3, 3}, {0, 6, 6, 0}})
	ss.insert(c) // behind both: B gains v_B = 3, A gains v_A = 6; s_C = 9 + 9 − 18
	hpfspExpectQueue(t, "C arrives", ss, []hpfspState{{1, 3, 3, 6}, {0, 6, 6, 6}, {2, 9, 9, 0}})

	// A runs for Δt̂ = 3: w_A = 3 (eq. 7), v −= 3/3 (eq. 8), s_B −= 3 (eq. 9).
	ss.progress([]served{{a, 3}})
	hpfspExpectQueue(t, "A served 3", ss, []hpfspState{{1, 2, 3, 3}, {0, 5, 3, 6}, {2, 8, 9, 0}})

	// Alg. 4: B leads; A needs w_A = 3 ≤ s_B = 3; C needs 9 ≤ min(3, 6): no.
	front := ss.frontMin(nil)
	for _, x := range []struct {
		j    *slackJob
		want bool
	}{{b, true}, {a, true}, {c, false}} {
		if got := completable(x.j, front); got != x.want {
			t.Errorf("job %d completable = %v, want %v", x.j.id, got, x.want)
		}
	}

	// A is re-estimated at w̃ = 9: Δw = 6, v_A = 11, A moves behind C (case 1).
	// Eq. 14: s_C += v_C − v_A + w_A = 8 − 5 + 3 → 6. Eq. 15: s_A += (v_C − w_C)
	// + 1·11 − 2·5 − 9 + 3 = −6 → 0.
	ss.reestimate(a, 9)
	hpfspExpectQueue(t, "A re-estimated up", ss, []hpfspState{{1, 2, 3, 3}, {2, 8, 9, 6}, {0, 11, 9, 0}})

	// C is re-estimated at w̃ = 1: Δw = −8, v_C = 0: C moves ahead of B (case 2,
	// eq. 16: s_B += 0 − 2 − 1 → 0; eq. 17: s_C = −1) and leaves the queue, which
	// gives B and A back w_C − v_C = 1.
	ss.reestimate(c, 1)
	hpfspExpectQueue(t, "C re-estimated down and out", ss, []hpfspState{{1, 2, 3, 1}, {0, 11, 9, 1}})
	if c.pos != -1 || c.w != 1 || !completable(c, ss.frontMin(nil)) {
		t.Errorf("C: position %d, w %g: want out of the queue, w = 1, completable (overdue)", c.pos, c.w)
	}

	// B runs for 3: w_B = 0, no job ahead of it; v −= 3/2.
	ss.progress([]served{{b, 3}})
	hpfspExpectQueue(t, "B served 3", ss, []hpfspState{{1, 0.5, 0, 1}, {0, 9.5, 9, 1}})

	// C (overdue, counts as behind every queued job) runs 1 and A 2: s_B −= 3,
	// s_A −= 1. PS serves 3: B's 0.5 left takes 2·0.5 = 1 of it, B leaves (s_A +=
	// w_B − 0 = 0), A alone gets the other 2.
	ss.progress([]served{{c, 1}, {a, 2}})
	hpfspExpectQueue(t, "B out under PS", ss, []hpfspState{{0, 7, 7, 0}})
	if c.w != 0 || b.pos != -1 {
		t.Errorf("C w %g, B position %d: want 0 and -1", c.w, b.pos)
	}

	// A job that finishes while PS still serves it gets s = ∞ and never blocks.
	d := &slackJob{id: 3, v: 2, w: 2, pos: -1}
	ss.insert(d)
	ss.finish(d) // Δw = −2: v_D = 0, D leaves
	hpfspExpectQueue(t, "D finished at once", ss, []hpfspState{{0, 7, 7, 0}})
	e := &slackJob{id: 4, v: 1, w: 1, pos: -1}
	ss.insert(e)
	ss.progress([]served{{e, 0.5}})
	ss.finish(e) // w 0.5 → 0: v_E = 1 − 0.25 − 0.5 = 0.25 > 0, stays with s = ∞
	hpfspCheckSlack(t, ss)
	if e.pos != 0 || !math.IsInf(e.s, 1) || !completable(a, ss.frontMin(nil)) {
		t.Errorf("E position %d slack %g, A completable %v: want 0, +Inf, true", e.pos, e.s, completable(a, ss.frontMin(nil)))
	}
}

// TestSlackReentry: an overdue job whose estimate grows re-enters the queue with
// v = Δw (eq. 13 from v = 0).
func TestSlackReentry(t *testing.T) {
	ss := &slackSystem{eps: 1e-9}
	a := &slackJob{id: 0, v: 4, w: 4, pos: -1}
	b := &slackJob{id: 1, v: 1, w: 1, pos: -1}
	ss.insert(a)
	ss.insert(b)
	ss.progress([]served{{a, 2}}) // v −= 1: B leaves (v 0) with w_B = 1 unserved
	// Before: B(v 1, w 1, s 1), A(4, 4, 0). A served 2: w_A = 2, s_B −= 2; PS
	// serves 1 each: B leaves at v = 0 and A gets w_B − v_B = 1 of slack back.
	hpfspExpectQueue(t, "B overdue", ss, []hpfspState{{0, 3, 2, 1}})
	// Δw = 2: B re-enters with v = 2, ahead of A, whose slack gains v_B − w_B = −1;
	// s_B = 2·2 − 3.
	ss.reestimate(b, 3)
	hpfspExpectQueue(t, "B re-enters", ss, []hpfspState{{1, 2, 3, 1}, {0, 3, 2, 0}})
}

// TestSlackRandomOperations drives the slack system through random arrivals,
// service, re-estimates and finishes, checking eq. (6) after each step.
func TestSlackRandomOperations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ss := &slackSystem{eps: 1e-9}
	var jobs []*slackJob
	for step := range 5000 {
		switch op := rng.IntN(10); {
		case op < 2 || len(jobs) == 0:
			w := 1 + 100*rng.Float64()
			j := &slackJob{id: int32(step), v: w, w: w, pos: -1}
			ss.insert(j)
			jobs = append(jobs, j)
		case op < 6:
			var sv []served
			for _, j := range jobs {
				if !j.done && rng.IntN(3) == 0 {
					sv = append(sv, served{j, 5 * rng.Float64()})
				}
			}
			ss.progress(sv)
		case op < 9:
			j := jobs[rng.IntN(len(jobs))]
			if !j.done {
				ss.reestimate(j, max(0.001, j.w+20*(rng.Float64()-0.5)))
			}
		default:
			k := rng.IntN(len(jobs))
			ss.finish(jobs[k])
			jobs = append(jobs[:k], jobs[k+1:]...)
		}
		hpfspCheckSlack(t, ss)
	}
}
