package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestBadAttemptsExit2: in trace mode (lifecycle on), an attempt an hour
// before its job's submit is bad input: a named error, exit status 2, and no
// results directory.
func TestBadAttemptsExit2(t *testing.T) {
	j := trace.NewJob("job_1_0001")
	j.SubmitMs, j.FinishMs, j.Status = 3_600_000, 3_610_000, trace.StatusSucceeded
	m := trace.NewTask(j.ID, "task_1_0001_m_000000", trace.Map, 0)
	m.Host, m.StartMs, m.FinishMs, m.Status = "h1", 3_601_000, 3_602_000, trace.StatusSucceeded
	a := trace.NewAttempt(j.ID, m.TaskID, "attempt_1_0001_m_000000_0", trace.Map)
	a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, 0, 1000, "h1"
	b := trace.NewAttempt(j.ID, m.TaskID, "attempt_1_0001_m_000000_1", trace.Map)
	b.Status, b.StartMs, b.FinishMs, b.Host = trace.StatusSucceeded, m.StartMs, m.FinishMs, "h1"
	dir := filepath.Join(t.TempDir(), "trace")
	if err := trace.Write(dir, &trace.Trace{Jobs: []trace.Job{j}, Tasks: []trace.Task{m}, Attempts: []trace.Attempt{a, b}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "runs")
	code, _, errOut := runCmd("--trace", dir, "--policy", "fifo", "--out", out)
	if code != 2 || !strings.Contains(errOut, "attempt attempt_1_0001_m_000000_0 of job job_1_0001") ||
		!strings.Contains(errOut, "outside the job's lifetime") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("results directory written: %v", err)
	}
}
