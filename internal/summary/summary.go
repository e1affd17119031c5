package summary

import (
	"fmt"
	"math"
	"slices"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/internal/table"
)

// PolicyLabel is the label key that names a run's scheduling policy.
const PolicyLabel = "policy"

// SeedLabel is the label key of a run's seed. Runs whose labels differ only in
// the seed are replicates of one cell and are aggregated over seeds.
const SeedLabel = "seed"

// Run is what the summary needs of one run: its directory (a tie-break when
// sorting), its labels (key=value segments such as policy, hw, seed), its
// policy, its run summary (trace, hardware, seed, utilisation; see Setting) and
// its jobs.
type Run struct {
	Dir     string
	Labels  map[string]string
	Policy  string
	Summary results.RunSummary
	Jobs    []results.Job
	// Stats and JobsDigest, when Stats is set, stand for Jobs: the run's
	// statistics (Compute) and its job rows' digest (Digest), kept by a caller
	// that drops the rows once a run is written, so that memory does not grow
	// with the number of runs (replay --experiment).
	Stats      *Stats
	JobsDigest string
	// Cluster describes the hardware's size (ClusterSize), "" when unknown.
	Cluster string
}

// stats returns the run's statistics: r.Stats, else computed from its jobs.
func (r Run) stats() Stats {
	if r.Stats != nil {
		return *r.Stats
	}
	return Compute(r.Jobs)
}

// Cluster is what ClusterSize needs of a hardware model (*replay.Hardware).
type Cluster interface {
	RackCount() int
	Nodes() int
	TotalMapSlots() int
	TotalReduceSlots() int
}

// yarnCluster is implemented by a hardware model that may be a YARN cluster
// (*replay.Hardware): its NodeManagers' memory and vcores, ok when it is one.
type yarnCluster interface {
	NodeResources() (memoryMB, vcores int64, ok bool)
}

// ClusterSize describes a cluster for the setting line: racks, nodes and slots,
// e.g. "2 racks, 20 nodes, 40 map + 20 reduce slots", or on a YARN cluster
// the NodeManagers' resources, "1 rack, 3 nodes of 9216 MB and 8 vcores".
func ClusterSize(h Cluster) string {
	racks := h.RackCount()
	if y, ok := h.(yarnCluster); ok {
		if mem, vc, yes := y.NodeResources(); yes {
			return fmt.Sprintf("%d rack%s, %d node%s of %d MB and %d vcores", racks, plural(racks), h.Nodes(), plural(h.Nodes()), mem, vc)
		}
	}
	return fmt.Sprintf("%d rack%s, %d node%s, %d map + %d reduce slots",
		racks, plural(racks), h.Nodes(), plural(h.Nodes()), h.TotalMapSlots(), h.TotalReduceSlots())
}

// Label returns the value of label k; the policy label falls back to r.Policy.
func (r Run) Label(k string) (string, bool) {
	v, ok := r.Labels[k]
	if !ok && k == PolicyLabel && r.Policy != "" {
		return r.Policy, true
	}
	return v, ok
}

// LabelMap returns r.Labels (Labeled).
func (r Run) LabelMap() map[string]string { return r.Labels }

// RunDir returns r.Dir (Labeled).
func (r Run) RunDir() string { return r.Dir }

// Notes define the summary's columns; they are printed under the table.
var Notes = []string{
	"Flowtime is finish minus submit, over finished jobs; percentiles are nearest-rank (the ceil(p*n)-th smallest value).",
	"Starvation (Coupling, sec. III-C) is the mean wait of a job's reduces launched after its last map ended; taken over jobs with reduces, 0 when none waited.",
	"Map locality is in percent of all maps of the run; makespan is the last finish minus the first submit.",
}

// metric is one statistic column of the summary table.
type metric struct {
	header, name string
	value        func(Stats) float64
}

var metrics = []metric{
	{"flowtime\nmean (s)", "flowtime_mean_s", func(s Stats) float64 { return s.FlowtimeMean }},
	{"flowtime\np50 (s)", "flowtime_p50_s", func(s Stats) float64 { return s.FlowtimeP50 }},
	{"flowtime\np95 (s)", "flowtime_p95_s", func(s Stats) float64 { return s.FlowtimeP95 }},
	{"flowtime\np99 (s)", "flowtime_p99_s", func(s Stats) float64 { return s.FlowtimeP99 }},
	{"starvation\nmean (s)", "starvation_mean_s", func(s Stats) float64 { return s.StarvationMean }},
	{"starvation\np95 (s)", "starvation_p95_s", func(s Stats) float64 { return s.StarvationP95 }},
	{"node-local\nmaps (%)", "maps_node_local_pct", func(s Stats) float64 { return s.NodeLocalPct }},
	{"rack-local\nmaps (%)", "maps_rack_local_pct", func(s Stats) float64 { return s.RackLocalPct }},
	{"off-rack\nmaps (%)", "maps_off_rack_pct", func(s Stats) float64 { return s.OffRackPct }},
	{"makespan\n(s)", "makespan_s", func(s Stats) float64 { return s.Makespan }},
}

