package policy

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// The reproduction of the Coupling paper's experiments: each test runs one of
// samples/experiments/coupling-*.toml cell by cell (every run with invariants
// checked), logs the numbers docs/repro/coupling.md quotes (go test -run
// Repro -v) and checks the paper's qualitative claims. They take seconds to a
// minute each, so -short skips them.

// reproCell is one run of an experiment.
type reproCell struct {
	replay.Cell
	res *replay.Result
}

// runExperiment runs every cell of a coupling experiment spec, in parallel.
func runExperiment(t *testing.T, name string) []reproCell {
	t.Helper()
	if testing.Short() {
		t.Skip("reproduction runs are slow; run without -short")
	}
	e, err := replay.LoadExperiment(filepath.Join("..", "samples", "experiments", name+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := e.Cells()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]reproCell, len(cells))
	errs := make([]error, len(cells))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range cells {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i].Cell = c
			out[i].res, errs[i] = runCell(c, e.TimelineOn(), e.Tasks)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("cell %s: %v", cells[i].Dir, err)
		}
	}
	return out
}

func runCell(c replay.Cell, timeline, tasks bool) (*replay.Result, error) {
	tr, err := trace.Generate(c.Trace.Generator, c.Trace.Params, c.Seed)
	if err != nil {
		return nil, err
	}
	topo := replay.NewTopology(&c.Hardware, c.Seed)
	w, err := replay.NewWorkload(tr, &c.Hardware, topo, c.Seed, replay.WorkloadOptions{})
	if err != nil {
		return nil, err
	}
	p, err := New(c.Policy)
	if err != nil {
		return nil, err
	}
	return replay.Run(w, p, replay.Options{Seed: c.Seed, CheckInvariants: true, Timeline: timeline, RecordTasks: tasks,
		TraceName: c.Trace.Name, HardwareName: c.HWName})
}

// group collects the runs of each (policy, trace), seeds in spec order.
func group(cells []reproCell) (keys [][2]string, by map[[2]string][]*replay.Result) {
	by = map[[2]string][]*replay.Result{}
	for _, c := range cells {
		k := [2]string{c.Policy, c.Trace.Name}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], c.res)
	}
	return keys, by
}

// meanOver averages f over runs.
func meanOver(runs []*replay.Result, f func(*replay.Result) float64) float64 {
	var s float64
	for _, r := range runs {
		s += f(r)
	}
	return s / float64(len(runs))
}

// meanFlowMin is a run's mean job processing time in minutes.
func meanFlowMin(r *replay.Result) float64 {
	var s float64
	for _, j := range r.Jobs {
		s += float64(j.FlowtimeUs)
	}
	return s / float64(len(r.Jobs)) / 60e6
}

// jobMeanMin is job k's mean over runs of f, in minutes.
func jobMeanMin(runs []*replay.Result, k int, f func(replay.JobResult) int64) float64 {
	return meanOver(runs, func(r *replay.Result) float64 { return float64(f(r.Jobs[k])) / 60e6 })
}

func flow(j replay.JobResult) int64   { return j.FlowtimeUs }
func starve(j replay.JobResult) int64 { return j.StarvationUs }

func fairOf(by map[[2]string][]*replay.Result, tr string) []*replay.Result {
	return by[[2]string{"fair:node-delay=15s,rack-delay=15s", tr}]
}

func pct(a, b float64) string { return fmt.Sprintf("%+.1f%%", 100*(b-a)/a) }

// TestReproTwoJobs (Figs. 1-2).
func TestReproTwoJobs(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-twojobs"))
	for _, k := range keys {
		runs := by[k]
		t.Logf("%-36s job1 %.2f min, job2 %.2f min; job2 maps end %.2f, first reduce %.2f, starvation %.2f min",
			k[0], jobMeanMin(runs, 0, flow), jobMeanMin(runs, 1, flow),
			jobMeanMin(runs, 1, func(j replay.JobResult) int64 { return j.LastMapEndUs }),
			jobMeanMin(runs, 1, func(j replay.JobResult) int64 { return j.FirstReduceLaunchUs }),
			jobMeanMin(runs, 1, starve))
	}
}

// TestReproGrep (Figs. 5-6).
func TestReproGrep(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-grep"))
	for _, k := range keys {
		runs := by[k]
		var per []string
		for j := range runs[0].Jobs {
			per = append(per, fmt.Sprintf("%.1f", jobMeanMin(runs, j, flow)))
		}
		t.Logf("%-36s mean %.2f min (%s vs fair); per job %v", k[0], meanOver(runs, meanFlowMin),
			pct(meanOver(fairOf(by, k[1]), meanFlowMin), meanOver(runs, meanFlowMin)), per)
	}
}

