// Command jobdiff compares replay results job by job: for each results
// directory (one run, DIR/policy=NAME/jobs.parquet) it prints the run's total,
// median and 90th-percentile job flowtime, the total's difference from the
// first directory's (the reference), and the |relative| difference of each
// job's flowtime from its reference value, median, 90th percentile and
// largest over the jobs (percentiles nearest-rank at index n/2 and 9n/10, as
// replay's BenchmarkFlowShuffle logs them).
//
//	go run ./scripts/jobdiff REF DIR...
//
// docs/network-model.md ("Defaults re-examined") uses it.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: jobdiff REF [DIR...]")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "jobdiff:", err)
		os.Exit(2)
	}
}

// run prints one line per directory of dirs, dirs[0] the reference.
func run(w io.Writer, dirs []string) error {
	ref, err := load(dirs[0])
	if err != nil {
		return err
	}
	for _, d := range dirs {
		c, err := load(d)
		if err != nil {
			return err
		}
		s, err := compare(ref, c)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		fmt.Fprintf(w, "%s: %d jobs, total %.1f s (%+.2f%%), median %.2f s, p90 %.2f s; job |difference| median %.2f%%, p90 %.2f%%, max %.2f%%\n",
			d, s.jobs, s.total, s.totalDiff, s.median, s.p90, s.diffMedian, s.diffP90, s.diffMax)
	}
	return nil
}

// load reads the flowtimes of dir's one run by job index.
func load(dir string) (map[int32]int64, error) {
	m, err := filepath.Glob(filepath.Join(dir, "policy=*", "jobs.parquet"))
	if err != nil || len(m) != 1 {
		return nil, fmt.Errorf("%s: want one policy=*/jobs.parquet, found %d", dir, len(m))
	}
	rows, err := results.ReadJobRows(m[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	out := map[int32]int64{}
	for _, r := range rows {
		if r.FlowtimeUs != nil {
			out[r.JobIndex] = *r.FlowtimeUs
		}
	}
	return out, nil
}

// stats is a run's line: seconds and percent.
type stats struct {
	jobs                          int
	total, totalDiff, median, p90 float64
	diffMedian, diffP90, diffMax  float64
}

// compare gives run c's stats against the reference ref (flowtimes in µs by
// job index); every job of c must be in ref.
func compare(ref, c map[int32]int64) (stats, error) {
	if len(c) == 0 {
		return stats{}, fmt.Errorf("no finished jobs")
	}
	var tot, rtot int64
	var ft, diff []float64
	for k, v := range c {
		w, ok := ref[k]
		if !ok {
			return stats{}, fmt.Errorf("job %d not in the reference", k)
		}
		tot += v
		ft = append(ft, float64(v)/1e6)
		diff = append(diff, 100*math.Abs(float64(v-w))/math.Max(float64(w), 1))
	}
	for _, v := range ref {
		rtot += v
	}
	slices.Sort(ft)
	slices.Sort(diff)
	n := len(ft)
	return stats{jobs: n, total: float64(tot) / 1e6, totalDiff: 100 * float64(tot-rtot) / float64(rtot),
		median: ft[n/2], p90: ft[n*9/10], diffMedian: diff[n/2], diffP90: diff[n*9/10], diffMax: diff[n-1]}, nil
}
