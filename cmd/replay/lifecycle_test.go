package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/trace"
)

// leftOutTrace is a trace of two jobs with one map each, on host h1; the
// second's failed attempt starts an hour before its job's submit.
func leftOutTrace(t *testing.T) string {
	t.Helper()
	var tr trace.Trace
	for k, submit := range []int64{3_000_000, 3_600_000} {
		j := trace.NewJob([]string{"job_1_0001", "job_1_0002"}[k])
		j.SubmitMs, j.FinishMs, j.Status = submit, submit+10_000, trace.StatusSucceeded
		m := trace.NewTask(j.ID, "task_"+j.ID[4:]+"_m_000000", trace.Map, 0)
		m.Host, m.StartMs, m.FinishMs, m.Status = "h1", submit+1000, submit+2000, trace.StatusSucceeded
		a := trace.NewAttempt(j.ID, m.TaskID, "attempt_"+j.ID[4:]+"_m_000000_0", trace.Map)
		a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, submit+100, submit+900, "h1"
		if k == 1 {
			a.StartMs, a.FinishMs = 0, 1000 // an hour before its job's submit
		}
		b := trace.NewAttempt(j.ID, m.TaskID, "attempt_"+j.ID[4:]+"_m_000000_1", trace.Map)
		b.Status, b.StartMs, b.FinishMs, b.Host = trace.StatusSucceeded, m.StartMs, m.FinishMs, "h1"
		tr.Jobs, tr.Tasks, tr.Attempts = append(tr.Jobs, j), append(tr.Tasks, m), append(tr.Attempts, a, b)
	}
	dir := filepath.Join(t.TempDir(), "trace")
	if err := trace.Write(dir, &tr); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBadAttemptsJobLeftOut: in trace mode (lifecycle on), a job with an
// attempt an hour before its submit is left out with a warning naming it
// and why, and a count; the run exits 0 with the other job replayed, and
// every run's run.json, the observed one's too, lists the job left out and
// counts one job. With the observed policy alone the trace is read for an
// observed cell, whose workload takes the jobs left out found as the trace
// was checked (replay.LeftOutSeen).
func TestBadAttemptsJobLeftOut(t *testing.T) {
	t.Parallel()
	dir := leftOutTrace(t)
	for _, policies := range []string{"fifo,fair,observed", "observed"} {
		out := filepath.Join(t.TempDir(), "runs")
		code, _, errOut := runCmd("--trace", dir, "--policy", policies, "--out", out)
		const warn = "replay: warning: job job_1_0002 left out: attempt attempt_1_0002_m_000000_0 of job job_1_0002 runs 0..1000 ms, outside the job's lifetime 3600000..3610000 ms (by more than 600 s of clock skew)\n"
		if code != 0 || strings.Count(errOut, warn) != 1 || !strings.Contains(errOut, ": 1 job(s) left out") || strings.Contains(errOut, "job_1_0001") {
			t.Fatalf("%s: exit %d, stderr %q", policies, code, errOut)
		}
		runs, err := filepath.Glob(filepath.Join(out, "*", results.SummaryFile))
		if err != nil || len(runs) != strings.Count(policies, ",")+1 {
			t.Fatalf("%s: run.json files %v: %v", policies, runs, err)
		}
		for _, p := range runs {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var s results.RunSummary
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if s.Jobs != 1 || len(s.JobsLeftOut) != 1 || s.JobsLeftOut[0].JobID != "job_1_0002" || !strings.Contains(s.JobsLeftOut[0].Reason, "outside the job's lifetime") {
				t.Errorf("%s: %d jobs, left out %v", p, s.Jobs, s.JobsLeftOut)
			}
		}
	}
}
