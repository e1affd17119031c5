package report

import (
	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/summary"
)

// usPerSecond converts the results' microseconds to seconds.
const usPerSecond = 1e6

// Seconds converts simulated microseconds to seconds.
func Seconds(us int64) float64 { return summary.Seconds(us) }

// Percentile returns the nearest-rank p-quantile (0 ≤ p ≤ 1) of sorted, which must
// be in increasing order (summary.Percentile).
func Percentile(sorted []float64, p float64) float64 { return summary.Percentile(sorted, p) }

// Mean returns the arithmetic mean of x, NaN for an empty slice (summary.Mean).
func Mean(x []float64) float64 { return summary.Mean(x) }

// RunStats are the statistics of one run shown in the summary table
// (summary.Stats).
type RunStats = summary.Stats

// ComputeStats returns the summary statistics of one run.
func ComputeStats(r Run) RunStats { return summary.Compute(r.Jobs) }

// Flowtimes returns the flowtimes in seconds of the finished jobs, sorted
// increasingly (summary.Flowtimes).
func Flowtimes(jobs []results.Job) []float64 { return summary.Flowtimes(jobs) }

// Starvations returns the starvation times in seconds of the jobs that have
// reduces, sorted increasingly (summary.Starvations).
func Starvations(jobs []results.Job) []float64 { return summary.Starvations(jobs) }

// MeanCI95 returns the mean of x and the half-width of its 95% confidence
// interval (summary.MeanCI95: Student's t with n−1 degrees of freedom; NaN for
// fewer than two values). Every table and figure that aggregates seeds uses it.
func MeanCI95(x []float64) (float64, float64) { return summary.MeanCI95(x) }
