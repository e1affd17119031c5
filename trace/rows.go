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

	AMStartMs       *int64 `parquet:"am_start_ms,optional"`
	ConfMapSlots    *int32 `parquet:"conf_map_slots,optional"`
	ConfReduceSlots *int32 `parquet:"conf_reduce_slots,optional"`
	Scheduler       string `parquet:"scheduler,dict"`

	ConfMapMaxAttempts    *int32 `parquet:"conf_map_max_attempts,optional"`
	ConfReduceMaxAttempts *int32 `parquet:"conf_reduce_max_attempts,optional"`

	ConfOutOfBandHeartbeat *int32 `parquet:"conf_out_of_band_heartbeat,optional"`

	ConfCommonVersion string `parquet:"conf_common_version,dict"`
}

// jobRowV24 is a row of a schema version 2.3 or 2.4 jobs.parquet, which
// lacks the last column of JobRow (version 2.5).
type jobRowV24 struct {
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

	AMStartMs       *int64 `parquet:"am_start_ms,optional"`
	ConfMapSlots    *int32 `parquet:"conf_map_slots,optional"`
	ConfReduceSlots *int32 `parquet:"conf_reduce_slots,optional"`
	Scheduler       string `parquet:"scheduler,dict"`

	ConfMapMaxAttempts    *int32 `parquet:"conf_map_max_attempts,optional"`
	ConfReduceMaxAttempts *int32 `parquet:"conf_reduce_max_attempts,optional"`

	ConfOutOfBandHeartbeat *int32 `parquet:"conf_out_of_band_heartbeat,optional"`
}

// row returns the version 2.5 row with the common version empty.
func (r *jobRowV24) row() JobRow {
	return JobRow{
		JobID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue, Status: r.Status,
		SubmitMs: r.SubmitMs, LaunchMs: r.LaunchMs, FinishMs: r.FinishMs,
		NumMaps: r.NumMaps, NumReduces: r.NumReduces,
		InputBytes: r.InputBytes, ShuffleBytes: r.ShuffleBytes, OutputBytes: r.OutputBytes,
		MapMemoryMB: r.MapMemoryMB, ReduceMemoryMB: r.ReduceMemoryMB, InputPath: r.InputPath,
		FailedAttempts: r.FailedAttempts, KilledAttempts: r.KilledAttempts, WastedMs: r.WastedMs,
		AMStartMs: r.AMStartMs, ConfMapSlots: r.ConfMapSlots, ConfReduceSlots: r.ConfReduceSlots, Scheduler: r.Scheduler,
		ConfMapMaxAttempts: r.ConfMapMaxAttempts, ConfReduceMaxAttempts: r.ConfReduceMaxAttempts,
		ConfOutOfBandHeartbeat: r.ConfOutOfBandHeartbeat,
	}
}

// jobRowV22 is a row of a schema version 2.1 or 2.2 jobs.parquet, which
// lacks the last column of JobRow (version 2.3).
type jobRowV22 struct {
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

	AMStartMs       *int64 `parquet:"am_start_ms,optional"`
	ConfMapSlots    *int32 `parquet:"conf_map_slots,optional"`
	ConfReduceSlots *int32 `parquet:"conf_reduce_slots,optional"`
	Scheduler       string `parquet:"scheduler,dict"`

	ConfMapMaxAttempts    *int32 `parquet:"conf_map_max_attempts,optional"`
	ConfReduceMaxAttempts *int32 `parquet:"conf_reduce_max_attempts,optional"`
}

// row returns the version 2.3 row with the out-of-band heartbeat null.
func (r *jobRowV22) row() JobRow {
	return JobRow{
		JobID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue, Status: r.Status,
		SubmitMs: r.SubmitMs, LaunchMs: r.LaunchMs, FinishMs: r.FinishMs,
		NumMaps: r.NumMaps, NumReduces: r.NumReduces,
		InputBytes: r.InputBytes, ShuffleBytes: r.ShuffleBytes, OutputBytes: r.OutputBytes,
		MapMemoryMB: r.MapMemoryMB, ReduceMemoryMB: r.ReduceMemoryMB, InputPath: r.InputPath,
		FailedAttempts: r.FailedAttempts, KilledAttempts: r.KilledAttempts, WastedMs: r.WastedMs,
		AMStartMs: r.AMStartMs, ConfMapSlots: r.ConfMapSlots, ConfReduceSlots: r.ConfReduceSlots, Scheduler: r.Scheduler,
		ConfMapMaxAttempts: r.ConfMapMaxAttempts, ConfReduceMaxAttempts: r.ConfReduceMaxAttempts,
	}
}

// jobRowV2 is a row of a schema version 2 jobs.parquet, which lacks the
// columns version 2.1 added (and 2.3's).
type jobRowV2 struct {
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

	AMStartMs       *int64 `parquet:"am_start_ms,optional"`
	ConfMapSlots    *int32 `parquet:"conf_map_slots,optional"`
	ConfReduceSlots *int32 `parquet:"conf_reduce_slots,optional"`
	Scheduler       string `parquet:"scheduler,dict"`
}

