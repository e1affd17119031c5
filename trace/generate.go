package trace

import (
	"fmt"
)

// GenParams are a generator's parameters as an experiment spec or the ingest
// command gives them (TOML values: strings, int64, float64, bools, arrays).
type GenParams map[string]any

// Generator makes a synthetic trace from parameters and a seed. The same
// parameters and seed give the identical trace. The general synthetic
// generator is Synthetic; each paper's workload generators live next to its
// presets (report/preset/<paper>/workload), and report/preset/workloads lists
// them all.
type Generator struct {
	Name string
	Doc  string
	Make func(p GenParams, seed uint64) (*Trace, error)
}

// Generate runs the generator with parameters p and seed, checks the trace it
// makes (times in [0, MaxTimeMs], at most MaxGenTasks tasks) and records in
// its metadata that it was generated: its source format "synthetic", and the
// generator's name, the seed and the parameters as options.
func (g Generator) Generate(p GenParams, seed uint64) (*Trace, error) {
	t, err := g.Make(p, seed)
	if err == nil {
		err = checkGenerated(t)
	}
	if err != nil {
		return nil, fmt.Errorf("generator %s: %w", g.Name, err)
	}
	t.Meta.SourceFormat = "synthetic"
	if t.Meta.Options == nil {
		t.Meta.Options = map[string]string{}
	}
	t.Meta.Options["generator"] = g.Name
	t.Meta.Options["seed"] = fmt.Sprint(seed)
	for k, v := range p {
		t.Meta.Options[k] = fmt.Sprint(v)
	}
	return t, nil
}

// GenTask returns task i of a generated job's maps or reduces, named as Hadoop
// names them: <job>_m_000000, <job>_r_000000.
func GenTask(jobID string, typ TaskType, i int32) Task {
	kind := "m"
	if typ == Reduce {
		kind = "r"
	}
	return NewTask(jobID, fmt.Sprintf("%s_%s_%06d", jobID, kind, i), typ, i)
}

// GenerateMemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
// under which `ingest --generate` builds and writes a trace, unless
// GOMEMLIMIT or GOGC is set: a trace at MaxGenTasks holds about 430 MB live
// while it is written, and the collector's default pacing (a heap goal twice
// the live heap) took the process to 0.83–1.06 GB of Go memory; under this
// limit it stays below 1 GB (TestGeneratedAtLimitMemory) at the cost of a few
// more collections. It changes only when the collector runs, never a byte
// written.
const GenerateMemoryLimit = 768 << 20
