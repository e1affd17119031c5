package replay_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/policy"
	"github.com/tracereplay/tracereplay/replay"
	"github.com/tracereplay/tracereplay/trace"
)

// TestObservedWorkloadLifecycle: a workload built for the observed run only
// (WorkloadOptions.Observed) of a streamed trace with attempts leaves out
// the jobs, for the reasons, that one built for any run does, and the
// lifecycle maps its observed run builds each job with, merged, are that
// workload's for the jobs the run replays: the failed attempts' retries,
// the tasks of jobs failed by a task and the observed speculative copies
// in trace mode, the recorded failures in model mode. The observed results
// are the same; Run refuses the workload. The trace has every kind of
// entry, jobs left out for each reason (the first replayed one among
// them, which moves the origin of times) and an incomplete job with an
// attempt outside its lifetime, left out only with IncludeIncomplete. A
// workload given the jobs left out found as the trace was checked
// (WorkloadOptions.LeftOut, LeftOutSeen) has the same jobs and results.
func TestObservedWorkloadLifecycle(t *testing.T) {
	t.Parallel()
	tr := attemptTrace(300)
	hasAttempts := func(id string) bool {
		return slices.ContainsFunc(tr.Attempts, func(a trace.Attempt) bool { return a.JobID == id })
	}
	first, incomplete := -1, -1
	for k := range tr.Jobs {
		switch j := &tr.Jobs[k]; {
		case first < 0 && j.Status == trace.StatusSucceeded && hasAttempts(j.ID):
			first = k
		case incomplete < 0 && j.Status == trace.StatusIncomplete && hasAttempts(j.ID) && j.SubmitMs > 1_000_000:
			incomplete = k
		}
	}
	if first != 0 || incomplete < 0 {
		t.Fatalf("job %d is the first to succeed with attempts (want 0), job %d the first incomplete one with attempts", first, incomplete)
	}
	// A task that fails its job (attemptTrace: map 0 of a failed job, four
	// failed attempts 700 ms apart) recorded as its last attempt: the three
	// before it end before its start, retries that traceFailures adds.
	for x := range tr.Tasks {
		if k := &tr.Tasks[x]; k.Status == trace.StatusFailed && k.Type == trace.Map && k.Index == 0 {
			k.StartMs += 3 * 700
		}
	}
	skew, noAtt, noSucc := badJobEdits[0], badJobEdits[1], badJobEdits[2]
	// Job 0 submits at 0: an attempt that ends 966 s after its finish.
	j0 := &tr.Jobs[first]
	for x := range tr.Tasks {
		if k := &tr.Tasks[x]; k.JobID == j0.ID {
			j0.FinishMs = max(j0.FinishMs, k.FinishMs)
		}
	}
	for x := range tr.Attempts {
		if a := &tr.Attempts[x]; a.JobID == j0.ID {
			a.FinishMs = j0.FinishMs + 966_000
			break
		}
	}
	noSucc.edit(tr, 76)
	noAtt.edit(tr, 151)
	skew.edit(tr, incomplete)
	tr.Sort()
	dir, _, streamed := streamDir(t, tr, trace.StreamOptions{Attempts: true})
	// The jobs left out found as the trace is checked
	// (WorkloadOptions.LeftOut), read 7 rows a batch.
	seen := replay.NewLeftOutSeen()
	checked, ok, err := trace.OpenTaskStream(dir, trace.StreamOptions{Attempts: true, JobAttempts: seen.Visit, Batch: 7})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, c := range []struct {
		name, hw string
		maps     []string // the maps that must have entries
	}{
		{"trace times", "task_times = \"trace\"\nlifecycle = true\n", []string{"fails", "retries", "specs"}},
		{"model times", "task_times = \"model\"\nlifecycle = true\n", []string{"recFails"}},
	} {
		hw, err := replay.ParseHardware([]byte("racks = 2\nnodes_per_rack = 8\n" + c.hw))
		if err != nil {
			t.Fatal(err)
		}
		for _, inc := range []bool{false, true} {
			opt := replay.WorkloadOptions{IncludeIncomplete: inc}
			full, err := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.Observed = true
			obs, err := replay.NewWorkload(streamed, &hw, replay.NewTopology(&hw, 1), 1, opt)
			if err != nil {
				t.Fatal(err)
			}
			left := obs.LeftOut()
			if !reflect.DeepEqual(left, full.LeftOut()) || obs.Len() != full.Len() {
				t.Fatalf("%s, incomplete %v: left out %v, %d jobs; want %v, %d jobs", c.name, inc, left, obs.Len(), full.LeftOut(), full.Len())
			}
			opt.LeftOut = seen
			folded, err := replay.NewWorkload(checked, &hw, replay.NewTopology(&hw, 1), 1, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(folded.LeftOut(), left) || folded.Len() != full.Len() {
				t.Fatalf("%s, incomplete %v: left out as checked %v, %d jobs; want %v, %d jobs", c.name, inc, folded.LeftOut(), folded.Len(), left, full.Len())
			}
			if c.name == "trace times" {
				want := 3
				if inc {
					want++
				}
				if len(left) != want || left[0].JobID != tr.Jobs[first].ID {
					t.Fatalf("%s, incomplete %v: left out %v, want %d jobs, %s first", c.name, inc, left, want, tr.Jobs[first].ID)
				}
			}
			got, err := replay.ObservedLifecycleMaps(obs)
			if err != nil {
				t.Fatal(err)
			}
			// The full workload's entries of the replayed jobs (it has
			// entries of the incomplete jobs too, which no run reads).
			jobs := map[string]bool{}
			res, err := replay.Observed(full, replay.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range res.Jobs {
				jobs[j.JobID] = true
			}
			want := replay.LifecycleMaps(full)
			for name, m := range want {
				maps.DeleteFunc(m, func(k, _ string) bool { return !jobs[k[:strings.IndexByte(k, 0)]] })
				if len(m) == 0 {
					delete(want, name)
				}
			}
			for _, name := range c.maps {
				if len(want[name]) == 0 {
					t.Fatalf("%s, incomplete %v: no entry in %s", c.name, inc, name)
				}
			}
			for name := range want {
				if !maps.Equal(got[name], want[name]) {
					t.Errorf("%s, incomplete %v: %s: %d entries per job, want %d: %v\nwant %v", c.name, inc, name, len(got[name]), len(want[name]), got[name], want[name])
				}
			}
			for name := range got {
				if want[name] == nil {
					t.Errorf("%s, incomplete %v: %s: %d entries per job, want none", c.name, inc, name, len(got[name]))
				}
			}
			ropt := replay.Options{Seed: 1, RecordTasks: true, Timeline: true}
			a, err := replay.Observed(obs, ropt)
			if err != nil {
				t.Fatal(err)
			}
			b, err := replay.Observed(full, ropt)
			if err != nil {
				t.Fatal(err)
			}
			f, err := replay.Observed(folded, ropt)
			if err != nil {
				t.Fatal(err)
			}
			a.Wall, b.Wall, f.Wall = 0, 0, 0
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s, incomplete %v: observed %d jobs (%+v), want %d (%+v)", c.name, inc, len(a.Jobs), a.Summary, len(b.Jobs), b.Summary)
			}
			if !reflect.DeepEqual(f, b) {
				t.Errorf("%s, incomplete %v: observed with the jobs left out as checked %d jobs (%+v), want %d (%+v)", c.name, inc, len(f.Jobs), f.Summary, len(b.Jobs), b.Summary)
			}
			p, err := policy.New("fair")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := replay.Run(obs, p, replay.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "observed schedule only") {
				t.Errorf("%s, incomplete %v: Run on the observed workload: %v, want an error", c.name, inc, err)
			}
		}
	}
}
