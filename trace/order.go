package trace

import (
	"cmp"
	"fmt"
	"slices"
)

// CompareIDs orders job (or task) ids naturally: runs of ASCII digits compare by
// numeric value, everything else byte by byte, so job9 < job10 and
// job_201002080801_9999 < job_201002080801_10000. Ids that compare equal that way
// (job01, job1) fall back to plain byte order, so the order is total.
func CompareIDs(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			if c := compareDigits(a[si:i], b[sj:j]); c != 0 {
				return c
			}
			continue
		}
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// compareDigits compares two runs of decimal digits by value without parsing them,
// so runs of any length work.
func compareDigits(a, b string) int {
	for len(a) > 1 && a[0] == '0' {
		a = a[1:]
	}
	for len(b) > 1 && b[0] == '0' {
		b = b[1:]
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// compareJobs is the canonical job order: submit time, then id (CompareIDs).
func compareJobs(a, b *Job) int {
	if c := cmp.Compare(a.SubmitMs, b.SubmitMs); c != 0 {
		return c
	}
	return CompareIDs(a.ID, b.ID)
}

// Sort puts the trace into its canonical order: jobs by submit time then id
// (CompareIDs), tasks by the position of their job, then type (maps first), then
// index. Readers call it before returning a trace. Tasks of jobs not in the trace
// go last, ordered by job id; Validate reports them.
func (t *Trace) Sort() {
	byJob := func(a, b Job) int { return compareJobs(&a, &b) }
	if !slices.IsSortedFunc(t.Jobs, byJob) {
		slices.SortStableFunc(t.Jobs, byJob)
	}
	if len(t.Tasks) == 0 {
		return
	}
	pos := jobPositions(t.Jobs)
	byTask := func(a, b Task) int { return compareTasks(pos, &a, &b) }
	if !slices.IsSortedFunc(t.Tasks, byTask) {
		slices.SortStableFunc(t.Tasks, byTask)
	}
	byAttempt := func(a, b Attempt) int { return compareAttempts(pos, &a, &b) }
	if !slices.IsSortedFunc(t.Attempts, byAttempt) {
		slices.SortStableFunc(t.Attempts, byAttempt)
	}
}

// compareAttempts orders attempts by job position (unknown jobs last, by id),
// task type, task index (read from the task id), start time and attempt id.
func compareAttempts(pos map[string]int, a, b *Attempt) int {
	pa, oka := pos[a.JobID]
	pb, okb := pos[b.JobID]
	switch {
	case oka && okb:
		if c := cmp.Compare(pa, pb); c != 0 {
			return c
		}
	case oka != okb:
		if oka {
			return -1
		}
		return 1
	default:
		if c := CompareIDs(a.JobID, b.JobID); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	if c := CompareIDs(a.TaskID, b.TaskID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.StartMs, b.StartMs); c != 0 {
		return c
	}
	return CompareIDs(a.AttemptID, b.AttemptID)
}

// jobPositions maps each job id to its index in jobs; with duplicate ids the
// first wins.
func jobPositions(jobs []Job) map[string]int {
	pos := make(map[string]int, len(jobs))
	for i := range jobs {
		if _, dup := pos[jobs[i].ID]; !dup {
			pos[jobs[i].ID] = i
		}
	}
	return pos
}

func compareTasks(pos map[string]int, a, b *Task) int {
	pa, oka := pos[a.JobID]
	pb, okb := pos[b.JobID]
	switch {
	case oka && okb:
		if c := cmp.Compare(pa, pb); c != 0 {
			return c
		}
	case oka != okb:
		if oka {
			return -1
		}
		return 1
	default:
		if c := CompareIDs(a.JobID, b.JobID); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Type, b.Type); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// Validate checks what every trace must satisfy before it is written or after it
// is read: non-empty unique job ids, submit times >= 0, every other integer either
// Unknown or >= 0, the canonical order of Sort, tasks that belong to a job of the
// trace with a valid type, unique (job, type, index) and non-negative index, and
// PreferredRacks empty or as long as PreferredHosts. The error names the first
// offending job or task.
func (t *Trace) Validate() error {
	seen := make(map[string]struct{}, len(t.Jobs))
	for i := range t.Jobs {
		j := &t.Jobs[i]
		if j.ID == "" {
			return fmt.Errorf("job %d: empty job id", i)
		}
		if _, dup := seen[j.ID]; dup {
			return fmt.Errorf("job %d: duplicate job id %q", i, j.ID)
		}
		seen[j.ID] = struct{}{}
		if err := checkJobInts(j); err != nil {
			return fmt.Errorf("job %q: %w", j.ID, err)
		}
		if i > 0 && compareJobs(&t.Jobs[i-1], j) > 0 {
			return fmt.Errorf("job %q: out of order: jobs must be sorted by submit time then id (call Trace.Sort)", j.ID)
		}
	}
	pos := jobPositions(t.Jobs)
	for i := range t.Tasks {
		k := &t.Tasks[i]
		if _, ok := pos[k.JobID]; !ok {
			return fmt.Errorf("task %d (%q): job %q is not in the trace", i, k.TaskID, k.JobID)
		}
		if k.Type >= NumTaskTypes {
			return fmt.Errorf("task %d (%q): invalid task type %d", i, k.TaskID, k.Type)
		}
		if err := checkTaskInts(k); err != nil {
			return fmt.Errorf("task %d (%q): %w", i, k.TaskID, err)
		}
		if len(k.PreferredRacks) != 0 && len(k.PreferredRacks) != len(k.PreferredHosts) {
			return fmt.Errorf("task %d (%q): %d preferred racks for %d preferred hosts: want as many or none",
				i, k.TaskID, len(k.PreferredRacks), len(k.PreferredHosts))
		}
		if i > 0 {
			switch c := compareTasks(pos, &t.Tasks[i-1], k); {
			case c == 0:
				return fmt.Errorf("task %d (%q): duplicate %s %d of job %q", i, k.TaskID, k.Type, k.Index, k.JobID)
			case c > 0:
				return fmt.Errorf("task %d (%q): out of order: tasks must be sorted by job, type (maps first), index (call Trace.Sort)", i, k.TaskID)
			}
		}
	}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if _, ok := pos[a.JobID]; !ok {
			return fmt.Errorf("attempt %d (%q): job %q is not in the trace", i, a.AttemptID, a.JobID)
		}
		if a.AttemptID == "" || a.TaskID == "" {
			return fmt.Errorf("attempt %d of job %q: empty attempt or task id", i, a.JobID)
		}
		if a.Type >= NumTaskTypes {
			return fmt.Errorf("attempt %d (%q): invalid task type %d", i, a.AttemptID, a.Type)
		}
		if err := checkInts([]namedInt{{"start_ms", a.StartMs}, {"finish_ms", a.FinishMs},
			{"shuffle_finish_ms", a.ShuffleFinishMs}, {"sort_finish_ms", a.SortFinishMs}}); err != nil {
			return fmt.Errorf("attempt %d (%q): %w", i, a.AttemptID, err)
		}
		if i > 0 {
			switch c := compareAttempts(pos, &t.Attempts[i-1], a); {
			case c == 0:
				return fmt.Errorf("attempt %d (%q): duplicate attempt of job %q", i, a.AttemptID, a.JobID)
			case c > 0:
				return fmt.Errorf("attempt %d (%q): out of order: attempts must be sorted by job, type, task, start, id (call Trace.Sort)", i, a.AttemptID)
			}
		}
	}
	return nil
}

type namedInt struct {
	name string
	v    int64
}

func checkJobInts(j *Job) error {
	if j.SubmitMs < 0 {
		return fmt.Errorf("submit_ms = %d: want >= 0", j.SubmitMs)
	}
	if j.ConfOutOfBandHeartbeat > 1 {
		return fmt.Errorf("conf_out_of_band_heartbeat = %d: want 0, 1 or Unknown (-1)", j.ConfOutOfBandHeartbeat)
	}
	return checkInts([]namedInt{
		{"launch_ms", j.LaunchMs}, {"finish_ms", j.FinishMs},
		{"num_maps", int64(j.NumMaps)}, {"num_reduces", int64(j.NumReduces)},
		{"input_bytes", j.InputBytes}, {"shuffle_bytes", j.ShuffleBytes}, {"output_bytes", j.OutputBytes},
		{"map_memory_mb", int64(j.MapMemoryMB)}, {"reduce_memory_mb", int64(j.ReduceMemoryMB)},
		{"failed_attempts", int64(j.FailedAttempts)}, {"killed_attempts", int64(j.KilledAttempts)},
		{"wasted_ms", j.WastedMs},
		{"am_start_ms", j.AMStartMs}, {"conf_map_slots", int64(j.ConfMapSlots)}, {"conf_reduce_slots", int64(j.ConfReduceSlots)},
		{"conf_map_max_attempts", int64(j.ConfMapMaxAttempts)}, {"conf_reduce_max_attempts", int64(j.ConfReduceMaxAttempts)},
		{"conf_out_of_band_heartbeat", int64(j.ConfOutOfBandHeartbeat)},
	})
}

func checkTaskInts(k *Task) error {
	if k.Index < 0 {
		return fmt.Errorf("index = %d: want >= 0", k.Index)
	}
	return checkInts([]namedInt{
		{"input_bytes", k.InputBytes}, {"output_bytes", k.OutputBytes}, {"shuffle_bytes", k.ShuffleBytes},
		{"start_ms", k.StartMs}, {"finish_ms", k.FinishMs},
		{"shuffle_finish_ms", k.ShuffleFinishMs}, {"sort_finish_ms", k.SortFinishMs},
		{"failed_attempts", int64(k.FailedAttempts)}, {"killed_attempts", int64(k.KilledAttempts)},
		{"wasted_ms", k.WastedMs}, {"launch_lag_ms", k.LaunchLagMs},
		{"report_lag_ms", k.ReportLagMs},
	})
}

func checkInts(vals []namedInt) error {
	for _, f := range vals {
		if f.v < Unknown {
			return fmt.Errorf("%s = %d: want >= 0 or Unknown (-1)", f.name, f.v)
		}
	}
	return nil
}
