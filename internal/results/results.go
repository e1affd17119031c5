// Package results is the schema of tracereplay's results: the per-job,
// per-task, timeline and per-node rows of a run, their Parquet form, run.json and
// manifest.json, and reading them. It links neither the simulator nor the
// report, so that both, and any tool reading results, share one schema.
package results

// The results dataset of one run (one policy on one trace, hardware model and seed)
// is a directory holding jobs.parquet (Job rows), timeline.parquet
// (TimelineSample rows) and, when asked for, tasks.parquet (Task rows), plus
// run.json (RunSummary). cmd/replay writes one such directory per run under
// OUT/policy=NAME/ (experiments add hw=…/seed=… levels) and OUT/manifest.json.
// All times are integer microseconds of simulated time, counted from the submit
// time of the trace's first job.

// Job is one job's outcome in one run. Times are Unset (-1) when the event
// did not happen (a map-only job has no reduce launch).
type Job struct {
	Policy   string `parquet:"policy"`
	JobIndex int32  `parquet:"job_index"` // position in the trace's submit order
	JobID    string `parquet:"job_id"`
	Name     string `parquet:"name"`
	User     string `parquet:"user"`
	Queue    string `parquet:"queue"`
	Maps     int32  `parquet:"maps"`
	Reduces  int32  `parquet:"reduces"`

	SubmitUs            int64 `parquet:"submit_us"`
	FirstLaunchUs       int64 `parquet:"first_launch_us"`
	LastMapEndUs        int64 `parquet:"last_map_end_us"`
	FirstReduceLaunchUs int64 `parquet:"first_reduce_launch_us"`
	LastReduceLaunchUs  int64 `parquet:"last_reduce_launch_us"`
	FinishUs            int64 `parquet:"finish_us"`

	FlowtimeUs   int64   `parquet:"flowtime_us"`   // finish - submit (EAS §3.4)
	IdealUs      int64   `parquet:"ideal_us"`      // lower bound: the job alone on the cluster, no heartbeat latency, every map local
	AloneUs      int64   `parquet:"alone_us"`      // flowtime replayed alone (replay.Options.Alone), else Unset
	WaitingUs    int64   `parquet:"waiting_us"`    // first launch - submit
	StarvationUs int64   `parquet:"starvation_us"` // Coupling §III-C; 0 when no reduce launched after the last map ended
	Slowdown     float64 `parquet:"slowdown"`      // flowtime / alone (H-PFSP §IV-B) when measured, else flowtime / ideal

	MapsNodeLocal int32 `parquet:"maps_node_local"`
	MapsRackLocal int32 `parquet:"maps_rack_local"`
	MapsOffRack   int32 `parquet:"maps_off_rack"`
	// ReducesLate counts the reduces launched after the last map ended, the set
	// StarvationUs averages over.
	ReducesLate int32 `parquet:"reduces_late"`

	InputBytes   int64 `parquet:"input_bytes"`
	ShuffleBytes int64 `parquet:"shuffle_bytes"`
	OutputBytes  int64 `parquet:"output_bytes"`
	// ObservedFlowtimeUs is the flowtime the trace itself recorded, -1 if unknown.
	ObservedFlowtimeUs int64 `parquet:"observed_flowtime_us"`
	// Status is how the job ended (SchemaVersion 2): a simulated job is
	// StatusSucceeded, or StatusFailed when a task used up its attempts and
	// failed it; an observed job has the trace's status (SUCCEEDED, FAILED,
	// KILLED, INCOMPLETE, or "" when the trace does not say). "" in results
	// written before the column existed.
	Status string `parquet:"status"`
}

// Job statuses of simulated runs (observed runs carry the trace's).
const (
	StatusSucceeded = "SUCCEEDED"
	StatusFailed    = "FAILED"
)

// Task is one task's outcome in one run.
type Task struct {
	Policy       string `parquet:"policy"`
	JobIndex     int32  `parquet:"job_index"`
	JobID        string `parquet:"job_id"`
	Type         string `parquet:"type"` // MAP or REDUCE
	Index        int32  `parquet:"index"`
	Node         int32  `parquet:"node"`
	Host         string `parquet:"host"`
	Rack         string `parquet:"rack"`
	Locality     string `parquet:"locality"` // NODE_LOCAL, RACK_LOCAL, OFF_SWITCH; empty for reduces
	LaunchUs     int64  `parquet:"launch_us"`
	ShuffleEndUs int64  `parquet:"shuffle_end_us"` // reduces only, else -1
	FinishUs     int64  `parquet:"finish_us"`
	InputBytes   int64  `parquet:"input_bytes"`
}

