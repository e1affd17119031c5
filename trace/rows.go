package trace

import "fmt"

// JobRow is one row of jobs.parquet. Pointer fields are OPTIONAL columns: nil
// (null) where the Job holds Unknown. docs/trace-schema.md documents every column.
type JobRow struct {
	JobID  string `parquet:"job_id"`
	Name   string `parquet:"name"`
	User   string `parquet:"user,dict"`
	Queue  string `parquet:"queue,dict"`
	Status string `parquet:"status,dict"`

	SubmitMs int64  `parquet:"submit_ms"`
	LaunchMs *int64 `parquet:"launch_ms,optional"`
	FinishMs *int64 `parquet:"finish_ms,optional"`

	NumMaps    *int32 `parquet:"num_maps,optional"`
	NumReduces *int32 `parquet:"num_reduces,optional"`

	InputBytes   *int64 `parquet:"input_bytes,optional"`
	ShuffleBytes *int64 `parquet:"shuffle_bytes,optional"`
	OutputBytes  *int64 `parquet:"output_bytes,optional"`

	MapMemoryMB    *int32 `parquet:"map_memory_mb,optional"`
	ReduceMemoryMB *int32 `parquet:"reduce_memory_mb,optional"`
	InputPath      string `parquet:"input_path,dict"`

	FailedAttempts *int32 `parquet:"failed_attempts,optional"`
	KilledAttempts *int32 `parquet:"killed_attempts,optional"`
	WastedMs       *int64 `parquet:"wasted_ms,optional"`
}

// TaskRow is one row of tasks.parquet. Pointer fields are OPTIONAL columns: nil
// (null) where the Task holds Unknown. docs/trace-schema.md documents every column.
type TaskRow struct {
	JobID  string `parquet:"job_id,dict"`
	TaskID string `parquet:"task_id"`
	Type   string `parquet:"type,dict"` // "MAP" or "REDUCE"
	Index  int32  `parquet:"index"`

	InputBytes   *int64 `parquet:"input_bytes,optional"`
	OutputBytes  *int64 `parquet:"output_bytes,optional"`
	ShuffleBytes *int64 `parquet:"shuffle_bytes,optional"`

	PreferredHosts []string `parquet:"preferred_hosts,list"`
	PreferredRacks []string `parquet:"preferred_racks,list"`

	Status          string `parquet:"status,dict"`
	StartMs         *int64 `parquet:"start_ms,optional"`
	FinishMs        *int64 `parquet:"finish_ms,optional"`
	ShuffleFinishMs *int64 `parquet:"shuffle_finish_ms,optional"`
	SortFinishMs    *int64 `parquet:"sort_finish_ms,optional"`
	Host            string `parquet:"host,dict"`
	Rack            string `parquet:"rack,dict"`
	Locality        string `parquet:"locality,dict"`

	FailedAttempts *int32 `parquet:"failed_attempts,optional"`
	KilledAttempts *int32 `parquet:"killed_attempts,optional"`
	WastedMs       *int64 `parquet:"wasted_ms,optional"`
}

// arena hands out pointers to copies of known values from shared blocks, so that
// converting a million rows does not cost ten million small allocations.
type arena[T int32 | int64] struct{ buf []T }

// opt returns nil for Unknown, else a pointer to a copy of v.
func (a *arena[T]) opt(v T) *T {
	if v == T(Unknown) {
		return nil
	}
	if len(a.buf) == cap(a.buf) {
		a.buf = make([]T, 0, 4096)
	}
	a.buf = append(a.buf, v)
	return &a.buf[len(a.buf)-1]
}

// val returns *p, or Unknown when p is nil.
func val[T int32 | int64](p *T) T {
	if p == nil {
		return T(Unknown)
	}
	return *p
}

