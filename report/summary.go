package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SortRuns sorts runs in place by their labels, compared key by key in canonical
// order (PolicyLabel first, then sorted keys); a missing label sorts first, numeric
// values compare as numbers (seed=2 before seed=10), others as strings. Runs with
// equal labels keep their order by Dir.
func SortRuns(runs []Run) {
	keys := LabelKeys(runs)
	slices.SortStableFunc(runs, func(a, b Run) int {
		for _, k := range keys {
			va, oka := a.Label(k)
			vb, okb := b.Label(k)
			if oka != okb {
				if !oka {
					return -1
				}
				return 1
			}
			if c := compareLabelValues(va, vb); c != 0 {
				return c
			}
		}
		return strings.Compare(a.Dir, b.Dir)
	})
}

func compareLabelValues(a, b string) int {
	fa, erra := strconv.ParseFloat(a, 64)
	fb, errb := strconv.ParseFloat(b, 64)
	if erra == nil && errb == nil && fa != fb {
		return cmp.Compare(fa, fb)
	}
	return strings.Compare(a, b)
}

// VaryingLabels returns, in canonical order, PolicyLabel and the label keys whose
// values are not the same in every run (a key some runs lack counts as varying).
// These are the labels that tell the runs apart.
func VaryingLabels(runs []Run) []string {
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

// SummaryTable returns one row per run, sorted with SortRuns: the policy and the
// other labels that differ between runs, then the job count, flowtime mean and
// nearest-rank p50/p95/p99, starvation mean and p95, map locality node/rack/off-rack
// in percent of maps, and the makespan. An "unfinished" column appears when some
// run has jobs without a finish time. runs itself is not reordered. Allocation
// studies are left out, or, when runs holds nothing else, summarised by
// AllocSummaryTable.
func SummaryTable(runs []Run) *Table {
	if studies, sims := SplitAllocStudies(runs); len(studies) > 0 {
		if len(sims) == 0 {
			return AllocSummaryTable(studies)
		}
		runs = sims
	}
	sorted := slices.Clone(runs)
	SortRuns(sorted)
	stats := make([]RunStats, len(sorted))
	unfinished := false
	for i, r := range sorted {
		stats[i] = ComputeStats(r)
		unfinished = unfinished || stats[i].Unfinished > 0
	}
	keys := VaryingLabels(sorted)

	t := &Table{Title: fmt.Sprintf("Summary of %d run%s", len(sorted), plural(len(sorted)))}
	for _, k := range keys {
		t.Columns = append(t.Columns, Column{Header: k, Name: k, Align: AlignLeft})
	}
	num := func(header, name string) {
		t.Columns = append(t.Columns, Column{Header: header, Name: name, Align: AlignRight})
	}
	num("jobs", "jobs")
	if unfinished {
		num("unfinished", "unfinished")
	}
	num("flowtime\nmean (s)", "flowtime_mean_s")
	num("flowtime\np50 (s)", "flowtime_p50_s")
	num("flowtime\np95 (s)", "flowtime_p95_s")
	num("flowtime\np99 (s)", "flowtime_p99_s")
	num("starvation\nmean (s)", "starvation_mean_s")
	num("starvation\np95 (s)", "starvation_p95_s")
	num("node-local\nmaps (%)", "maps_node_local_pct")
	num("rack-local\nmaps (%)", "maps_rack_local_pct")
	num("off-rack\nmaps (%)", "maps_off_rack_pct")
	num("makespan\n(s)", "makespan_s")

	for i, r := range sorted {
		s := stats[i]
		var row []Cell
		for _, k := range keys {
			v, _ := r.Label(k)
			row = append(row, Str(v))
		}
		row = append(row, Int(s.Jobs))
		if unfinished {
			row = append(row, Int(s.Unfinished))
		}
		row = append(row,
			Float(s.FlowtimeMean, 1), Float(s.FlowtimeP50, 1), Float(s.FlowtimeP95, 1), Float(s.FlowtimeP99, 1),
			Float(s.StarvationMean, 1), Float(s.StarvationP95, 1),
			Float(s.NodeLocalPct, 1), Float(s.RackLocalPct, 1), Float(s.OffRackPct, 1),
			Float(s.Makespan, 1),
		)
		t.AddRow(row...)
	}
	t.Notes = []string{
		"Flowtime is finish minus submit, over finished jobs; percentiles are nearest-rank (the ceil(p*n)-th smallest value).",
		"Starvation (Coupling, sec. III-C) is the mean wait of a job's reduces launched after its last map ended; taken over jobs with reduces, 0 when none waited.",
		"Map locality is in percent of all maps of the run; makespan is the last finish minus the first submit.",
	}
	return t
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
