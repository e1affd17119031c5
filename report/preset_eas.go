package report

// The eas preset draws the results of samples/experiments/eas.toml in the form
// of Zhao et al., EAS (IEICE Trans. Inf. & Syst. 2013), Figs. 3-7: each figure
// the replication factor on the x axis and one bar per policy in the paper's
// order and names (EAS, FIFO-BE, FIFO-S, HFS-BE, HFS-S; other policies after
// them under their own names), each bar the mean over seeds with its 95%
// confidence interval (Student's t) as a whisker. Files, one per figure (and per
// value of any other label that varies, appended to the name):
//   - eas_fig3_locality: node-local maps over all maps, LM/TM (eq. 6), in %;
//   - eas_fig4_load-balance: Σ_t LB^t of §5.4 (RunSummary.LoadBalanceSum)
//     divided by the largest mean of the figure, so in [0, 1]; lower is better;
//   - eas_fig5_map-throughput: total throughput of the map machines, eq. 3, MB/s;
//   - eas_fig6_reduce-throughput: of the reduce machines, eq. 4, MB/s;
//   - eas_fig7_flowtime: total flowtime, the sum over jobs of finish − arrival
//     (§3.4), in seconds.
//
// The table has the same numbers: a row per figure and replication factor, a
// mean and a 95% half-width column per policy.

// easPreset describes the eas preset's grid.
func easPreset() *gridPreset {
	fig := func(n string) func(Run) string { return func(Run) string { return n } }
	return &gridPreset{
		name: "eas", label: "EAS", what: "figure",
		title:   "EAS (Zhao et al. 2013), Figs. 3-7: mean over seeds and 95% CI against the replication factor",
		xLabel:  "replication",
		xHeader: "replication factor",
		series: []gridSeries{{"eas", "EAS"}, {"fifo-be", "FIFO-BE"}, {"fifo-s", "FIFO-S"},
			{"hfs-be", "HFS-BE"}, {"hfs-s", "HFS-S"}},
		metrics: []gridMetric{
			{id: "locality", short: "locality (%)", title: "local map tasks, LM/TM (%)", prec: 1, paper: fig("Fig. 3"),
				value: func(r Run) float64 { return 100 * r.Summary.MapLocality }},
			{id: "load-balance", short: "load balance (0-1)", title: "load balance value, normalised (lower is better)", prec: 3, paper: fig("Fig. 4"),
				value: func(r Run) float64 { return r.Summary.LoadBalanceSum }, normalise: true},
			{id: "map-throughput", short: "map machines (MB/s)", title: "total throughput of map machines (MB/s)", prec: 1, paper: fig("Fig. 5"),
				value: func(r Run) float64 { return r.Summary.MapMachineThroughput }},
			{id: "reduce-throughput", short: "reduce machines (MB/s)", title: "total throughput of reduce machines (MB/s)", prec: 1, paper: fig("Fig. 6"),
				value: func(r Run) float64 { return r.Summary.ReduceMachineThroughput }},
			{id: "flowtime", short: "total flowtime (s)", title: "total flowtime (s)", prec: 0, paper: fig("Fig. 7"),
				value: func(r Run) float64 { return Seconds(r.Summary.TotalFlowtimeUs) }},
		},
		notes: []string{
			"Each cell is the mean over seeds of one value per run; ± is the half-width of its 95% confidence interval (Student's t over the seeds; - for a single seed).",
			"Fig. 3: node-local maps over all maps (eq. 6). Fig. 4: the sum over samples (every N_m launched maps) of the standard deviation of the map machines' un-processed input (§5.4), divided by the largest mean of the figure. Figs. 5 and 6: eqs. 3 and 4 in MB/s. Fig. 7: the sum over jobs of finish minus arrival (§3.4).",
		},
	}
}

// EASTable lists the numbers of the eas preset's figures (see easPreset): a row
// per figure and replication factor, per policy the mean over seeds and the
// half-width of its 95% confidence interval.
func EASTable(runs []Run) *Table { return easPreset().table(runs) }

// WriteEASFigures draws EAS Figs. 3-7 from runs into dir (see easPreset) and
// returns the paths written.
func WriteEASFigures(runs []Run, dir, format string) ([]string, error) {
	return easPreset().writeFigures(runs, dir, format, barFigure)
}
