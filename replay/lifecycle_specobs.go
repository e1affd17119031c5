package replay

import (
	"cmp"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// Observed speculative attempts in trace mode (lifecycle on, trace times,
// speculation = "none"; under a network model that re-times transfers too:
// a copy of a map whose stages are flows runs its observed time on a timer
// and the loser's flows are withdrawn, lifecycle_flowspec.go).
//
// A map whose successful attempt overlapped another attempt of the same task
// ran two attempts at once: a speculative copy (Hadoop 1's
// JobInProgress.findNewMapTask hands one out for a slow task) and the
// original; the one that finished first completed the task and the other was
// killed. The replay runs both, each for its observed duration (plus
// task_startup): the earlier-started attempt is the map as the policy
// launches it; the later-started one is asked for once the map has run for
// the observed gap between their starts, and is launched at the next
// heartbeat of a node other than the map's with a free map slot (after the
// policy, as the engine's own speculation does: lifecycle_faults.go). The
// first to finish completes the map; the other is killed at its node's next
// heartbeat and its slot freed when its kill and clean-up are reported
// (lifecycle_kill.go). The killed attempt's observed duration ends at its kill, so in the
// replay it finishes about when the winner would: which one wins depends on
// the replay's timing, as it did on the cluster's. The copy keeps the
// original's locality and output node; only the first overlapping attempt
// of a map is replayed, and speculative reduces are not (the engine copies
// maps only).

// obsCopy is a map's observed speculative attempt.
type obsCopy struct {
	delayUs int64 // from the map's launch to the copy's request
	copyUs  int64 // the copy's duration, start-up included
	origUs  int64 // the original's observed duration when it is not the successful attempt (µs, without start-up), else -1
}

// obsDue is a copy asked for: map i of job j, from when.
type obsDue struct {
	j    *Job
	i    int32
	atUs int64
}

// traceSpeculation returns, per map (retryKey) whose successful attempt
// overlapped another attempt of its task, the replay's copy; nil when none
// did.
func traceSpeculation(tr *trace.Trace, hw *Hardware) map[string]obsCopy {
	if len(tr.Attempts) == 0 {
		return nil
	}
	byTask := map[string][]*trace.Attempt{}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Type == trace.Map && a.StartMs >= 0 && a.FinishMs >= a.StartMs {
			k := retryKey(a.JobID, a.TaskID)
			byTask[k] = append(byTask[k], a)
		}
	}
	var out map[string]obsCopy
	for k, as := range byTask {
		var succ *trace.Attempt
		for _, a := range as {
			if a.Status == trace.StatusSucceeded {
				succ = a
			}
		}
		if succ == nil {
			continue
		}
		var other *trace.Attempt
		for _, a := range as {
			if a != succ && a.StartMs < succ.FinishMs && a.FinishMs > succ.StartMs &&
				(other == nil || a.StartMs < other.StartMs || a.StartMs == other.StartMs && a.AttemptID < other.AttemptID) {
				other = a
			}
		}
		if other == nil {
			continue
		}
		if out == nil {
			out = map[string]obsCopy{}
		}
		su := int64(hw.TaskStartup)
		c := obsCopy{origUs: -1}
		if other.StartMs >= succ.StartMs { // the successful attempt is the original
			c.delayUs = (other.StartMs - succ.StartMs) * 1000
			c.copyUs = (other.FinishMs-other.StartMs)*1000 + su
		} else { // the copy succeeded, the original was killed
			c.delayUs = (succ.StartMs - other.StartMs) * 1000
			c.copyUs = (succ.FinishMs-succ.StartMs)*1000 + su
			c.origUs = (other.FinishMs - other.StartMs) * 1000
		}
		out[k] = c
	}
	return out
}

// obsCopyOf is map tt of job tj's observed copy, if it replays one.
func (w *Workload) obsCopyOf(tj *trace.Job, tt *trace.Task) (obsCopy, bool) {
	if w.specs == nil {
		return obsCopy{}, false
	}
	c, ok := w.specs[retryKey(tj.ID, tt.TaskID)]
	return c, ok
}

// specOrigUs is the observed duration (µs) the original attempt of map tt of
// job tj runs in place of its task's, or -1 when it is the task's own.
func (w *Workload) specOrigUs(tj *trace.Job, tt *trace.Task) int64 {
	if c, ok := w.obsCopyOf(tj, tt); ok {
		return c.origUs
	}
	return -1
}

// setObsCopies gives job j its maps' observed copies (mapTT: its maps' trace
// tasks, in index order).
func (w *Workload) setObsCopies(j *Job, mapTT []*trace.Task) {
	if w.specs == nil {
		return
	}
	for i, tt := range mapTT {
		if c, ok := w.obsCopyOf(j.Trace, tt); ok {
			if j.life.copies == nil {
				j.life.copies = map[int32]obsCopy{}
			}
			j.life.copies[int32(i)] = c
		}
	}
}

// specOn reports whether speculative copies may run: the speculation key,
// or observed copies in trace mode.
func (s *Sim) specOn() bool { return s.hw.Speculation != "none" || s.w.specs != nil }

// obsMapLaunched asks for map i of job j's observed copy, if it has one,
// once it has run for the observed gap.
func (s *Sim) obsMapLaunched(j *Job, i int32) {
	c, ok := j.life.copies[i]
	if !ok {
		return
	}
	d := obsDue{j, i, s.now + c.delayUs}
	q := s.lc.obsDue
	x, _ := slices.BinarySearchFunc(q, d, func(a, b obsDue) int {
		return cmp.Or(cmp.Compare(a.atUs, b.atUs), cmp.Compare(a.j.Index, b.j.Index), cmp.Compare(a.i, b.i))
	})
	s.lc.obsDue = slices.Insert(q, x, d)
}

// obsSpeculate gives node n, with a free map slot after its heartbeat, the
// first copy asked for by now whose map still runs on another node.
func (s *Sim) obsSpeculate(n int32) {
	if s.nodes[n].freeMap <= 0 {
		return
	}
	q := s.lc.obsDue
	for x := 0; x < len(q) && q[x].atUs <= s.now; x++ {
		d := q[x]
		m := &d.j.Maps[d.i]
		if m.State != Running || m.specNode >= 0 || d.j.finished {
			s.lc.obsDue = slices.Delete(q, x, x+1) // done, or its job failed: nothing to copy
			q = s.lc.obsDue
			x--
			continue
		}
		if m.Node == n {
			continue // never beside the original
		}
		s.lc.obsDue = slices.Delete(q, x, x+1)
		if s.flowCopies(d.j, d.i) {
			s.launchFlowCopy(d.j, d.i, n, d.j.life.copies[d.i].copyUs) // lifecycle_flowspec.go
			return
		}
		s.launchCopy(d.j, d.i, n, d.j.life.copies[d.i].copyUs)
		return
	}
}

// idealMapUs is the duration of map tt of job tj that its job's ideal (a
// lower bound) counts: localUs, or its observed copy's when that is shorter
// (the copy succeeded and its original was killed).
func (w *Workload) idealMapUs(tj *trace.Job, tt *trace.Task, localUs int64) int64 {
	if c, ok := w.obsCopyOf(tj, tt); ok && c.origUs >= 0 {
		return min(localUs, c.copyUs)
	}
	return localUs
}
