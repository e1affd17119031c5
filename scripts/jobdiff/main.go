// Command jobdiff compares replay results job by job: for each results
// directory (one run, DIR/policy=NAME/jobs.parquet) it prints the run's total,
// median and 90th-percentile job flowtime, the total's difference from the
// first directory's (the reference), and the |relative| difference of each
// job's flowtime from its reference value, median, 90th percentile and
// largest over the jobs (percentiles nearest-rank at index n/2 and 9n/10, as
// replay's BenchmarkFlowShuffle logs them). With -hours it prints instead,
// for each directory, the mean flowtime of the jobs submitted in each hour
// of simulated time (an hour's jobs counted whether or not every directory
// has them).
//
//	go run ./scripts/jobdiff [-hours] REF DIR...
//
// docs/network-model.md ("Defaults re-examined") uses it.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
)

func main() {
	hours := flag.Bool("hours", false, "print each directory's mean flowtime by hour of submission")
	flag.Parse()
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: jobdiff [-hours] REF [DIR...]")
		os.Exit(2)
	}
	show := run
	if *hours {
		show = runHours
	}
	if err := show(os.Stdout, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "jobdiff:", err)
		os.Exit(2)
	}
}

// run prints one line per directory of dirs, dirs[0] the reference.
func run(w io.Writer, dirs []string) error {
	ref, _, err := load(dirs[0])
	if err != nil {
		return err
	}
	for _, d := range dirs {
		c, _, err := load(d)
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

// runHours prints a header of hours and one line per directory of dirs:
// its mean flowtime in seconds over the finished jobs submitted in each
// hour, "-" for an hour without one.
func runHours(w io.Writer, dirs []string) error {
	var means [][]float64
	n := 0
	for _, d := range dirs {
		ft, sub, err := load(d)
		if err != nil {
			return err
		}
		m := hourlyMeans(ft, sub)
		means = append(means, m)
		n = max(n, len(m))
	}
	fmt.Fprint(w, "hour")
	for h := range n {
		fmt.Fprintf(w, " %6d", h)
	}
	fmt.Fprintln(w)
	for i, d := range dirs {
		fmt.Fprint(w, d)
		for h := range n {
			if h < len(means[i]) && !math.IsNaN(means[i][h]) {
				fmt.Fprintf(w, " %6.1f", means[i][h])
			} else {
				fmt.Fprintf(w, " %6s", "-")
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

// hourlyMeans returns the mean flowtime in seconds of the jobs (flowtimes
// and submit times in µs by job index) submitted in each hour, NaN for an
// hour without one, up to the last hour with one.
func hourlyMeans(ft, sub map[int32]int64) []float64 {
	var sum []float64
	var cnt []int
	for k, v := range ft {
		h := int(sub[k] / 3600e6)
		for len(sum) <= h {
			sum, cnt = append(sum, 0), append(cnt, 0)
		}
		sum[h] += float64(v) / 1e6
		cnt[h]++
	}
	for h := range sum {
		if cnt[h] == 0 {
			sum[h] = math.NaN()
		} else {
			sum[h] /= float64(cnt[h])
		}
	}
	return sum
}

// load reads the flowtimes and the submit times (µs) of dir's one run's
// finished jobs by job index.
func load(dir string) (flowtimes, submits map[int32]int64, err error) {
	m, err := filepath.Glob(filepath.Join(dir, "policy=*", results.JobsFile))
	if err != nil || len(m) != 1 {
		return nil, nil, fmt.Errorf("%s: want one policy=*/%s, found %d", dir, results.JobsFile, len(m))
	}
	rows, err := results.ReadJobRows(m[0])
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	flowtimes, submits = map[int32]int64{}, map[int32]int64{}
	for _, r := range rows {
		if r.FlowtimeUs != nil {
			flowtimes[r.JobIndex] = *r.FlowtimeUs
			submits[r.JobIndex] = r.SubmitUs
		}
	}
	return flowtimes, submits, nil
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
