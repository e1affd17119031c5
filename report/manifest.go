package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tracereplay/tracereplay/replay"
)

// Manifest is the part of a results tree's manifest.json (written by cmd/replay)
// that reports show. Unknown fields are ignored, so that a newer replay's
// manifest still reads.
type Manifest struct {
	Tool       string            `json:"tool"`
	GoVersion  string            `json:"go_version"`
	Args       []string          `json:"args"`
	Seed       uint64            `json:"seed"`
	Experiment string            `json:"experiment"`
	Inputs     map[string]string `json:"inputs_sha256"`
	Runs       []ManifestRun     `json:"runs"`
	WallSec    float64           `json:"wall_seconds"`
}

// ManifestRun is one run of a Manifest.
type ManifestRun struct {
	Dir      string `json:"dir"`
	Policy   string `json:"policy"`
	Trace    string `json:"trace"`
	Hardware struct {
		Name string `json:"name"`
	} `json:"hardware"`
	Seed         uint64  `json:"seed"`
	Jobs         int     `json:"jobs"`
	Events       int64   `json:"events"`
	WallSec      float64 `json:"wall_seconds"`
	EventsPerSec float64 `json:"events_per_second"`
}

// ReadManifest reads root/manifest.json. It returns nil and no error when there
// is none (a single run directory, or results not written by cmd/replay), and
// the file's bytes for display.
func ReadManifest(root string) (*Manifest, []byte, error) {
	path := filepath.Join(root, replay.ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &m, b, nil
}
