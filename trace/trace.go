// Package trace holds tracereplay's canonical job trace: the Job and Task types that
// every input format is read into, the Parquet reader and writer of the trace
// dataset, format detection, one reader per input format, and the synthesis of tasks
// from job-level byte counts.
//
// A trace is a directory holding jobs.parquet and, when the input format knows
// tasks, tasks.parquet and (for job histories) attempts.parquet. Times are integer milliseconds: since the Unix epoch for
// real job histories, since the start of the workload for SWIM and synthetic
// traces. Unknown integers are -1 in memory and null in Parquet.
package trace

import "strings"

// SchemaVersion is written into the key/value metadata of every trace file; readers
// refuse files with a newer major version.
//
// Version 2 added setup and cleanup tasks, attempts.parquet and the jobs columns
// am_start_ms, conf_map_slots, conf_reduce_slots and scheduler; version 1 traces
// still read (the new columns come back Unknown or empty, with no attempts).
// Version 2.1 added the jobs columns conf_map_max_attempts and
// conf_reduce_max_attempts; version 2 traces read with them Unknown.
// Version 2.2 added the tasks column launch_lag_ms; older traces read with
// it Unknown. Version 2.3 added the jobs column conf_out_of_band_heartbeat;
// older traces read with it Unknown. Version 2.4 added the tasks column
// report_lag_ms; older traces read with it Unknown. Version 2.5 added the
// jobs column conf_common_version; older traces read with it empty.
const SchemaVersion = "2.5"

// Unknown marks an integer field whose value the input did not give.
const Unknown = -1

// TaskType says whether a task is a map, a reduce, or a job's setup or cleanup
// task.
type TaskType uint8

// Task types. Setup and cleanup tasks come from Hadoop 1 histories and Rumen
// traces, where the JobTracker runs them in a map or a reduce slot (the _m_ or
// _r_ in the task id says which; see Task.InMapSlot). Hadoop 2 runs them inside
// the ApplicationMaster, so .jhist traces have none.
const (
	Map TaskType = iota
	Reduce
	Setup
	Cleanup
)

// NumTaskTypes is the number of task types.
const NumTaskTypes = 4

// String returns "MAP", "REDUCE", "SETUP" or "CLEANUP", the spelling used in
// Parquet and in Hadoop.
func (t TaskType) String() string {
	switch t {
	case Reduce:
		return "REDUCE"
	case Setup:
		return "SETUP"
	case Cleanup:
		return "CLEANUP"
	}
	return "MAP"
}

// ParseTaskType reads the spelling String writes.
func ParseTaskType(s string) (TaskType, bool) {
	switch s {
	case "MAP":
		return Map, true
	case "REDUCE":
		return Reduce, true
	case "SETUP":
		return Setup, true
	case "CLEANUP":
		return Cleanup, true
	}
	return Map, false
}

// IsWork reports whether the type is a map or a reduce: the tasks that carry a
// job's data, as opposed to its setup and cleanup.
func (t TaskType) IsWork() bool { return t == Map || t == Reduce }

// Job status values as stored in the trace.
const (
	StatusSucceeded  = "SUCCEEDED"
	StatusFailed     = "FAILED"
	StatusKilled     = "KILLED"
	StatusIncomplete = "INCOMPLETE"
	StatusUnknown    = ""
)

// Locality of a task attempt, as Hadoop names it.
const (
	NodeLocal = "NODE_LOCAL"
	RackLocal = "RACK_LOCAL"
	OffSwitch = "OFF_SWITCH"
)

