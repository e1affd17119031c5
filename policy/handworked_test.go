package policy

import "testing"

// TestHandWorkedThreeJobs: job A (t=0, four 2 s maps), B (t=1, one 1 s map), C
// (t=2, one 2 s map) on 2 nodes × 1 map slot.
//
// FIFO: A takes both slots at 0 and again at 2 (B and C queue behind it), B runs
// 4-5 and C 4-6: flowtimes A 4, B 4, C 4.
//
// Fair: at 2 both slots free; node 0 goes first, every job runs 0 maps, ties go
// to submit order: A (2-4); node 1 then sees A with 1 running, B and C with 0:
// B (2-3); at 3 node 1 frees: A 1 running, C 0: C (3-5); at 4 node 0 frees: A's
// last map (4-6). Flowtimes A 6, B 2, C 3.
func TestHandWorkedThreeJobs(t *testing.T) {
	jobs := []job{{0, []int64{2, 2, 2, 2}, nil}, {1, []int64{1}, nil}, {2, []int64{2}, nil}}
	cases := []struct {
		policy string
		flow   []int64
	}{
		{"fifo", []int64{4, 4, 4}},
		{"fifo-strict", []int64{4, 4, 4}},
		{"fair", []int64{6, 2, 3}},
		{"fair-strict", []int64{6, 2, 3}},
		{"capacity", []int64{4, 4, 4}},
	}
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			res := runHand(t, c.policy, jobs)
			checkFlowtimes(t, res, c.flow)
			for i := range c.flow {
				if res.Jobs[i].StarvationUs != 0 {
					t.Errorf("job %s starvation %d, want 0 (map-only)", res.Jobs[i].JobID, res.Jobs[i].StarvationUs)
				}
			}
		})
	}
}

// TestHandWorkedStarvation: A (t=0, two 2 s maps, two 3 s reduces) launches both
// reduces at 0 (slow-start 0), holding both reduce slots until 5; B (t=1, one 1 s
// map, one 1 s reduce) maps 2-3 but its reduce waits for a slot until 5 and ends
// at 6. B starves 5 - 3 = 2 s; A does not starve (its reduces launched before its
// last map ended).
func TestHandWorkedStarvation(t *testing.T) {
	jobs := []job{{0, []int64{2, 2}, []int64{3, 3}}, {1, []int64{1}, []int64{1}}}
	for _, policy := range []string{"fifo", "fair", "capacity"} {
		t.Run(policy, func(t *testing.T) {
			res := runHand(t, policy, jobs)
			a, b := res.Jobs[0], res.Jobs[1]
			check := func(name string, got, want int64) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %v s, want %v s", name, float64(got)/sec, float64(want)/sec)
				}
			}
			check("A flowtime", a.FlowtimeUs, 5*sec)
			check("A starvation", a.StarvationUs, 0)
			check("A last map end", a.LastMapEndUs, 2*sec)
			check("B flowtime", b.FlowtimeUs, 5*sec)
			check("B last map end", b.LastMapEndUs, 3*sec)
			check("B reduce launch", b.FirstReduceLaunchUs, 5*sec)
			check("B starvation", b.StarvationUs, 2*sec)
			if b.ReducesLate != 1 || a.ReducesLate != 0 {
				t.Errorf("late reduces A %d B %d, want 0 and 1", a.ReducesLate, b.ReducesLate)
			}
		})
	}
}
