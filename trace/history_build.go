package trace

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// jobOut is one finished job with its tasks, and where it came from (for a
// deterministic order among jobs with equal submit time and id).
type jobOut struct {
	job      Job
	tasks    []Task
	attempts []Attempt
	file     int   // index of the source file in the caller's (sorted) file list
	serial   int64 // position of the job within its file
	conf     Conf  // companion configuration, applied by assemble
	src      string
	pos      jobPos // where in src the job's first record is
	// clocks are the JobTracker times of the tasks of a Hadoop 1 history, by
	// task id (jobAcc.taskClocks), for correctTrackerClocks; nil for others.
	clocks map[string]taskClock
}

// jobPos is where a job's first record is in its file, for the diagnostics
// about the job as a whole: a line (line-based formats) or a byte offset, and
// the record number; zero line and record, and offset -1, when not known.
type jobPos struct{ line, record, offset int64 }

// noPos is an unknown position.
var noPos = jobPos{offset: -1}

// diagAt returns a diagnostic at the job's place.
func (o *jobOut) diagAt(msg string) Diagnostic {
	return Diagnostic{File: o.src, Line: o.pos.line, Record: o.pos.record, Offset: o.pos.offset, Msg: msg}
}

// finish turns an accumulated job into its trace form: the job, its tasks (maps,
// reduces, and the setup and cleanup tasks the history records) and every
// attempt of those tasks. Task records win over the job's summary counts of
// maps and reduces, and every disagreement is noted.
func (j *jobAcc) finish(diag *diagSink) (Job, []Task, []Attempt) {
	return j.finishAt(diag, noPos)
}

// finishAt is finish for a job whose first record is at pos: its diagnostics
// carry that place.
func (j *jobAcc) finishAt(diag *diagSink, pos jobPos) (Job, []Task, []Attempt) {
	job := j.job
	if j.ended {
		job.Status = normStatus(j.endStatusRaw)
		if job.Status == "" {
			job.Status = StatusFailed
		}
	} else {
		job.Status = StatusIncomplete
		job.FinishMs = Unknown
		diag.note(pos.line, pos.record, pos.offset, "job %s: history has no job-end record; kept as %s", job.ID, StatusIncomplete)
	}
	if j.queueFinal != "" {
		job.Queue = j.queueFinal
	}
	if job.SubmitMs <= 0 && j.submitAlt > 0 {
		job.SubmitMs = j.submitAlt
	} else if j.submitAlt > 0 && j.submitAlt != job.SubmitMs {
		diag.note(pos.line, pos.record, pos.offset, "job %s: submit time %d disagrees with the job-info-change record's %d; the submit record wins",
			job.ID, job.SubmitMs, j.submitAlt)
	}

	hostRack := j.learnRacks()
	kinds := make([]taskKind, len(j.order))
	var unknownKind int
	mapOnly := true
	for i, t := range j.order {
		kinds[i] = t.kind
		if t.kind == kindUnknown {
			kinds[i] = kindFromID(t.id)
			unknownKind++
		}
		if kinds[i] == kindReduce {
			mapOnly = false
		}
	}
	var tasks []Task
	var attempts []Attempt
	var open []string
	for i, t := range j.order {
		if kinds[i] != kindUnknown {
			tasks = append(tasks, t.build(job.ID, kinds[i], mapOnly, j.assignStarts, hostRack))
			attempts = t.appendAttempts(attempts, job.ID, kinds[i], hostRack)
			if !t.ended {
				open = append(open, t.id)
			}
		}
	}
	if len(open) > 0 && j.ended {
		diag.note(pos.line, pos.record, pos.offset, "job %s: %d tasks have no end record (%s); their status is left empty",
			job.ID, len(open), listSome(open, 3))
	}
	if unknownKind > 0 {
		diag.note(pos.line, pos.record, pos.offset, "job %s: %d tasks have no record naming their type; typed by their id", job.ID, unknownKind)
	}
	tasks = uniqueIndexes(job.ID, tasks, diag, pos)
	if n, a, by := skewedAttempts(job, attempts); n > 0 {
		diag.note(pos.line, pos.record, pos.offset, "job %s: %d attempts run more than %d s outside the job's submit..finish %d..%d ms, "+
			"%s the furthest (%d s, %d..%d ms): TaskTracker clocks off the JobTracker's; replay leaves such a job out in trace mode with the lifecycle",
			job.ID, n, MaxAttemptSkewMs/1000, job.SubmitMs, job.FinishMs, a.AttemptID, by/1000, a.StartMs, a.FinishMs)
	}

	var maps, reduces int32
	for i := range tasks {
		t := &tasks[i]
		switch t.Type {
		case Map:
			maps++
		case Reduce:
			reduces++
		default:
			continue // setup and cleanup: not counted in the job's totals
		}
		job.FailedAttempts = addSat32(job.FailedAttempts, t.FailedAttempts)
		job.KilledAttempts = addSat32(job.KilledAttempts, t.KilledAttempts)
		job.WastedMs = addSat64(job.WastedMs, t.WastedMs)
	}
	job.NumMaps, job.NumReduces = maps, reduces
	if j.declaredMaps >= 0 && j.declaredMaps != maps {
		diag.note(pos.line, pos.record, pos.offset, "job %s: history declares %d maps but has %d map task records; the records win", job.ID, j.declaredMaps, maps)
	}
	if j.declaredReduces >= 0 && j.declaredReduces != reduces {
		diag.note(pos.line, pos.record, pos.offset, "job %s: history declares %d reduces but has %d reduce task records; the records win", job.ID, j.declaredReduces, reduces)
	}
	job.InputBytes, job.ShuffleBytes, job.OutputBytes = jobBytes(tasks, mapOnly, j.counters)
	return job, tasks, attempts
}

