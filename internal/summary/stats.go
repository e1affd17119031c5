// Package summary computes the per-run statistics of replay results and the
// summary table that replay prints and report writes. It depends on the standard
// library, replay and table only, so that the replay command stays quick to build.
package summary

import (
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
)

// usPerSecond converts the results' microseconds to seconds.
const usPerSecond = 1e6

// Seconds converts simulated microseconds to seconds.
func Seconds(us int64) float64 { return float64(us) / usPerSecond }

// Percentile returns the nearest-rank p-quantile (0 ≤ p ≤ 1) of sorted, which must
// be in increasing order: the ceil(p·n)-th smallest value, and the smallest value
// for p = 0. It returns NaN for an empty slice.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	// The first x[i] with i+1 ≥ p·n.
	f := p * float64(len(sorted))
	for i, v := range sorted {
		if float64(i+1) >= f {
			return v
		}
	}
	return sorted[len(sorted)-1]
}

// Mean returns the arithmetic mean of x (summed in order), NaN for an empty
// slice.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// StdDev returns the sample standard deviation of x (n−1 in the denominator),
// by the corrected two-pass algorithm of Chan, Golub and LeVeque; NaN for fewer
// than two values.
func StdDev(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	m := Mean(x)
	var ss, comp float64
	for _, v := range x {
		d := v - m
		ss += d * d
		comp += d
	}
	n := float64(len(x))
	return math.Sqrt((ss - comp*comp/n) / (n - 1))
}

// MeanCI95 returns the mean of x and the half-width of its 95% confidence
// interval (Student's t with n−1 degrees of freedom; NaN for fewer than two
// values). Every table and figure that aggregates seeds uses it.
func MeanCI95(x []float64) (float64, float64) {
	m := Mean(x)
	if len(x) < 2 {
		return m, math.NaN()
	}
	return m, T975(len(x)-1) * StdDev(x) / math.Sqrt(float64(len(x)))
}

// Stats are the statistics of one run shown in the summary table. Times are in
// seconds and fractions in percent; NaN means "no value" (e.g. no job had reduces).
type Stats struct {
	Jobs int // job rows
	// Unfinished counts jobs without a finish time; flowtime and makespan ignore them.
	Unfinished int

	FlowtimeMean, FlowtimeP50, FlowtimeP95, FlowtimeP99 float64

	// Starvation (Coupling §III-C) is taken over the jobs that have reduces, a job
	// whose reduces all launched before its last map ended counting 0, as in the
	// Coupling paper's Table IV. Map-only jobs cannot starve and are left out so
	// that they do not dilute the mean.
	StarvationJobs                int
	StarvationMean, StarvationP95 float64

	// Map locality in percent of all maps of the run (EAS eq. 6).
	NodeLocalPct, RackLocalPct, OffRackPct float64

	// Makespan is the last job finish minus the first job submit.
	Makespan float64

	// SlowdownMean is the mean slowdown (results.Job.Slowdown: flowtime
	// over flowtime alone, or over the ideal) of the finished jobs that have one.
	SlowdownMean float64
}

// Compute returns the summary statistics of one run's jobs (an Acc given
// each of them).
func Compute(jobs []results.Job) Stats {
	a := Acc{noDigest: true}
	for i := range jobs {
		a.Add(&jobs[i])
	}
	return a.Stats()
}

func percent(part, whole int64) float64 {
	if whole == 0 {
		return math.NaN()
	}
	return 100 * float64(part) / float64(whole)
}

// Flowtimes returns the flowtimes in seconds of the finished jobs, sorted
// increasingly.
func Flowtimes(jobs []results.Job) []float64 {
	out := make([]float64, 0, len(jobs))
	for _, j := range jobs {
		if j.FinishUs != results.Unset {
			out = append(out, Seconds(j.FlowtimeUs))
		}
	}
	slices.Sort(out)
	return out
}

// Starvations returns the starvation times in seconds of the jobs that have
// reduces (see Stats), sorted increasingly.
func Starvations(jobs []results.Job) []float64 {
	out := make([]float64, 0, len(jobs))
	for _, j := range jobs {
		if j.Reduces > 0 {
			out = append(out, Seconds(j.StarvationUs))
		}
	}
	slices.Sort(out)
	return out
}
