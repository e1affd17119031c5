package trace

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// TaskTracker clocks. In a Hadoop 1 history (a JobTracker's log, or a Rumen
// trace of one) the job and task records carry the JobTracker's clock and the
// attempt records each TaskTracker's (TaskStatus.getStartTime,
// getFinishTime): an attempt's duration is right, its place against its job's
// submit is off by its host's clock offset. Mumak's 19-jobs.trace.json.gz has
// hosts whose attempts start a constant 428 s before their tasks, or 127 s
// after (docs/validation.md). correctTrackerClocks estimates each host's
// offset from its tasks and moves the host's attempts onto the JobTracker's
// clock. A .jhist needs none of this: the ApplicationMaster stamps job, task
// and attempt times alike.

// Thresholds of correctTrackerClocks. A host's offset is its median attempt
// start − task start over the first attempts (numbered 0, whatever their
// outcome) of maps and reduces it ran, less the trace's median (the launch
// lag every host has). Within a host of
// Mumak's trace those differences spread a median 0.7 s (p90 3.1 s), and the
// launch lag itself is about 1 s; an offset beyond minTrackerOffsetMs is a
// clock, not a slow launch, when both ends of the host's attempts show it
// (below). A host needs minTrackerTasks such attempts for its median, or
// every one of them must start more than minTrackerOffsetMs before its task,
// which no launch can do.
const (
	minTrackerOffsetMs = 5000
	minTrackerTasks    = 3
)

// taskClock is what a Hadoop 1 history's task record says on the
// JobTracker's clock, kept beside the task's trace form so that
// correctTrackerClocks can redo the lags: the task's start (its first
// attempt's assignment) and finish (when the JobTracker learned of it), and
// the id of the attempt whose observation the task keeps.
type taskClock struct {
	start, finish int64
	chosen        string
}

// taskClocks returns the JobTracker times of the job's tasks by task id, for
// a history whose task start is the JobTracker's assignment (assignStarts);
// nil otherwise.
func (j *jobAcc) taskClocks() map[string]taskClock {
	if !j.assignStarts {
		return nil
	}
	m := make(map[string]taskClock, len(j.order))
	for _, t := range j.order {
		c := taskClock{start: t.start, finish: t.finish}
		if a := t.chosenAttempt(); a != nil {
			c.chosen = a.id
		}
		m[t.id] = c
	}
	return m
}

// OptTrackerClocks is the Meta.Options key that counts the TaskTracker
// hosts whose attempts the ingest moved onto the JobTracker's clock
// (HistoryOptions.KeepTrackerClocks); absent when none was.
const OptTrackerClocks = "tracker_clocks_corrected"

// trackerOffset is one host's estimated clock offset: its attempts' times
// less offsetMs are on the JobTracker's clock.
type trackerOffset struct {
	host     string
	offsetMs int64
	tasks    int // the first attempts it was estimated from
}

