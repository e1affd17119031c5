package replay_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// badJobEdits are the ways a job's attempts can be beyond the lifecycle in
// trace mode, as found in real histories, each with the reason its job is
// left out for: an attempt 966 s before its job's submit (TaskTracker
// clocks behind the JobTracker's, a Hadoop 0.20 history), a reduce without
// any attempt (Rumen's zombie/input-trace.json) and a map whose only
// attempt was killed.
var badJobEdits = []struct {
	name string
	edit func(tr *trace.Trace, job int) // job's attempts made bad
	want string                         // the reason's text, %s the job id
}{
	{"clock skew", func(tr *trace.Trace, job int) {
		j := &tr.Jobs[job]
		for x := range tr.Attempts {
			if a := &tr.Attempts[x]; a.JobID == j.ID {
				a.StartMs = j.SubmitMs - 966_000
				return
			}
		}
		panic("no attempt")
	}, "of job %s runs"},
	{"no attempt", func(tr *trace.Trace, job int) {
		id := tr.Jobs[job].ID
		var task string
		for x := range tr.Attempts {
			if a := &tr.Attempts[x]; a.JobID == id && a.Type.IsWork() {
				task = a.TaskID // its last map or reduce
			}
		}
		if task == "" {
			panic("no attempt")
		}
		tr.Attempts = slices.DeleteFunc(tr.Attempts, func(a trace.Attempt) bool { return a.JobID == id && a.TaskID == task })
	}, "of job %s, which succeeded, has no attempt (the job's other tasks have attempts)"},
	{"no success", func(tr *trace.Trace, job int) {
		for x := range tr.Attempts {
			if a := &tr.Attempts[x]; a.JobID == tr.Jobs[job].ID && a.Status == trace.StatusSucceeded && a.Type.IsWork() {
				a.Status = trace.StatusKilled
				return
			}
		}
		panic("no attempt")
	}, "of job %s, which succeeded, has attempts but no successful one"},
}

// withoutJob is tr without job k, its tasks and its attempts.
func withoutJob(tr *trace.Trace, k int) *trace.Trace {
	id := tr.Jobs[k].ID
	out := *tr
	out.Jobs = slices.Delete(slices.Clone(tr.Jobs), k, k+1)
	out.Tasks = slices.DeleteFunc(slices.Clone(tr.Tasks), func(t trace.Task) bool { return t.JobID == id })
	out.Attempts = slices.DeleteFunc(slices.Clone(tr.Attempts), func(a trace.Attempt) bool { return a.JobID == id })
	return &out
}