// row returns the version 2.1 row with the max attempts null.
func (r *jobRowV2) row() JobRow {
	return JobRow{
		JobID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue, Status: r.Status,
		SubmitMs: r.SubmitMs, LaunchMs: r.LaunchMs, FinishMs: r.FinishMs,
		NumMaps: r.NumMaps, NumReduces: r.NumReduces,
		InputBytes: r.InputBytes, ShuffleBytes: r.ShuffleBytes, OutputBytes: r.OutputBytes,
		MapMemoryMB: r.MapMemoryMB, ReduceMemoryMB: r.ReduceMemoryMB, InputPath: r.InputPath,
		FailedAttempts: r.FailedAttempts, KilledAttempts: r.KilledAttempts, WastedMs: r.WastedMs,
		AMStartMs: r.AMStartMs, ConfMapSlots: r.ConfMapSlots, ConfReduceSlots: r.ConfReduceSlots, Scheduler: r.Scheduler,
	}
}

// jobRowV1 is a row of a schema version 1 jobs.parquet, which lacks the last
// four columns of JobRow.
type jobRowV1 struct {
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

// row returns the version 2 row with the columns version 1 lacks null.
func (r *jobRowV1) row() JobRow {
	return JobRow{
		JobID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue, Status: r.Status,
		SubmitMs: r.SubmitMs, LaunchMs: r.LaunchMs, FinishMs: r.FinishMs,
		NumMaps: r.NumMaps, NumReduces: r.NumReduces,
		InputBytes: r.InputBytes, ShuffleBytes: r.ShuffleBytes, OutputBytes: r.OutputBytes,
		MapMemoryMB: r.MapMemoryMB, ReduceMemoryMB: r.ReduceMemoryMB, InputPath: r.InputPath,
		FailedAttempts: r.FailedAttempts, KilledAttempts: r.KilledAttempts, WastedMs: r.WastedMs,
	}
}

// AttemptRow is one row of attempts.parquet. Pointer fields are OPTIONAL
// columns: nil (null) where the Attempt holds Unknown.
type AttemptRow struct {
	JobID     string `parquet:"job_id,dict"`
	TaskID    string `parquet:"task_id"`
	AttemptID string `parquet:"attempt_id"`
	Type      string `parquet:"type,dict"` // "MAP", "REDUCE", "SETUP" or "CLEANUP"
	Status    string `parquet:"status,dict"`

	StartMs         *int64 `parquet:"start_ms,optional"`
	FinishMs        *int64 `parquet:"finish_ms,optional"`
	ShuffleFinishMs *int64 `parquet:"shuffle_finish_ms,optional"`
	SortFinishMs    *int64 `parquet:"sort_finish_ms,optional"`
	Host            string `parquet:"host,dict"`
	Rack            string `parquet:"rack,dict"`
	Speculative     bool   `parquet:"speculative"`
}

// TaskRow is one row of tasks.parquet. Pointer fields are OPTIONAL columns: nil
// (null) where the Task holds Unknown. docs/trace-schema.md documents every column.
type TaskRow struct {
	JobID  string `parquet:"job_id,dict"`
	TaskID string `parquet:"task_id"`
	Type   string `parquet:"type,dict"` // "MAP", "REDUCE", "SETUP" or "CLEANUP"
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

	LaunchLagMs *int64 `parquet:"launch_lag_ms,optional"`
	ReportLagMs *int64 `parquet:"report_lag_ms,optional"`
}

// taskRowV23 is a row of a tasks.parquet of schema version 2.2 or 2.3,
// which lacks the last column of TaskRow (version 2.4).
type taskRowV23 struct {
	JobID  string `parquet:"job_id,dict"`
	TaskID string `parquet:"task_id"`
	Type   string `parquet:"type,dict"`
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

	LaunchLagMs *int64 `parquet:"launch_lag_ms,optional"`
}

// row returns the version 2.4 row with the report lag null.
func (r *taskRowV23) row() TaskRow {
	old := taskRowV21{
		JobID: r.JobID, TaskID: r.TaskID, Type: r.Type, Index: r.Index,
		InputBytes: r.InputBytes, OutputBytes: r.OutputBytes, ShuffleBytes: r.ShuffleBytes,
		PreferredHosts: r.PreferredHosts, PreferredRacks: r.PreferredRacks,
		Status: r.Status, StartMs: r.StartMs, FinishMs: r.FinishMs,
		ShuffleFinishMs: r.ShuffleFinishMs, SortFinishMs: r.SortFinishMs,
		Host: r.Host, Rack: r.Rack, Locality: r.Locality,
		FailedAttempts: r.FailedAttempts, KilledAttempts: r.KilledAttempts, WastedMs: r.WastedMs,
	}
	row := old.row()
	row.LaunchLagMs = r.LaunchLagMs
	return row
}

// taskRowV21 is a row of a tasks.parquet of schema version 2.1 or older,
// which lacks the last column of TaskRow (version 2.2).
type taskRowV21 struct {
	JobID  string `parquet:"job_id,dict"`
	TaskID string `parquet:"task_id"`
	Type   string `parquet:"type,dict"`
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

// row returns the current row with the launch and report lags null.
func (r *taskRowV21) row() TaskRow {
	return TaskRow{
		JobID: r.JobID, TaskID: r.TaskID, Type: r.Type, Index: r.Index,
		InputBytes: r.InputBytes, OutputBytes: r.OutputBytes, ShuffleBytes: r.ShuffleBytes,
		PreferredHosts: r.PreferredHosts, PreferredRacks: r.PreferredRacks,
		Status: r.Status, StartMs: r.StartMs, FinishMs: r.FinishMs,
		ShuffleFinishMs: r.ShuffleFinishMs, SortFinishMs: r.SortFinishMs,
		Host: r.Host, Rack: r.Rack, Locality: r.Locality,
		FailedAttempts: r.FailedAttempts, KilledAttempts: r.KilledAttempts, WastedMs: r.WastedMs,
	}
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
			AMStartMs: a64.opt(j.AMStartMs), ConfMapSlots: a32.opt(j.ConfMapSlots), ConfReduceSlots: a32.opt(j.ConfReduceSlots),
			Scheduler:          j.Scheduler,
			ConfMapMaxAttempts: a32.opt(j.ConfMapMaxAttempts), ConfReduceMaxAttempts: a32.opt(j.ConfReduceMaxAttempts),
			ConfOutOfBandHeartbeat: a32.opt(j.ConfOutOfBandHeartbeat),
			ConfCommonVersion:      j.ConfCommonVersion,
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
		AMStartMs: val(r.AMStartMs), ConfMapSlots: val(r.ConfMapSlots), ConfReduceSlots: val(r.ConfReduceSlots),
		Scheduler:          r.Scheduler,
		ConfMapMaxAttempts: val(r.ConfMapMaxAttempts), ConfReduceMaxAttempts: val(r.ConfReduceMaxAttempts),
		ConfOutOfBandHeartbeat: val(r.ConfOutOfBandHeartbeat),
		ConfCommonVersion:      r.ConfCommonVersion,
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
			LaunchLagMs: a64.opt(k.LaunchLagMs), ReportLagMs: a64.opt(k.ReportLagMs),
		}
	}
	return rows
}

