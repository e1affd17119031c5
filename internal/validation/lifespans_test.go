package validation_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// TestLifecycleSpansOfTraces prints, per scored trace (each job set once),
// where the observed flowtime of its Hadoop 1 jobs goes (docs/validation.md,
// "Model mode", "Where the median jobs' time goes"): over the jobs that record
// a launch, a setup and a cleanup task and at least one map, the p10, median
// and p90 of
//
//   - init: launch − submit (model mode: job_init_time through the workers);
//   - setup: setup attempt end − launch, and the setup attempt alone (model
//     mode: setup_task, the attempt's median, after a heartbeat's slot wait);
//   - work: setup attempt end − the last map or reduce attempt end (model
//     mode: the maps and reduces, each task_startup plus bytes over rates);
//   - cleanup: last map or reduce attempt end − job finish, and the cleanup
//     attempt alone (model mode: cleanup_task, the attempt's median);
//
// first over all such jobs, then over those with one map and no reduce, the
// jobs around model mode's median.
func TestLifecycleSpansOfTraces(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads every scored trace")
	dir := sharedTraces(t)
	seen := map[string]bool{}
	q := func(v []float64) string {
		if len(v) == 0 {
			return "-"
		}
		slices.Sort(v)
		at := func(p float64) float64 { return v[int(p*float64(len(v)-1))] }
		return fmt.Sprintf("%.2f / %.2f / %.2f", at(0.1), at(0.5), at(0.9))
	}
	fmt.Printf("Lifecycle spans of the Hadoop 1 jobs, s, p10 / median / p90\n\n")
	fmt.Printf("%-36s %-4s %-9s %4s  %-24s %-24s %-20s %-24s %-24s %-20s\n", "trace", "fold", "jobs", "n", "init", "setup", "setup attempt", "work", "cleanup", "cleanup attempt")
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || seen[jobSet(tr)] {
			continue
		}
		seen[jobSet(tr)] = true
		type life struct {
			setup, cleanup *trace.Task
			maps, reduces  int
			workEnd        int64
		}
		lives := map[string]*life{}
		for i := range tr.Tasks {
			k := &tr.Tasks[i]
			if k.Host == "" || k.StartMs < 0 || k.FinishMs < k.StartMs {
				continue
			}
			l := lives[k.JobID]
			if l == nil {
				l = &life{workEnd: -1}
				lives[k.JobID] = l
			}
			switch k.Type {
			case trace.Setup:
				l.setup = k
			case trace.Cleanup:
				l.cleanup = k
			case trace.Map:
				l.maps++
				l.workEnd = max(l.workEnd, k.FinishMs)
			case trace.Reduce:
				l.reduces++
				l.workEnd = max(l.workEnd, k.FinishMs)
			}
		}
		for _, oneMap := range []bool{false, true} {
			var init, setup, setupAtt, work, cleanup, cleanupAtt []float64
			for i := range tr.Jobs {
				j := &tr.Jobs[i]
				l := lives[j.ID]
				if l == nil || l.setup == nil || l.cleanup == nil || l.maps == 0 || j.LaunchMs < j.SubmitMs || j.SubmitMs < 0 || j.FinishMs < 0 {
					continue
				}
				if oneMap && (l.maps != 1 || l.reduces != 0) {
					continue
				}
				s := func(a, b int64) float64 { return float64(b-a) / 1000 }
				init = append(init, s(j.SubmitMs, j.LaunchMs))
				setup = append(setup, s(j.LaunchMs, l.setup.FinishMs))
				setupAtt = append(setupAtt, s(l.setup.StartMs, l.setup.FinishMs))
				work = append(work, s(l.setup.FinishMs, l.workEnd))
				cleanup = append(cleanup, s(l.workEnd, j.FinishMs))
				cleanupAtt = append(cleanupAtt, s(l.cleanup.StartMs, l.cleanup.FinishMs))
			}
			if len(init) == 0 {
				continue
			}
			which := "all"
			if oneMap {
				which = "one map"
			}
			fmt.Printf("%-36s %-4s %-9s %4d  %-24s %-24s %-20s %-24s %-24s %-20s\n", shortName(h.path), h.fold, which, len(init),
				q(init), q(setup), q(setupAtt), q(work), q(cleanup), q(cleanupAtt))
		}
	}
}
