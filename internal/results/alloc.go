package results

// The rows of a BAR allocation study (the allocation-study package).

// AllocRow is one algorithm's allocation of one instance of a study.
type AllocRow struct {
	Case        string `parquet:"case"`
	System      string `parquet:"system"`
	Servers     int32  `parquet:"servers"`
	Tasks       int32  `parquet:"tasks"`
	QUs         int64  `parquet:"q_us"`
	WUs         int64  `parquet:"w_us"`
	CLocUs      int64  `parquet:"c_loc_us"`
	Seed        uint64 `parquet:"seed"`
	Algorithm   string `parquet:"algorithm"`
	MakespanUs  int64  `parquet:"makespan_us"`
	LocalTasks  int32  `parquet:"local_tasks"`
	RemoteTasks int32  `parquet:"remote_tasks"`
	// Locality is the data locality ratio DR of Table IV: local tasks / tasks.
	Locality float64 `parquet:"locality"`
	// Ratio is this makespan over the makespan of the study's first algorithm
	// on the same instance (MR of Table IV when that algorithm is BAR).
	Ratio float64 `parquet:"ratio"`
}

// AllocTiming is how long one algorithm took on one instance (Fig. 9). Wall time
// is not deterministic, so these rows go to their own file.
type AllocTiming struct {
	Case      string `parquet:"case"`
	System    string `parquet:"system"`
	Servers   int32  `parquet:"servers"`
	Tasks     int32  `parquet:"tasks"`
	Seed      uint64 `parquet:"seed"`
	Algorithm string `parquet:"algorithm"`
	WallNs    int64  `parquet:"wall_ns"`
}

// Files of a study's results directory.
const (
	AllocFile       = "alloc.parquet"        // AllocRow, deterministic
	AllocTimingFile = "alloc_timing.parquet" // AllocTiming, wall times
)
