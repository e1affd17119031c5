package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tracereplay/tracereplay/internal/safeout"
	"github.com/tracereplay/tracereplay/internal/version"
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
// node_net.parquet when the timeline was sampled and data moved, and run.json.
// meta goes into every Parquet file's key/value metadata. Each file is written
// atomically; the same results give byte-identical files. A run made with
// Options.Out has streamed its tasks, timeline and node_net rows into that
// RunWriter, whose directory dir must be: WriteRun completes those files.
func WriteRun(dir string, res *Result, meta map[string]string) error {
	w := res.out
	if w == nil {
		var err error
		if w, err = NewRunWriter(dir); err != nil {
			return err
		}
		for i := range res.Tasks {
			w.addTask(&res.Tasks[i])
		}
		for i := range res.Timeline {
			w.addSample(&res.Timeline[i])
		}
		for i := range res.NodeNet {
			w.addNodeNet(&res.NodeNet[i])
		}
	} else if filepath.Clean(w.dir) != filepath.Clean(dir) {
		return fmt.Errorf("write results: the run streamed into %s, not %s", w.dir, dir)
	}
	err := w.finish(res, meta)
	if err != nil {
		w.Abort()
	}
	return err
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
