package validation_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/trace"
)

// isYARN reports whether a trace's jobs ran on YARN: a .jhist, a job whose
// ApplicationMaster start is recorded, or a conf naming a YARN scheduler.
func isYARN(tr *trace.Trace) bool {
	if tr.Meta.SourceFormat == "jhist" {
		return true
	}
	for _, j := range tr.Jobs {
		if j.AMStartMs >= 0 || strings.Contains(j.Scheduler, "yarn") {
			return true
		}
	}
	return false
}

// TestValidationHarnessYARN is the harness's YARN half (docs/validation.md,
// "YARN histories on the YARN model"): every harness trace whose jobs ran on
// YARN is replayed on a YARN cluster derived from it (cluster = "yarn", the
// other fold's calibration, as TestValidationHarness) through the
// ResourceManager policy its confs name (yarn-capacity for the
// CapacityScheduler and by default, yarn-fair, yarn-fifo), and through
// yarn-capacity and yarn-fair beside it, each beside the observed schedule. VALIDATION_OUT writes validate_yarn_errors.md and
// validate_yarn_runs.md there.
func TestValidationHarnessYARN(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays the shared YARN histories")
	dir := sharedTraces(t)
	folds := map[string][]*trace.Trace{}
	inFold := map[string]bool{} // job sets already in a fold's calibration
	type input struct {
		harnessTrace
		tr *trace.Trace
	}
	var inputs []input
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || !replay.HasObservedSchedule(tr) {
			continue
		}
		folds[h.fold] = appendJobSet(folds[h.fold], tr, inFold)
		if isYARN(tr) {
			inputs = append(inputs, input{h, tr})
		}
	}
	models := map[string]replay.Hardware{}
	for f, other := range map[string]string{"A": "B", "B": "A"} {
		hw, _ := calibrated(t, folds[other], other)
		hw.Cluster = replay.ClusterYARN
		hw.Heartbeat = replay.Duration(1e6) // YARN's NodeManager heartbeat (docs/yarn.md)
		models[f] = hw
	}
	overrideModels(t, models)
	for _, f := range []string{"A", "B"} {
		hw := models[f]
		fmt.Printf("== fold %s is scored on YARN with the model calibrated on the other fold: network %s, am_launch %v, am_startup %v, retry_container_delay %v, container_startup %v, disk_mb_per_s %g\n",
			f, hw.Network, hw.AMLaunch, hw.AMStartup, hw.RetryContainerDelay, hw.ContainerStartup, hw.DiskMBps)
	}
	var pairs []report.ValidationPair
	var tasks []taskPair
	var jobs [][]trace.Job // the trace's jobs of each pair
	var pairFold []string  // the fold of each pair
	scored := map[string]string{}
	for _, in := range inputs {
		pol, why := confPolicy(in.tr)
		pol = "yarn-" + pol
		key := jobSet(in.tr)
		if prev, dup := scored[key]; dup {
			fmt.Printf("%s (fold %s): the same jobs as %s; scored once\n", in.path, in.fold, prev)
			continue
		}
		scored[key] = in.path
		// The policy the confs name, and yarn-capacity and yarn-fair beside it.
		pols := []string{pol}
		for _, other := range []string{"yarn-capacity", "yarn-fair"} {
			if other != pol {
				pols = append(pols, other)
			}
		}
		for _, pl := range pols {
			p, tp, err := replayTasks(in.tr, models[in.fold], pl, shortName(in.path), harnessMode(t))
			if err != nil {
				t.Errorf("%s: %v", in.path, err)
				continue
			}
			fmt.Printf("%s (fold %s): policy %s (the confs name %s: %s), %d jobs\n", in.path, in.fold, pl, pol, why, len(p.Sim.Jobs))
			pairs = append(pairs, p)
			tasks = append(tasks, tp)
			jobs = append(jobs, in.tr.Jobs)
			pairFold = append(pairFold, in.fold)
		}
	}
	if len(pairs) < 10 {
		t.Fatalf("%d YARN runs scored: want the five .jhist files at least, each through yarn-capacity and yarn-fair", len(pairs))
	}
	v, err := report.Validate(pairs)
	if err != nil {
		t.Fatal(err)
	}
	insertFoldRows(v, pairs, pairFold)
	fmt.Println()
	for i, tb := range []*report.Table{v.ErrorTable(), v.RunTable()} {
		if err := tb.WriteText(os.Stdout); err != nil {
			t.Fatal(err)
		}
		fmt.Println()
		if out := os.Getenv("VALIDATION_OUT"); out != "" {
			path := filepath.Join(out, []string{"validate_yarn_errors.md", "validate_yarn_runs.md"}[i])
			if err := report.WriteFileAtomic(path, tb.WriteMarkdown); err != nil {
				t.Fatal(err)
			}
		}
	}
	if harnessMode(t) == replay.TaskTimesModel || os.Getenv("VALIDATION_TASKS") != "" {
		printTaskErrors(os.Stdout, tasks)
	}
	if f := os.Getenv("VALIDATION_JOBS"); f != "" {
		printJobPhases(os.Stdout, pairs, tasks, f)
		printYARNPhases(os.Stdout, pairs, tasks, jobs, f)
	}
	if f := os.Getenv("VALIDATION_TASKLIST"); f != "" {
		printJobTasks(os.Stdout, pairs, tasks, f)
	}
}

