package results

// Results as stored in Parquet. In Go a result time or size that is unknown or
// did not happen is Unset (-1); in jobs.parquet and tasks.parquet it is a null,
// as in the trace files, so that an average taken by DuckDB, pandas or Spark
// never includes a sentinel. JobRow and TaskRow are the stored rows; Row and
// Result convert between the two, and a file written before these columns were
// nullable (holding -1) reads back the same.

// JobRow is a Job as stored in jobs.parquet: the times that may be Unset
// and the trace's byte counts (unknown in some traces) are nullable, and so is
// slowdown, null when 0 (a job's slowdown is at least
// 1 when it is known: unfinished, or no lower bound to divide by).
type JobRow struct {
	Policy   string `parquet:"policy"`
	JobIndex int32  `parquet:"job_index"`
	JobID    string `parquet:"job_id"`
	Name     string `parquet:"name"`
	User     string `parquet:"user"`
	Queue    string `parquet:"queue"`
	Maps     int32  `parquet:"maps"`
	Reduces  int32  `parquet:"reduces"`

	SubmitUs            int64  `parquet:"submit_us"`
	FirstLaunchUs       *int64 `parquet:"first_launch_us,optional"`
	LastMapEndUs        *int64 `parquet:"last_map_end_us,optional"`
	FirstReduceLaunchUs *int64 `parquet:"first_reduce_launch_us,optional"`
	LastReduceLaunchUs  *int64 `parquet:"last_reduce_launch_us,optional"`
	FinishUs            *int64 `parquet:"finish_us,optional"`

	FlowtimeUs   *int64   `parquet:"flowtime_us,optional"`
	IdealUs      int64    `parquet:"ideal_us"`
	AloneUs      *int64   `parquet:"alone_us,optional"`
	WaitingUs    *int64   `parquet:"waiting_us,optional"`
	StarvationUs int64    `parquet:"starvation_us"`
	Slowdown     *float64 `parquet:"slowdown,optional"`

	MapsNodeLocal int32 `parquet:"maps_node_local"`
	MapsRackLocal int32 `parquet:"maps_rack_local"`
	MapsOffRack   int32 `parquet:"maps_off_rack"`
	ReducesLate   int32 `parquet:"reduces_late"`

	InputBytes         *int64 `parquet:"input_bytes,optional"`
	ShuffleBytes       *int64 `parquet:"shuffle_bytes,optional"`
	OutputBytes        *int64 `parquet:"output_bytes,optional"`
	ObservedFlowtimeUs *int64 `parquet:"observed_flowtime_us,optional"`
	Status             string `parquet:"status"`
}

// TaskRow is a Task as stored in tasks.parquet: node, times and input
// bytes are nullable (a map has no shuffle end; an observed trace may not know
// a task's node, times or bytes).
type TaskRow struct {
	Policy       string `parquet:"policy"`
	JobIndex     int32  `parquet:"job_index"`
	JobID        string `parquet:"job_id"`
	Type         string `parquet:"type"`
	Index        int32  `parquet:"index"`
	Node         *int32 `parquet:"node,optional"`
	Host         string `parquet:"host"`
	Rack         string `parquet:"rack"`
	Locality     string `parquet:"locality"`
	LaunchUs     *int64 `parquet:"launch_us,optional"`
	ShuffleEndUs *int64 `parquet:"shuffle_end_us,optional"`
	FinishUs     *int64 `parquet:"finish_us,optional"`
	InputBytes   *int64 `parquet:"input_bytes,optional"`
}

// opt points at *v, or is nil when *v is Unset.
func opt[T int32 | int64](v *T) *T {
	if *v == Unset {
		return nil
	}
	return v
}

// val is *p, or Unset when p is nil.
func val[T int32 | int64](p *T) T {
	if p == nil {
		return Unset
	}
	return *p
}

// Row returns r as stored. The row points into r: keep r unchanged while the
// row is in use.
func (r *Job) Row() JobRow {
	row := JobRow{
		Policy: r.Policy, JobIndex: r.JobIndex, JobID: r.JobID, Name: r.Name, User: r.User, Queue: r.Queue,
		Maps: r.Maps, Reduces: r.Reduces, SubmitUs: r.SubmitUs,
		FirstLaunchUs: opt(&r.FirstLaunchUs), LastMapEndUs: opt(&r.LastMapEndUs),
		FirstReduceLaunchUs: opt(&r.FirstReduceLaunchUs), LastReduceLaunchUs: opt(&r.LastReduceLaunchUs),
		FinishUs: opt(&r.FinishUs), FlowtimeUs: opt(&r.FlowtimeUs), IdealUs: r.IdealUs,
		AloneUs: opt(&r.AloneUs), WaitingUs: opt(&r.WaitingUs), StarvationUs: r.StarvationUs,
		MapsNodeLocal: r.MapsNodeLocal, MapsRackLocal: r.MapsRackLocal, MapsOffRack: r.MapsOffRack,
		ReducesLate: r.ReducesLate, InputBytes: opt(&r.InputBytes), ShuffleBytes: opt(&r.ShuffleBytes),
		OutputBytes: opt(&r.OutputBytes), ObservedFlowtimeUs: opt(&r.ObservedFlowtimeUs), Status: r.Status,
	}
	if r.Slowdown != 0 {
		row.Slowdown = &r.Slowdown
	}
	return row
}

