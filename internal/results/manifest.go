package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Manifest is OUT/manifest.json: what one invocation of replay ran, with the
// inputs' SHA-256, every run's hardware model and wall-clock figures. It is the
// only results file that is not byte-identical across repeated runs.
//
// H is the type of a run's hardware model: the simulator's replay.Hardware when
// writing (replay.Manifest), HardwareJSON when reading without the simulator
// (RunManifest).
type Manifest[H any] struct {
	Tool       string            `json:"tool"`
	GoVersion  string            `json:"go_version"`
	Args       []string          `json:"args"`
	Seed       uint64            `json:"seed,omitempty"`
	Experiment string            `json:"experiment,omitempty"`
	Inputs     map[string]string `json:"inputs_sha256"`
	Runs       []ManifestRun[H]  `json:"runs"`
	WallSec    float64           `json:"wall_seconds"`
}

// ManifestRun is one run of a Manifest.
type ManifestRun[H any] struct {
	Dir      string `json:"dir"`
	Policy   string `json:"policy"`
	Trace    string `json:"trace"`
	Hardware H      `json:"hardware"`
	Seed     uint64 `json:"seed"`
	// TraceSHA256 and HardwareSHA256 identify the run's trace content and
	// hardware model (replay/identity.go); runs of one cell share them.
	TraceSHA256    string  `json:"trace_sha256,omitempty"`
	HardwareSHA256 string  `json:"hardware_sha256,omitempty"`
	Jobs           int     `json:"jobs"`
	Events         int64   `json:"events"`
	WallSec        float64 `json:"wall_seconds"`
	EventsPerSec   float64 `json:"events_per_second"`
}

// RunManifest is a manifest as a reader of results sees it: each run's
// hardware model as the JSON the simulator wrote.
type RunManifest = Manifest[HardwareJSON]

// HardwareJSON is a hardware model as recorded in the results (the JSON of
// replay.Hardware), read without the simulator.
type HardwareJSON json.RawMessage

// MarshalJSON returns h itself ("null" when empty).
func (h HardwareJSON) MarshalJSON() ([]byte, error) {
	if len(h) == 0 {
		return []byte("null"), nil
	}
	return h, nil
}

// UnmarshalJSON keeps a copy of b.
func (h *HardwareJSON) UnmarshalJSON(b []byte) error {
	*h = append((*h)[:0], b...)
	return nil
}

// Name is the hardware model's name, "" when it has none or h is not a JSON
// object.
func (h HardwareJSON) Name() string {
	var v struct{ Name string }
	if json.Unmarshal(h, &v) != nil {
		return ""
	}
	return v.Name
}

// SHA256 is the canonical identity of the hardware model: the SHA-256 of its
// JSON with keys sorted and zero values (0, "", false, empty lists) left out,
// so that a field added to the hardware model later with a zero default does
// not change the identity of older models. It is "" when h is not JSON.
func (h HardwareJSON) SHA256() string {
	var v any
	if err := json.Unmarshal(h, &v); err != nil {
		return ""
	}
	if v == nil {
		v = map[string]any{} // no model recorded: every key zero
	}
	c, err := json.Marshal(dropZero(v))
	if err != nil {
		return ""
	}
	s := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(s[:])
}

// dropZero removes zero values from decoded JSON, recursively.
func dropZero(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			e = dropZero(e)
			if isZero(e) {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		return x
	case []any:
		for i := range x {
			x[i] = dropZero(x[i])
		}
		return x
	}
	return v
}

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// ReadManifest reads root/manifest.json. It returns nil and no error when there
// is none (a single run directory, or results not written by cmd/replay), and
// the file's bytes for display.
func ReadManifest(root string) (*RunManifest, []byte, error) {
	path := filepath.Join(root, ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest: %w", err)
	}
	var m RunManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &m, b, nil
}