// printYARNPhases writes, for every job of the YARN pairs whose name contains
// filter (VALIDATION_JOBS), the times from its submit at which its
// ApplicationMaster asked for its containers (simulated: the job reached the
// policy, replay.Observer's JobArrived: at JOB_INITED, or at the AM's first
// allocate call one am_heartbeat later under the container model; observed:
// JOB_INITED), its first container started (simulated: allocated, before the
// AM's next call hands it over; observed: the first attempt's start, the
// AM's container launch, or the first TASK_STARTED of a job whose tasks all
// failed), its first
// and last map ended, its first reduce container started, its last reduce's
// shuffle ended, and it finished, simulated / observed, in seconds
// (tasks[i] are pairs[i]'s; jobs[i] the trace jobs of pairs[i]).
func printYARNPhases(w io.Writer, pairs []report.ValidationPair, tasks []taskPair, jobs [][]trace.Job, filter string) {
	fmt.Fprintf(w, "\nYARN phases from submit, simulated / observed, s (VALIDATION_JOBS=%s)\n\n", filter)
	fmt.Fprintf(w, "%-40s %-24s %12s %12s %12s %12s %12s %12s %12s\n", "run", "job", "AM asks", "1st contnr", "1st map end", "last map end", "1st reduce", "shuffle end", "finish")
	type marks struct{ first, firstMapEnd, lastMapEnd, firstRed, shuffleEnd int64 }
	collect := func(ts []replay.TaskResult) map[string]*marks {
		out := map[string]*marks{}
		for _, t := range ts {
			m := out[t.JobID]
			if m == nil {
				m = &marks{-1, -1, -1, -1, -1}
				out[t.JobID] = m
			}
			lo := func(p *int64, v int64) {
				if v >= 0 && (*p < 0 || v < *p) {
					*p = v
				}
			}
			hi := func(p *int64, v int64) { *p = max(*p, v) }
			lo(&m.first, t.LaunchUs)
			if t.Type == "MAP" {
				lo(&m.firstMapEnd, t.FinishUs)
				hi(&m.lastMapEnd, t.FinishUs)
			} else {
				lo(&m.firstRed, t.LaunchUs)
				hi(&m.shuffleEnd, t.ShuffleEndUs)
			}
		}
		return out
	}
	for k, p := range pairs {
		if !strings.Contains(p.Name, filter) {
			continue
		}
		sim, obs := collect(tasks[k].sim), collect(tasks[k].obs)
		inited := map[string]int64{}
		for _, j := range jobs[k] {
			if j.LaunchMs >= 0 {
				inited[j.ID] = (j.LaunchMs - j.SubmitMs) * 1000
			}
		}
		obsJob := map[string]replay.JobResult{}
		for _, j := range p.Observed.Jobs {
			obsJob[j.JobID] = j
		}
		for _, s := range p.Sim.Jobs {
			o, ok := obsJob[s.JobID]
			if !ok {
				continue
			}
			sm, om := sim[s.JobID], obs[s.JobID]
			if sm == nil {
				sm = &marks{-1, -1, -1, -1, -1}
			}
			if om == nil {
				om = &marks{-1, -1, -1, -1, -1}
			}
			at := func(t, sub int64) string {
				if t < 0 {
					return "-"
				}
				return fmt.Sprintf("%.2f", float64(t-sub)/1e6)
			}
			pair := func(st, ot int64) string { return at(st, s.SubmitUs) + "/" + at(ot, o.SubmitUs) }
			ready, ok := tasks[k].arrived[s.JobID]
			if !ok {
				ready = -1
			}
			obsReady := int64(-1)
			if d, ok := inited[s.JobID]; ok {
				obsReady = o.SubmitUs + d
			}
			fmt.Fprintf(w, "%-40s %-24s %12s %12s %12s %12s %12s %12s %12s\n", p.Name, s.JobID,
				pair(ready, obsReady), pair(sm.first, om.first), pair(sm.firstMapEnd, om.firstMapEnd),
				pair(sm.lastMapEnd, om.lastMapEnd), pair(sm.firstRed, om.firstRed), pair(sm.shuffleEnd, om.shuffleEnd),
				pair(s.FinishUs, o.FinishUs))
		}
	}
}
