package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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

// WriteFileAtomic writes b to path through a temporary file in the same directory
// and a rename, so readers never see a partial file.
func WriteFileAtomic(path string, b []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file private; results are as readable as the
	// Parquet files beside them.
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

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
	Dir          string   `json:"dir"`
	Policy       string   `json:"policy"`
	Trace        string   `json:"trace"`
	Hardware     Hardware `json:"hardware"`
	Seed         uint64   `json:"seed"`
	Jobs         int      `json:"jobs"`
	Events       int64    `json:"events"`
	WallSec      float64  `json:"wall_seconds"`
	EventsPerSec float64  `json:"events_per_second"`
}
