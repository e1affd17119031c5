package replay

import (
	"fmt"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/trace"
)

// Failed and killed attempts in trace mode (lifecycle on, task_times not
// "model"): an attempt that failed or was killed and ended before its task's
// successful attempt started is a retry the task went through; the replay
// holds the task's slot for each such attempt's observed duration (plus
// task_startup, or a YARN job's retry_container_delay: lifecycle_ext.go)
// before the successful attempt's. The retries run on the slot
// the task was given, one after another, without going back through the
// policy (Hadoop 1 reschedules a failed task, preferring another tracker:
// this keeps the slot time and the delay, not the move; a task that fails
// its job keeps its attempts' recorded spacing instead: jobfail.go). An attempt that
// overlaps the successful one ran beside it (speculation) and is not replayed.

// ErrAttemptJobMissing is the error of a trace with an attempt whose job is
// not in the trace (the attempt names a job id no job has). It matches
// trace.ErrBadInput.
var ErrAttemptJobMissing = fmt.Errorf("%w: an attempt's job is not in the trace", trace.ErrBadInput)

// LeftOutJob is a job of the trace that a workload leaves out, and why
// (Workload.LeftOut; results.LeftOutJob).
type LeftOutJob = results.LeftOutJob

// retryKey names a task across the trace (folded traces repeat task ids under
// renamed jobs).
func retryKey(jobID, taskID string) string { return jobID + "\x00" + taskID }

// traceRetries checks tr's attempts and returns, per task with retries, the
// summed duration in µs of its failed and killed attempts that ended before
// its successful attempt started, each plus the gap to the next attempt
// (Hardware.retryGapUs). The jobs whose attempts the lifecycle cannot
// replay are left out, in trace order, each with the first reason found:
// an attempt outside its job's lifetime by more than trace.MaxAttemptSkewMs
// (trace.AttemptSkewMs: TaskTracker clocks off the JobTracker's), else
// a map or reduce of a successful job with no successful attempt while the
// job's other tasks have attempts; their tasks have no entry in retries.
// Each job's reason depends on its own tasks and attempts only, so a trace
// read job by job (streamedAttempts) leaves out the same jobs for the same
// reasons. An incomplete job is not left out unless incomplete
// (WorkloadOptions.IncludeIncomplete): it is not replayed anyway. An
// attempt whose job is not in tr is an error (ErrAttemptJobMissing): it is
// not attributable to a job of the trace.
func traceRetries(tr *trace.Trace, hw *Hardware, incomplete bool) (retries map[string]int64, left []LeftOutJob, err error) {
	if len(tr.Attempts) == 0 {
		return nil, nil, nil
	}
	jobs := make(map[string]*trace.Job, len(tr.Jobs))
	for i := range tr.Jobs {
		jobs[tr.Jobs[i].ID] = &tr.Jobs[i]
	}
	why := map[string]string{} // left-out job id -> its reason
	type span struct{ start, finish int64 }
	succ := map[string]span{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		j, ok := jobs[a.JobID]
		if !ok {
			return nil, nil, fmt.Errorf("attempt %s of task %s names job %s: %w", a.AttemptID, a.TaskID, a.JobID, ErrAttemptJobMissing)
		}
		if _, out := why[a.JobID]; !out && (incomplete || j.Status != trace.StatusIncomplete) && trace.AttemptSkewMs(j, a) > trace.MaxAttemptSkewMs {
			why[a.JobID] = fmt.Sprintf("attempt %s of job %s runs %d..%d ms, outside the job's lifetime %d..%d ms (by more than %d s of clock skew)",
				a.AttemptID, a.JobID, a.StartMs, a.FinishMs, j.SubmitMs, j.FinishMs, trace.MaxAttemptSkewMs/1000)
		}
		if a.Status == trace.StatusSucceeded {
			succ[retryKey(a.JobID, a.TaskID)] = span{a.StartMs, a.FinishMs}
		}
	}
	hasAttempts := map[string]bool{}
	taskAttempts := map[string]int{}
	for i := range tr.Attempts {
		hasAttempts[tr.Attempts[i].JobID] = true
		taskAttempts[retryKey(tr.Attempts[i].JobID, tr.Attempts[i].TaskID)]++
	}
	for i := range tr.Tasks {
		t := &tr.Tasks[i]
		if !t.Type.IsWork() || !hasAttempts[t.JobID] || jobs[t.JobID].Status != trace.StatusSucceeded {
			continue
		}
		if _, out := why[t.JobID]; out {
			continue
		}
		if _, ok := succ[retryKey(t.JobID, t.TaskID)]; !ok {
			if n := taskAttempts[retryKey(t.JobID, t.TaskID)]; n == 0 {
				why[t.JobID] = fmt.Sprintf("task %s of job %s, which succeeded, has no attempt (the job's other tasks have attempts)", t.TaskID, t.JobID)
			} else {
				why[t.JobID] = fmt.Sprintf("task %s of job %s, which succeeded, has attempts but no successful one", t.TaskID, t.JobID)
			}
		}
	}
	if len(why) > 0 {
		for i := range tr.Jobs {
			if r, out := why[tr.Jobs[i].ID]; out {
				left = append(left, LeftOutJob{JobID: tr.Jobs[i].ID, Reason: r})
			}
		}
	}
	retries = map[string]int64{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Status != trace.StatusFailed && a.Status != trace.StatusKilled || a.StartMs < 0 || a.FinishMs < a.StartMs {
			continue
		}
		if _, out := why[a.JobID]; out {
			continue
		}
		k := retryKey(a.JobID, a.TaskID)
		if s, ok := succ[k]; ok && s.start >= 0 && a.FinishMs <= s.start {
			retries[k] += (a.FinishMs-a.StartMs)*1000 + hw.retryGapUs(jobs[a.JobID])
		}
	}
	cleanupSpacing(tr, why, retries)
	return retries, left, nil
}

