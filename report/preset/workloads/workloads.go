// Package workloads is the registry of trace generators: the general
// synthetic one (trace.Synthetic), the resampling of a real job-level trace
// (internal/resample) and each paper's workloads, which live next
// to the paper's presets (report/preset/<paper>/workload). Adding a generator
// is a line here.
//
// It imports only trace and the papers' workload packages, which import only
// trace, so that a command that generates traces (ingest) links neither the
// presets, the plotting libraries nor the simulator.
package workloads

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/internal/resample"
	coupling "github.com/tracereplay/tracereplay/report/preset/coupling/workload"
	eas "github.com/tracereplay/tracereplay/report/preset/eas/workload"
	hybsmrp "github.com/tracereplay/tracereplay/report/preset/hybsmrp/workload"
	"github.com/tracereplay/tracereplay/trace"
)

// Generators lists every trace generator, sorted by name.
func Generators() []trace.Generator {
	var g []trace.Generator
	g = append(g, trace.Synthetic(), resample.Generator())
	g = append(g, coupling.Generators()...)
	g = append(g, eas.Generators()...)
	g = append(g, hybsmrp.Generators()...)
	slices.SortFunc(g, func(a, b trace.Generator) int { return strings.Compare(a.Name, b.Name) })
	return g
}

// Generate runs the named generator with parameters p and seed
// (trace.Generator.Generate). An unknown name is an error that lists the
// valid ones.
func Generate(name string, p trace.GenParams, seed uint64) (*trace.Trace, error) {
	gens := Generators()
	names := make([]string, 0, len(gens))
	for _, g := range gens {
		if g.Name == name {
			return g.Generate(p, seed)
		}
		names = append(names, g.Name)
	}
	return nil, fmt.Errorf("unknown generator %q; valid generators: %s", name, strings.Join(names, ", "))
}