// MaxAttemptSkewMs is how far outside its job's submit..finish an attempt
// may run (AttemptSkewMs) before the readers warn and replay's lifecycle
// leaves the job out (replay/lifecycle_attempts.go). Times in a history come
// from two kinds of clock, the JobTracker's (job and task records) and each
// TaskTracker's (attempt records): in Rumen's dispatch-trace-output an
// attempt starts 109 s before its job's submit, and a Hadoop 0.20 history of
// a three-host cluster has attempts starting 966 s before it.
const MaxAttemptSkewMs = 10 * 60 * 1000

// AttemptSkewMs returns how far attempt a runs outside job j's
// submit..finish, in ms: how long before the submit it starts or after the
// finish it ends, whichever is more; 0 when it lies inside or a time it
// would be measured by is unknown.
func AttemptSkewMs(j *Job, a *Attempt) int64 {
	var d int64
	if a.StartMs >= 0 {
		d = j.SubmitMs - a.StartMs
	}
	if a.FinishMs >= 0 && j.FinishMs >= 0 {
		d = max(d, a.FinishMs-j.FinishMs)
	}
	return max(d, 0)
}

// skewedAttempts counts the attempts that run more than MaxAttemptSkewMs
// outside job's submit..finish (AttemptSkewMs), and returns the furthest
// out and by how much (ms).
func skewedAttempts(job Job, attempts []Attempt) (n int, worst *Attempt, by int64) {
	for i := range attempts {
		a := &attempts[i]
		if d := AttemptSkewMs(&job, a); d > MaxAttemptSkewMs {
			n++
			if d > by {
				worst, by = a, d
			}
		}
	}
	return n, worst, by
}

// typeOfKind maps a known task kind to its TaskType.
func typeOfKind(k taskKind) TaskType {
	switch k {
	case kindReduce:
		return Reduce
	case kindSetup:
		return Setup
	case kindCleanup:
		return Cleanup
	}
	return Map
}

// appendAttempts appends the task's attempts in trace form, marking as
// speculative an attempt that started while an earlier-started attempt of the
// task had not yet finished.
func (t *taskAcc) appendAttempts(out []Attempt, jobID string, kind taskKind, hostRack map[string]string) []Attempt {
	typ := typeOfKind(kind)
	first := len(out)
	for _, a := range t.attempts {
		x := NewAttempt(jobID, t.id, a.id, typ)
		x.Status = a.status
		x.StartMs, x.FinishMs = a.start, a.finish
		if typ == Reduce {
			x.ShuffleFinishMs, x.SortFinishMs = a.shuffleFinish, a.sortFinish
		}
		x.Host, x.Rack = a.host, a.rack
		if x.Rack == "" {
			x.Rack = hostRack[a.host]
		}
		out = append(out, x)
	}
	markSpeculative(out[first:])
	return out
}

