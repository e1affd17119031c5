package summary

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tracereplay/tracereplay/internal/results"
)

// TestT975Table checks every stored quantile against gonum bit for bit.
func TestT975Table(t *testing.T) {
	for df := 1; df <= len(t975); df++ {
		want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
		if got := T975(df); got != want {
			t.Errorf("T975(%d) = %v, gonum %v", df, got, want)
		}
	}
}

// TestT975Expansion checks the expansion beyond the table against gonum.
func TestT975Expansion(t *testing.T) {
	for _, df := range []int{len(t975) + 1, 250, 500, 1000, 5000, 100000} {
		want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
		if got := T975(df); math.Abs(got-want) > 1e-10 {
			t.Errorf("T975(%d) = %.15g, gonum %.15g", df, got, want)
		}
	}
	if !math.IsNaN(T975(0)) {
		t.Error("T975(0) is not NaN")
	}
}

func TestPercentileNearestRank(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.05, 1}, {0.1, 1}, {0.11, 2}, {0.5, 5}, {0.95, 10}, {1, 10}} {
		if got := Percentile(x, c.p); got != c.want {
			t.Errorf("Percentile(1..10, %v) = %v, want %v", c.p, got, c.want)
		}
	}
	if !math.IsNaN(Percentile(nil, 0.5)) {
		t.Error("Percentile of nothing is not NaN")
	}
}

// TestAgainstGonum compares mean, standard deviation, percentiles and the
// confidence interval with gonum's on random samples.
func TestAgainstGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 60; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.ExpFloat64() * 100
		}
		sorted := append([]float64(nil), x...)
		sortFloats(sorted)
		if got, want := Mean(x), stat.Mean(x, nil); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("n=%d: Mean %v, gonum %v", n, got, want)
		}
		for _, p := range []float64{0, 0.5, 0.95, 0.99, 1} {
			if got, want := Percentile(sorted, p), stat.Quantile(p, stat.Empirical, sorted, nil); got != want {
				t.Errorf("n=%d p=%v: Percentile %v, gonum %v", n, p, got, want)
			}
		}
		if n < 2 {
			continue
		}
		if got, want := StdDev(x), stat.StdDev(x, nil); math.Abs(got-want) > 1e-12*want {
			t.Errorf("n=%d: StdDev %v, gonum %v", n, got, want)
		}
		_, h := MeanCI95(x)
		want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975) * stat.StdDev(x, nil) / math.Sqrt(float64(n))
		if math.Abs(h-want) > 1e-12*want {
			t.Errorf("n=%d: CI half-width %v, gonum %v", n, h, want)
		}
	}
}

func sortFloats(x []float64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// TestComputeHandWorked checks the statistics of three jobs computed by hand.
func TestComputeHandWorked(t *testing.T) {
	jobs := []results.Job{
		{SubmitUs: 0, FinishUs: 10e6, FlowtimeUs: 10e6, Reduces: 1, StarvationUs: 2e6, MapsNodeLocal: 3, MapsRackLocal: 1},
		{SubmitUs: 5e6, FinishUs: 35e6, FlowtimeUs: 30e6, MapsOffRack: 4},
		{SubmitUs: 6e6, FinishUs: results.Unset, Reduces: 2},
	}
	s := Compute(jobs)
	if s.Jobs != 3 || s.Unfinished != 1 || s.FlowtimeMean != 20 || s.FlowtimeP50 != 10 || s.FlowtimeP99 != 30 {
		t.Errorf("flowtime stats: %+v", s)
	}
	if s.StarvationJobs != 2 || s.StarvationMean != 1 || s.StarvationP95 != 2 {
		t.Errorf("starvation stats: %+v", s)
	}
	if s.NodeLocalPct != 37.5 || s.RackLocalPct != 12.5 || s.OffRackPct != 50 || s.Makespan != 35 {
		t.Errorf("locality/makespan: %+v", s)
	}
}

// TestReplayDependencies keeps the replay command free of Arrow and gonum, so a
// first `go run ./cmd/replay` compiles quickly.
func TestReplayDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../cmd/replay").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "arrow") || strings.Contains(p, "gonum") {
			t.Errorf("cmd/replay depends on %s", p)
		}
	}
}
