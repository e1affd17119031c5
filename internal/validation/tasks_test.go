package validation_test

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/trace"
)

// taskPair holds one run's per-task results, simulated and observed, for the
// per-task duration errors the harness prints in model mode
// (VALIDATION_TASKS=1 prints them in trace mode too).
type taskPair struct {
	name     string
	obs, sim []replay.TaskResult
	tr       *trace.Trace // the trace replayed (printHandout)
	arrived  jobArrivals  // the simulated run's JobArrived times per job
}

// taskKey matches a simulated task to its observed one: the job, the type and
// the task's index among its job's maps or reduces (trace order in both).
type taskKey struct {
	job, typ string
	index    int32
}

// taskRatios are the sim/obs ratios of one quantity of the matched tasks.
type taskRatios struct {
	what   string
	ratios []float64
}

// taskDurationRatios matches p's tasks and returns the sim/obs ratios of the
// maps' duration (finish − launch) and of the reduces' duration, copy
// (shuffle end − launch) and work after the shuffle (finish − shuffle end),
// over the tasks whose observed quantity is positive.
func taskDurationRatios(p taskPair) []taskRatios {
	obs := map[taskKey]replay.TaskResult{}
	for _, t := range p.obs {
		obs[taskKey{t.JobID, t.Type, t.Index}] = t
	}
	out := []taskRatios{{what: "map duration"}, {what: "reduce duration"}, {what: "reduce copy"}, {what: "reduce work"}}
	add := func(k int, s, o int64) {
		if o > 0 && s >= 0 {
			out[k].ratios = append(out[k].ratios, float64(s)/float64(o))
		}
	}
	for _, s := range p.sim {
		o, ok := obs[taskKey{s.JobID, s.Type, s.Index}]
		if !ok || o.LaunchUs < 0 || o.FinishUs < 0 || s.LaunchUs < 0 || s.FinishUs < 0 {
			continue
		}
		if s.Type == "MAP" {
			add(0, s.FinishUs-s.LaunchUs, o.FinishUs-o.LaunchUs)
			continue
		}
		add(1, s.FinishUs-s.LaunchUs, o.FinishUs-o.LaunchUs)
		if o.ShuffleEndUs >= 0 && s.ShuffleEndUs >= 0 {
			add(2, s.ShuffleEndUs-s.LaunchUs, o.ShuffleEndUs-o.LaunchUs)
			add(3, s.FinishUs-s.ShuffleEndUs, o.FinishUs-o.ShuffleEndUs)
		}
	}
	return out
}

// printTaskErrors writes, per run and pooled, the matched tasks' sim/obs
// duration ratios (10th percentile, median, 90th percentile, nearest rank)
// and the median per-task error |sim − obs| / obs.
func printTaskErrors(w io.Writer, pairs []taskPair) {
	fmt.Fprintf(w, "\nPer-task durations, simulated / observed (tasks matched by job, type and index)\n\n")
	fmt.Fprintf(w, "%-40s %-16s %6s %7s %7s %7s %9s\n", "run", "quantity", "tasks", "p10", "median", "p90", "median err %")
	pooled := make([][]float64, 4)
	for _, p := range pairs {
		for k, r := range taskDurationRatios(p) {
			pooled[k] = append(pooled[k], r.ratios...)
			printRatioRow(w, p.name, r.what, r.ratios)
		}
	}
	for k, what := range []string{"map duration", "reduce duration", "reduce copy", "reduce work"} {
		printRatioRow(w, "all (pooled)", what, pooled[k])
	}
}

func printRatioRow(w io.Writer, run, what string, ratios []float64) {
	if len(ratios) == 0 {
		fmt.Fprintf(w, "%-40s %-16s %6d %7s %7s %7s %9s\n", run, what, 0, "-", "-", "-", "-")
		return
	}
	r := slices.Clone(ratios)
	slices.Sort(r)
	errs := make([]float64, len(r))
	for i, x := range r {
		errs[i] = math.Abs(x - 1)
	}
	slices.Sort(errs)
	q := func(s []float64, p float64) float64 {
		k := int(math.Ceil(p*float64(len(s)))) - 1
		return s[min(max(k, 0), len(s)-1)]
	}
	fmt.Fprintf(w, "%-40s %-16s %6d %7.3f %7.3f %7.3f %9.1f\n", run, what, len(r), q(r, 0.1), q(r, 0.5), q(r, 0.9), 100*q(errs, 0.5))
}