// leftOutRun replays tr in trace mode with the lifecycle under fair, and
// the observed schedule of a held tr, and returns them and the jobs the
// workload left out.
func leftOutRun(t *testing.T, hw *replay.Hardware, tr *trace.Trace) (sim, obs *replay.Result, left []replay.LeftOutJob) {
	t.Helper()
	w, err := replay.NewWorkload(tr, hw, replay.NewTopology(hw, 3), 3, replay.WorkloadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New("fair")
	if err != nil {
		t.Fatal(err)
	}
	opt := replay.Options{Seed: 3, Timeline: true, RecordTasks: true, CheckInvariants: true}
	if sim, err = replay.Run(w, p, opt); err != nil {
		t.Fatal(err)
	}
	sim.Wall = 0
	if tr.Stream == nil {
		if obs, err = replay.Observed(w, opt); err != nil {
			t.Fatal(err)
		}
		obs.Wall = 0
	}
	return sim, obs, w.LeftOut()
}

// sameRun fails unless a and b have the same jobs, tasks, timeline and
// summary but for the jobs left out.
func sameRun(t *testing.T, what string, a, b *replay.Result) {
	t.Helper()
	sa, sb := a.Summary, b.Summary
	sa.JobsLeftOut, sb.JobsLeftOut = nil, nil
	if !reflect.DeepEqual(a.Jobs, b.Jobs) || !reflect.DeepEqual(a.Tasks, b.Tasks) || !reflect.DeepEqual(a.Timeline, b.Timeline) || !reflect.DeepEqual(sa, sb) {
		t.Fatalf("%s: %d jobs %d events, want %d jobs %d events", what, a.Summary.Jobs, a.Summary.Events, b.Summary.Jobs, b.Summary.Events)
	}
}

// TestLifecycleJobsLeftOut: in trace mode with the lifecycle, a job whose
// attempts the lifecycle cannot replay (badJobEdits) is left out, with its
// reason (Workload.LeftOut, RunSummary.JobsLeftOut), and the rest of the
// trace replays, simulated and observed, as the same trace without that
// job does, held and streamed. The job is the trace's last, so that no
// other job's position (which keys its random streams) moves when it is
// deleted.
func TestLifecycleJobsLeftOut(t *testing.T) {
	t.Parallel()
	hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\ntask_times = \"trace\"\nlifecycle = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range badJobEdits {
		t.Run(c.name, func(t *testing.T) {
			tr := attemptTrace(180)
			bad := len(tr.Jobs) - 1
			for tr.Jobs[bad].Status != trace.StatusSucceeded || !slices.ContainsFunc(tr.Attempts, func(a trace.Attempt) bool { return a.JobID == tr.Jobs[bad].ID }) {
				bad--
			}
			if bad < len(tr.Jobs)-1 {
				t.Fatalf("job %d, not the last, has attempts and succeeded", bad)
			}
			id := tr.Jobs[bad].ID
			c.edit(tr, bad)
			want := withoutJob(tr, bad)
			_, held, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: true})
			_, wantHeld, _ := streamDir(t, want, trace.StreamOptions{Attempts: true})
			ws, wo, wl := leftOutRun(t, &hw, wantHeld)
			if len(wl) != 0 || ws.Summary.Jobs == 0 || wo.Summary.Jobs == 0 {
				t.Fatalf("without the job: %d left out, %d jobs, %d observed", len(wl), ws.Summary.Jobs, wo.Summary.Jobs)
			}
			for _, tr := range []*trace.Trace{held, streamed} {
				sim, obs, left := leftOutRun(t, &hw, tr)
				what := fmt.Sprintf("streamed %v", tr.Stream != nil)
				if len(left) != 1 || left[0].JobID != id || !strings.Contains(left[0].Reason, fmt.Sprintf(c.want, id)) {
					t.Fatalf("%s: left out %v, want job %s: %q", what, left, id, fmt.Sprintf(c.want, id))
				}
				if !reflect.DeepEqual(sim.Summary.JobsLeftOut, left) {
					t.Errorf("%s: run.json's jobs left out %v, want %v", what, sim.Summary.JobsLeftOut, left)
				}
				sameRun(t, what, sim, ws)
				if obs != nil {
					if !reflect.DeepEqual(obs.Summary.JobsLeftOut, left) {
						t.Errorf("%s: observed run.json's jobs left out %v, want %v", what, obs.Summary.JobsLeftOut, left)
					}
					sameRun(t, what+", observed", obs, wo)
				}
			}
		})
	}
}

// TestLifecycleJobsLeftOutOtherModes: the same jobs in model mode (their
// attempts give recorded failures only) and with the lifecycle off (their
// attempts are not read) are replayed, as before: nothing is left out.
func TestLifecycleJobsLeftOutOtherModes(t *testing.T) {
	for _, hwText := range []string{"task_times = \"model\"\nlifecycle = true\n", "task_times = \"trace\"\n"} {
		hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\n" + hwText))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range badJobEdits {
			tr := attemptTrace(180)
			c.edit(tr, len(tr.Jobs)-1)
			all, err := replay.NewWorkload(attemptTrace(180), &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w, err := replay.NewWorkload(tr, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{})
			if err != nil || w.LeftOut() != nil || w.Len() != all.Len() {
				t.Errorf("%q, %s: err %v, left out %v, %d jobs, want %d", hwText, c.name, err, w.LeftOut(), w.Len(), all.Len())
			}
		}
	}
}

// TestLifecycleIncompleteJobNotLeftOut: an incomplete job with an attempt
// outside its lifetime is not replayed, and not warned about as left out,
// unless --include-incomplete (WorkloadOptions.IncludeIncomplete), held and
// streamed alike.
func TestLifecycleIncompleteJobNotLeftOut(t *testing.T) {
	t.Parallel()
	hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\ntask_times = \"trace\"\nlifecycle = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	tr := attemptTrace(180)
	const k = 175 // incomplete (mixedJobs: k%17 == 5), with attempts
	if tr.Jobs[k].Status != trace.StatusIncomplete {
		t.Fatalf("job %d is %s", k, tr.Jobs[k].Status)
	}
	badJobEdits[0].edit(tr, k)
	_, held, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: true})
	for _, src := range []*trace.Trace{held, streamed} {
		for _, inc := range []bool{false, true} {
			w, err := replay.NewWorkload(src, &hw, replay.NewTopology(&hw, 3), 3, replay.WorkloadOptions{IncludeIncomplete: inc})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(w.LeftOut()) == 1 && w.LeftOut()[0].JobID == tr.Jobs[k].ID; got != inc || !inc && w.LeftOut() != nil {
				t.Errorf("streamed %v, include incomplete %v: left out %v", src.Stream != nil, inc, w.LeftOut())
			}
		}
	}
}
