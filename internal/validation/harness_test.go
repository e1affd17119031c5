// Package validation_test is the validation harness of docs/validation.md: it
// replays every shared trace that records a schedule with the policy its job
// confs name, on a hardware model calibrated on the other fold of traces, beside
// the observed schedule, and prints the report validate tables, per trace and
// pooled per fold and over all.
//
//	go test ./internal/validation -run TestValidationHarness -v      (slow; skipped with -short)
//	VALIDATION_OUT=dir go test ./internal/validation -run TestValidationHarness -v
//
// VALIDATION_OUT also writes validate_errors.md and validate_runs.md there;
// VALIDATION_MAX_MEDIAN=0.1 (or 10%) and VALIDATION_MAX_P90=0.3 (or 30%) fail
// the test when the pooled median or p90 flowtime error is above them, for CI;
// VALIDATION_LIFECYCLE=off replays with lifecycle = false, for comparison with
// the engine without the job lifecycle; VALIDATION_MODEL=default replays every
// trace with replay.DefaultHardware() (lifecycle on) instead of the other
// fold's calibration, and VALIDATION_MODEL=same with the calibration of the
// trace's own fold, to show how much the score depends on the calibration;
// VALIDATION_NETWORK=flow (or bar) calibrates for that network model and
// replays with it (fixed by default), with the same split, and
// VALIDATION_FIT=fixed with it fits the fixed model's formulas all the same,
// for comparison;
// VALIDATION_MODE=model replays with task_times = "model" (every duration
// from the fitted rates, start-up and shuffle parameters, the fitted
// task_startup kept) instead of trace mode, and prints the matched tasks'
// simulated / observed durations per run (VALIDATION_TASKS=1 prints them in
// trace mode too), VALIDATION_JOBS=NAME each job's simulated and observed
// spans (wait, map phase, the rest) for the runs whose name contains NAME
// (":" for all); VALIDATION_SET=key=value,... overrides hardware keys of
// both folds' models after the calibration, for isolation runs, and
// VALIDATION_SET_A=..., VALIDATION_SET_B=... the model fold A (B) is scored
// with alone, after it;
// a Hadoop 1 JobTracker's history is replayed with fifo:assign=jobqueue
// (for the default scheduler) and the JobTracker's heartbeat interval for
// its cluster (jobTrackerMode); VALIDATION_JOBTRACKER=assign keeps the
// model's heartbeat, =off also fifo's filling every free slot (isolation);
// VALIDATION_EXCLUDED=score also scores the excluded candidates
// (harnessExcluded) found in the traces directory, and
// VALIDATION_EXCLUDED=NAME,... those of these file names (the committed copies
// hold only wordcount2.json of them, kept as scripts/identical.sh's input:
// use TRACEREPLAY_TRACES=../../../shared/traces for the others).
// The traces are read from testdata/traces, unmodified copies of the files of
// ../shared/traces it scores (testdata/traces/README.md names their origin), or
// from $TRACEREPLAY_TRACES.
package validation_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/trace"
)

// harnessTrace is one input of the harness, relative to the shared traces
// directory, and its fold. Files derived from the same job logs (a Hadoop 1
// history and the Rumen trace made from it) share a fold, so that no trace is
// scored with a model fitted to its own jobs.
type harnessTrace struct {
	path string
	fold string
}

const (
	rumen1  = "rumen/apache-hadoop-branch-1-rumen-testdata/small-trace-test/"
	hadoop1 = "hadoop1/apache-hadoop-branch-1-rumen-testdata/"
)

// harnessTraces lists every shared trace that records a schedule
// (replay.HasObservedSchedule), except those of harnessExcluded.
var harnessTraces = []harnessTrace{
	{hadoop1 + "sample-job-tracker-logs.gz", "A"},
	{rumen1 + "job-tracker-logs-trace-output.gz", "A"},
	{hadoop1 + "v20-single-input-log.gz", "A"},
	{rumen1 + "dispatch-trace-output.json.gz", "A"},
	{rumen1 + "truncated-trace-output", "A"},
	{"jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist", "A"},
	{"jhist/linkedin-dr-elephant/job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist", "A"},
	{"rumen/apache-hadoop-trunk-2015/gridmix/wordcount.json", "A"},
	{hadoop1 + "counters-format-test-logs", "B"},
	{rumen1 + "counters-test-trace.json.gz", "B"},
	{rumen1 + "folder-input-trace.json.gz", "B"},
	{"jhist/job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist", "B"},
	{"jhist/job_0.23.9-FAILED.jhist", "B"},
	{"jhist/job_2.4.0-FAILED.jhist", "B"},
	{"rumen/apache-hadoop-trunk-2015/sls/2jobs2min-rumen-jh.json", "B"},
}

