package replay

import (
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/tracereplay/tracereplay/trace"
)

// Streamed attempts with the lifecycle. A trace whose attempts are streamed
// (trace.StreamOptions.Attempts) is read once, job by job, for what the
// lifecycle takes from its attempts: in trace mode (task_times = "trace")
// the retries, the tasks of jobs failed by a task and the observed
// speculative copies (traceRetries, traceFailures, traceSpeculation); in
// model mode the recorded failures (recordedFailures). Each of them keys its
// result by job and task and reads only the job's own tasks and attempts,
// so each is run on a trace of one job at a time, with its tasks and
// attempts, and the results merged: the maps hold an entry for each task
// with a failed, killed or speculative attempt, as for a held trace, while
// the pass holds one job's tasks and attempts, never the trace's.
//
// A workload built for the observed run only (WorkloadOptions.Observed)
// skips that pass, which reads every task and attempt whole: the observed
// run reads each job's tasks and attempts itself, and builds the job with
// a copy of the workload holding that job's entries (jobLifecycle). Only
// the jobs left out are found ahead (streamedLeftOut), since they set the
// jobs replayed and the origin of times before any run: as the trace was
// checked, when it was read for an observed cell (LeftOutSeen, which sees
// each job's attempts as the check reads them, with its tasks' key
// columns beside), else from the few columns traceRetries reads of the
// tasks and attempts.

// streamedAttempts sets w's lifecycle maps from its streamed trace, and the
// jobs it leaves out (Workload.leftOut), as a held trace's: the same jobs,
// in trace order, for the same reasons, and the same error.
func (w *Workload) streamedAttempts() error {
	tr, hw := w.Trace, w.hw
	c, err := tr.Stream.OpenAttempts()
	if err != nil {
		return fmt.Errorf("read trace: %w", err)
	}
	defer c.Close()
	useTrace := w.times.UsesTrace()
	specs := hw.Speculation == "none" && hw.Cluster != ClusterYARN
	if useTrace && tr.Stream.NumAttempts() > 0 {
		w.retries = map[string]int64{} // traceRetries' map of a trace with attempts
	}
	var one trace.Trace
	for {
		j, err := c.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read trace: %w", err)
		}
		as := c.Attempts()
		if len(as) == 0 {
			continue // nothing to retry, fail or copy
		}
		one.Jobs, one.Tasks, one.Attempts = append(one.Jobs[:0], *j), c.Tasks(), as
		if !useTrace {
			w.recFails = mergeInto(w.recFails, recordedFailures(&one, hw))
			continue
		}
		r, left, err := traceRetries(&one, hw, w.incomplete)
		if err != nil {
			w.retries, w.fails, w.specs, w.leftOut = nil, nil, nil, nil
			return err
		}
		if len(left) > 0 {
			w.leftOut = append(w.leftOut, left...) // its tasks have no entry
			continue
		}
		maps.Copy(w.retries, r)
		var f map[string]traceFail
		f, w.retries = traceFailures(&one, hw, w.retries)
		w.fails = mergeInto(w.fails, f)
		if specs {
			w.specs = mergeInto(w.specs, traceSpeculation(&one, hw))
		}
	}
	return nil
}

// streamedLeftOut sets the jobs w leaves out (Workload.leftOut) as
// streamedAttempts does, for a workload built for Observed
// (WorkloadOptions.Observed), which makes each job's lifecycle maps as the
// job is handed out (jobLifecycle). It reads only the columns of the tasks
// and attempts that traceRetries reads to leave a job out
// (trace.JobStream.OpenAttemptKeys). Model mode leaves no job out. When
// the pass fails, streamedAttempts is run for its error, so that the
// error is the one a workload built for any run gives. seen, if not nil,
// is the trace's jobs left out found as it was checked
// (WorkloadOptions.LeftOut), taken instead of the pass.
func (w *Workload) streamedLeftOut(seen *LeftOutSeen) error {
	if !w.times.UsesTrace() {
		return nil
	}
	if seen != nil {
		if left, ok := seen.jobs(w.incomplete); ok {
			w.leftOut = left // found as the trace was checked
			return nil
		}
	}
	err := w.leftOutKeys()
	if err == nil {
		return nil
	}
	w.leftOut = nil
	if werr := w.streamedAttempts(); werr != nil {
		err = werr
	}
	w.retries, w.fails, w.specs, w.recFails, w.leftOut = nil, nil, nil, nil, nil
	return err
}

// LeftOutSeen finds the jobs a workload built for the observed run leaves
// out (streamedLeftOut) as a streamed trace is checked: given to
// trace.OpenTaskStream (StreamOptions.JobAttempts: Visit), it sees each
// job with its tasks' keys and its attempts as the check reads them, and
// NewWorkload takes the jobs from it (WorkloadOptions.LeftOut) rather than
// read the tasks and attempts once more for them (leftOutKeys). The jobs
// left out depend on the trace and WorkloadOptions.IncludeIncomplete only,
// not on the hardware model: it keeps them for both settings of the
// latter. It holds the jobs left out, and one job's tasks and attempts
// while it looks at them.
type LeftOutSeen struct {
	left []LeftOutJob
	inc  []bool // left[i]'s job is incomplete: left out only with IncludeIncomplete
	err  error  // traceRetries' error on a job, or nil
	succ map[string]bool
	one  trace.Trace
}