// Result returns the Job the row stores, nulls as Unset (slowdown 0).
func (row *JobRow) Result() Job {
	r := Job{
		Policy: row.Policy, JobIndex: row.JobIndex, JobID: row.JobID, Name: row.Name, User: row.User,
		Queue: row.Queue, Maps: row.Maps, Reduces: row.Reduces, SubmitUs: row.SubmitUs,
		FirstLaunchUs: val(row.FirstLaunchUs), LastMapEndUs: val(row.LastMapEndUs),
		FirstReduceLaunchUs: val(row.FirstReduceLaunchUs), LastReduceLaunchUs: val(row.LastReduceLaunchUs),
		FinishUs: val(row.FinishUs), FlowtimeUs: val(row.FlowtimeUs), IdealUs: row.IdealUs,
		AloneUs: val(row.AloneUs), WaitingUs: val(row.WaitingUs), StarvationUs: row.StarvationUs,
		MapsNodeLocal: row.MapsNodeLocal, MapsRackLocal: row.MapsRackLocal, MapsOffRack: row.MapsOffRack,
		ReducesLate: row.ReducesLate, InputBytes: val(row.InputBytes), ShuffleBytes: val(row.ShuffleBytes),
		OutputBytes: val(row.OutputBytes), ObservedFlowtimeUs: val(row.ObservedFlowtimeUs), Status: row.Status,
	}
	if row.Slowdown != nil {
		r.Slowdown = *row.Slowdown
	}
	return r
}

// Jobs converts stored rows back to Jobs.
func Jobs(rows []JobRow) []Job {
	out := make([]Job, len(rows))
	for i := range rows {
		out[i] = rows[i].Result()
	}
	return out
}

// Row returns t as stored. The row points into t: keep t unchanged while the
// row is in use.
func (t *Task) Row() TaskRow {
	return TaskRow{Policy: t.Policy, JobIndex: t.JobIndex, JobID: t.JobID, Type: t.Type, Index: t.Index,
		Node: opt(&t.Node), Host: t.Host, Rack: t.Rack, Locality: t.Locality, LaunchUs: opt(&t.LaunchUs),
		ShuffleEndUs: opt(&t.ShuffleEndUs), FinishUs: opt(&t.FinishUs), InputBytes: opt(&t.InputBytes)}
}

// Result returns the Task the row stores, nulls as Unset.
func (row *TaskRow) Result() Task {
	return Task{Policy: row.Policy, JobIndex: row.JobIndex, JobID: row.JobID, Type: row.Type,
		Index: row.Index, Node: val(row.Node), Host: row.Host, Rack: row.Rack, Locality: row.Locality,
		LaunchUs: val(row.LaunchUs), ShuffleEndUs: val(row.ShuffleEndUs), FinishUs: val(row.FinishUs),
		InputBytes: val(row.InputBytes)}
}

// TimelineRow is a TimelineSample as stored in timeline.parquet: the
// whole-cluster rows (JobIndex -1 in Go) have a null job_index, so that no
// aggregate over the column counts a sentinel.
type TimelineRow struct {
	Policy         string `parquet:"policy"`
	TimeUs         int64  `parquet:"time_us"`
	JobIndex       *int32 `parquet:"job_index,optional"`
	RunningMaps    int32  `parquet:"running_maps"`
	RunningReduces int32  `parquet:"running_reduces"`
}

// Row returns t as stored. The row points into t: keep t unchanged while the
// row is in use.
func (t *TimelineSample) Row() TimelineRow {
	return TimelineRow{Policy: t.Policy, TimeUs: t.TimeUs, JobIndex: opt(&t.JobIndex),
		RunningMaps: t.RunningMaps, RunningReduces: t.RunningReduces}
}

// Sample returns the row as a TimelineSample: a null job_index (or the -1 of
// files written before it was null) is the whole cluster, -1.
func (r *TimelineRow) Sample() TimelineSample {
	return TimelineSample{Policy: r.Policy, TimeUs: r.TimeUs, JobIndex: val(r.JobIndex),
		RunningMaps: r.RunningMaps, RunningReduces: r.RunningReduces}
}

// TimelineSamples converts rows read from timeline.parquet.
func TimelineSamples(rows []TimelineRow) []TimelineSample {
	out := make([]TimelineSample, len(rows))
	for i := range rows {
		out[i] = rows[i].Sample()
	}
	return out
}