// excludedTrace is a shared trace that passes replay.HasObservedSchedule but
// is not scored, and why.
type excludedTrace struct {
	harnessTrace
	why string
}

const slsTest = "sls/apache-hadoop-trunk-test-resources/"

// harnessExcluded are the candidates that are not schedules a cluster ran.
// Only wordcount2.json is among the committed copies (an input of
// scripts/identical.sh since before it was left out); VALIDATION_EXCLUDED=score scores
// them when the traces directory holds them (each in the fold given here).
var harnessExcluded = []excludedTrace{
	{harnessTrace{rumen1 + "goldFoldedTrace.json.gz", "B"},
		"the output of Rumen's Folder run on folder-input-trace (the same 59 job ids), its times shifted and jobs repeated by the folding: not a schedule a cluster ran"},
	{harnessTrace{"rumen/apache-hadoop-trunk-2015/gridmix/wordcount2.json", "A"},
		"Gridmix test input holding wordcount.json's one job log twice (two identical job objects, the same id and submit time): not a schedule a cluster ran; scored in fold B beside wordcount.json in fold A, the one WordCount job was both calibrated on and scored (the same job logs in two folds); with VALIDATION_EXCLUDED it is scored in wordcount.json's fold"},
	{harnessTrace{slsTest + "inputsls.json", "A"},
		"SLS test input (hadoop-sls/src/test/resources), the two-job example of SchedulerLoadSimulator.md's \"SLS JSON input file format\": what the simulator is asked to run (job_1, job_2, user default, hosts node1-3 that the containers ask for, time 0 the simulation's start), not a history; no cluster or run is named for its times"},
	{harnessTrace{slsTest + "sls_dag.json", "A"},
		"the same two jobs as inputsls.json with the DAG AM type and container request delays: SLS test input, not a schedule a cluster ran"},
}

func sharedTraces(t *testing.T) string {
	dir := os.Getenv("TRACEREPLAY_TRACES")
	if dir == "" {
		// The committed copies (testdata/traces/README.md names their origin), so
		// that the harness runs on a fresh clone and in CI.
		dir = filepath.Join("testdata", "traces")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("validation traces not found: %v", err)
	}
	return dir
}

// readTrace reads a history file or a directory of histories and confs.
func readTrace(path string) (*trace.Trace, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		tr, _, err := trace.ReadTree(context.Background(), path, trace.TreeOptions{})
		return tr, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	return tr, err
}

// confPolicy is the policy the jobs' confs name (the most common scheduler
// class), else the default scheduler of the trace's Hadoop line: Hadoop 1's
// JobQueueTaskScheduler (fifo), YARN's CapacityScheduler for .jhist.
func confPolicy(tr *trace.Trace) (name, why string) {
	count := map[string]int{}
	for _, j := range tr.Jobs {
		if j.Scheduler != "" {
			count[j.Scheduler]++
		}
	}
	best := ""
	for s, n := range count {
		if best == "" || n > count[best] || n == count[best] && s < best {
			best = s
		}
	}
	switch {
	case strings.Contains(best, "Capacity"):
		return "capacity", best
	case strings.Contains(best, "Fair"):
		return "fair", best
	case best != "":
		return "fifo", best
	case tr.Meta.SourceFormat == "jhist":
		return "capacity", "no conf: YARN's default CapacityScheduler"
	}
	return "fifo", "no conf: Hadoop 1's default JobQueueTaskScheduler"
}