// task converts a row back to a Task; the type must be MAP, REDUCE, SETUP or
// CLEANUP.
func (r *TaskRow) task() (Task, error) {
	typ, ok := ParseTaskType(r.Type)
	if !ok {
		return Task{}, fmt.Errorf("task %q: type %q: want MAP, REDUCE, SETUP or CLEANUP", r.TaskID, r.Type)
	}
	return Task{
		JobID: r.JobID, TaskID: r.TaskID, Type: typ, Index: r.Index,
		InputBytes: val(r.InputBytes), OutputBytes: val(r.OutputBytes), ShuffleBytes: val(r.ShuffleBytes),
		PreferredHosts: r.PreferredHosts, PreferredRacks: r.PreferredRacks,
		Status: r.Status, StartMs: val(r.StartMs), FinishMs: val(r.FinishMs),
		ShuffleFinishMs: val(r.ShuffleFinishMs), SortFinishMs: val(r.SortFinishMs),
		Host: r.Host, Rack: r.Rack, Locality: r.Locality,
		FailedAttempts: val(r.FailedAttempts), KilledAttempts: val(r.KilledAttempts), WastedMs: val(r.WastedMs),
		LaunchLagMs: val(r.LaunchLagMs), ReportLagMs: val(r.ReportLagMs),
	}, nil
}

// attemptRows converts attempts to rows, keeping their order.
func attemptRows(as []Attempt) []AttemptRow {
	var a64 arena[int64]
	rows := make([]AttemptRow, len(as))
	for i := range as {
		a := &as[i]
		rows[i] = AttemptRow{
			JobID: a.JobID, TaskID: a.TaskID, AttemptID: a.AttemptID, Type: a.Type.String(), Status: a.Status,
			StartMs: a64.opt(a.StartMs), FinishMs: a64.opt(a.FinishMs),
			ShuffleFinishMs: a64.opt(a.ShuffleFinishMs), SortFinishMs: a64.opt(a.SortFinishMs),
			Host: a.Host, Rack: a.Rack, Speculative: a.Speculative,
		}
	}
	return rows
}

// attempt converts a row back to an Attempt.
func (r *AttemptRow) attempt() (Attempt, error) {
	typ, ok := ParseTaskType(r.Type)
	if !ok {
		return Attempt{}, fmt.Errorf("attempt %q: type %q: want MAP, REDUCE, SETUP or CLEANUP", r.AttemptID, r.Type)
	}
	return Attempt{
		JobID: r.JobID, TaskID: r.TaskID, AttemptID: r.AttemptID, Type: typ, Status: r.Status,
		StartMs: val(r.StartMs), FinishMs: val(r.FinishMs),
		ShuffleFinishMs: val(r.ShuffleFinishMs), SortFinishMs: val(r.SortFinishMs),
		Host: r.Host, Rack: r.Rack, Speculative: r.Speculative,
	}, nil
}
