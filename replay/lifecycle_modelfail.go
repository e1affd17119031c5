package replay

import (
	"math"
	"math/rand/v2"

	"github.com/tracereplay/tracereplay/trace"
)

// Recorded failures in model mode (task_times = "model", lifecycle on).
//
// That an attempt fails, how many times a task fails and whether its job
// fails are properties of the workload (an application error, a bad input
// record), not of the schedule or the hardware: the same attempt fails under
// any policy on any cluster. Model mode keeps them. A map or reduce with k
// recorded failed attempts runs k attempts that fail, one after another on
// its slot as in trace mode (lifecycle_attempts.go), and then, when the task
// succeeded in the trace, the modelled attempt that succeeds. A task trace
// mode fails (a job the trace records as FAILED whose failed tasks fail it
// by the job's rule, jobfail.go) runs its k failed attempts and fails, and
// its job with it, as in trace mode. Killed attempts are not kept: they are
// the schedule's (speculation, preemption, the job's failure), not the
// workload's. Failed attempts that ended after the task's successful one
// started ran beside it and are not kept, as in trace mode.
//
// How long a failed attempt holds its slot: the gap before the attempt
// (Hardware.retryGapUs, task_startup or a YARN job's retry_container_delay,
// as in trace mode) plus
//
//   - when the task has a successful attempt of positive observed duration:
//     the model's duration of the task less task_startup, times the failed
//     attempt's observed duration over the successful attempt's. Where in its
//     work an attempt fails (the record it reaches) is the workload's; how
//     long that work takes is the hardware's, which the model gives. So the
//     failed attempt keeps its observed fraction of the task's work and takes
//     the model's time for it.
//   - otherwise (a task that never succeeded, such as the one that fails its
//     job): the failed attempt's observed duration itself. There is no
//     successful attempt whose work the failure could be a fraction of, and
//     the model's full duration would assume every attempt fails at its end;
//     the observed time is the only measure of how far it got. This is the
//     one observed time model mode reads, and it is the hardware's it was
//     recorded on.
//
// attempt_failure_rate's drawn failures (lifecycle_faults.go) come on top of
// the recorded ones for a task that does not fail by its record; a task
// that does fails after its recorded attempts alone (the draws are made all
// the same, so the other tasks' draws stay as they were).

// recordedFail is a map's or reduce's recorded failed attempts, for model
// mode.
type recordedFail struct {
	failedMs []int64 // observed durations of its failed attempts, in trace order
	succMs   int64   // its successful attempt's observed duration, -1 none
	fate     taskFate
}

// recordedFailures returns, per task (retryKey) of tr with a failed attempt
// or failed by its job's rule, its recorded failures; nil when there are
// none. Attempts whose job is not in tr and attempts without a start or
// finish are skipped (model mode does not check the attempts as trace mode
// does).
func recordedFailures(tr *trace.Trace, hw *Hardware) map[string]recordedFail {
	if len(tr.Attempts) == 0 {
		return nil
	}
	type span struct{ start, dur int64 }
	succ := map[string]span{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Status == trace.StatusSucceeded && a.Type.IsWork() && a.StartMs >= 0 && a.FinishMs >= a.StartMs {
			succ[retryKey(a.JobID, a.TaskID)] = span{a.StartMs, a.FinishMs - a.StartMs}
		}
	}
	var out map[string]recordedFail
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Status != trace.StatusFailed || !a.Type.IsWork() || a.StartMs < 0 || a.FinishMs < a.StartMs {
			continue
		}
		k := retryKey(a.JobID, a.TaskID)
		s, ok := succ[k]
		if ok && a.FinishMs > s.start {
			continue // it ran beside the successful attempt
		}
		if out == nil {
			out = map[string]recordedFail{}
		}
		r, seen := out[k]
		if !seen {
			r.succMs = -1
			if ok {
				r.succMs = s.dur
			}
		}
		r.failedMs = append(r.failedMs, a.FinishMs-a.StartMs)
		out[k] = r
	}
	fails, _ := traceFailures(tr, hw, nil)
	for k, f := range fails {
		if f.fate != fateFail {
			continue
		}
		if out == nil {
			out = map[string]recordedFail{}
		}
		r, seen := out[k]
		if !seen {
			r.succMs = -1
		}
		r.fate = fateFail
		out[k] = r
	}
	return out
}

// attemptUs is the slot time of r's failed attempt of observed duration ms
// (gap included) for a task of job tj whose modelled duration is modelUs
// (task_startup included).
func (r *recordedFail) attemptUs(hw *Hardware, tj *trace.Job, modelUs, ms int64) int64 {
	gap := hw.retryGapUs(tj)
	if r.succMs > 0 {
		work := float64(max(modelUs-int64(hw.TaskStartup), 0))
		return gap + int64(math.Round(work*float64(ms)/float64(r.succMs)))
	}
	return gap + ms*1000
}

// recordedFaults returns fd with the recorded failures of task tt of job tj
// (modelled duration modelUs) added, the slot time of its last failed
// attempt when that attempt fails the task (else 0), and whether it has any
// recorded failure. Under network = "flow" a map's time is its stages', not
// its retries plus its modelled duration, so a map that fails by its record
// runs as a trace-timed map (jobDisk.setTimed) for its last failed attempt's
// time, after its earlier failed attempts (a timed map reads its input as a
// flow only when it is not node-local, as trace mode's maps do). Without
// it, a failing map whose recorded attempts are shorter than its modelled
// duration would run the whole modelled map (the negative difference is
// clamped to 0 before its start-up).
func (w *Workload) recordedFaults(tj *trace.Job, tt *trace.Task, fd taskFaults, modelUs int64) (taskFaults, int64, bool) {
	if w.recFails == nil || tt == nil {
		return fd, 0, false
	}
	r, ok := w.recFails[retryKey(tj.ID, tt.TaskID)]
	if !ok {
		return fd, 0, false
	}
	var us, lastUs int64
	for x, ms := range r.failedMs {
		lastUs = r.attemptUs(w.hw, tj, modelUs, ms)
		if x == 0 && r.fate == fateFail && w.yarnContainers() {
			// Each failed attempt holds the gap before it, which stands for
			// the gap before the next attempt (a task that succeeds after
			// k failures waits k gaps). A task that fails its job has one
			// gap fewer than attempts; under the YARN container model the
			// round trip of its first container is the AM's allocate calls
			// (yarn_startup.go), so its first attempt holds no gap.
			lastUs -= w.hw.retryGapUs(tj)
		}
		us += lastUs
	}
	if r.fate != fateFail {
		fd.failedUs += us
		return fd, 0, true
	}
	fd.failedUs, fd.failed = us, true
	return fd, lastUs, true
}

// drawnFaults is drawFaults for a task of duration d and maxA attempts when
// rng is set (failures or stragglers modelled), else no faults.
func (w *Workload) drawnFaults(rng *rand.Rand, d int64, maxA int32) taskFaults {
	if rng == nil {
		return taskFaults{factor: 1, stretchedUs: d}
	}
	return w.hw.drawFaults(rng, d, maxA, true)
}