// pooledTrace concatenates traces for one calibration. A job id already taken
// by an earlier trace gets a "#n" copy suffix, as trace.ReadTree gives the
// later copies of a repeated id, so that equal ids of different jobs stay
// apart and replay.Calibrate counts the same job (same id and submit time) in
// two traces once, the first kept: fold A's sample-job-tracker-logs and
// v20-single-input-log hold the same job log of job_200904211745_0002.
func pooledTrace(trs []*trace.Trace) *trace.Trace {
	out := &trace.Trace{}
	taken := map[string]bool{}
	for _, tr := range trs {
		for _, j := range tr.Jobs {
			taken[j.ID] = true
		}
	}
	seen := map[string]bool{}
	for _, tr := range trs {
		rename := map[string]string{}
		for _, j := range tr.Jobs {
			id := j.ID
			if seen[id] {
				for n := 2; ; n++ {
					if c := fmt.Sprintf("%s#%d", j.ID, n); !taken[c] {
						id = c
						break
					}
				}
				taken[id] = true
				rename[j.ID] = id
			}
			seen[j.ID] = true
			j.ID = id
			out.Jobs = append(out.Jobs, j)
		}
		for _, t := range tr.Tasks {
			if id, ok := rename[t.JobID]; ok {
				t.JobID = id
			}
			out.Tasks = append(out.Tasks, t)
		}
		for _, a := range tr.Attempts {
			if id, ok := rename[a.JobID]; ok {
				a.JobID = id
			}
			out.Attempts = append(out.Attempts, a)
		}
	}
	return out
}

// calibrated returns the hardware model calibrated on trs, and its TOML:
// fitted for the network model VALIDATION_NETWORK names (calibrate_flow.go
// for flow), fixed by default.
func calibrated(t *testing.T, trs []*trace.Trace, name string) (replay.Hardware, string) {
	base := replay.DefaultHardware()
	if n := os.Getenv("VALIDATION_NETWORK"); n != "" && os.Getenv("VALIDATION_FIT") != "fixed" {
		base.Network = replay.NetworkName(n)
	}
	cal, err := replay.Calibrate(pooledTrace(trs), base)
	if err != nil {
		t.Fatalf("calibrate on fold %s: %v", name, err)
	}
	var b strings.Builder
	if err := cal.WriteTOML(&b, "the harness's fold "+name); err != nil {
		t.Fatal(err)
	}
	hw, err := replay.ParseHardware([]byte(b.String()))
	if err != nil {
		t.Fatalf("calibrated model of fold %s: %v\n%s", name, err, b.String())
	}
	// In trace mode the engine adds task_startup to each observed attempt
	// duration (the time before the attempt's recorded start), while the fitted
	// task_startup is the fixed cost inside a modelled duration; the traces keep
	// only attempt starts, so that gap cannot be fitted: keep the default. In
	// model mode the fitted value is the start-up of every modelled duration.
	if harnessMode(t) != replay.TaskTimesModel {
		hw.TaskStartup = replay.DefaultHardware().TaskStartup
	}
	return hw, b.String()
}

// harnessMode is the task_times the harness replays with: VALIDATION_MODE=model
// scores model mode (every duration from the fitted rates, start-up and shuffle
// parameters, as for SWIM and synthetic traces), trace mode (the observed
// durations) by default.
func harnessMode(t *testing.T) replay.TaskTimeSource {
	switch m := os.Getenv("VALIDATION_MODE"); m {
	case "", "trace":
		return replay.TaskTimesTrace
	case "model":
		return replay.TaskTimesModel
	default:
		t.Fatalf("VALIDATION_MODE=%q: want trace or model", m)
	}
	return ""
}