// TestReproSingle (Fig. 12).
func TestReproSingle(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-single"))
	for _, k := range keys {
		runs := by[k]
		lo, hi := 1e18, 0.0
		for _, r := range runs {
			lo, hi = min(lo, meanFlowMin(r)), max(hi, meanFlowMin(r))
		}
		t.Logf("%-36s %-12s mean %.2f min [%.2f, %.2f] (%s vs fair)", k[0], k[1], meanOver(runs, meanFlowMin), lo, hi,
			pct(meanOver(fairOf(by, k[1]), meanFlowMin), meanOver(runs, meanFlowMin)))
	}
}

// TestReproWordCount (Figs. 10-11).
func TestReproWordCount(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-wordcount"))
	for _, k := range keys {
		runs := by[k]
		t.Logf("%-36s %.2f min (%s vs fair), local maps %.0f, mean running maps %.1f", k[0], meanOver(runs, meanFlowMin),
			pct(meanOver(fairOf(by, k[1]), meanFlowMin), meanOver(runs, meanFlowMin)),
			meanOver(runs, func(r *replay.Result) float64 { return float64(r.Jobs[0].MapsNodeLocal) }),
			meanOver(runs, meanRunningMaps))
	}
}

// meanRunningMaps is the cluster's mean number of running maps over the samples
// with any running map.
func meanRunningMaps(r *replay.Result) float64 {
	var s, n float64
	for _, x := range r.Timeline {
		if x.JobIndex == -1 && x.RunningMaps > 0 {
			s += float64(x.RunningMaps)
			n++
		}
	}
	return s / max(n, 1)
}

// peakNodeBytes is the largest per-node network bytes (in or out) of any
// timeline interval.
func peakNodeBytes(r *replay.Result) float64 {
	var m int64
	for _, x := range r.NodeNet {
		m = max(m, x.InBytes, x.OutBytes)
	}
	return float64(m)
}

// TestReproTable3 (Table III, Figs. 13-15).
func TestReproTable3(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-table3"))
	for _, k := range keys {
		runs := by[k]
		var local []string
		for j := range runs[0].Jobs {
			local = append(local, fmt.Sprintf("%.0f", meanOver(runs, func(r *replay.Result) float64 { return float64(r.Jobs[j].MapsNodeLocal) })))
		}
		t.Logf("%-36s mean %.2f min (%s vs fair), running maps %.1f, peak node MB/10 s %.0f, network GB %.1f; local maps %v",
			k[0], meanOver(runs, meanFlowMin), pct(meanOver(fairOf(by, k[1]), meanFlowMin), meanOver(runs, meanFlowMin)),
			meanOver(runs, meanRunningMaps), meanOver(runs, peakNodeBytes)/1e6,
			meanOver(runs, func(r *replay.Result) float64 { return float64(r.Summary.NetworkBytes) / 1e9 }), local)
	}
}

// TestReproTable4 (Table IV, Fig. 3).
func TestReproTable4(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-table4"))
	for _, k := range keys {
		runs := by[k]
		var sv, fl []string
		for j := range runs[0].Jobs {
			sv = append(sv, fmt.Sprintf("%.1f", jobMeanMin(runs, j, starve)))
			fl = append(fl, fmt.Sprintf("%.1f", jobMeanMin(runs, j, flow)))
		}
		t.Logf("%-36s mean %.2f min (%s vs fair)\n  starvation %v\n  flow %v", k[0], meanOver(runs, meanFlowMin),
			pct(meanOver(fairOf(by, k[1]), meanFlowMin), meanOver(runs, meanFlowMin)), sv, fl)
	}
}

// TestReproBatches (Fig. 16).
func TestReproBatches(t *testing.T) {
	keys, by := group(runExperiment(t, "coupling-batches"))
	for _, k := range keys {
		runs := by[k]
		var all []float64
		for _, r := range runs {
			for _, j := range r.Jobs {
				all = append(all, float64(j.FlowtimeUs)/60e6)
			}
		}
		slices.Sort(all)
		q := func(p float64) float64 { return all[int(p*float64(len(all)-1))] }
		t.Logf("%-36s mean %.2f min (%s vs fair); quartiles %.1f %.1f %.1f, p90 %.1f, max %.1f", k[0],
			meanOver(runs, meanFlowMin), pct(meanOver(fairOf(by, k[1]), meanFlowMin), meanOver(runs, meanFlowMin)),
			q(0.25), q(0.5), q(0.75), q(0.9), all[len(all)-1])
	}
}