// Job is one job of a trace. Integer fields hold Unknown (-1) when the source does
// not know them.
type Job struct {
	ID     string // job id as the source names it (job_201002080801_40864, job17)
	Name   string
	User   string
	Queue  string
	Status string // one of the Status constants

	SubmitMs int64 // submit time
	LaunchMs int64 // launch (init) time, Unknown if not recorded
	FinishMs int64 // finish time, Unknown if not recorded

	NumMaps    int32 // number of map tasks, Unknown if the source gives only bytes
	NumReduces int32 // number of reduce tasks, Unknown if not given

	InputBytes   int64 // map input (HDFS bytes read)
	ShuffleBytes int64 // map output shipped to reduces
	OutputBytes  int64 // job output (HDFS bytes written)

	MapMemoryMB    int32 // container or slot memory for maps, Unknown if not known
	ReduceMemoryMB int32
	InputPath      string // input directory or anonymised path name

	FailedAttempts int32 // failed attempts of the job's maps and reduces
	KilledAttempts int32 // killed attempts of the job's maps and reduces
	WastedMs       int64 // summed duration of those failed and killed attempts

	AMStartMs       int64  // start of the YARN ApplicationMaster's first attempt, Unknown if none
	ConfMapSlots    int32  // mapred.tasktracker.map.tasks.maximum (0.21+: mapreduce.tasktracker.…) of the job conf, Unknown if absent
	ConfReduceSlots int32  // mapred.tasktracker.reduce.tasks.maximum (likewise) of the job conf, Unknown if absent
	Scheduler       string // scheduler class the job conf names, as written, "" if absent

	// ConfMapMaxAttempts and ConfReduceMaxAttempts are the job conf's max
	// attempts of a map and of a reduce (mapreduce.map.maxattempts or Hadoop
	// 1's mapred.map.max.attempts; reduces likewise), Unknown if absent.
	ConfMapMaxAttempts    int32
	ConfReduceMaxAttempts int32

	// ConfOutOfBandHeartbeat is the job conf's
	// mapreduce.tasktracker.outofband.heartbeat (a Hadoop 1 TaskTracker
	// heartbeats at once when a task finishes): 1 for true, 0 for false,
	// Unknown if absent, not a boolean or the job did not run under a
	// JobTracker (a YARN job's conf carries the default only).
	ConfOutOfBandHeartbeat int32

	// ConfCommonVersion is the job conf's hadoop.common.configuration.version,
	// as written: the version of the core-default.xml of the Hadoop that wrote
	// the conf ("0.21.0" in 0.21, "0.22.x" in 0.22, "0.23.0" in Hadoop 2; no
	// such key in 0.20 and 1.x). "" if absent or the job did not run under a
	// JobTracker (the only reader is the JobTracker scheduler's version;
	// replay's TraceHardware).
	ConfCommonVersion string
}

// Task is one map, reduce, setup or cleanup task of a job, with what the trace
// observed of its successful attempt.
type Task struct {
	JobID  string
	TaskID string
	Type   TaskType
	Index  int32 // task number within its type

	InputBytes   int64 // split size (maps) or Unknown
	OutputBytes  int64 // map output or reduce output bytes, or Unknown
	ShuffleBytes int64 // bytes a reduce fetched, Unknown for maps

	PreferredHosts []string // hosts holding the split's replicas
	PreferredRacks []string // the rack of each preferred host, same length, "" if unknown

	Status          string // SUCCEEDED, FAILED, KILLED or ""
	StartMs         int64  // observed start of the successful attempt
	FinishMs        int64  // observed finish of the successful attempt
	ShuffleFinishMs int64  // reduces: end of the shuffle phase
	SortFinishMs    int64  // reduces: end of the sort phase
	Host            string // host of the successful attempt
	Rack            string // rack of the successful attempt
	Locality        string // NodeLocal, RackLocal, OffSwitch or ""

	FailedAttempts int32
	KilledAttempts int32
	WastedMs       int64 // summed duration of failed and killed attempts

	// LaunchLagMs is how long the successful attempt held its slot before it
	// started: its recorded start less the task's, when the history's task
	// start is the JobTracker assigning the task's first attempt to a
	// TaskTracker and the successful attempt is that first attempt (Hadoop 1
	// histories, and Rumen traces of them); Unknown otherwise, and when the
	// two clocks visibly disagree (history_build.go, launchLag).
	LaunchLagMs int64
	// ReportLagMs is how long after the successful attempt's recorded finish
	// (the TaskTracker's clock) the JobTracker recorded the task's finish:
	// the heartbeat that carried the attempt's status (JobTracker.heartbeat →
	// JobInProgress.updateTaskStatus → TaskInProgress.completed, which sets
	// the task's finish from the JobTracker's clock, apache/hadoop branch-1).
	// Known where LaunchLagMs's history is (a task start that is the
	// JobTracker's assignment) and the clocks do not visibly disagree (the
	// attempt starts no earlier than its task and ends no later than the
	// task's finish), whichever attempt succeeded; Unknown otherwise
	// (history_build.go, reportLag).
	ReportLagMs int64
}