// markSpeculative marks as speculative each of a task's attempts that
// started while an earlier-started attempt of the task had not yet finished.
func markSpeculative(mine []Attempt) {
	for i := range mine {
		for k := range mine {
			o := &mine[k]
			if k != i && o.StartMs >= 0 && mine[i].StartMs >= 0 &&
				(o.StartMs < mine[i].StartMs || o.StartMs == mine[i].StartMs && CompareIDs(o.AttemptID, mine[i].AttemptID) < 0) &&
				(o.FinishMs < 0 || o.FinishMs > mine[i].StartMs) {
				mine[i].Speculative = true
				break
			}
		}
	}
}

// uniqueIndexes sorts a job's tasks by type and index and makes (type, index)
// unique: tasks whose id carries no index get the next free ones, in record
// order; a second task with the index of another is dropped, except a setup or
// cleanup task in the other kind of slot than the first (Hadoop 1's JobTracker
// makes a map-side and a reduce-side setup task, task_…_m_<maps+1> and
// task_…_r_<reduces+1>, and likewise cleanup tasks m_<maps> and r_<reduces>;
// both run when the first one's attempt fails, and their numbers are equal
// when the job has as many maps as reduces), which gets the next free index.
// All three are reported.
func uniqueIndexes(jobID string, tasks []Task, diag *diagSink, pos jobPos) []Task {
	var next [NumTaskTypes]int32
	for _, t := range tasks {
		if t.Index >= next[t.Type] {
			next[t.Type] = t.Index + 1
		}
	}
	renumbered := 0
	for i := range tasks {
		if t := &tasks[i]; t.Index < 0 {
			t.Index = next[t.Type]
			next[t.Type]++
			renumbered++
		}
	}
	if renumbered > 0 {
		diag.note(pos.line, pos.record, pos.offset, "job %s: %d task ids end in no task number; numbered after the others", jobID, renumbered)
	}
	slices.SortStableFunc(tasks, func(a, b Task) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index))
	})
	out := tasks[:0]
	var moved []Task
	for i, t := range tasks {
		if i > 0 && t.Type == tasks[i-1].Type && t.Index == tasks[i-1].Index {
			prev := tasks[i-1]
			if !t.Type.IsWork() && t.InMapSlot() != prev.InMapSlot() {
				diag.note(pos.line, pos.record, pos.offset, "job %s: setup or cleanup tasks %s and %s (map and reduce slot) are both %s %d; the second is numbered %d",
					jobID, prev.TaskID, t.TaskID, t.Type, t.Index, next[t.Type])
				t.Index = next[t.Type]
				next[t.Type]++
				moved = append(moved, t)
				continue
			}
			diag.note(pos.line, pos.record, pos.offset, "job %s: tasks %s and %s are both %s %d; the second is dropped",
				jobID, prev.TaskID, t.TaskID, t.Type, t.Index)
			continue
		}
		out = append(out, t)
	}
	if len(moved) > 0 {
		out = append(out, moved...)
		slices.SortStableFunc(out, func(a, b Task) int {
			return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Index, b.Index))
		})
	}
	return out
}

// addSat32 and addSat64 add non-negative counts, saturating instead of
// overflowing on absurd input.
func addSat32(a, b int32) int32 {
	if b > 0 && a > math.MaxInt32-b {
		return math.MaxInt32
	}
	return a + b
}

