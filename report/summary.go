package report

import (
	"strings"

	"github.com/tracereplay/tracereplay/internal/summary"
)

// SortRuns sorts runs in place by their labels, compared key by key in canonical
// order (PolicyLabel first, then sorted keys); a missing label sorts first, numeric
// values compare as numbers (seed=2 before seed=10), others as strings. Runs with
// equal labels keep their order by Dir.
func SortRuns(runs []Run) { summary.SortRuns(runs) }

// CompareLabelValues compares two label values: as numbers when both parse as
// different numbers, else as strings (summary.CompareLabelValues).
func CompareLabelValues(a, b string) int { return summary.CompareLabelValues(a, b) }

// VaryingLabels returns, in canonical order, PolicyLabel and the label keys whose
// values are not the same in every run (a key some runs lack counts as varying).
// These are the labels that tell the runs apart.
func VaryingLabels(runs []Run) []string { return summary.VaryingLabels(runs) }

// RunName names a run by the given label keys: the policy, then key=value for
// each other key the run has, e.g. "fair seed=3".
func RunName(r Run, keys []string) string {
	parts := []string{r.Policy}
	for _, k := range keys {
		if v, ok := r.Label(k); ok && k != PolicyLabel {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// SummaryTable summarises runs (summary.Table): one row per run, or, when some
// cell holds several seeds, one row per cell with means and 95% confidence
// intervals over seeds. runs itself is not reordered. Allocation studies are
// left out, or, when runs holds nothing else, summarised by AllocSummaryTable.
func SummaryTable(runs []Run) *Table {
	if studies, sims := SplitAllocStudies(runs); len(studies) > 0 {
		if len(sims) == 0 {
			return AllocSummaryTable(studies)
		}
		runs = sims
	}
	return summary.Table(SummaryRuns(runs))
}

// SummaryRuns returns what package summary needs of each run.
func SummaryRuns(runs []Run) []summary.Run {
	out := make([]summary.Run, len(runs))
	for i, r := range runs {
		out[i] = summary.Run{Dir: r.Dir, Labels: r.Labels, Policy: r.Policy, Summary: r.Summary, Jobs: r.Jobs}
	}
	return out
}

func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