// jobRows converts jobs to rows, keeping their order.
func jobRows(jobs []Job) []JobRow {
	var a64 arena[int64]
	var a32 arena[int32]
	rows := make([]JobRow, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		rows[i] = JobRow{
			JobID: j.ID, Name: j.Name, User: j.User, Queue: j.Queue, Status: j.Status,
			SubmitMs: j.SubmitMs, LaunchMs: a64.opt(j.LaunchMs), FinishMs: a64.opt(j.FinishMs),
			NumMaps: a32.opt(j.NumMaps), NumReduces: a32.opt(j.NumReduces),
			InputBytes: a64.opt(j.InputBytes), ShuffleBytes: a64.opt(j.ShuffleBytes), OutputBytes: a64.opt(j.OutputBytes),
			MapMemoryMB: a32.opt(j.MapMemoryMB), ReduceMemoryMB: a32.opt(j.ReduceMemoryMB), InputPath: j.InputPath,
			FailedAttempts: a32.opt(j.FailedAttempts), KilledAttempts: a32.opt(j.KilledAttempts), WastedMs: a64.opt(j.WastedMs),
		}
	}
	return rows
}

// job converts a row back to a Job.
func (r *JobRow) job() Job {
	return Job{
		ID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue, Status: r.Status,
		SubmitMs: r.SubmitMs, LaunchMs: val(r.LaunchMs), FinishMs: val(r.FinishMs),
		NumMaps: val(r.NumMaps), NumReduces: val(r.NumReduces),
		InputBytes: val(r.InputBytes), ShuffleBytes: val(r.ShuffleBytes), OutputBytes: val(r.OutputBytes),
		MapMemoryMB: val(r.MapMemoryMB), ReduceMemoryMB: val(r.ReduceMemoryMB), InputPath: r.InputPath,
		FailedAttempts: val(r.FailedAttempts), KilledAttempts: val(r.KilledAttempts), WastedMs: val(r.WastedMs),
	}
}

// taskRows converts tasks to rows, keeping their order.
func taskRows(tasks []Task) []TaskRow {
	var a64 arena[int64]
	var a32 arena[int32]
	rows := make([]TaskRow, len(tasks))
	for i := range tasks {
		k := &tasks[i]
		rows[i] = TaskRow{
			JobID: k.JobID, TaskID: k.TaskID, Type: k.Type.String(), Index: k.Index,
			InputBytes: a64.opt(k.InputBytes), OutputBytes: a64.opt(k.OutputBytes), ShuffleBytes: a64.opt(k.ShuffleBytes),
			PreferredHosts: k.PreferredHosts, PreferredRacks: k.PreferredRacks,
			Status: k.Status, StartMs: a64.opt(k.StartMs), FinishMs: a64.opt(k.FinishMs),
			ShuffleFinishMs: a64.opt(k.ShuffleFinishMs), SortFinishMs: a64.opt(k.SortFinishMs),
			Host: k.Host, Rack: k.Rack, Locality: k.Locality,
			FailedAttempts: a32.opt(k.FailedAttempts), KilledAttempts: a32.opt(k.KilledAttempts), WastedMs: a64.opt(k.WastedMs),
		}
	}
	return rows
}

// task converts a row back to a Task; the type must be MAP or REDUCE.
func (r *TaskRow) task() (Task, error) {
	var typ TaskType
	switch r.Type {
	case "MAP":
		typ = Map
	case "REDUCE":
		typ = Reduce
	default:
		return Task{}, fmt.Errorf("task %q: type %q: want MAP or REDUCE", r.TaskID, r.Type)
	}
	return Task{
		JobID: r.JobID, TaskID: r.TaskID, Type: typ, Index: r.Index,
		InputBytes: val(r.InputBytes), OutputBytes: val(r.OutputBytes), ShuffleBytes: val(r.ShuffleBytes),
		PreferredHosts: r.PreferredHosts, PreferredRacks: r.PreferredRacks,
		Status: r.Status, StartMs: val(r.StartMs), FinishMs: val(r.FinishMs),
		ShuffleFinishMs: val(r.ShuffleFinishMs), SortFinishMs: val(r.SortFinishMs),
		Host: r.Host, Rack: r.Rack, Locality: r.Locality,
		FailedAttempts: val(r.FailedAttempts), KilledAttempts: val(r.KilledAttempts), WastedMs: val(r.WastedMs),
	}, nil
}