// cleanupSpacing gives the cleanup task that completed each job of tr not in
// why (left out) its recorded spacing in retries: when cleanup attempts of
// the job, of either cleanup task, failed or were killed before that task's
// successful attempt started, the task holds its slot from the first such
// attempt's start to the successful one's start, if that is longer than its
// own earlier attempts and gaps (traceRetries).
//
// Hadoop 1's JobInProgress has two cleanup TIPs, cleanup[0] for a map slot
// and cleanup[1] for a reduce slot; obtainJobCleanupTask hands out the one of
// the heartbeating tracker's free slot, a failed attempt returns its TIP to
// be handed out again at a later heartbeat (preferring another tracker), and
// the job is done when either TIP completes (completedTask: "cleanup task
// has finished. Kill the extra cleanup tip", then terminateJob or
// jobComplete; apache/hadoop branch-1). The job's cleanup is therefore the
// run of both TIPs' attempts up to the first success. Mumak's 19-job trace
// has it in its failed jobs: job_200904211745_0018's cleanup attempts fail
// on m_000500, r_000001, m_000500, r_000001 before m_000500 succeeds,
// 208.8–276.5 s after submit, 13–16 s between one attempt's end and the
// next one's start. The recorded spacing is kept, as for a task that fails
// its job (jobfail.go), because those waits are the JobTracker's
// reassignment through heartbeats, which a retry on the same slot does not
// model; lifeOf replays the task that completed (trace.Task.Status
// SUCCEEDED) as the job's cleanup.
func cleanupSpacing(tr *trace.Trace, why map[string]string, retries map[string]int64) {
	type done struct {
		task         string
		start, first int64
	}
	var jobs map[string]*done
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Type != trace.Cleanup || a.Status != trace.StatusSucceeded || a.StartMs < 0 {
			continue
		}
		if _, out := why[a.JobID]; out {
			continue
		}
		if jobs == nil {
			jobs = map[string]*done{}
		}
		if d := jobs[a.JobID]; d == nil || a.StartMs < d.start {
			jobs[a.JobID] = &done{task: a.TaskID, start: a.StartMs, first: -1}
		}
	}
	if jobs == nil {
		return
	}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		d := jobs[a.JobID]
		if d == nil || a.Type != trace.Cleanup || a.Status != trace.StatusFailed && a.Status != trace.StatusKilled ||
			a.StartMs < 0 || a.FinishMs < a.StartMs || a.FinishMs > d.start {
			continue
		}
		if d.first < 0 || a.StartMs < d.first {
			d.first = a.StartMs
		}
	}
	for id, d := range jobs {
		if d.first >= 0 {
			k := retryKey(id, d.task)
			retries[k] = max(retries[k], (d.start-d.first)*1000)
		}
	}
}
