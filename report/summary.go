package report

import (
	"cmp"
	"fmt"
	"math"
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
		if c := compareRunLabels(a, b, keys); c != 0 {
			return c
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

// SummaryTable summarises runs, sorted with SortRuns. When every cell (the runs
// whose labels differ only in SeedLabel, see GroupRuns) holds one run, it has one
// row per run: the policy and the other labels that differ between runs, then
// the job count, flowtime mean and nearest-rank p50/p95/p99, starvation mean and
// p95, map locality node/rack/off-rack in percent of maps, and the makespan.
// When some cell holds several seeds, it has one row per cell instead: the labels
// that differ between cells, the number of seeds, the job count, and each
// statistic as the mean over the cell's seeds of the per-run value with the
// half-width of its 95% confidence interval (MeanCI95, Student's t). An
// "unfinished" column appears when some run has jobs without a finish time. runs
// itself is not reordered. Allocation studies are left out, or, when runs holds
// nothing else, summarised by AllocSummaryTable.
func SummaryTable(runs []Run) *Table {
	if studies, sims := SplitAllocStudies(runs); len(studies) > 0 {
		if len(sims) == 0 {
			return AllocSummaryTable(studies)
		}
		runs = sims
	}
	groups := GroupRuns(runs)
	if !Aggregated(groups) {
		return perRunTable(groups)
	}
	return aggregatedTable(groups)
}

// summaryNotes define the summary's columns.
var summaryNotes = []string{
	"Flowtime is finish minus submit, over finished jobs; percentiles are nearest-rank (the ceil(p*n)-th smallest value).",
	"Starvation (Coupling, sec. III-C) is the mean wait of a job's reduces launched after its last map ended; taken over jobs with reduces, 0 when none waited.",
	"Map locality is in percent of all maps of the run; makespan is the last finish minus the first submit.",
}

// summaryMetric is one statistic column of the summary table.
type summaryMetric struct {
	header, name string
	value        func(RunStats) float64
}

var summaryMetrics = []summaryMetric{
	{"flowtime\nmean (s)", "flowtime_mean_s", func(s RunStats) float64 { return s.FlowtimeMean }},
	{"flowtime\np50 (s)", "flowtime_p50_s", func(s RunStats) float64 { return s.FlowtimeP50 }},
	{"flowtime\np95 (s)", "flowtime_p95_s", func(s RunStats) float64 { return s.FlowtimeP95 }},
	{"flowtime\np99 (s)", "flowtime_p99_s", func(s RunStats) float64 { return s.FlowtimeP99 }},
	{"starvation\nmean (s)", "starvation_mean_s", func(s RunStats) float64 { return s.StarvationMean }},
	{"starvation\np95 (s)", "starvation_p95_s", func(s RunStats) float64 { return s.StarvationP95 }},
	{"node-local\nmaps (%)", "maps_node_local_pct", func(s RunStats) float64 { return s.NodeLocalPct }},
	{"rack-local\nmaps (%)", "maps_rack_local_pct", func(s RunStats) float64 { return s.RackLocalPct }},
	{"off-rack\nmaps (%)", "maps_off_rack_pct", func(s RunStats) float64 { return s.OffRackPct }},
	{"makespan\n(s)", "makespan_s", func(s RunStats) float64 { return s.Makespan }},
}

// perRunTable is the summary with one row per run (one run per group).
func perRunTable(groups []Group) *Table {
	sorted := make([]Run, len(groups))
	for i, g := range groups {
		sorted[i] = g.Runs[0]
	}
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
	t.Columns = append(t.Columns, Column{Header: "jobs", Name: "jobs", Align: AlignRight})
	if unfinished {
		t.Columns = append(t.Columns, Column{Header: "unfinished", Name: "unfinished", Align: AlignRight})
	}
	for _, m := range summaryMetrics {
		t.Columns = append(t.Columns, Column{Header: m.header, Name: m.name, Align: AlignRight})
	}
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
		for _, m := range summaryMetrics {
			row = append(row, Float(m.value(s), 1))
		}
		t.AddRow(row...)
	}
	t.Notes = slices.Clone(summaryNotes)
	return t
}

// aggregatedTable is the summary with one row per group: means over seeds with
// 95% confidence intervals.
func aggregatedTable(groups []Group) *Table {
	stats := make([][]RunStats, len(groups))
	unfinished := false
	runs := 0
	for i, g := range groups {
		for _, r := range g.Runs {
			s := ComputeStats(r)
			stats[i] = append(stats[i], s)
			unfinished = unfinished || s.Unfinished > 0
		}
		runs += len(g.Runs)
	}
	keys := GroupLabels(groups)
	t := &Table{Title: fmt.Sprintf("Summary of %d runs in %d cell%s: mean ± 95%% CI over seeds", runs, len(groups), plural(len(groups)))}
	for _, k := range keys {
		t.Columns = append(t.Columns, Column{Header: k, Name: k, Align: AlignLeft})
	}
	t.Columns = append(t.Columns,
		Column{Header: "seeds", Name: "seeds", Align: AlignRight},
		Column{Header: "jobs", Name: "jobs", Align: AlignRight})
	if unfinished {
		t.Columns = append(t.Columns, Column{Header: "unfinished", Name: "unfinished", Align: AlignRight})
	}
	for _, m := range summaryMetrics {
		t.Columns = append(t.Columns, Column{Header: m.header, Name: m.name, Align: AlignRight, CI: true})
	}
	for i, g := range groups {
		var row []Cell
		for _, k := range keys {
			v, _ := g.Label(k)
			row = append(row, Str(v))
		}
		row = append(row, Int(len(g.Runs)), countCell(stats[i], func(s RunStats) int { return s.Jobs }))
		if unfinished {
			row = append(row, countCell(stats[i], func(s RunStats) int { return s.Unfinished }))
		}
		for _, m := range summaryMetrics {
			mean, half := MeanCI95(statValues(stats[i], m.value))
			row = append(row, MeanCI(mean, half, 1))
		}
		t.AddRow(row...)
	}
	t.Notes = append(slices.Clone(summaryNotes),
		"Each statistic is computed per run, then averaged over the cell's seeds: mean ± half-width of the 95% confidence interval (Student's t, seeds - 1 degrees of freedom); no interval with one seed. jobs is per run (the mean when seeds differ).")
	return t
}

// statValues returns value of each run's statistics, leaving out NaNs (a run
// where the statistic does not exist, e.g. no job with reduces).
func statValues(stats []RunStats, value func(RunStats) float64) []float64 {
	var out []float64
	for _, s := range stats {
		if v := value(s); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return []float64{math.NaN()}
	}
	return out
}

// countCell shows a per-run count: the count when every seed has the same, else
// the mean over seeds.
func countCell(stats []RunStats, count func(RunStats) int) Cell {
	n0 := count(stats[0])
	sum := 0
	same := true
	for _, s := range stats {
		sum += count(s)
		same = same && count(s) == n0
	}
	if same {
		return Int(n0)
	}
	return Float(float64(sum)/float64(len(stats)), 1)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