// TimelineSample is the number of running tasks of one job at one sampled instant;
// JobIndex -1 is the whole cluster (null in timeline.parquet, TimelineRow). Only
// jobs with a running task are listed.
type TimelineSample struct {
	Policy         string `parquet:"policy"`
	TimeUs         int64  `parquet:"time_us"`
	JobIndex       int32  `parquet:"job_index"`
	RunningMaps    int32  `parquet:"running_maps"`
	RunningReduces int32  `parquet:"running_reduces"`
}

// Unset marks a result time that did not happen.
const Unset = -1

// LeftOutJob is a job of the trace that a run left out, and why.
type LeftOutJob struct {
	JobID  string `json:"job_id"`
	Reason string `json:"reason"`
}

// RunSummary holds the run-level metrics of one run, written as run.json beside the
// run's Parquet files and into the manifest.
type RunSummary struct {
	Policy   string `json:"policy"`
	Trace    string `json:"trace"`
	Hardware string `json:"hardware"`
	Seed     uint64 `json:"seed"`
	// Params are the experiment parameters of this cell (sweep values), if any.
	Params map[string]string `json:"params,omitempty"`

	Jobs       int   `json:"jobs"`
	Maps       int64 `json:"maps"`
	Reduces    int64 `json:"reduces"`
	MakespanUs int64 `json:"makespan_us"` // last finish - first submit

	TotalFlowtimeUs int64 `json:"total_flowtime_us"`
	// MapLocality is the fraction of maps that ran node-local (EAS eq. 6, LM/TM).
	MapLocality  float64 `json:"map_locality"`
	RackLocality float64 `json:"rack_locality"`
	// MapThroughput and ReduceThroughput are tasks finished per second of makespan
	// on map and reduce slots (EAS eqs. 1-4 in the aggregate).
	MapThroughput    float64 `json:"map_throughput"`
	ReduceThroughput float64 `json:"reduce_throughput"`
	// LoadBalanceSum is EAS §5.4 as the paper states it: Σ_t LB^t, LB^t being the
	// standard deviation in MB, over the map machines, of the un-processed input
	// of the unfinished maps on each machine, taken at every N_m-th launched map:
	// running maps on (or, when remote, reading from) the machine, their progress
	// linear in time; maps a plan-based policy holds queued there; and, for other
	// policies, each pending map's input shared equally among its replica
	// holders. The paper then normalises the values of a figure to [0, 1].
	LoadBalanceSum float64 `json:"load_balance_sum"`
	// MapMachineThroughput and ReduceMachineThroughput are EAS eqs. 3 and 4 in
	// MB/s: the sum over map (reduce) machines of the input bytes of the maps
	// (shuffle bytes of the reduces) each ran divided by the end of its last such
	// task, counted from the first submission (eqs. 1 and 2).
	MapMachineThroughput    float64 `json:"map_machine_throughput"`
	ReduceMachineThroughput float64 `json:"reduce_machine_throughput"`
	// Utilisation is busy slot time over available slot time during the
	// makespan; on a YARN cluster (cluster = "yarn"), the memory·time that map
	// and reduce containers held over the cluster's memory·time.
	MapUtilisation    float64 `json:"map_utilisation"`
	ReduceUtilisation float64 `json:"reduce_utilisation"`
	// AMUtilisation is, on a YARN cluster, the share of the cluster's
	// memory·time that ApplicationMaster containers held; 0 (left out) on a
	// slot cluster.
	AMUtilisation float64 `json:"am_utilisation,omitempty"`
	// Preemptions is, on a YARN cluster, the containers the scheduler
	// preempted, and ReducesPreemptedByAM the reduces the MRAppMasters
	// killed for their own maps (left out when 0).
	Preemptions          int64 `json:"preemptions,omitempty"`
	ReducesPreemptedByAM int64 `json:"reduces_preempted_by_am,omitempty"`
	// JainFairness is Jain's index over the jobs' slowdowns.
	JainFairness float64 `json:"jain_fairness"`
	// NetworkBytes is the bytes moved across the network (remote map input and
	// shuffle fetched from other nodes).
	NetworkBytes int64 `json:"network_bytes"`

	// JobsLeftOut is the jobs of the trace the run left out because the
	// lifecycle cannot replay them from their attempts (replay.Workload.LeftOut),
	// in trace order; left out of run.json when there are none.
	JobsLeftOut []LeftOutJob `json:"jobs_left_out,omitempty"`

	// Events is the number of simulator events processed; deterministic. Wall
	// time and events per second go to the manifest only, so that run.json stays
	// byte-identical across runs.
	Events int64 `json:"events"`
}
