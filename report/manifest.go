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

// ReadManifest reads root/manifest.json. It returns nil and no error when there
// is none (a single run directory, or results not written by cmd/replay), and
// the file's bytes for display.
func ReadManifest(root string) (*replay.Manifest, []byte, error) {
	path := filepath.Join(root, replay.ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest: %w", err)
	}
	var m replay.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return &m, b, nil
}
