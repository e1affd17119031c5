package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/trace"
	"github.com/tracereplay/tracereplay/version"
)

// Version is the tracereplay version written into every output's metadata
// (version.Version).
const Version = version.Version

// Result file names inside a run directory.
const (
	JobsFile     = "jobs.parquet"
	TasksFile    = "tasks.parquet"
	TimelineFile = "timeline.parquet"
	NodesFile    = "nodes.parquet"    // per-node totals (netstats.go)
	NodeNetFile  = "node_net.parquet" // per-node network bytes per timeline interval
	SummaryFile  = "run.json"
	ManifestFile = "manifest.json"
)

// WriteRun writes one run's results into dir (created if needed): jobs.parquet,
// timeline.parquet, nodes.parquet, tasks.parquet when tasks were recorded,
// node_net.parquet when the timeline was sampled, and run.json. meta goes
// into every Parquet file's key/value metadata. Each file is written atomically;
// the same results give byte-identical files.
func WriteRun(dir string, res *Result, meta map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if err := trace.WriteParquetFile(filepath.Join(dir, JobsFile), res.Jobs, meta,
		trace.ParquetOptions{SortedBy: []string{"job_index"}}); err != nil {
		return err
	}
	if err := trace.WriteParquetFile(filepath.Join(dir, TimelineFile), res.Timeline, meta,
		trace.ParquetOptions{SortedBy: []string{"time_us"}}); err != nil {
		return err
	}
	if res.Tasks != nil {
		if err := trace.WriteParquetFile(filepath.Join(dir, TasksFile), res.Tasks, meta); err != nil {
			return err
		}
	}
	if err := writeNodes(dir, res, meta); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res.Summary, "", "  ")
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return WriteFileAtomic(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// WriteFileAtomic writes b to path through a temporary file in the same directory,
// fsync and a rename (safeout.WriteFile), so readers never see a partial file.
func WriteFileAtomic(path string, b []byte) error { return safeout.WriteFile(path, b) }

// ReadSummary reads a run's run.json.
func ReadSummary(dir string) (RunSummary, error) {
	var s RunSummary
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return s, fmt.Errorf("read run summary: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("read %s: %w", filepath.Join(dir, SummaryFile), err)
	}
	return s, nil
}

// Manifest is OUT/manifest.json: what one invocation of replay ran, with the
// inputs' SHA-256, every run's hardware model and wall-clock figures. It is the
// only results file that is not byte-identical across repeated runs.
type Manifest struct {
	Tool       string            `json:"tool"`
	GoVersion  string            `json:"go_version"`
	Args       []string          `json:"args"`
	Seed       uint64            `json:"seed,omitempty"`
	Experiment string            `json:"experiment,omitempty"`
	Inputs     map[string]string `json:"inputs_sha256"`
	Runs       []ManifestRun     `json:"runs"`
	WallSec    float64           `json:"wall_seconds"`
}

// ManifestRun is one run of a Manifest.
type ManifestRun struct {
	Dir      string   `json:"dir"`
	Policy   string   `json:"policy"`
	Trace    string   `json:"trace"`
	Hardware Hardware `json:"hardware"`
	Seed     uint64   `json:"seed"`
	// TraceSHA256 and HardwareSHA256 identify the run's trace content and
	// hardware model (identity.go); runs of one cell share them.
	TraceSHA256    string  `json:"trace_sha256,omitempty"`
	HardwareSHA256 string  `json:"hardware_sha256,omitempty"`
	Jobs           int     `json:"jobs"`
	Events         int64   `json:"events"`
	WallSec        float64 `json:"wall_seconds"`
	EventsPerSec   float64 `json:"events_per_second"`
}
