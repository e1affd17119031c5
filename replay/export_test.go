package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/trace"
)

// SetRowGroup bounds the row groups of w's streamed files to n rows, so that a
// test sees memory bounded on a run far smaller than a production row group.
func SetRowGroup(w *RunWriter, n int) {
	w.tasks.rowGroup, w.timeline.rowGroup, w.nodeNet.rowGroup, w.jobs.rowGroup, w.links.rowGroup, w.queues.rowGroup = n, n, n, n, n, n
}

// SetBoundChunk has the observed schedule of w bound its task rows' finish
// by chunks of n trace jobs (finishBounds) instead of boundChunk.
func SetBoundChunk(w *Workload, n int) { w.boundChunk = n }

// FinishBounds is w.finishBounds: the earliest finish of the maps and
// reduces of the trace jobs from each chunk on.
func FinishBounds(w *Workload) ([]int64, error) { return w.finishBounds() }

// EventStats is eventStats for tests and benchmarks.
type EventStats = eventStats

// CountEvents makes a run with o count its events by kind into the returned
// EventStats.
func CountEvents(o *Options) *EventStats {
	o.stats = &eventStats{}
	return o.stats
}

// ParkLogCap makes a run with o keep its parking log within n entries
// (park.go's capLog) instead of parkLogCap.
func ParkLogCap(o *Options, n int) { o.parkLogCap = n }

// QueueAllHeartbeats makes a run with o queue every heartbeat with the other
// events and handle each, cancelling none (heartbeats.go).
func QueueAllHeartbeats(o *Options) { o.queueAll = true }

// FlowEnd makes a run with o report, after its last event, the transfers its
// flow network withdrew before their end (killed and failed attempts'),
// whether a transfer was left under way or pending (or listed under its
// attempt: network_cancel.go), and the events left queued.
func FlowEnd(o *Options, f func(cancels int64, flowsLeft bool, queued int)) {
	o.atEnd = func(s *Sim) {
		listed := slices.ContainsFunc(s.jobs, func(j *Job) bool {
			return j != nil && j.out.disk != nil && slices.ContainsFunc(j.out.disk.xhead, func(h int32) bool { return h != 0 })
		})
		f(s.flowCancels, s.fn != nil && (s.fn.Active() || listed), len(s.q))
	}
}

// MaxJobsWaiting is the most finished jobs w held at once, waiting for an
// earlier job to finish before their rows could be written.
func MaxJobsWaiting(w *RunWriter) int { return w.maxWait }

// SourceMixChecks makes a run with o, which must check its invariants,
// report after its last event how many batch rounds' sources the checker
// compared with a walk of the outputs waiting (checker.sourceMix), and how
// many reduces' outputs queued from their job's tally it compared with
// queueing them one by one (checkTallied).
func SourceMixChecks(o *Options, f func(rounds, tallies int)) {
	o.atEnd = func(s *Sim) { f(s.chk.mixes, s.chk.tallies) }
}

// QuietSkipChecks makes a run with o, which must check its invariants,
// report after its last event how many times a map's end skipped a quiet
// reduce and the checker compared it with the reduce's state (checkQuiet).
func QuietSkipChecks(o *Options, f func(skips int)) {
	prev := o.atEnd
	o.atEnd = func(s *Sim) {
		if prev != nil {
			prev(s)
		}
		f(s.chk.quietSkips)
	}
}

// TraceHardwareChunk is TraceHardware with its peaks' sweep draining its
// edges after every chunk attempts instead of useChunk.
func TraceHardwareChunk(tr *trace.Trace, base Hardware, chunk int) (Hardware, bool, error) {
	return traceHardware(tr, base, chunk)
}

// SlotWaitsAndSorted returns slotWaits' sweep of tr's launch lags on topo,
// draining its heap after every chunk queries or attempts, and the sort of
// every point that it replaced (sortedSlotWaits) of ref, the same trace.
func SlotWaitsAndSorted(tr, ref *trace.Trace, topo *Topology, chunk int) (swept, sorted map[string]int64, err error) {
	if swept, _, err = sweepSlotWaits(tr, topo, chunk); err != nil {
		return nil, nil, err
	}
	sorted, err = sortedSlotWaits(ref, topo)
	return swept, sorted, err
}

// LifecycleMaps is w's lifecycle maps by name (retries, fails, specs,
// recFails), each entry's value printed; a map with no entry is left out.
func LifecycleMaps(w *Workload) map[string]map[string]string {
	out := map[string]map[string]string{}
	add := func(name string, m map[string]string) {
		if len(m) > 0 {
			out[name] = m
		}
	}
	add("retries", printed(w.retries))
	add("fails", printed(w.fails))
	add("specs", printed(w.specs))
	add("recFails", printed(w.recFails))
	return out
}

func printed[V any](m map[string]V) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = fmt.Sprintf("%+v", v)
	}
	return out
}

// ObservedLifecycleMaps is LifecycleMaps of the workloads that the observed
// run builds each job with (jobLifecycle), for every job w's cursor hands
// out with its attempts, merged; an entry of another job than its own, or
// one met twice, is an error.
func ObservedLifecycleMaps(w *Workload) (map[string]map[string]string, error) {
	c := w.cursor()
	c.attempts = true
	defer c.close()
	out := map[string]map[string]string{}
	for {
		r, ok, err := c.next()
		if err != nil || !ok {
			return out, err
		}
		jw, err := w.jobLifecycle(r)
		if err != nil {
			return nil, err
		}
		for name, m := range LifecycleMaps(jw) {
			if out[name] == nil {
				out[name] = map[string]string{}
			}
			for k, v := range m {
				if _, dup := out[name][k]; dup || !strings.HasPrefix(k, r.tj.ID+"\x00") {
					return nil, fmt.Errorf("job %s: %s entry %q: another job's, or met twice", r.tj.ID, name, k)
				}
				out[name][k] = v
			}
		}
	}
}
