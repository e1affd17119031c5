package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Experiment is a spec that replay runs as a cartesian product: every trace ×
// hardware model × sweep point × policy × seed is one cell. See the README's
// experiment reference and samples/experiments/.
type Experiment struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Policies    []string       `toml:"policies"`
	Seeds       []uint64       `toml:"seeds"`
	Traces      []ExpTrace     `toml:"traces"`
	Hardware    []ExpHardware  `toml:"hardware"`
	Sweep       map[string]any `toml:"sweep"` // hardware key, or "trace.<param>" for generator params -> list of values
	// Tasks keeps per-task results; Timeline samples running tasks (default true).
	Tasks    bool  `toml:"tasks"`
	Timeline *bool `toml:"timeline"`
	// AllocStudy, when set, makes the spec a static allocation study (BAR §V):
	// policies name the allocators, seeds are used, traces are not needed.
	AllocStudy *AllocStudy `toml:"alloc_study"`
	// Alone replays every job alone too and reports slowdown against that
	// flowtime (H-PFSP §IV-B; Options.Alone).
	Alone bool `toml:"alone"`

	dir string // the spec's folder; relative paths are resolved against it
}

// ExpTrace names one trace of an experiment: an ingested trace directory or raw
// trace file (Path), or a synthetic generator with parameters.
type ExpTrace struct {
	Name      string         `toml:"name"`
	Path      string         `toml:"path"`
	Format    string         `toml:"format"`
	Generator string         `toml:"generator"`
	Params    map[string]any `toml:"params"`
}

// ExpHardware names one hardware model: a TOML file, keys set on top of it (or on
// the defaults when there is no file).
type ExpHardware struct {
	Name string         `toml:"name"`
	Path string         `toml:"path"`
	Set  map[string]any `toml:"set"`
}

// Cell is one run of an experiment.
type Cell struct {
	Trace    ExpTrace
	Hardware Hardware
	HWName   string
	Policy   string
	Seed     uint64
	// Labels are the cell's coordinates in path order; Dir is the relative
	// directory its results go to: policy=…/trace=…/hw=…/<sweep>=…/seed=….
	Labels [][2]string
	Dir    string
}

// LoadExperiment reads and checks an experiment spec.
func LoadExperiment(path string) (*Experiment, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	var e Experiment
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(&e)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var keys []string
		for _, k := range und {
			keys = append(keys, k.String())
		}
		return nil, fmt.Errorf("experiment %s: unknown key %s; valid keys: name, description, policies, seeds, traces (name, path, format, generator, params), hardware (name, path, set), sweep, tasks, timeline, alone, alloc_study (c_loc, replication, placement, racks, systems, cases, timing)",
			path, strings.Join(keys, ", "))
	}
	e.dir = filepath.Dir(path)
	if e.Name == "" {
		e.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if len(e.Policies) == 0 || len(e.Traces) == 0 && e.AllocStudy == nil {
		return nil, fmt.Errorf("experiment %s: needs at least one policy and one trace", path)
	}
	if e.AllocStudy != nil {
		if err := e.AllocStudy.check(); err != nil {
			return nil, fmt.Errorf("experiment %s: %w", path, err)
		}
	}
	if len(e.Seeds) == 0 {
		e.Seeds = []uint64{1}
	}
	if len(e.Hardware) == 0 {
		e.Hardware = []ExpHardware{{Name: "default"}}
	}
	for i, t := range e.Traces {
		if (t.Path == "") == (t.Generator == "") {
			return nil, fmt.Errorf("experiment %s: trace %d needs exactly one of path and generator", path, i+1)
		}
		if t.Name == "" {
			t.Name = t.Generator
			if t.Path != "" {
				t.Name = strings.TrimSuffix(filepath.Base(t.Path), filepath.Ext(t.Path))
			}
		}
		if t.Path != "" && !filepath.IsAbs(t.Path) {
			t.Path = filepath.Join(e.dir, t.Path)
		}
		e.Traces[i] = t
	}
	for i, h := range e.Hardware {
		if h.Path != "" && !filepath.IsAbs(h.Path) {
			h.Path = filepath.Join(e.dir, h.Path)
		}
		if h.Name == "" {
			h.Name = "default"
			if h.Path != "" {
				h.Name = strings.TrimSuffix(filepath.Base(h.Path), filepath.Ext(h.Path))
			}
		}
		e.Hardware[i] = h
	}
	if err := e.checkDistinct(); err != nil { // experiment_check.go
		return nil, fmt.Errorf("experiment %s: %w", path, err)
	}
	return &e, nil
}

// TimelineOn reports whether cells sample running tasks over time.
func (e *Experiment) TimelineOn() bool { return e.Timeline == nil || *e.Timeline }

// sweepPoint is one combination of sweep values, keys sorted.
type sweepPoint [][2]any

func (e *Experiment) sweepPoints() ([]sweepPoint, error) {
	keys := make([]string, 0, len(e.Sweep))
	for k := range e.Sweep {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		vals, ok := e.Sweep[k].([]any)
		if !ok || len(vals) == 0 {
			return nil, fmt.Errorf("sweep %s: want a non-empty list of values", k)
		}
	}
	points := []sweepPoint{nil}
	for _, k := range keys {
		vals := e.Sweep[k].([]any)
		var next []sweepPoint
		for _, p := range points {
			for _, v := range vals {
				q := append(slices.Clone(p), [2]any{k, v})
				next = append(next, q)
			}
		}
		points = next
	}
	return points, nil
}

