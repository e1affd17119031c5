package trace

import (
	"fmt"
	"slices"
	"strings"
)

// GenParams are a generator's parameters as an experiment spec or the ingest
// command gives them (TOML values: strings, int64, float64, bools, arrays).
type GenParams map[string]any

// Generator makes a synthetic trace from parameters and a seed. The same
// parameters and seed give the identical trace.
type Generator struct {
	Name string
	Doc  string
	Make func(p GenParams, seed uint64) (*Trace, error)
}

// Generators lists the synthetic workload generators, sorted by name. Each paper's
// workload has its own file (gen_*.go) and one line here.
func Generators() []Generator {
	g := []Generator{
		{Name: "eas-table1", Doc: "EAS (Zhao et al. 2013) Table 1: 50 wordcount/sort jobs, 128 MB maps, arrivals uniform in [0,120] s", Make: genEASTable1},
		synthetic(),
		{Name: "hybsmrp", Doc: "HybSMRP (Gandomi et al. 2019): 100 Wordcount/Terasort jobs, exponential inter-arrival (mean 14 s), Table 1 sizes", Make: genHybSMRP},
	}
	g = append(g, couplingGenerators()...)
	slices.SortFunc(g, func(a, b Generator) int { return strings.Compare(a.Name, b.Name) })
	return g
}

// Generate runs the named generator.
func Generate(name string, p GenParams, seed uint64) (*Trace, error) {
	var names []string
	for _, g := range Generators() {
		if g.Name == name {
			t, err := g.Make(p, seed)
			if err == nil {
				err = checkGenerated(t)
			}
			if err != nil {
				return nil, fmt.Errorf("generator %s: %w", name, err)
			}
			t.Meta.SourceFormat = "synthetic"
			if t.Meta.Options == nil {
				t.Meta.Options = map[string]string{}
			}
			t.Meta.Options["generator"] = name
			t.Meta.Options["seed"] = fmt.Sprint(seed)
			for k, v := range p {
				t.Meta.Options[k] = fmt.Sprint(v)
			}
			return t, nil
		}
		names = append(names, g.Name)
	}
	return nil, fmt.Errorf("unknown generator %q; valid generators: %s", name, strings.Join(names, ", "))
}

// genTask returns task i of a generated job's maps or reduces, named as Hadoop
// names them: <job>_m_000000, <job>_r_000000.
func genTask(jobID string, typ TaskType, i int32) Task {
	kind := "m"
	if typ == Reduce {
		kind = "r"
	}
	return NewTask(jobID, fmt.Sprintf("%s_%s_%06d", jobID, kind, i), typ, i)
}
