package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tracereplay/tracereplay/internal/results"
)

// A run's identity is its trace content, hardware model and policy spec
// (replay/identity.go). Runs are replicates (seeds) of one cell only when their
// identities agree; names alone never decide it.

// attachIdentity fills TraceID and HardwareID of every simulation run from the
// manifest.json of the results directory the run belongs to: the nearest one at
// or above the run's directory that lists it. Runs no manifest lists keep empty
// identities (they are then told apart by their trace and hardware names). A
// manifest inside root that cannot be read is an error; one above root is
// skipped.
func attachIdentity(root string, runs []Run) error {
	manifests := map[string]*results.RunManifest{} // by directory; nil: none there
	load := func(dir string) (*results.RunManifest, error) {
		if m, ok := manifests[dir]; ok {
			return m, nil
		}
		var m *results.RunManifest
		b, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			m = new(results.RunManifest)
			if err := json.Unmarshal(b, m); err != nil {
				return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, results.ManifestFile), err)
			}
		}
		manifests[dir] = m
		return m, nil
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	for i := range runs {
		r := &runs[i]
		if r.Alloc != nil || r.Dir == "" {
			continue
		}
		dir, err := filepath.Abs(r.Dir)
		if err != nil {
			return err
		}
		for d := dir; ; d = filepath.Dir(d) {
			inside := d == absRoot || strings.HasPrefix(d, absRoot+string(filepath.Separator))
			m, err := load(d)
			if err != nil {
				if inside {
					return fmt.Errorf("results %s: %w", root, err)
				}
				m = nil
			}
			if mr := findRun(m, d, dir); mr != nil {
				r.TraceID, r.HardwareID = mr.TraceSHA256, mr.HardwareSHA256
				if r.HardwareID == "" { // manifests before identities: the model is there
					r.HardwareID = mr.Hardware.SHA256()
				}
				break
			}
			if m != nil || filepath.Dir(d) == d {
				break
			}
		}
	}
	return nil
}

// findRun returns the run of m (in directory mdir) whose directory is dir.
func findRun(m *results.RunManifest, mdir, dir string) *results.ManifestRun[results.HardwareJSON] {
	if m == nil {
		return nil
	}
	rel, err := filepath.Rel(mdir, dir)
	if err != nil {
		return nil
	}
	rel = filepath.ToSlash(rel)
	for i := range m.Runs {
		if filepath.ToSlash(m.Runs[i].Dir) == rel {
			return &m.Runs[i]
		}
	}
	return nil
}

// sameTraceID reports whether a and b replayed the same trace: equal TraceIDs
// when both are known, else equal trace names (run.json), the seed left out of
// a generated trace's name (GENERATOR{params}@SEED).
func sameTraceID(a, b Run) bool {
	if a.TraceID != "" && b.TraceID != "" {
		return a.TraceID == b.TraceID
	}
	return generatorSeed.ReplaceAllString(a.Summary.Trace, "$1") == generatorSeed.ReplaceAllString(b.Summary.Trace, "$1")
}

// generatorSeed matches the seed suffix of a generated trace's name.
var generatorSeed = regexp.MustCompile(`^([^{}@]+\{.*\})@[0-9]+$`)

// sameHardware is sameTrace for the hardware model.
func sameHardware(a, b Run) bool {
	if a.HardwareID != "" && b.HardwareID != "" {
		return a.HardwareID == b.HardwareID
	}
	return a.Summary.Hardware == b.Summary.Hardware
}

// traceText and hardwareText describe a run's trace and hardware for messages:
// the name and a short hash.
func traceText(r Run) string    { return idText(r.Summary.Trace, r.TraceID) }
func hardwareText(r Run) string { return idText(r.Summary.Hardware, r.HardwareID) }

func idText(name, id string) string {
	if name == "" {
		name = "(unnamed)"
	}
	if id == "" {
		return name
	}
	return name + " " + shortID(id)
}

// shortID is "sha256:" and the first 12 hex digits.
func shortID(id string) string {
	if len(id) > len("sha256:")+12 {
		return id[:len("sha256:")+12]
	}
	return id
}

// cellSeed is a run's seed: its seed label, else run.json's.
func cellSeed(r Run) string {
	if s, ok := r.Label(SeedLabel); ok {
		return s
	}
	return fmt.Sprint(r.Summary.Seed)
}

// CheckCells refuses simulation runs that GroupRuns would average as seeds of
// one cell but that are not replicates: runs with equal labels (but the seed)
// that replayed different traces or hardware models, and runs of one cell with
// the same seed (one run counted twice). The error names two such runs and what
// differs; give the runs distinct labels (key=value directories) or report them
// separately.
func CheckCells(runs []Run) error {
	_, sims := SplitAllocStudies(runs)
	for _, g := range GroupRuns(sims) {
		first := g.Runs[0]
		seeds := map[string]string{}
		for _, r := range g.Runs {
			switch {
			case !sameTraceID(first, r):
				return fmt.Errorf("runs %s and %s have the same labels but replayed different traces (%s and %s): they are not seeds of one cell; give them distinct labels (e.g. trace=NAME directories) or report them separately",
					first.Dir, r.Dir, traceText(first), traceText(r))
			case !sameHardware(first, r):
				return fmt.Errorf("runs %s and %s have the same labels but ran on different hardware (%s and %s): they are not seeds of one cell; give them distinct labels (e.g. hw=NAME directories) or report them separately",
					first.Dir, r.Dir, hardwareText(first), hardwareText(r))
			}
			s := cellSeed(r)
			if other, dup := seeds[s]; dup {
				return fmt.Errorf("runs %s and %s are the same cell and seed %s: they would be counted as two seeds; report them separately", other, r.Dir, s)
			}
			seeds[s] = r.Dir
		}
	}
	return nil
}
