package report

import (
	"math"
	"slices"
	"testing"
)

func TestPercentileKnownValues(t *testing.T) {
	one20 := make([]float64, 20)
	for i := range one20 {
		one20[i] = float64(i + 1)
	}
	tests := []struct {
		name string
		x    []float64
		p    float64
		want float64
	}{
		{"p0 is the minimum", one20, 0, 1},
		{"p50 of 1..20", one20, 0.50, 10},
		{"p95 of 1..20", one20, 0.95, 19},
		{"p99 of 1..20", one20, 0.99, 20},
		{"p100 is the maximum", one20, 1, 20},
		{"single value", []float64{7}, 0.5, 7},
		{"p50 of four picks the second", []float64{1, 2, 3, 4}, 0.5, 2},
		{"p51 of four picks the third", []float64{1, 2, 3, 4}, 0.51, 3},
		{"ties", []float64{5, 5, 5, 9}, 0.75, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.x, tt.p); got != tt.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.x, tt.p, got, tt.want)
			}
		})
	}
	if got := Percentile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Percentile(nil) = %v, want NaN", got)
	}
}

// TestPercentileIsNearestRank checks gonum's Empirical quantile against the
// integer nearest-rank formula rank = ceil(pct·n/100) for every n up to 1000, so
// that floating-point rounding of p·n never picks a neighbouring value.
func TestPercentileIsNearestRank(t *testing.T) {
	for _, pct := range []int{1, 5, 10, 25, 50, 75, 90, 95, 99} {
		for n := 1; n <= 1000; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(i + 1)
			}
			rank := max((pct*n+99)/100, 1)
			if got := Percentile(x, float64(pct)/100); got != float64(rank) {
				t.Fatalf("p%d of 1..%d = %v, want rank %d", pct, n, got, rank)
			}
		}
	}
}

func TestMean(t *testing.T) {
	if got := Mean([]float64{1, 2, 3, 10}); got != 4 {
		t.Errorf("Mean = %v, want 4", got)
	}
	if got := Mean(nil); !math.IsNaN(got) {
		t.Errorf("Mean(nil) = %v, want NaN", got)
	}
}

func TestComputeStats(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		run  Run
		want RunStats
	}{
		{
			// Worked out in seqRun's comment: flowtimes 1..20; 14 jobs with
			// reduces starving 0,1,3,4,1,2,4,0,2,3,0,1,3,4 s; maps 45/20/5.
			name: "20 jobs step 1",
			run:  seqRun(map[string]string{"policy": "fifo"}, 20, 1),
			want: RunStats{Jobs: 20, FlowtimeMean: 10.5, FlowtimeP50: 10, FlowtimeP95: 19, FlowtimeP99: 20,
				StarvationJobs: 14, StarvationMean: 2, StarvationP95: 4,
				NodeLocalPct: 100 * 45.0 / 70, RackLocalPct: 100 * 20.0 / 70, OffRackPct: 100 * 5.0 / 70, Makespan: 39},
		},
		{
			// Flowtimes 2,4..20; reduces starve 0,1,3,4,1,2,4 s; maps 24/10/2.
			name: "10 jobs step 2",
			run:  seqRun(map[string]string{"policy": "fair"}, 10, 2),
			want: RunStats{Jobs: 10, FlowtimeMean: 11, FlowtimeP50: 10, FlowtimeP95: 20, FlowtimeP99: 20,
				StarvationJobs: 7, StarvationMean: 15.0 / 7, StarvationP95: 4,
				NodeLocalPct: 100 * 24.0 / 36, RackLocalPct: 100 * 10.0 / 36, OffRackPct: 100 * 2.0 / 36, Makespan: 29},
		},
		{
			name: "unfinished, map-only and map-less jobs",
			run: makeRun(map[string]string{"policy": "x"}, []jobSpec{
				{submit: 10, flow: 4},
				{submit: 12, flow: -1},
				{submit: 11, flow: 1},
			}),
			want: RunStats{Jobs: 3, Unfinished: 1, FlowtimeMean: 2.5, FlowtimeP50: 1, FlowtimeP95: 4, FlowtimeP99: 4,
				StarvationMean: nan, StarvationP95: nan,
				NodeLocalPct: nan, RackLocalPct: nan, OffRackPct: nan, Makespan: 4},
		},
		{
			name: "no job finished",
			run:  makeRun(map[string]string{"policy": "x"}, []jobSpec{{submit: 3, flow: -1, reduces: 2, starv: 7, node: 1}}),
			want: RunStats{Jobs: 1, Unfinished: 1, FlowtimeMean: nan, FlowtimeP50: nan, FlowtimeP95: nan, FlowtimeP99: nan,
				StarvationJobs: 1, StarvationMean: 7, StarvationP95: 7,
				NodeLocalPct: 100, RackLocalPct: 0, OffRackPct: 0, Makespan: nan},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComputeStats(tt.run)
			if !statsEqual(got, tt.want) {
				t.Errorf("ComputeStats =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// statsEqual compares with a relative tolerance of 1e-12 and NaN equal to NaN.
func statsEqual(a, b RunStats) bool {
	if a.Jobs != b.Jobs || a.Unfinished != b.Unfinished || a.StarvationJobs != b.StarvationJobs {
		return false
	}
	fa := []float64{a.FlowtimeMean, a.FlowtimeP50, a.FlowtimeP95, a.FlowtimeP99, a.StarvationMean, a.StarvationP95, a.NodeLocalPct, a.RackLocalPct, a.OffRackPct, a.Makespan}
	fb := []float64{b.FlowtimeMean, b.FlowtimeP50, b.FlowtimeP95, b.FlowtimeP99, b.StarvationMean, b.StarvationP95, b.NodeLocalPct, b.RackLocalPct, b.OffRackPct, b.Makespan}
	return slices.EqualFunc(fa, fb, func(x, y float64) bool {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y)
		}
		return math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y))
	})
}

func TestFlowtimesAndStarvationsAreSorted(t *testing.T) {
	r := makeRun(map[string]string{"policy": "x"}, []jobSpec{
		{flow: 9, reduces: 1, starv: 3}, {flow: 2, reduces: 1, starv: 1}, {flow: 5}, {flow: -1, reduces: 1, starv: 2},
	})
	if got, want := Flowtimes(r.Jobs), []float64{2, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("Flowtimes = %v, want %v", got, want)
	}
	if got, want := Starvations(r.Jobs), []float64{1, 2, 3}; !slices.Equal(got, want) {
		t.Errorf("Starvations = %v, want %v", got, want)
	}
}
