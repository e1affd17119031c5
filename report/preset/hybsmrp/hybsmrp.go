// Package hybsmrp is the report preset of Gandomi et al., HybSMRP (J. Big Data
// 2019): the Tables 4-7 of report --preset hybsmrp and their figures, drawn
// from the results of samples/experiments/hybsmrp*.toml.
package hybsmrp

import (
	"encoding/json"
	"strings"

	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/grid"
)

// The hybsmrp preset shows the results of samples/experiments/hybsmrp*.toml in
// the form of Gandomi et al., HybSMRP (J. Big Data 2019), Tables 4-7: a row per
// number of tasks (the swept trace.maps), a column per policy in the paper's
// order and names (FIFO, Fair, HybSMRP, then the SJF-like setting and other
// policies), each cell the mean over seeds with its 95% confidence interval
// (Student's t). Blocks, one per metric and per value of the other varying
// labels (trace, hw):
//   - data-locality rate, eq. (2): node-local maps over all maps in percent, for
//     runs of several jobs; Table 4 for Wordcount, Table 5 for Terasort (the
//     generator's app), no paper table for the mix;
//   - completion time: the mean over a run's jobs of finish − submit in seconds;
//     Table 6 (Wordcount) and Table 7 (Terasort) when each run is one job alone
//     (hybsmrp-alone.toml), not a paper table under load (hybsmrp.toml,
//     hybsmrp-network.toml).
//
// Each block ends with the paper's summaries: "average", the mean over the rows,
// and "vs FIFO", "vs Fair": the paired gain over that baseline, for locality the
// average minus the baseline's in points, for completion time (Σ baseline −
// Σ policy)/Σ baseline over the rows in percent (positive: faster), which is
// how the paper's 2.19% and 0.79% come out of its Table 6.
//
// Figures, one per block: hybsmrp_[tableN_]locality|completion_CONTEXT, the
// number of tasks on the x axis and one line per policy with 95% error bars.

// hybApp returns the generator's app parameter of r's trace, recorded in
// run.json as hybsmrp{"app":"wordcount",...}@seed, else its trace label.
func hybApp(r report.Run) string {
	s := r.Summary.Trace
	if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
		var params struct {
			App string `json:"app"`
		}
		if json.Unmarshal([]byte(s[i:j+1]), &params) == nil && params.App != "" {
			return params.App
		}
	}
	t, _ := r.Label("trace")
	return t
}

// hybsmrpPreset describes the hybsmrp preset's grid.
func hybsmrpPreset() *grid.Preset {
	table := func(wordcount, terasort string) func(report.Run) string {
		return func(r report.Run) string {
			switch hybApp(r) {
			case "wordcount":
				return wordcount
			case "terasort":
				return terasort
			}
			return ""
		}
	}
	alone := func(r report.Run) bool { return len(r.Jobs) == 1 }
	return &grid.Preset{
		Name: "hybsmrp", Label: "HybSMRP", What: "table",
		Title:   "HybSMRP (Gandomi et al. 2019), Tables 4-7: mean over seeds and 95% CI against the number of tasks",
		XLabel:  "trace.maps",
		XHeader: "number of tasks",
		Series: []grid.Series{{Policy: "fifo", Display: "FIFO"}, {Policy: "fair", Display: "Fair"}, {Policy: "hybsmrp", Display: "HybSMRP"},
			{Policy: "hybsmrp:preset=fcfs", Display: "HybSMRP (FCFS-like)"}, {Policy: "hybsmrp:preset=sjf", Display: "HybSMRP (SJF-like)"}},
		Metrics: []grid.Metric{
			{ID: "locality", Short: "locality (%)", Title: "data-locality rate (%)", Prec: 1,
				Value:   func(r report.Run) float64 { return 100 * r.Summary.MapLocality },
				Paper:   table("Table 4", "Table 5"),
				Applies: func(r report.Run) bool { return !alone(r) }},
			{ID: "completion", Short: "completion (s)", Title: "mean job completion time (s)", Prec: 1, RelGain: true,
				Value: func(r report.Run) float64 { return report.Mean(report.Flowtimes(r.Jobs)) },
				Paper: func(r report.Run) string {
					if !alone(r) {
						return ""
					}
					return table("Table 6", "Table 7")(r)
				}},
		},
		Summaries: true,
		Bases:     []string{"fifo", "fair"},
		Notes: []string{
			"Each cell is the mean over seeds of one value per run; ± is the half-width of its 95% confidence interval (Student's t over the seeds; - for a single seed).",
			"Data-locality rate: node-local maps over all maps of the run, eq. (2). Completion time: finish minus submit, averaged over the run's jobs (Tables 6 and 7: one job alone).",
			"average: per seed the mean over the rows. vs B: per seed, for locality the average minus B's (points), for completion time (sum of B - sum of the column)/sum of B over the rows in percent, positive when faster than B.",
		},
	}
}

// Table lists HybSMRP Tables 4-7 and the completion times under load
// (see hybsmrpPreset): a row per table and number of tasks, per policy the mean
// over seeds and the half-width of its 95% confidence interval.
func Table(runs []report.Run) *report.Table { return hybsmrpPreset().Table(runs) }

// WriteFigures draws each table of the hybsmrp preset as a figure into
// dir (see hybsmrpPreset) and returns the paths written.
func WriteFigures(runs []report.Run, dir, format string) ([]string, error) {
	return hybsmrpPreset().WriteFigures(runs, dir, format, grid.Lines)
}