// replayTasks replays tr with policy pol and as observed on the cluster
// derived from tr with base's settings, and returns the pair for
// report.Validate and both runs' per-task results (with the simulated run's
// job arrivals). With times = model every task's duration is modelled
// (task_times = "model") on that cluster.
func replayTasks(tr *trace.Trace, base replay.Hardware, pol, name string, times replay.TaskTimeSource) (report.ValidationPair, taskPair, error) {
	hw, ok, err := replay.TraceHardware(tr, base)
	if err != nil {
		return report.ValidationPair{}, taskPair{}, err
	}
	if !ok {
		return report.ValidationPair{}, taskPair{}, fmt.Errorf("no hosts")
	}
	if times == replay.TaskTimesModel {
		hw.TaskTimes = times
	}
	if jobTrackerMode(tr) == "" {
		// The interval the JobTracker hands its TaskTrackers for the trace's
		// cluster (section "How the JobTracker hands out tasks"), as
		// TraceHardware gives it from a base with the default heartbeat.
		hw.Heartbeat = replay.JobTrackerHeartbeat(hw.Nodes())
	} else if !amHistory(tr) || times == replay.TaskTimesModel {
		hw.Heartbeat = base.Heartbeat // VALIDATION_JOBTRACKER=assign|off, or not a JobTracker's history: the model's
	} // else a YARN history in trace mode keeps TraceHardware's NodeManager heartbeat (replay/yarn_slotam.go)
	if os.Getenv("VALIDATION_LIFECYCLE") == "off" {
		hw.Lifecycle = false // the engine without the job lifecycle, for comparison
	}
	seed := uint64(1)
	if v := os.Getenv("VALIDATION_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return report.ValidationPair{}, taskPair{}, fmt.Errorf("VALIDATION_SEED=%q: %w", v, err)
		}
		seed = n
	}
	topo := replay.NewTopology(&hw, seed)
	w, err := replay.NewWorkload(tr, &hw, topo, seed, replay.WorkloadOptions{})
	if err != nil {
		return report.ValidationPair{}, taskPair{}, err
	}
	opt := replay.Options{Seed: seed, TraceName: name, HardwareName: hw.Name, RecordTasks: true}
	obs, err := replay.Observed(w, opt)
	if err != nil {
		return report.ValidationPair{}, taskPair{}, err
	}
	p, err := policy.New(pol)
	if err != nil {
		return report.ValidationPair{}, taskPair{}, err
	}
	arrived := jobArrivals{}
	simOpt := opt
	simOpt.Observers = []replay.Observer{arrived}
	sim, err := replay.Run(w, p, simOpt)
	if err != nil {
		return report.ValidationPair{}, taskPair{}, err
	}
	run := func(policy string, r *replay.Result) report.Run {
		return report.Run{Policy: policy, Labels: map[string]string{report.PolicyLabel: policy}, Summary: r.Summary, Jobs: r.Jobs}
	}
	return report.ValidationPair{Name: name + ": " + pol, Source: name, Observed: run(replay.ObservedPolicy, obs), Sim: run(pol, sim)},
		taskPair{name: name + ": " + pol, obs: obs.Tasks, sim: sim.Tasks, tr: tr, arrived: arrived}, nil
}

// jobArrivals records when each job reached the replay's policy with its
// tasks (replay.Observer's JobArrived): on a YARN cluster, when its
// ApplicationMaster is ready and asks for its containers (JOB_INITED in a
// history).
type jobArrivals map[string]int64

func (a jobArrivals) JobArrived(e replay.JobEvent) { a[e.Job.Trace.ID] = e.Time }
func (jobArrivals) TaskLaunched(replay.TaskEvent)  {}
func (jobArrivals) TaskEnded(replay.TaskEvent)     {}
func (jobArrivals) JobFinished(replay.JobEvent)    {}
func (jobArrivals) Sample(replay.SampleEvent)      {}
func (jobArrivals) Transfer(replay.TransferEvent)  {}

