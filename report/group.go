package report

import (
	"slices"
	"strconv"
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
	return RunName(g.Runs[0], withoutSeed(keys))
}

// GroupRuns sorts a copy of runs with SortRuns and splits it into groups of runs
// that differ only in SeedLabel. Groups are ordered by their labels (as SortRuns
// orders runs, the seed left out), runs within a group by seed.
func GroupRuns(runs []Run) []Group {
	sorted := slices.Clone(runs)
	SortRuns(sorted)
	keys := withoutSeed(LabelKeys(sorted))
	var groups []Group
	for _, r := range sorted {
		i := slices.IndexFunc(groups, func(g Group) bool { return sameLabels(g.Runs[0], r, keys) })
		if i < 0 {
			groups = append(groups, Group{})
			i = len(groups) - 1
		}
		groups[i].Runs = append(groups[i].Runs, r)
	}
	slices.SortStableFunc(groups, func(a, b Group) int { return compareRunLabels(a.Runs[0], b.Runs[0], keys) })
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
	return withoutSeed(VaryingLabels(reps))
}

func withoutSeed(keys []string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == SeedLabel })
}

func sameLabels(a, b Run, keys []string) bool {
	for _, k := range keys {
		va, oka := a.Label(k)
		vb, okb := b.Label(k)
		if oka != okb || va != vb {
			return false
		}
	}
	return true
}

// compareRunLabels compares two runs label by label in the order of keys, as
// SortRuns does, without the Dir tie-break.
func compareRunLabels(a, b Run, keys []string) int {
	for _, k := range keys {
		va, oka := a.Label(k)
		vb, okb := b.Label(k)
		if oka != okb {
			if !oka {
				return -1
			}
			return 1
		}
		if c := CompareLabelValues(va, vb); c != 0 {
			return c
		}
	}
	return 0
}

// seedsText describes n seeds for legends and notes: "1 seed", "5 seeds".
func seedsText(n int) string {
	return strconv.Itoa(n) + " seed" + Plural(n)
}