// InMapSlot reports whether the task runs in a map slot: maps do, reduces do
// not, and a setup or cleanup task does when its id has the map marker _m_
// (Hadoop 1's JobTracker launches them as map or reduce TIPs, whichever slot is
// free: JobInProgress.obtainJobSetupTask and obtainJobCleanupTask).
func (t *Task) InMapSlot() bool {
	switch t.Type {
	case Map:
		return true
	case Reduce:
		return false
	}
	return !strings.Contains(t.TaskID, "_r_")
}

// Attempt is one attempt of a task as a job history records it: successful,
// failed and killed attempts alike.
type Attempt struct {
	JobID     string
	TaskID    string
	AttemptID string
	Type      TaskType
	Status    string // SUCCEEDED, FAILED, KILLED, or "" when the history has no end record

	StartMs         int64 // attempt start, Unknown if not recorded
	FinishMs        int64 // attempt end, Unknown if not recorded
	ShuffleFinishMs int64 // reduces: end of the shuffle phase, else Unknown
	SortFinishMs    int64 // reduces: end of the sort phase, else Unknown
	Host            string
	Rack            string
	// Speculative is true for an attempt that started while an earlier attempt
	// of the same task was still running (histories do not say it otherwise).
	Speculative bool
}

// Trace is a whole trace in memory: jobs ordered by submit time then id, the
// tasks of all jobs ordered by job (in job order), type (maps, reduces, setup,
// cleanup) and index, and the attempts ordered by job, task type, task index,
// start time and attempt id.
type Trace struct {
	Jobs     []Job
	Tasks    []Task    // empty when the source has job-level data only
	Attempts []Attempt // empty unless the source records attempts
	Meta     Meta
	// Stream, when set, holds the jobs instead of Jobs: they are read from
	// the trace's jobs.parquet as they are wanted (OpenJobStream), with
	// their tasks from its tasks.parquet when it has them (OpenTaskStream)
	// and its attempts from its attempts.parquet (StreamOptions.Attempts);
	// Jobs, Tasks and Attempts are then empty.
	Stream *JobStream
}

// Meta is what a trace records about its own making, stored as Parquet key/value
// metadata.
type Meta struct {
	SchemaVersion string
	SourceFormat  string            // swim, jhist, hadoop1, rumen, sls, synthetic
	Sources       []string          // input files, as given
	Options       map[string]string // ingest options that shaped the trace
	Tool          string            // tracereplay version that wrote it
}

// NewJob returns a Job with every optional integer set to Unknown.
func NewJob(id string) Job {
	return Job{
		ID: id, LaunchMs: Unknown, FinishMs: Unknown,
		NumMaps: Unknown, NumReduces: Unknown,
		InputBytes: Unknown, ShuffleBytes: Unknown, OutputBytes: Unknown,
		MapMemoryMB: Unknown, ReduceMemoryMB: Unknown,
		AMStartMs: Unknown, ConfMapSlots: Unknown, ConfReduceSlots: Unknown,
		ConfMapMaxAttempts: Unknown, ConfReduceMaxAttempts: Unknown, ConfOutOfBandHeartbeat: Unknown,
	}
}

// NewAttempt returns an Attempt with every optional integer set to Unknown.
func NewAttempt(jobID, taskID, attemptID string, typ TaskType) Attempt {
	return Attempt{JobID: jobID, TaskID: taskID, AttemptID: attemptID, Type: typ,
		StartMs: Unknown, FinishMs: Unknown, ShuffleFinishMs: Unknown, SortFinishMs: Unknown}
}

// NewTask returns a Task with every optional integer set to Unknown.
func NewTask(jobID, taskID string, typ TaskType, index int32) Task {
	return Task{
		JobID: jobID, TaskID: taskID, Type: typ, Index: index,
		InputBytes: Unknown, OutputBytes: Unknown, ShuffleBytes: Unknown,
		StartMs: Unknown, FinishMs: Unknown, ShuffleFinishMs: Unknown, SortFinishMs: Unknown,
		LaunchLagMs: Unknown, ReportLagMs: Unknown,
	}
}