func TestValidationHarness(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays every shared trace that records a schedule")
	if m := os.Getenv("VALIDATION_JOBTRACKER"); m != "" && m != "assign" && m != "off" {
		t.Fatalf("VALIDATION_JOBTRACKER=%q: want assign or off (or unset)", m)
	}
	dir := sharedTraces(t)
	type input struct {
		harnessTrace
		tr *trace.Trace
	}
	var inputs []input
	candidates := harnessTraces
	score := os.Getenv("VALIDATION_EXCLUDED")
	for _, e := range harnessExcluded {
		if score == "score" || slices.Contains(strings.Split(score, ","), filepath.Base(e.path)) {
			if _, err := os.Stat(filepath.Join(dir, e.path)); err == nil {
				fmt.Printf("excluded %s, scored all the same (VALIDATION_EXCLUDED=%s): %s\n", e.path, score, e.why)
				candidates = append(slices.Clip(candidates), e.harnessTrace)
				continue
			}
		}
		fmt.Printf("excluded %s: %s\n", e.path, e.why)
	}
	for _, h := range candidates {
		tr, err := readTrace(filepath.Join(dir, h.path))
		switch {
		case err != nil:
			fmt.Printf("skip %s: %v\n", h.path, err)
			continue
		case !replay.HasObservedSchedule(tr):
			fmt.Printf("skip %s: no recorded schedule\n", h.path)
			continue
		}
		inputs = append(inputs, input{h, tr})
	}
	folds := map[string][]*trace.Trace{}
	inFold := map[string]bool{} // job sets already in a fold's calibration
	for _, in := range inputs {
		folds[in.fold] = appendJobSet(folds[in.fold], in.tr, inFold)
	}
	mode := harnessMode(t)
	fmt.Printf("== task_times = %q (VALIDATION_MODE=%s)\n", mode, map[replay.TaskTimeSource]string{replay.TaskTimesTrace: "trace", replay.TaskTimesModel: "model"}[mode])
	models := map[string]replay.Hardware{}
	for _, f := range []string{"A", "B"} {
		switch m := os.Getenv("VALIDATION_MODEL"); m {
		case "", "fold":
			other := map[string]string{"A": "B", "B": "A"}[f]
			hw, toml := calibrated(t, folds[other], other)
			models[f] = hw
			fmt.Printf("== fold %s is scored with the model calibrated on fold %s:\n%s\n", f, other, toml)
		case "same":
			hw, toml := calibrated(t, folds[f], f)
			models[f] = hw
			fmt.Printf("== fold %s is scored with the model calibrated on fold %s itself (VALIDATION_MODEL=same):\n%s\n", f, f, toml)
		case "default":
			hw := replay.DefaultHardware()
			hw.Lifecycle = true
			models[f] = hw
			fmt.Printf("== fold %s is scored with replay.DefaultHardware() and lifecycle = true (VALIDATION_MODEL=default)\n", f)
		default:
			t.Fatalf("VALIDATION_MODEL=%q: want fold, same or default", m)
		}
	}
	if n := os.Getenv("VALIDATION_NETWORK"); n != "" {
		if _, err := replay.ParseNetworkName(n); err != nil {
			t.Fatalf("VALIDATION_NETWORK=%q: %v", n, err)
		}
		for f, hw := range models {
			hw.Network = replay.NetworkName(n)
			if err := hw.Validate(); err != nil {
				t.Fatalf("VALIDATION_NETWORK=%q on fold %s's model: %v", n, f, err)
			}
			models[f] = hw
		}
		fmt.Printf("== every fold is replayed with network = %q (VALIDATION_NETWORK)\n", n)
	}
	overrideModels(t, models)
	var pairs []report.ValidationPair
	var tasks []taskPair
	var pairFold []string         // the fold of each pair
	scored := map[string]string{} // job set -> the trace scored for it
	for _, in := range inputs {
		pol, why := confPolicy(in.tr)
		name := shortName(in.path)
		key := jobSet(in.tr)
		if prev, dup := scored[key]; dup {
			fmt.Printf("%s (fold %s): the same jobs as %s in another format; scored once\n", in.path, in.fold, prev)
			continue
		}
		scored[key] = in.path
		if pol == "fifo" && jobTrackerMode(in.tr) != "off" && jobTrackerHistory(in.tr) {
			pol = "fifo:assign=jobqueue" // JobQueueTaskScheduler.assignTasks' caps
			// Isolation runs: more of fifo's jobqueue parameters (open=),
			// on both folds or on one (section "Why a third").
			for _, env := range []string{"VALIDATION_JOBQUEUE", "VALIDATION_JOBQUEUE_" + in.fold} {
				if v := os.Getenv(env); v != "" {
					pol += "," + v
				}
			}
		}
		p, tp, err := replayTasks(in.tr, models[in.fold], pol, name, mode)
		if err != nil {
			fmt.Printf("skip %s: %v\n", in.path, err)
			continue
		}
		if _, err := report.ValidatePair(p); err != nil {
			fmt.Printf("skip %s: %v\n", in.path, err)
			continue
		}
		hb := ""
		if jobTrackerMode(in.tr) == "" {
			if hw, ok, err := replay.TraceHardware(in.tr, models[in.fold]); err == nil && ok {
				hb = fmt.Sprintf(", heartbeat %s (JobTracker.getNextHeartbeatInterval for %d trackers)", replay.JobTrackerHeartbeat(hw.Nodes()), hw.Nodes())
			}
		}
		fmt.Printf("%s (fold %s): policy %s (%s)%s, %d jobs\n", in.path, in.fold, pol, why, hb, len(p.Sim.Jobs))
		pairs = append(pairs, p)
		pairFold = append(pairFold, in.fold)
		tasks = append(tasks, tp)
	}
	if len(pairs) == 0 {
		t.Fatal("no trace could be scored")
	}
	v, err := report.Validate(pairs)
	if err != nil {
		t.Fatal(err)
	}
	// The pooled row over every trace, whatever its policy.
	if !slices.ContainsFunc(v.Rows, func(r report.ValidationRow) bool { return strings.HasPrefix(r.Name, "all (pooled") }) {
		rows := make([]report.ValidationRow, 0, len(pairs))
		for _, p := range pairs {
			r, _ := report.ValidatePair(p)
			rows = append(rows, r)
		}
		v.Rows = append(v.Rows, report.PoolRows(fmt.Sprintf("all (pooled, %d runs)", len(pairs)), rows))
	}
	insertFoldRows(v, pairs, pairFold)
	pooled := v.Rows[len(v.Rows)-1]
	for _, b := range []struct {
		env, what string
		got       float64
	}{
		{"VALIDATION_MAX_MEDIAN", "median", pooled.Errors[0].Median},
		{"VALIDATION_MAX_P90", "p90", pooled.Errors[0].P90},
	} {
		lim := os.Getenv(b.env)
		if lim == "" {
			continue
		}
		f, err := parseBound(lim)
		if err != nil {
			t.Fatalf("%s=%q: %v", b.env, lim, err)
		}
		defer func() {
			if !(b.got <= f) {
				t.Errorf("%s: %s flowtime error %.1f%% > %.1f%% (%s)", pooled.Name, b.what, 100*b.got, 100*f, b.env)
			}
		}()
	}
	fmt.Println()
	for i, tb := range []*report.Table{v.ErrorTable(), v.RunTable()} {
		if err := tb.WriteText(os.Stdout); err != nil {
			t.Fatal(err)
		}
		fmt.Println()
		if out := os.Getenv("VALIDATION_OUT"); out != "" {
			path := filepath.Join(out, []string{"validate_errors.md", "validate_runs.md"}[i])
			if err := report.WriteFileAtomic(path, tb.WriteMarkdown); err != nil {
				t.Fatal(err)
			}
		}
	}
	if mode == replay.TaskTimesModel || os.Getenv("VALIDATION_TASKS") != "" {
		printTaskErrors(os.Stdout, tasks)
	}
	if f := os.Getenv("VALIDATION_JOBS"); f != "" {
		printJobPhases(os.Stdout, pairs, tasks, f)
	}
	if f := os.Getenv("VALIDATION_TASKLIST"); f != "" {
		printJobTasks(os.Stdout, pairs, tasks, f)
	}
	if os.Getenv("VALIDATION_HANDOUT") != "" {
		printHandout(os.Stdout, tasks)
	}
}