// TestFoldCalibratesEachJobSetOnce: fold A's sample-job-tracker-logs and the
// two Rumen traces made from it are one schedule; the fold's calibration
// takes it once (appendJobSet), as the scoring does, so that a fit does not
// count its tasks three times (docs/validation.md, "Model mode": three
// copies of three reduces made a copy-phase slope look significant).
func TestFoldCalibratesEachJobSetOnce(t *testing.T) {
	dir := sharedTraces(t)
	var fold []*trace.Trace
	seen := map[string]bool{}
	for _, p := range []string{hadoop1 + "sample-job-tracker-logs.gz", rumen1 + "job-tracker-logs-trace-output.gz", rumen1 + "dispatch-trace-output.json.gz", hadoop1 + "v20-single-input-log.gz"} {
		tr, err := readTrace(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		fold = appendJobSet(fold, tr, seen)
	}
	if len(fold) != 2 {
		t.Errorf("fold A's calibration holds %d traces of these four, want 2 (the three copies of one schedule once, and v20-single-input-log)", len(fold))
	}
}

// printJobPhases writes, for every job of the pairs whose name contains
// filter, its simulated and observed flowtime and the three spans it adds up
// to: wait (submit to first task start), map phase (first task start to last
// map end) and post (last map end to finish: reduces, cleanup), in seconds,
// and the median sim/obs duration of its maps (tasks[i] are pairs[i]'s).
func printJobPhases(w io.Writer, pairs []report.ValidationPair, tasks []taskPair, filter string) {
	fmt.Fprintf(w, "\nPer-job spans, simulated / observed, s (VALIDATION_JOBS=%s)\n\n", filter)
	fmt.Fprintf(w, "%-40s %-26s %15s %15s %15s %15s %9s\n", "run", "job", "flowtime", "wait", "map phase", "post", "map ratio")
	span := func(a, b int64) string {
		if a < 0 || b < 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f", float64(b-a)/1e6)
	}
	for k, p := range pairs {
		if !strings.Contains(p.Name, filter) {
			continue
		}
		mapRatios := map[string][]float64{} // per job
		obsTask := map[taskKey]replay.TaskResult{}
		for _, o := range tasks[k].obs {
			obsTask[taskKey{o.JobID, o.Type, o.Index}] = o
		}
		for _, st := range tasks[k].sim {
			o, ok := obsTask[taskKey{st.JobID, st.Type, st.Index}]
			if ok && st.Type == "MAP" && o.FinishUs > o.LaunchUs && o.LaunchUs >= 0 && st.LaunchUs >= 0 && st.FinishUs >= st.LaunchUs {
				mapRatios[st.JobID] = append(mapRatios[st.JobID], float64(st.FinishUs-st.LaunchUs)/float64(o.FinishUs-o.LaunchUs))
			}
		}
		obs := map[string]int{}
		for i, j := range p.Observed.Jobs {
			obs[j.JobID] = i
		}
		for _, s := range p.Sim.Jobs {
			i, ok := obs[s.JobID]
			if !ok {
				continue
			}
			o := p.Observed.Jobs[i]
			pair := func(sa, sb, oa, ob int64) string { return span(sa, sb) + "/" + span(oa, ob) }
			ratio := "-"
			if r := mapRatios[s.JobID]; len(r) > 0 {
				slices.Sort(r)
				ratio = fmt.Sprintf("%.2f", r[(len(r)-1)/2])
			}
			fmt.Fprintf(w, "%-40s %-26s %15s %15s %15s %15s %9s\n", p.Name, s.JobID,
				pair(s.SubmitUs, s.FinishUs, o.SubmitUs, o.FinishUs),
				pair(s.SubmitUs, s.FirstLaunchUs, o.SubmitUs, o.FirstLaunchUs),
				pair(s.FirstLaunchUs, s.LastMapEndUs, o.FirstLaunchUs, o.LastMapEndUs),
				pair(s.LastMapEndUs, s.FinishUs, o.LastMapEndUs, o.FinishUs), ratio)
		}
	}
}

// TestReduceSpansOfTraces prints, per scored trace (each job set once), what
// its reduces record (docs/validation.md, "Model mode"): the median shuffle
// bytes, the median work after the shuffle (finish − shuffle end), the median
// copy tail past the job's last map end of the reduces started before it,
// and each reduce started at or after it (the copy fits' samples) with its
// job's maps, shuffle bytes and copy (shuffle end − start).
func TestReduceSpansOfTraces(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads every scored trace")
	dir := sharedTraces(t)
	seen := map[string]bool{}
	med := func(v []float64) string {
		if len(v) == 0 {
			return "-"
		}
		slices.Sort(v)
		return fmt.Sprintf("%.4g", v[(len(v)-1)/2])
	}
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || seen[jobSet(tr)] {
			continue
		}
		seen[jobSet(tr)] = true
		lastMap, maps := map[string]int64{}, map[string]int{}
		for _, k := range tr.Tasks {
			if k.Type == trace.Map && k.Host != "" && k.StartMs >= 0 && k.FinishMs >= k.StartMs {
				lastMap[k.JobID] = max(lastMap[k.JobID], k.FinishMs)
				maps[k.JobID]++
			}
		}
		var shuffle, work, tail []float64
		var late []string
		for _, k := range tr.Tasks {
			if k.Type != trace.Reduce || k.Host == "" || k.StartMs < 0 || k.ShuffleFinishMs < k.StartMs || k.FinishMs < k.ShuffleFinishMs {
				continue
			}
			shuffle = append(shuffle, float64(max(k.ShuffleBytes, 0)))
			work = append(work, float64(k.FinishMs-k.ShuffleFinishMs)/1000)
			lm, ok := lastMap[k.JobID]
			switch {
			case !ok:
			case k.StartMs < lm:
				tail = append(tail, float64(k.ShuffleFinishMs-lm)/1000)
			default:
				late = append(late, fmt.Sprintf("%s: %d maps, %d B in %.2f s", k.TaskID, maps[k.JobID], k.ShuffleBytes, float64(k.ShuffleFinishMs-k.StartMs)/1000))
			}
		}
		fmt.Printf("%s (fold %s): %d reduces, shuffle median %s B, work after the shuffle median %s s, copy tail past the last map median %s s (%d reduces started before it)\n",
			shortName(h.path), h.fold, len(shuffle), med(shuffle), med(work), med(tail), len(tail))
		for _, l := range late {
			fmt.Printf("  started after the last map: %s\n", l)
		}
	}
}

