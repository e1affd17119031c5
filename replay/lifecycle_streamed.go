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
