package summary

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Labeled is a run that carries labels (key=value segments of its directory,
// such as policy, hw, seed): Run here and report.Run. The ordering and
// grouping helpers below serve both, so that the summary table and report's
// tables and figures sort and group runs the same way.
type Labeled interface {
	// Label returns the value of label k; the policy label falls back to
	// the run's policy.
	Label(k string) (string, bool)
	// LabelMap returns the run's labels.
	LabelMap() map[string]string
	// RunDir returns the run's directory, the tie-break between runs with
	// equal labels.
	RunDir() string
}

// SortLabelKeys sorts label keys in place in canonical order: PolicyLabel
// first, then by name.
func SortLabelKeys(keys []string) {
	slices.SortFunc(keys, func(a, b string) int {
		if (a == PolicyLabel) != (b == PolicyLabel) {
			if a == PolicyLabel {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
}

// LabelKeys returns the union of the runs' label keys in canonical order:
// PolicyLabel, which every run has (see Run.Label), then the others sorted.
func LabelKeys[R Labeled](runs []R) []string {
	set := map[string]bool{PolicyLabel: true}
	for _, r := range runs {
		for k := range r.LabelMap() {
			set[k] = true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	SortLabelKeys(keys)
	return keys
}

// CompareLabelValues compares two label values: as numbers when both parse as
// different numbers (seed=2 before seed=10), else as strings.
func CompareLabelValues(a, b string) int {
	fa, erra := strconv.ParseFloat(a, 64)
	fb, errb := strconv.ParseFloat(b, 64)
	if erra == nil && errb == nil && fa != fb {
		return cmp.Compare(fa, fb)
	}
	return strings.Compare(a, b)
}

// CompareLabels compares two runs label by label in the order of keys: a
// missing label first, values as CompareLabelValues orders them.
func CompareLabels[R Labeled](a, b R, keys []string) int {
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

// SameLabels reports whether a and b have the same labels under keys (a label
// both lack counts as the same).
func SameLabels[R Labeled](a, b R, keys []string) bool {
	for _, k := range keys {
		va, oka := a.Label(k)
		vb, okb := b.Label(k)
		if oka != okb || va != vb {
			return false
		}
	}
	return true
}

// VaryingLabels returns, in canonical order, PolicyLabel and the label keys
// whose values are not the same in every run (a key some runs lack counts as
// varying): the labels that tell the runs apart.
func VaryingLabels[R Labeled](runs []R) []string {
	var out []string
	for _, k := range LabelKeys(runs) {
		if k == PolicyLabel {
			out = append(out, k)
			continue
		}
		v0, ok0 := runs[0].Label(k)
		for _, r := range runs {
			if v, ok := r.Label(k); ok != ok0 || v != v0 {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// WithoutSeed returns a copy of keys without SeedLabel.
func WithoutSeed(keys []string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == SeedLabel })
}

// SortRuns sorts runs in place by their labels, compared key by key in
// canonical order (CompareLabels over LabelKeys); runs with equal labels are
// ordered by directory, stably.
func SortRuns[R Labeled](runs []R) {
	keys := LabelKeys(runs)
	slices.SortStableFunc(runs, func(a, b R) int {
		if c := CompareLabels(a, b, keys); c != 0 {
			return c
		}
		return strings.Compare(a.RunDir(), b.RunDir())
	})
}

// GroupBySeed sorts a copy of runs with SortRuns and splits it into cells of
// runs that differ only in SeedLabel. Cells are ordered by their labels (the
// seed left out), runs within a cell by seed.
func GroupBySeed[R Labeled](runs []R) [][]R {
	sorted := slices.Clone(runs)
	SortRuns(sorted)
	keys := WithoutSeed(LabelKeys(sorted))
	var groups [][]R
	for _, r := range sorted {
		i := slices.IndexFunc(groups, func(g []R) bool { return SameLabels(g[0], r, keys) })
		if i < 0 {
			groups = append(groups, nil)
			i = len(groups) - 1
		}
		groups[i] = append(groups[i], r)
	}
	slices.SortStableFunc(groups, func(a, b []R) int { return CompareLabels(a[0], b[0], keys) })
	return groups
}