// correctTrackerClocks estimates each TaskTracker host's clock offset from
// the tasks of the jobs that keep JobTracker times (jobOut.clocks) and, for
// the hosts clearly off, shifts their attempts' times (and those of the
// tasks that keep such an attempt) onto the JobTracker's clock, redoing the
// tasks' launch and report lags and speculative marks. Durations do not
// change. It returns the corrected hosts, by host name; nothing changes
// when there are none.
//
// Offset of host h: m_h − L, m_h the median of attempt start − task start
// over the first attempts (numbered 0: the task's start is their assignment)
// of the maps and reduces h ran, whatever their outcome, L the same median
// over every host's. A clock moves both ends of an attempt, a slow launch
// only its start, so a host is corrected when it has at least
// minTrackerTasks such attempts, |m_h − L| > minTrackerOffsetMs and the
// finish side agrees: R − r_h (r_h the host's median task finish − attempt
// finish over the successful attempts its tasks keep, R the trace's) has the
// same sign and at least half the size; or when every one of its first
// attempts starts more than minTrackerOffsetMs before its task, which only a
// clock can do (Mumak's node1496 ran 10 first attempts, all failed, each
// starting 113.5–114.0 s before its task).
func correctTrackerClocks(outs []jobOut) []trackerOffset {
	type sample struct{ start, finish []int64 }
	hosts := map[string]*sample{}
	var allStart, allFinish []int64
	seen := map[string]bool{} // task ids: a job read twice (copied histories) counts once
	for i := range outs {
		o := &outs[i]
		if o.clocks == nil {
			continue
		}
		eachTaskAttempts(o, func(t *Task, as []Attempt) {
			c, ok := o.clocks[t.TaskID]
			if !t.Type.IsWork() || !ok || c.start <= 0 || seen[t.TaskID] {
				return
			}
			seen[t.TaskID] = true
			host := func(h string) *sample {
				s := hosts[h]
				if s == nil {
					s = &sample{}
					hosts[h] = s
				}
				return s
			}
			for k := range as {
				a := &as[k]
				if a.Host == "" || a.StartMs < 0 {
					continue
				}
				if firstAttempt(a.AttemptID) {
					d := a.StartMs - c.start
					s := host(a.Host)
					s.start = append(s.start, d)
					allStart = append(allStart, d)
				}
				if a.AttemptID == c.chosen && a.Status == StatusSucceeded && c.finish > 0 && a.FinishMs >= 0 {
					f := c.finish - a.FinishMs
					s := host(a.Host)
					s.finish = append(s.finish, f)
					allFinish = append(allFinish, f)
				}
			}
		})
	}
	if len(allStart) == 0 {
		return nil
	}
	lag, report := medianMs(allStart), medianMs(allFinish)
	var fixed []trackerOffset
	for h, s := range hosts {
		if len(s.start) == 0 {
			continue
		}
		off := medianMs(s.start) - lag
		ok := slices.Max(s.start) < -minTrackerOffsetMs
		if !ok && len(s.start) >= minTrackerTasks && (off > minTrackerOffsetMs || off < -minTrackerOffsetMs) && len(s.finish) > 0 {
			fin := report - medianMs(s.finish)
			ok = (fin > 0) == (off > 0) && 2*abs64(fin) >= abs64(off)
		}
		if ok {
			fixed = append(fixed, trackerOffset{host: h, offsetMs: off, tasks: len(s.start)})
		}
	}
	if len(fixed) == 0 {
		return nil
	}
	slices.SortFunc(fixed, func(a, b trackerOffset) int { return cmp.Compare(a.host, b.host) })
	by := make(map[string]int64, len(fixed))
	for _, f := range fixed {
		by[f.host] = f.offsetMs
	}
	for i := range outs {
		o := &outs[i]
		if o.clocks == nil {
			continue
		}
		eachTaskAttempts(o, func(t *Task, as []Attempt) {
			moved := false
			for k := range as {
				if off, ok := by[as[k].Host]; ok {
					a := &as[k]
					a.StartMs, a.FinishMs = shiftMs(a.StartMs, off), shiftMs(a.FinishMs, off)
					a.ShuffleFinishMs, a.SortFinishMs = shiftMs(a.ShuffleFinishMs, off), shiftMs(a.SortFinishMs, off)
					moved = true
				}
			}
			if !moved {
				return
			}
			for k := range as {
				as[k].Speculative = false
			}
			markSpeculative(as)
			c, ok := o.clocks[t.TaskID]
			if !ok || c.chosen == "" {
				return
			}
			var a *Attempt
			for k := range as {
				if as[k].AttemptID == c.chosen {
					a = &as[k]
				}
			}
			if a == nil {
				return
			}
			t.StartMs, t.FinishMs = a.StartMs, a.FinishMs
			if t.Type == Reduce {
				t.ShuffleFinishMs, t.SortFinishMs = a.ShuffleFinishMs, a.SortFinishMs
			}
			launch, report := clockLags(c.start, c.finish, a.StartMs, a.FinishMs)
			for k := range as {
				if x := &as[k]; x != a && startsBefore(x.StartMs, x.AttemptID, a.StartMs, a.AttemptID) {
					launch = Unknown
				}
			}
			t.LaunchLagMs, t.ReportLagMs = launch, report
		})
	}
	return fixed
}

// eachTaskAttempts calls fn with each task of o and its attempts (a
// subslice of o.attempts: appendAttempts keeps a task's attempts together).
func eachTaskAttempts(o *jobOut, fn func(t *Task, as []Attempt)) {
	at := make(map[string][2]int, len(o.tasks))
	for k := 0; k < len(o.attempts); {
		e := k + 1
		for e < len(o.attempts) && o.attempts[e].TaskID == o.attempts[k].TaskID {
			e++
		}
		if _, seen := at[o.attempts[k].TaskID]; !seen {
			at[o.attempts[k].TaskID] = [2]int{k, e}
		}
		k = e
	}
	for i := range o.tasks {
		t := &o.tasks[i]
		r, ok := at[t.TaskID]
		if !ok {
			fn(t, nil)
			continue
		}
		fn(t, o.attempts[r[0]:r[1]])
	}
}

// firstAttempt reports whether an attempt id is its task's first, numbered
// 0 (attempt_<job>_<type>_<task>_0): the attempt whose assignment the
// JobTracker logs as the task's start.
func firstAttempt(id string) bool {
	i := strings.LastIndexByte(id, '_')
	return i >= 0 && id[i+1:] == "0"
}

// shiftMs moves a known time by off; Unknown stays Unknown, and a time the
// shift would make negative becomes 0.
func shiftMs(v, off int64) int64 {
	if v < 0 {
		return v
	}
	return max(v-off, 0)
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// medianMs returns the median of xs (the mean of the middle two, rounded
// down, for an even count), 0 for none. It sorts xs.
func medianMs(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return xs[n/2-1] + (xs[n/2]-xs[n/2-1])/2
}

// trackerClockDiag describes the corrected hosts for the warnings and the
// trace's metadata.
func trackerClockDiag(fixed []trackerOffset) (msg, meta string) {
	names := make([]string, len(fixed))
	for i, f := range fixed {
		unit := "tasks"
		if f.tasks == 1 {
			unit = "task"
		}
		names[i] = fmt.Sprintf("%s %+.1f s (%d %s)", f.host, float64(f.offsetMs)/1000, f.tasks, unit)
	}
	msg = fmt.Sprintf("%d TaskTracker hosts' clocks are more than %d s off the JobTracker's (attempt starts against their tasks'); "+
		"their attempts are moved onto the JobTracker's clock, durations kept: %s; --keep-tracker-clocks keeps them as recorded",
		len(fixed), minTrackerOffsetMs/1000, listSome(names, 5))
	return msg, strconv.Itoa(len(fixed))
}