// TestMapRatesOfTraces prints, for each scored trace, each job's maps that
// read at least 5 MB: how many, their median input and rate (input over
// finish − start, MB/s, MB = 10^6 bytes), and the most maps running on one
// host at a map's midpoint (its host's load). docs/validation.md ("Model
// mode") cites it: the rates differ by job on one cluster, with one map per
// host, so no single map_compute_mb_per_s fits them.
func TestMapRatesOfTraces(t *testing.T) {
	testgate.Require(t, testgate.Full, "reads every scored trace")
	dir := sharedTraces(t)
	seen := map[string]bool{}
	med := func(v []float64) float64 {
		slices.Sort(v)
		return v[(len(v)-1)/2]
	}
	for _, h := range harnessTraces {
		tr, err := readTrace(filepath.Join(dir, h.path))
		if err != nil || seen[jobSet(tr)] {
			continue
		}
		seen[jobSet(tr)] = true
		type agg struct {
			in, rate []float64
			conc     int
		}
		jobs := map[string]*agg{}
		var order []string
		for _, k := range tr.Tasks {
			if k.Type != trace.Map || k.Host == "" || k.StartMs < 0 || k.FinishMs <= k.StartMs || k.InputBytes < 5e6 {
				continue
			}
			mid := (k.StartMs + k.FinishMs) / 2
			conc := 0
			for _, o := range tr.Tasks {
				if o.Type == trace.Map && o.Host == k.Host && o.StartMs <= mid && o.FinishMs > mid {
					conc++
				}
			}
			a := jobs[k.JobID]
			if a == nil {
				a = &agg{}
				jobs[k.JobID] = a
				order = append(order, k.JobID)
			}
			a.in = append(a.in, float64(k.InputBytes)/1e6)
			a.rate = append(a.rate, float64(k.InputBytes)/1e6/(float64(k.FinishMs-k.StartMs)/1000))
			a.conc = max(a.conc, conc)
		}
		for _, id := range order {
			a := jobs[id]
			fmt.Printf("%s (fold %s) %s: %d maps of >= 5 MB, input median %.1f MB, rate median %.2f MB/s, at most %d maps on a host\n",
				shortName(h.path), h.fold, id, len(a.in), med(a.in), med(a.rate), a.conc)
		}
	}
}

// printJobTasks writes, for every job whose id contains one of the
// comma-separated filters (VALIDATION_TASKLIST), each task's simulated and
// observed host, launch, shuffle end and finish, in seconds from the job's
// submit (tasks[i] are pairs[i]'s).
func printJobTasks(w io.Writer, pairs []report.ValidationPair, tasks []taskPair, filter string) {
	fmt.Fprintf(w, "\nPer-task times from submit, simulated | observed, s (VALIDATION_TASKLIST=%s)\n", filter)
	want := strings.Split(filter, ",")
	s := func(t, sub int64) string {
		if t < 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", float64(t-sub)/1e6)
	}
	for k, p := range pairs {
		submit := map[string]int64{}
		for _, j := range p.Observed.Jobs {
			submit[j.JobID] = j.SubmitUs
		}
		obs := map[taskKey]replay.TaskResult{}
		for _, o := range tasks[k].obs {
			obs[taskKey{o.JobID, o.Type, o.Index}] = o
		}
		for _, st := range tasks[k].sim {
			if !slices.ContainsFunc(want, func(f string) bool { return f != "" && strings.Contains(st.JobID, f) }) {
				continue
			}
			o := obs[taskKey{st.JobID, st.Type, st.Index}]
			sub := submit[st.JobID]
			fmt.Fprintf(w, "%-28s %-24s %-6s %3d  %-12s %8s %8s %8s | %-12s %8s %8s %8s\n", p.Name, st.JobID, st.Type, st.Index,
				st.Host, s(st.LaunchUs, sub), s(st.ShuffleEndUs, sub), s(st.FinishUs, sub),
				o.Host, s(o.LaunchUs, sub), s(o.ShuffleEndUs, sub), s(o.FinishUs, sub))
		}
	}
}
