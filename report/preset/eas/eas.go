// Package eas is the report preset of Zhao et al., EAS (IEICE Trans. Inf. &
// Syst. 2013): the table and Figs. 3-7 of report --preset eas, drawn from the
// results of samples/experiments/eas.toml.
package eas

import (
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/grid"
)

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
func easPreset() *grid.Preset {
	fig := func(n string) func(report.Run) string { return func(report.Run) string { return n } }
	return &grid.Preset{
		Name: "eas", Label: "EAS", What: "figure",
		Title:   "EAS (Zhao et al. 2013), Figs. 3-7: mean over seeds and 95% CI against the replication factor",
		XLabel:  "replication",
		XHeader: "replication factor",
		Series: []grid.Series{{Policy: "eas", Display: "EAS"}, {Policy: "fifo-be", Display: "FIFO-BE"}, {Policy: "fifo-s", Display: "FIFO-S"},
			{Policy: "hfs-be", Display: "HFS-BE"}, {Policy: "hfs-s", Display: "HFS-S"}},
		Metrics: []grid.Metric{
			{ID: "locality", Short: "locality (%)", Title: "local map tasks, LM/TM (%)", Prec: 1, Paper: fig("Fig. 3"),
				Value: func(r report.Run) float64 { return 100 * r.Summary.MapLocality }},
			{ID: "load-balance", Short: "load balance (0-1)", Title: "load balance value, normalised (lower is better)", Prec: 3, Paper: fig("Fig. 4"),
				Value: func(r report.Run) float64 { return r.Summary.LoadBalanceSum }, Normalise: true},
			{ID: "map-throughput", Short: "map machines (MB/s)", Title: "total throughput of map machines (MB/s)", Prec: 1, Paper: fig("Fig. 5"),
				Value: func(r report.Run) float64 { return r.Summary.MapMachineThroughput }},
			{ID: "reduce-throughput", Short: "reduce machines (MB/s)", Title: "total throughput of reduce machines (MB/s)", Prec: 1, Paper: fig("Fig. 6"),
				Value: func(r report.Run) float64 { return r.Summary.ReduceMachineThroughput }},
			{ID: "flowtime", Short: "total flowtime (s)", Title: "total flowtime (s)", Prec: 0, Paper: fig("Fig. 7"),
				Value: func(r report.Run) float64 { return report.Seconds(r.Summary.TotalFlowtimeUs) }},
		},
		Notes: []string{
			"Each cell is the mean over seeds of one value per run; ± is the half-width of its 95% confidence interval (Student's t over the seeds; - for a single seed).",
			"Fig. 3: node-local maps over all maps (eq. 6). Fig. 4: the sum over samples (every N_m launched maps) of the standard deviation of the map machines' un-processed input (§5.4), divided by the largest mean of the figure. Figs. 5 and 6: eqs. 3 and 4 in MB/s. Fig. 7: the sum over jobs of finish minus arrival (§3.4).",
		},
	}
}

// Table lists the numbers of the eas preset's figures (see easPreset): a row
// per figure and replication factor, per policy the mean over seeds and the
// half-width of its 95% confidence interval.
func Table(runs []report.Run) *report.Table { return easPreset().Table(runs) }

// WriteFigures draws EAS Figs. 3-7 from runs into dir (see easPreset) and
// returns the paths written.
func WriteFigures(runs []report.Run, dir, format string) ([]string, error) {
	return easPreset().WriteFigures(runs, dir, format, grid.Bars)
}