// Table summarises runs, sorted by their labels. When every cell (the runs whose
// labels differ only in SeedLabel) holds one run, it has one row per run: the
// policy and the other labels that differ between runs, then the job count,
// flowtime mean and nearest-rank p50/p95/p99, starvation mean and p95, map
// locality node/rack/off-rack in percent of maps, and the makespan. When some
// cell holds several seeds, it has one row per cell instead: the labels that
// differ between cells, the number of seeds, the job count, and each statistic
// as the mean over the cell's seeds of the per-run value with the half-width of
// its 95% confidence interval (MeanCI95). An "unfinished" column appears when
// some run has jobs without a finish time. runs itself is not reordered.
func Table(runs []Run) *table.Table {
	groups := GroupBySeed(runs)
	if !slices.ContainsFunc(groups, func(g []Run) bool { return len(g) > 1 }) {
		return perRunTable(groups)
	}
	return aggregatedTable(groups)
}

// perRunTable is the summary with one row per run (one run per group).
func perRunTable(groups [][]Run) *table.Table {
	sorted := make([]Run, len(groups))
	for i, g := range groups {
		sorted[i] = g[0]
	}
	stats := make([]Stats, len(sorted))
	unfinished := false
	for i, r := range sorted {
		stats[i] = r.stats()
		unfinished = unfinished || stats[i].Unfinished > 0
	}
	keys := VaryingLabels(sorted)

	t := &table.Table{Title: fmt.Sprintf("Summary of %d run%s", len(sorted), plural(len(sorted)))}
	for _, k := range keys {
		t.Columns = append(t.Columns, table.Column{Header: k, Name: k, Align: table.AlignLeft})
	}
	t.Columns = append(t.Columns, table.Column{Header: "jobs", Name: "jobs", Align: table.AlignRight})
	if unfinished {
		t.Columns = append(t.Columns, table.Column{Header: "unfinished", Name: "unfinished", Align: table.AlignRight})
	}
	for _, m := range metrics {
		t.Columns = append(t.Columns, table.Column{Header: m.header, Name: m.name, Align: table.AlignRight})
	}
	for i, r := range sorted {
		s := stats[i]
		var row []table.Cell
		for _, k := range keys {
			v, _ := r.Label(k)
			row = append(row, table.Str(v))
		}
		row = append(row, table.Int(s.Jobs))
		if unfinished {
			row = append(row, table.Int(s.Unfinished))
		}
		for _, m := range metrics {
			row = append(row, table.Float(m.value(s), 1))
		}
		t.AddRow(row...)
	}
	t.Notes = slices.Clone(Notes)
	return t
}

// aggregatedTable is the summary with one row per group: means over seeds with
// 95% confidence intervals.
func aggregatedTable(groups [][]Run) *table.Table {
	stats := make([][]Stats, len(groups))
	unfinished := false
	runs := 0
	reps := make([]Run, len(groups))
	for i, g := range groups {
		reps[i] = g[0]
		for _, r := range g {
			s := r.stats()
			stats[i] = append(stats[i], s)
			unfinished = unfinished || s.Unfinished > 0
		}
		runs += len(g)
	}
	keys := WithoutSeed(VaryingLabels(reps))
	t := &table.Table{Title: fmt.Sprintf("Summary of %d runs in %d cell%s: mean ± 95%% CI over seeds", runs, len(groups), plural(len(groups)))}
	for _, k := range keys {
		t.Columns = append(t.Columns, table.Column{Header: k, Name: k, Align: table.AlignLeft})
	}
	t.Columns = append(t.Columns,
		table.Column{Header: "seeds", Name: "seeds", Align: table.AlignRight},
		table.Column{Header: "jobs", Name: "jobs", Align: table.AlignRight})
	if unfinished {
		t.Columns = append(t.Columns, table.Column{Header: "unfinished", Name: "unfinished", Align: table.AlignRight})
	}
	for _, m := range metrics {
		t.Columns = append(t.Columns, table.Column{Header: m.header, Name: m.name, Align: table.AlignRight, CI: true})
	}
	for i, g := range groups {
		var row []table.Cell
		for _, k := range keys {
			v, _ := g[0].Label(k)
			row = append(row, table.Str(v))
		}
		row = append(row, table.Int(len(g)), countCell(stats[i], func(s Stats) int { return s.Jobs }))
		if unfinished {
			row = append(row, countCell(stats[i], func(s Stats) int { return s.Unfinished }))
		}
		for _, m := range metrics {
			mean, half := MeanCI95(statValues(stats[i], m.value))
			row = append(row, table.MeanCI(mean, half, 1))
		}
		t.AddRow(row...)
	}
	t.Notes = append(slices.Clone(Notes),
		"Each statistic is computed per run, then averaged over the cell's seeds: mean ± half-width of the 95% confidence interval (Student's t, seeds - 1 degrees of freedom); no interval with one seed. jobs is per run (the mean when seeds differ).")
	return t
}

// statValues returns value of each run's statistics, leaving out NaNs (a run
// where the statistic does not exist, e.g. no job with reduces).
func statValues(stats []Stats, value func(Stats) float64) []float64 {
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
func countCell(stats []Stats, count func(Stats) int) table.Cell {
	n0 := count(stats[0])
	sum := 0
	same := true
	for _, s := range stats {
		sum += count(s)
		same = same && count(s) == n0
	}
	if same {
		return table.Int(n0)
	}
	return table.Float(float64(sum)/float64(len(stats)), 1)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