// NewLeftOutSeen is a LeftOutSeen that has seen nothing.
func NewLeftOutSeen() *LeftOutSeen { return &LeftOutSeen{succ: map[string]bool{}} }

// Visit looks at job j, its tasks (their JobID, TaskID and Type are read)
// and its attempts, as streamedLeftOut's pass does, for either setting of
// IncludeIncomplete. It keeps none of them.
func (s *LeftOutSeen) Visit(j *trace.Job, tasks []trace.Task, attempts []trace.Attempt) {
	if s.err != nil || len(attempts) == 0 || !mayLeaveOut(j, tasks, attempts, true, s.succ) {
		return // nothing to leave out for
	}
	// With IncludeIncomplete a job is left out for what leaves it out
	// without, and an incomplete job for an attempt outside its lifetime
	// too; without, no incomplete job is (traceRetries).
	s.one.Jobs, s.one.Tasks, s.one.Attempts = append(s.one.Jobs[:0], *j), tasks, attempts
	_, left, err := traceRetries(&s.one, &Hardware{}, true) // the hardware sets only the retries, not kept
	s.one.Tasks, s.one.Attempts = nil, nil
	if err != nil {
		s.err = err
		return
	}
	for _, l := range left {
		s.left = append(s.left, l)
		s.inc = append(s.inc, j.Status == trace.StatusIncomplete)
	}
}

// jobs is the jobs left out under IncludeIncomplete = incomplete, in trace
// order; ok is false when a job's attempts gave traceRetries an error
// (which streamedLeftOut's own pass reports).
func (s *LeftOutSeen) jobs(incomplete bool) (left []LeftOutJob, ok bool) {
	if s.err != nil {
		return nil, false
	}
	for i, l := range s.left {
		if incomplete || !s.inc[i] {
			left = append(left, l)
		}
	}
	return left, true
}

// leftOutKeys is streamedLeftOut's pass.
func (w *Workload) leftOutKeys() error {
	c, err := w.Trace.Stream.OpenAttemptKeys()
	if err != nil {
		return fmt.Errorf("read trace: %w", err)
	}
	defer c.Close()
	var one trace.Trace
	succ := map[string]bool{} // the job's tasks with a successful attempt
	for {
		j, err := c.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read trace: %w", err)
		}
		as := c.Attempts()
		if len(as) == 0 || !mayLeaveOut(j, c.Tasks(), as, w.incomplete, succ) {
			continue // nothing to leave out for
		}
		one.Jobs, one.Tasks, one.Attempts = append(one.Jobs[:0], *j), c.Tasks(), as
		_, left, err := traceRetries(&one, w.hw, w.incomplete)
		if err != nil {
			return err
		}
		w.leftOut = append(w.leftOut, left...)
	}
}

// mayLeaveOut reports whether traceRetries may leave out job j, with its
// tasks and its attempts as (one or more): false when none of its reasons
// holds, neither an attempt outside the job's lifetime (when the job would
// be replayed) nor, for a job that succeeded, a map or reduce without a
// successful attempt. succ is the caller's scratch.
func mayLeaveOut(j *trace.Job, tasks []trace.Task, as []trace.Attempt, incomplete bool, succ map[string]bool) bool {
	clear(succ)
	for i := range as {
		a := &as[i]
		if (incomplete || j.Status != trace.StatusIncomplete) && trace.AttemptSkewMs(j, a) > trace.MaxAttemptSkewMs {
			return true
		}
		if a.Status == trace.StatusSucceeded {
			succ[a.TaskID] = true
		}
	}
	if j.Status != trace.StatusSucceeded {
		return false
	}
	for i := range tasks {
		if tasks[i].Type.IsWork() && !succ[tasks[i].TaskID] {
			return true
		}
	}
	return false
}

// jobLifecycle is, for a workload whose lifecycle maps are made job by job
// (Workload.perJob), a copy of w holding those of replayed job r, from
// its tasks and attempts (a cursor's that hands them out:
// jobCursor.attempts): for r's tasks, the entries streamedAttempts makes,
// which depend on r's own tasks and attempts only. Otherwise it is w.
func (w *Workload) jobLifecycle(r replayedJob) (*Workload, error) {
	if !w.perJob {
		return w, nil
	}
	jw := *w
	jw.perJob = false
	if len(r.attempts) == 0 {
		return &jw, nil // nothing to retry, fail or copy
	}
	hw := w.hw
	one := trace.Trace{Jobs: []trace.Job{*r.tj}, Tasks: r.tasks, Attempts: r.attempts}
	if !w.times.UsesTrace() {
		jw.recFails = recordedFailures(&one, hw)
		return &jw, nil
	}
	retries, left, err := traceRetries(&one, hw, w.incomplete)
	if err != nil {
		return nil, err
	}
	if len(left) > 0 {
		// Its attempts were read once before (streamedLeftOut), which did
		// not leave the job out.
		return nil, fmt.Errorf("read trace: job %s: %s: the trace changed since its workload was built", r.tj.ID, left[0].Reason)
	}
	jw.fails, jw.retries = traceFailures(&one, hw, retries)
	if hw.Speculation == "none" && hw.Cluster != ClusterYARN {
		jw.specs = traceSpeculation(&one, hw)
	}
	return &jw, nil
}

// mergeInto adds src's entries to dst, made when src has any; nil stays
// nil when src has none.
func mergeInto[V any](dst, src map[string]V) map[string]V {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]V, len(src))
	}
	maps.Copy(dst, src)
	return dst
}