// MaxCells bounds the cells of one experiment; a larger spec is refused before
// any trace is loaded (split it into several experiments). Memory does not set
// it: replay streams the cells, writing each cell's results and dropping them
// when it ends, and keeps about 1 KB a cell (its statistics and manifest entry)
// for the summary table and the manifest. It guards against a mistyped spec
// (2,000 seeds instead of 20): every cell is a whole run and a directory of
// results.
const MaxCells = 5000

// CellCount returns the number of cells the spec expands into: traces ×
// hardware models × sweep points × policies × seeds. It fails, without
// expanding anything, when that exceeds MaxCells.
func (e *Experiment) CellCount() (int, error) {
	n := 1
	factors := []struct {
		what string
		n    int
	}{{"policies", len(e.Policies)}, {"traces", len(e.Traces)}, {"hardware models", len(e.Hardware)}, {"seeds", len(e.Seeds)}}
	for k, v := range e.Sweep {
		if vals, ok := v.([]any); ok {
			factors = append(factors, struct {
				what string
				n    int
			}{"values of sweep " + k, len(vals)})
		}
	}
	for _, f := range factors {
		if f.n == 0 {
			continue
		}
		if n > MaxCells/f.n { // n*f.n > MaxCells, without overflow
			return 0, fmt.Errorf("experiment %s: %s expand into more than %d cells (the limit on the runs of one experiment): split the experiment",
				e.Name, describeFactors(e), MaxCells)
		}
		n *= f.n
	}
	return n, nil
}

// describeFactors names the sizes that multiply into an experiment's cells.
func describeFactors(e *Experiment) string {
	s := fmt.Sprintf("%d policies × %d traces × %d hardware models × %d seeds", len(e.Policies), len(e.Traces), len(e.Hardware), len(e.Seeds))
	keys := make([]string, 0, len(e.Sweep))
	for k := range e.Sweep {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if vals, ok := e.Sweep[k].([]any); ok {
			s += fmt.Sprintf(" × %d %s", len(vals), k)
		}
	}
	return s
}

// Cells expands the spec into its runs, in a fixed order; a spec of more than
// MaxCells cells is refused (CellCount).
func (e *Experiment) Cells() ([]Cell, error) {
	if _, err := e.CellCount(); err != nil {
		return nil, err
	}
	points, err := e.sweepPoints()
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	var cells []Cell
	for _, pol := range e.Policies {
		for _, tr := range e.Traces {
			for _, hs := range e.Hardware {
				for _, pt := range points {
					trc := tr
					trc.Params = cloneMap(tr.Params)
					set := cloneMap(hs.Set)
					labels := [][2]string{{"policy", pol}, {"trace", tr.Name}, {"hw", hs.Name}}
					for _, kv := range pt {
						k := kv[0].(string)
						if p, ok := strings.CutPrefix(k, "trace."); ok {
							if trc.Generator == "" {
								return nil, fmt.Errorf("experiment %s: sweep %s applies to generated traces only", e.Name, k)
							}
							trc.Params[p] = kv[1]
						} else {
							set[k] = kv[1]
						}
						labels = append(labels, [2]string{k, fmt.Sprint(kv[1])})
					}
					hw, err := buildHardware(hs.Path, set)
					if err != nil {
						return nil, fmt.Errorf("experiment %s, hardware %s: %w", e.Name, hs.Name, err)
					}
					for _, seed := range e.Seeds {
						c := Cell{Trace: trc, Hardware: hw, HWName: hs.Name, Policy: pol, Seed: seed,
							Labels: append(slices.Clone(labels), [2]string{"seed", fmt.Sprint(seed)})}
						parts := make([]string, len(c.Labels))
						for i, l := range c.Labels {
							parts[i] = l[0] + "=" + pathSafe(l[1])
						}
						c.Dir = filepath.Join(parts...)
						cells = append(cells, c)
					}
				}
			}
		}
	}
	if err := distinctDirs(cells); err != nil { // experiment_check.go
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	return cells, nil
}

// pathSafe keeps a label usable as one path element.
func pathSafe(s string) string { return strings.NewReplacer("/", "_", "\\", "_").Replace(s) }

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// buildHardware reads a model file (or the defaults) and applies key overrides,
// checked like the file's own keys.
func buildHardware(path string, set map[string]any) (Hardware, error) {
	var base []byte
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return Hardware{}, fmt.Errorf("hardware model: %w", err)
		}
		base = b
	}
	h, err := ParseHardware(base)
	if err != nil {
		return Hardware{}, fmt.Errorf("%s: %w", path, err)
	}
	return h.WithSettings(set)
}

// apply decodes TOML keys on top of h and revalidates it.
func (h *Hardware) apply(b []byte) error {
	md, err := toml.NewDecoder(bytes.NewReader(b)).Decode(h)
	if err != nil {
		return err
	}
	if und := md.Undecoded(); len(und) > 0 {
		return fmt.Errorf("unknown hardware key %s; valid keys: %s", und[0].String(), strings.Join(HardwareKeys(), ", "))
	}
	if err := h.afterDecode(md); err != nil {
		return err
	}
	return h.Validate()
}

// WithSettings returns h with TOML keys applied, e.g. from command-line flags.
func (h Hardware) WithSettings(set map[string]any) (Hardware, error) {
	if len(set) == 0 {
		return h, nil
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var over bytes.Buffer
	for _, k := range keys {
		if err := toml.NewEncoder(&over).Encode(map[string]any{k: set[k]}); err != nil {
			return h, fmt.Errorf("setting %s: %w", k, err)
		}
	}
	err := h.apply(over.Bytes())
	return h, err
}