// overrideModels applies VALIDATION_SET to both folds' models, then
// VALIDATION_SET_A and VALIDATION_SET_B to fold A's and fold B's alone
// (isolation runs), and says so on stdout.
func overrideModels(t *testing.T, models map[string]replay.Hardware) {
	t.Helper()
	if set := os.Getenv("VALIDATION_SET"); set != "" {
		kv, err := parseSettings(set)
		if err != nil {
			t.Fatalf("VALIDATION_SET=%q: %v", set, err)
		}
		for _, f := range []string{"A", "B"} {
			if models[f], err = models[f].WithSettings(kv); err != nil {
				t.Fatalf("VALIDATION_SET=%q on fold %s's model: %v", set, f, err)
			}
		}
		fmt.Printf("== every fold's model is overridden with %s (VALIDATION_SET, an isolation run)\n", set)
	}
	for _, f := range []string{"A", "B"} {
		env := "VALIDATION_SET_" + f
		set := os.Getenv(env)
		if set == "" {
			continue
		}
		kv, err := parseSettings(set)
		if err != nil {
			t.Fatalf("%s=%q: %v", env, set, err)
		}
		if models[f], err = models[f].WithSettings(kv); err != nil {
			t.Fatalf("%s=%q on fold %s's model: %v", env, set, f, err)
		}
		fmt.Printf("== fold %s's model is overridden with %s (%s, an isolation run)\n", f, set, env)
	}
}

// parseSettings reads VALIDATION_SET's "key=value,key=value" hardware
// overrides: an integer, a number, true or false, else a string (a duration,
// a name).
func parseSettings(s string) (map[string]any, error) {
	kv := map[string]any{}
	for _, f := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not key=value", f)
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			kv[k] = n // an integer key (job_init_threads) takes no float
		} else if x, err := strconv.ParseFloat(v, 64); err == nil {
			kv[k] = x
		} else if b, err := strconv.ParseBool(v); err == nil {
			kv[k] = b
		} else {
			kv[k] = v
		}
	}
	return kv, nil
}

