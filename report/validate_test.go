package report

import (
	"math"
	"testing"
)

func TestErrorStats(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		signed                   []float64
		median, p90, under, over float64
	}{
		{"empty", nil, math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		{"exact", []float64{0, 0}, 0, 0, 0, 0},
		// |e| sorted 0.1 0.2 0.3 0.4 0.5: median the 3rd, p90 the 5th.
		{"mixed", []float64{-0.5, 0.1, -0.2, 0.3, 0.4}, 0.3, 0.5, 0.4, 0.6},
		// ten values: p90 is the 9th smallest |e|.
		{"ten", []float64{-1, -0.9, -0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, -0.1}, 0.5, 0.9, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := errorStats(tc.signed)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"median", s.Median, tc.median}, {"p90", s.P90, tc.p90}, {"under", s.Under, tc.under}, {"over", s.Over, tc.over}} {
				if !(math.Abs(c.got-c.want) < 1e-12 || math.IsNaN(c.got) && math.IsNaN(c.want)) {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
			if s.Jobs != len(tc.signed) {
				t.Errorf("jobs = %d, want %d", s.Jobs, len(tc.signed))
			}
		})
	}
}

// TestPairRunsLabels pairs each simulated run with the observed run of its
// other labels, whatever the seed, and fails for a run without one.
func TestPairRunsLabels(t *testing.T) {
	mk := func(policy, hw, seed string) Run {
		return Run{Policy: policy, Labels: map[string]string{PolicyLabel: policy, "hw": hw, "seed": seed}}
	}
	runs := []Run{mk("observed", "a", "1"), mk("observed", "b", "1"), mk("fifo", "a", "2"), mk("fifo", "b", "1")}
	pairs, err := PairRuns("", runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 {
		t.Fatalf("%d pairs, want 2", len(pairs))
	}
	for _, p := range pairs {
		if p.Observed.Labels["hw"] != p.Sim.Labels["hw"] {
			t.Errorf("%s paired with observed hw=%s", p.Name, p.Observed.Labels["hw"])
		}
	}
	if _, err := PairRuns("", append(runs, mk("fair", "c", "1"))); err == nil {
		t.Error("a run without an observed partner: no error")
	}
}
