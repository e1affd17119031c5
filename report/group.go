package report

import (
	"slices"
	"strconv"

	"github.com/tracereplay/tracereplay/internal/summary"
)

// SeedLabel is the label key of a run's seed. Runs whose labels differ only in
// the seed are replicates of one cell and are aggregated over seeds.
const SeedLabel = "seed"

// Group is one cell of an experiment: the runs whose labels are equal except for
// SeedLabel, sorted by seed (numerically).
type Group struct {
	Runs []Run
}

// Label returns the value of label k of the group's runs (k ≠ SeedLabel).
func (g Group) Label(k string) (string, bool) { return g.Runs[0].Label(k) }

// Policy returns the group's policy.
func (g Group) Policy() string { return g.Runs[0].Policy }

// Seeds returns the seed labels of the group's runs in order; a run without a
// seed label contributes "".
func (g Group) Seeds() []string {
	out := make([]string, len(g.Runs))
	for i, r := range g.Runs {
		out[i], _ = r.Label(SeedLabel)
	}
	return out
}

// Name names the group by the given label keys, as RunName does, leaving out
// SeedLabel.
func (g Group) Name(keys []string) string {
	return RunName(g.Runs[0], summary.WithoutSeed(keys))
}

// GroupRuns sorts a copy of runs with SortRuns and splits it into groups of runs
// that differ only in SeedLabel. Groups are ordered by their labels (as SortRuns
// orders runs, the seed left out), runs within a group by seed.
func GroupRuns(runs []Run) []Group {
	cells := summary.GroupBySeed(runs)
	groups := make([]Group, len(cells))
	for i, c := range cells {
		groups[i].Runs = c
	}
	return groups
}

// Aggregated reports whether some group holds more than one run, that is,
// whether tables and figures show statistics over seeds.
func Aggregated(groups []Group) bool {
	return slices.ContainsFunc(groups, func(g Group) bool { return len(g.Runs) > 1 })
}

// GroupLabels returns, in canonical order, PolicyLabel and the label keys other
// than SeedLabel whose values differ between groups: the labels that tell the
// groups apart.
func GroupLabels(groups []Group) []string {
	reps := make([]Run, len(groups))
	for i, g := range groups {
		reps[i] = g.Runs[0]
	}
	return summary.WithoutSeed(VaryingLabels(reps))
}

// seedsText describes n seeds for legends and notes: "1 seed", "5 seeds".
func seedsText(n int) string {
	return strconv.Itoa(n) + " seed" + Plural(n)
}