func addSat64(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// learnRacks collects the host → rack pairs that the job's own attempts show.
func (j *jobAcc) learnRacks() map[string]string {
	m := map[string]string{}
	for _, t := range j.order {
		for _, a := range t.attempts {
			if a.host != "" && a.rack != "" {
				if _, ok := m[a.host]; !ok {
					m[a.host] = a.rack
				}
			}
		}
		for i, h := range t.splitHosts {
			if i < len(t.splitRacks) && t.splitRacks[i] != "" {
				if _, ok := m[h]; !ok {
					m[h] = t.splitRacks[i]
				}
			}
		}
	}
	return m
}

// chosenAttempt returns the attempt whose observation the task keeps: the
// successful one (TaskFinished.successfulAttemptId when given), otherwise the
// last attempt to start, otherwise nil.
func (t *taskAcc) chosenAttempt() *attemptAcc {
	if t.successfulAttempt != "" {
		if a, ok := t.byID[t.successfulAttempt]; ok {
			return a
		}
	}
	for _, a := range t.attempts {
		if a.status == StatusSucceeded {
			return a
		}
	}
	var last *attemptAcc
	for _, a := range t.attempts {
		if last == nil || a.start > last.start {
			last = a
		}
	}
	return last
}

// launchLag is how long attempt a, the one the task keeps, held its slot
// before it started, in ms, for a history whose task start is the
// JobTracker's assignment of the task's first attempt: Hadoop 1's
// JobInProgress.addRunningTaskToTIP logs the Task START_TIME
// (TaskInProgress.getExecStartTime) when it hands the first attempt to a
// TaskTracker at a heartbeat, and the attempt's START_TIME is the
// TaskTracker's, set in TaskTracker.TaskInProgress.launchTask after the job
// and the task are localised (apache/hadoop branch-1). The lag is a's start
// less the task's when a is the task's first attempt (no other attempt
// started before it or has no start) and the two clocks, the JobTracker's
// and the TaskTracker's, do not visibly disagree: a starts no earlier than
// the task and ends no later than the task's recorded finish (when the
// JobTracker learned of it). Unknown otherwise. The 0.20 JobTracker logs of
// Rumen's test data have attempts that start up to 128 s before their task
// and end up to 11 s after it: TaskTracker clocks off the JobTracker's, which
// would make a lag of that size out of nothing.
func (t *taskAcc) launchLag(a *attemptAcc) int64 {
	for _, o := range t.attempts {
		if o != a && startsBefore(o.start, o.id, a.start, a.id) {
			return Unknown
		}
	}
	launch, _ := clockLags(t.start, t.finish, a.start, a.finish)
	return launch
}

// startsBefore reports whether an attempt starting at start (id id) counts
// as started before one starting at aStart (id aID) for launchLag: it has no
// start, starts earlier, or at the same time with a smaller id.
func startsBefore(start int64, id string, aStart int64, aID string) bool {
	return start < 0 || start < aStart || start == aStart && CompareIDs(id, aID) < 0
}

// clockLags returns the launch lag (a task's first attempt) and the report
// lag of an attempt running aStart..aFinish on its TaskTracker's clock, of a
// task the JobTracker recorded as tStart..tFinish on its own clock; both
// Unknown when the two clocks visibly disagree (launchLag, reportLag).
func clockLags(tStart, tFinish, aStart, aFinish int64) (launch, report int64) {
	if tStart <= 0 || aStart < tStart || aFinish < aStart || tFinish < aFinish {
		return Unknown, Unknown
	}
	return aStart - tStart, tFinish - aFinish
}

// reportLag is how long after attempt a, the one the task keeps, finished the
// JobTracker recorded the task's finish, in ms, for a history whose task
// start is the JobTracker's assignment (launchLag): the JobTracker marks a
// task complete, and logs its finish from its own clock, only when the
// heartbeat that carries the attempt's status arrives (JobTracker.heartbeat
// → updateTaskStatuses → JobInProgress.updateTaskStatus → completedTask →
// TaskInProgress.completed; the attempt's finish is the TaskTracker's,
// TaskStatus.getFinishTime; apache/hadoop branch-1). Known when the two
// clocks do not visibly disagree, as for launchLag (a starts no earlier than
// the task, ends no earlier than it starts and no later than the task's
// finish); unlike the launch lag, a need not be the first attempt.
func (t *taskAcc) reportLag(a *attemptAcc) int64 {
	_, report := clockLags(t.start, t.finish, a.start, a.finish)
	return report
}

// build turns an accumulated task into its trace form.
// A map-only job's maps write straight to the file system and shuffle nothing, so
// their output bytes are their HDFS bytes written.
func (t *taskAcc) build(jobID string, kind taskKind, mapOnly, assignStarts bool, hostRack map[string]string) Task {
	typ := typeOfKind(kind)
	idx, ok := taskIndex(t.id)
	if !ok {
		idx = Unknown // numbered by uniqueIndexes
	}
	out := NewTask(jobID, t.id, typ, idx)
	out.Status = t.status
	if !t.ended {
		out.Status = "" // reported per job by finish
	}
	if len(t.splitHosts) > 0 {
		out.PreferredHosts = slices.Clone(t.splitHosts)
		out.PreferredRacks = make([]string, len(t.splitHosts))
		for i, h := range t.splitHosts {
			r := ""
			if i < len(t.splitRacks) {
				r = t.splitRacks[i]
			}
			if r == "" {
				r = hostRack[h]
			}
			out.PreferredRacks[i] = r
		}
	}
	for _, a := range t.attempts {
		switch a.status {
		case StatusFailed:
			out.FailedAttempts++
		case StatusKilled:
			out.KilledAttempts++
		default:
			continue
		}
		if a.start >= 0 && a.finish >= a.start {
			out.WastedMs = addSat64(out.WastedMs, a.finish-a.start)
		}
	}
	c := t.counters
	if a := t.chosenAttempt(); a != nil {
		out.StartMs, out.FinishMs = a.start, a.finish
		if assignStarts {
			out.LaunchLagMs = t.launchLag(a)
			out.ReportLagMs = t.reportLag(a)
		}
		out.Host, out.Rack = a.host, a.rack
		if out.Rack == "" {
			out.Rack = hostRack[a.host]
		}
		if typ == Reduce {
			out.ShuffleFinishMs, out.SortFinishMs = a.shuffleFinish, a.sortFinish
		} else {
			out.Locality = a.locality
		}
		if a.status == StatusSucceeded && a.counters.known() {
			c = a.counters
		}
	} else {
		out.StartMs, out.FinishMs = t.start, t.finish
	}
	if typ == Map && out.Locality == "" {
		out.Locality = deriveLocality(out)
	}
	if !typ.IsWork() {
		return out // setup and cleanup move no data
	}
	if out.Status == StatusSucceeded || c.known() || t.directInput >= 0 || t.directOutput >= 0 || t.directShuffle >= 0 {
		switch {
		case typ == Map && mapOnly:
			out.InputBytes = firstKnown(t.directInput, c.hdfsRead, c.mapInputBytes)
			out.OutputBytes = firstKnown(c.hdfsWritten, t.directOutput)
		case typ == Map:
			out.InputBytes = firstKnown(t.directInput, c.hdfsRead, c.mapInputBytes)
			out.OutputBytes = firstKnown(t.directOutput, c.mapOutputMaterial, c.fileWritten, c.mapOutputBytes)
		default:
			out.ShuffleBytes = firstKnown(t.directShuffle, c.reduceShuffleBytes)
			out.OutputBytes = firstKnown(t.directOutput, c.hdfsWritten)
		}
	}
	return out
}

// deriveLocality classifies a map's placement against its preferred hosts when
// the history does not record it; "" when the racks known do not decide it.
func deriveLocality(t Task) string {
	if t.Host == "" || len(t.PreferredHosts) == 0 {
		return ""
	}
	if slices.Contains(t.PreferredHosts, t.Host) {
		return NodeLocal
	}
	if t.Rack == "" {
		return ""
	}
	if slices.Contains(t.PreferredRacks, t.Rack) {
		return RackLocal
	}
	if slices.Contains(t.PreferredRacks, "") {
		return ""
	}
	return OffSwitch
}

// jobBytes sums the task byte counts; a sum is Unknown only when no task knows
// the value, and then the job-level counters, when present, give it.
func jobBytes(tasks []Task, mapOnly bool, jc counters) (in, shuffle, out int64) {
	in, shuffle, out = Unknown, Unknown, Unknown
	add := func(dst *int64, v int64) {
		if v < 0 {
			return
		}
		if *dst < 0 {
			*dst = 0
		}
		*dst = addSat64(*dst, v)
	}
	var reduces, work int
	for _, t := range tasks {
		if !t.Type.IsWork() {
			continue
		}
		work++
		if t.Type == Map {
			add(&in, t.InputBytes)
			if mapOnly {
				add(&out, t.OutputBytes)
			}
		} else {
			reduces++
			add(&shuffle, t.ShuffleBytes)
			add(&out, t.OutputBytes)
		}
	}
	if in < 0 {
		in = jc.hdfsRead
	}
	if shuffle < 0 {
		if reduces == 0 && work > 0 {
			shuffle = 0
		} else {
			shuffle = jc.reduceShuffleBytes
		}
	}
	if out < 0 {
		out = jc.hdfsWritten
	}
	return in, shuffle, out
}

// assemble orders jobs by submit time, job id and origin, makes job ids unique
// (a second job with the same id becomes id#2, and so on: folded Rumen traces
// and copied histories repeat ids), fills racks from the topology, applies
// companion configurations, and flattens the tasks in canonical order. A job
// without a submit time gets its launch time, else its first task start, else
// it is dropped; each case is reported.
func assemble(outs []jobOut, topo map[string]string, diag func(Diagnostic)) *Trace {
	report := func(format string, args ...any) {
		if diag != nil {
			diag(Diagnostic{Offset: -1, Msg: fmt.Sprintf(format, args...)})
		}
	}
	reportJob := func(o *jobOut, format string, args ...any) {
		if diag != nil {
			diag(o.diagAt(fmt.Sprintf(format, args...)))
		}
	}
	kept := outs[:0]
	for _, o := range outs {
		if o.job.SubmitMs < 0 {
			start := o.job.LaunchMs
			for _, t := range o.tasks {
				if start < 0 || t.StartMs >= 0 && t.StartMs < start {
					start = t.StartMs
				}
			}
			if start < 0 {
				reportJob(&o, "job %s has no submit, launch or task start time; dropped", o.job.ID)
				continue
			}
			reportJob(&o, "job %s has no submit time; its launch or first task start (%d) is used", o.job.ID, start)
			o.job.SubmitMs = start
		}
		kept = append(kept, o)
	}
	outs = kept
	slices.SortStableFunc(outs, func(a, b jobOut) int {
		return cmp.Or(cmp.Compare(a.job.SubmitMs, b.job.SubmitMs), CompareIDs(a.job.ID, b.job.ID),
			cmp.Compare(a.file, b.file), cmp.Compare(a.serial, b.serial))
	})
	taken := make(map[string]bool, len(outs))
	for i := range outs {
		taken[outs[i].job.ID] = true
	}
	copies := map[string]int{}
	var renamed []string
	tr := &Trace{Meta: Meta{SchemaVersion: SchemaVersion}}
	nTasks := 0
	for i := range outs {
		nTasks += len(outs[i].tasks)
	}
	tr.Jobs = make([]Job, 0, len(outs))
	tr.Tasks = make([]Task, 0, nTasks)
	for i := range outs {
		o := &outs[i]
		if o.conf != nil {
			o.conf.applyTo(&o.job)
		}
		id := o.job.ID
		if n := copies[id]; n > 0 {
			if n == 1 {
				renamed = append(renamed, id)
			}
			newID := ""
			for n++; ; n++ {
				if newID = id + "#" + strconv.Itoa(n); !taken[newID] {
					break
				}
			}
			taken[newID] = true
			copies[id] = n
			o.job.ID = newID
		} else {
			copies[id] = 1
		}
		tr.Jobs = append(tr.Jobs, o.job)
		for k := range o.tasks {
			t := o.tasks[k]
			t.JobID = o.job.ID
			fillRacks(&t, topo)
			tr.Tasks = append(tr.Tasks, t)
		}
		for k := range o.attempts {
			a := o.attempts[k]
			a.JobID = o.job.ID
			if a.Rack == "" && a.Host != "" && topo != nil {
				a.Rack = topo[a.Host]
			}
			tr.Attempts = append(tr.Attempts, a)
		}
	}
	if len(renamed) > 0 {
		report("%d job ids occur more than once (%s); the later copies are renamed <id>#2, <id>#3, …",
			len(renamed), listSome(renamed, 5))
	}
	tr.Sort()
	return tr
}

// listSome joins the first n strings, noting how many more there are.
func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(xs[:n], ", "), len(xs)-n)
}

// fillRacks sets the racks a task lacks from a host → rack map.
func fillRacks(t *Task, topo map[string]string) {
	if len(topo) == 0 {
		return
	}
	if t.Rack == "" && t.Host != "" {
		t.Rack = topo[t.Host]
	}
	for i, h := range t.PreferredHosts {
		if t.PreferredRacks[i] == "" {
			t.PreferredRacks[i] = topo[h]
		}
	}
	if t.Type == Map && t.Locality == "" {
		t.Locality = deriveLocality(*t)
	}
}