// parseBound reads a bound given as a fraction (0.1) or a percentage (10%).
func parseBound(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, err
	}
	if strings.HasSuffix(s, "%") {
		f /= 100
	}
	return f, nil
}

// shortName names a trace in the tables: its file name, a .jhist by its job id.
func shortName(path string) string {
	base := filepath.Base(path)
	if strings.HasSuffix(base, ".jhist") && strings.HasPrefix(base, "job_") {
		if parts := strings.SplitN(base, "-", 2); len(parts) == 2 && len(parts[0]) > len("job_0.23.9") {
			return parts[0] + ".jhist"
		}
	}
	return base
}

// appendJobSet appends tr to a fold's calibration traces unless the same jobs
// (jobSet) are already in it in another format: a Hadoop 1 history and the
// Rumen traces made from it are one schedule, and pooling them would count
// each of its tasks once per copy in every fit (fold A holds
// sample-job-tracker-logs three times, fold B counters-format-test-logs twice).
func appendJobSet(fold []*trace.Trace, tr *trace.Trace, seen map[string]bool) []*trace.Trace {
	key := jobSet(tr)
	if seen[key] {
		return fold
	}
	seen[key] = true
	return append(fold, tr)
}

// jobSet identifies the jobs of a trace (ids and submit times), so that the
// same job logs read in two formats (a Hadoop 1 history and the Rumen trace
// made from it) are scored once.
func jobSet(tr *trace.Trace) string {
	var b strings.Builder
	for _, j := range tr.Jobs {
		fmt.Fprintf(&b, "%s@%d,", j.ID, j.SubmitMs)
	}
	return b.String()
}

// jobTrackerHistory reports whether tr is a Hadoop 1 JobTracker's history:
// every job id is a JobTracker's (trace.JobTrackerJobID), not a YARN
// ResourceManager's (.jhist, SLS); a repeated id's "#n" suffix, which the
// readers add (gridmix/wordcount2.json), is left out.
func jobTrackerHistory(tr *trace.Trace) bool {
	for _, j := range tr.Jobs {
		id, _, _ := strings.Cut(j.ID, "#")
		if !trace.JobTrackerJobID(id) {
			return false
		}
	}
	return len(tr.Jobs) > 0
}

// amHistory reports whether every job of tr records a YARN
// ApplicationMaster's start (a .jhist's AM_STARTED): replay.TraceHardware
// gives its slot cluster the NodeManager heartbeat (replay/yarn_slotam.go).
func amHistory(tr *trace.Trace) bool {
	for _, j := range tr.Jobs {
		if j.AMStartMs < 0 {
			return false
		}
	}
	return len(tr.Jobs) > 0
}

// jobTrackerMode is how the harness replays a JobTracker's history (section
// "How the JobTracker hands out tasks" of docs/validation.md): "" (the
// default) with fifo:assign=jobqueue for the default scheduler and the
// heartbeat replay.JobTrackerHeartbeat gives for the trace's trackers;
// VALIDATION_JOBTRACKER=assign keeps the model's heartbeat (3 s), =off also
// fifo's filling every free slot, as before (isolation runs). Not a
// JobTracker's history: "off".
func jobTrackerMode(tr *trace.Trace) string {
	if !jobTrackerHistory(tr) {
		return "off"
	}
	return os.Getenv("VALIDATION_JOBTRACKER")
}

// insertFoldRows puts the pooled rows of each fold (pairFold[i] is pair i's)
// before v's last row, the all row: a fold is scored with the other fold's
// model, so each is its own out-of-fold score.
func insertFoldRows(v *report.Validation, pairs []report.ValidationPair, pairFold []string) {
	var foldRows []report.ValidationRow
	for _, f := range []string{"A", "B"} {
		var rows []report.ValidationRow
		for i, p := range pairs {
			if pairFold[i] == f {
				r, _ := report.ValidatePair(p)
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			foldRows = append(foldRows, report.PoolRows(fmt.Sprintf("fold %s (pooled, %d runs)", f, len(rows)), rows))
		}
	}
	v.Rows = slices.Insert(v.Rows, len(v.Rows)-1, foldRows...)
}
