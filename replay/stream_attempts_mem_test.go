package replay_test

import (
	"fmt"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/trace"
)

// steadyAttemptTrace is steadyTaskTrace(n) with attempts: each task's
// successful attempt, and for every tenth task a failed attempt before it.
func steadyAttemptTrace(n int) *trace.Trace {
	tr := steadyTaskTrace(n)
	submit := map[string]int64{}
	for i := range tr.Jobs {
		submit[tr.Jobs[i].ID] = tr.Jobs[i].SubmitMs
	}
	for i := range tr.Tasks {
		k := &tr.Tasks[i]
		s := submit[k.JobID] + 1000
		if i%10 == 0 {
			a := trace.NewAttempt(k.JobID, k.TaskID, k.TaskID+"_0", k.Type)
			a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusFailed, s, s+2000, "h1"
			tr.Attempts = append(tr.Attempts, a)
			s += 3000
		}
		a := trace.NewAttempt(k.JobID, k.TaskID, k.TaskID+"_1", k.Type)
		a.Status, a.StartMs, a.FinishMs, a.Host = trace.StatusSucceeded, s, s+10_000, "h2"
		tr.Attempts = append(tr.Attempts, a)
	}
	return tr
}

// TestStreamedAttemptsPeakHeapFlat: a trace directory with tasks and
// attempts, opened as replay opens it with --hardware (trace.OpenTaskStream
// with StreamOptions.Attempts) and replayed with the lifecycle (model mode:
// the recorded failures, read job by job) at a constant load with its
// results streamed, peaks at about the same live heap whether it holds
// 48,400 or 96,800 attempts (1,000 or 2,000 jobs of 44 tasks): the peak
// above the heap before the trace was opened, sampled at every 16th
// finished job and when the run returns, may grow by at most 20%. What does
// grow is the recorded failures, one entry per task with a failed attempt
// (4,400 more here). In its own process, each size twice with the smaller
// peak kept, as TestStreamedTasksPeakHeapFlat.
func TestStreamedAttemptsPeakHeapFlat(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays 6,000 jobs of 44 tasks and their attempts")
	if !inOwnProcess(t, "TRACEREPLAY_ATTEMPTHEAP_CHILD") {
		return
	}

	streamedPeakFlat(t, "lifecycle = true\ntask_times = \"model\"\n", trace.StreamOptions{Attempts: true}, steadyAttemptTrace,
		"attempts", func(jobs int) int { return 44*jobs + 44*jobs/10 })
}

// steadyHostTrace is steadyAttemptTrace(n) as a job history records it:
// each task on one of 20 hosts of two racks, with its successful
// attempt's start and finish, each attempt on its task's host, so that
// the trace records a schedule and trace mode derives its cluster from it.
func steadyHostTrace(n int) *trace.Trace {
	tr := steadyAttemptTrace(n)
	task := map[string]*trace.Task{}
	for i := range tr.Tasks {
		k := &tr.Tasks[i]
		k.Host, k.Rack = fmt.Sprintf("h%02d", i%20), fmt.Sprintf("/r%d", i%20/10)
		task[k.TaskID] = k
	}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		k := task[a.TaskID]
		a.Host, a.Rack = k.Host, k.Rack
		if a.Status == trace.StatusSucceeded {
			k.Status, k.StartMs, k.FinishMs = a.Status, a.StartMs, a.FinishMs
		}
	}
	return tr
}

// TestStreamedTraceModePeakHeapFlat: TestStreamedAttemptsPeakHeapFlat in
// trace mode: the cluster derived from the streamed trace
// (replay.TraceHardware: two passes over its attempts, one over its tasks
// and one over its jobs, inside the measured span) and the run on it with
// the lifecycle and the observed task times (the retries, read job by job).
// The derivation's own peak, between two samples, is bounded by
// TestPeakUseHoldsTheActive.
func TestStreamedTraceModePeakHeapFlat(t *testing.T) {
	testgate.Require(t, testgate.Full, "replays 6,000 jobs of 44 tasks and their attempts in trace mode")
	if !inOwnProcess(t, "TRACEREPLAY_TRACEMODEHEAP_CHILD") {
		return
	}
	streamedPeakFlat(t, "", trace.StreamOptions{Attempts: true}, steadyHostTrace,
		"attempts", func(jobs int) int { return 44*jobs + 44*jobs/10 }, true)
}
