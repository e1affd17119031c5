// Package trace holds tracereplay's canonical job trace: the Job and Task types that
// every input format is read into, the Parquet reader and writer of the trace
// dataset, format detection, one reader per input format, and the synthesis of tasks
// from job-level byte counts.
//
// A trace is a directory holding jobs.parquet and, when the input format knows
// tasks, tasks.parquet. Times are integer milliseconds: since the Unix epoch for
// real job histories, since the start of the workload for SWIM and synthetic
// traces. Unknown integers are -1 in memory and null in Parquet.
package trace

// SchemaVersion is written into the key/value metadata of every trace file; readers
// refuse files with a newer major version.
const SchemaVersion = "1"

// Unknown marks an integer field whose value the input did not give.
const Unknown = -1

// TaskType says whether a task is a map or a reduce.
type TaskType uint8

// Task types. Setup and cleanup tasks of Hadoop 1 histories are not kept.
const (
	Map TaskType = iota
	Reduce
)

// String returns "MAP" or "REDUCE", the spelling used in Parquet and in Hadoop.
func (t TaskType) String() string {
	if t == Reduce {
		return "REDUCE"
	}
	return "MAP"
}

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

	FailedAttempts int32 // failed task attempts over the whole job
	KilledAttempts int32 // killed task attempts over the whole job
	WastedMs       int64 // summed duration of failed and killed attempts
}

// Task is one map or reduce task of a job, with what the trace observed of its
// successful attempt.
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
}

// Trace is a whole trace in memory: jobs ordered by submit time then id, and the
// tasks of all jobs ordered by job (in job order), type (maps first) and index.
type Trace struct {
	Jobs  []Job
	Tasks []Task // empty when the source has job-level data only
	Meta  Meta
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
	}
}

// NewTask returns a Task with every optional integer set to Unknown.
func NewTask(jobID, taskID string, typ TaskType, index int32) Task {
	return Task{
		JobID: jobID, TaskID: taskID, Type: typ, Index: index,
		InputBytes: Unknown, OutputBytes: Unknown, ShuffleBytes: Unknown,
		StartMs: Unknown, FinishMs: Unknown, ShuffleFinishMs: Unknown, SortFinishMs: Unknown,
	}
}
