package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/replay"
)

// easMetric is one of the quantities of EAS Figs. 3-7, read from a run summary.
type easMetric struct {
	fig, name, format string // format prints mean and half-width
	get               func(*replay.RunSummary) float64
}

var easMetrics = []easMetric{
	{"Fig. 3", "locality LM/TM (%)", "%.1f ± %.1f", func(s *replay.RunSummary) float64 { return 100 * s.MapLocality }},
	{"Fig. 4", "load balance (Σ_t LB^t / max)", "%.3f ± %.3f", func(s *replay.RunSummary) float64 { return s.LoadBalanceSum }},
	{"Fig. 5", "map machines' throughput, eq. 3 (MB/s)", "%.1f ± %.1f", func(s *replay.RunSummary) float64 { return s.MapMachineThroughput }},
	{"Fig. 6", "reduce machines' throughput, eq. 4 (MB/s)", "%.1f ± %.1f", func(s *replay.RunSummary) float64 { return s.ReduceMachineThroughput }},
	{"Fig. 7", "total flowtime (s)", "%.0f ± %.0f", func(s *replay.RunSummary) float64 { return float64(s.TotalFlowtimeUs) / 1e6 }},
}

// TestEASExperiment runs samples/experiments/eas.toml (350 runs of 50 jobs, with
// invariants checked) and checks the properties the paper's setting guarantees:
// EAS and the strict baselines run every map node-local, the total map and reduce
// input is the workload's, and no policy launches a reduce before its job's maps
// are done. At level repro (TRACEREPLAY_TESTS=repro, internal/testgate) it
// prints Figs. 3-7 as Markdown tables (mean ± 95% confidence half-width over
// seeds), the numbers of docs/repro/eas.md.
func TestEASExperiment(t *testing.T) {
	testgate.Require(t, testgate.Full, "350 runs")
	e := loadExperiment(t, "../samples/experiments/eas.toml")
	cells := experimentCells(t, e)
	type key struct {
		policy string
		repl   string
	}
	vals := map[key][][]float64{} // metric -> values over seeds
	var repls []string
	for _, c := range cells {
		res := runCell(t, c)
		s := &res.Summary
		repl := c.Labels[3][1]
		if !slices.Contains(repls, repl) {
			repls = append(repls, repl)
		}
		if c.Policy == "eas" || strings.HasSuffix(c.Policy, "-s") {
			if s.MapLocality != 1 {
				t.Errorf("%s: locality %v, want 1 under strict locality", c.Dir, s.MapLocality)
			}
		}
		if s.Maps != 208 || s.Jobs != 50 {
			t.Errorf("%s: %d jobs, %d maps; want Table 1's 50 and 208", c.Dir, s.Jobs, s.Maps)
		}
		for _, j := range res.Jobs {
			if j.FirstReduceLaunchUs >= 0 && j.FirstReduceLaunchUs < j.LastMapEndUs {
				t.Errorf("%s: job %s launched a reduce at %d before its last map ended at %d", c.Dir, j.JobID, j.FirstReduceLaunchUs, j.LastMapEndUs)
			}
		}
		k := key{c.Policy, repl}
		if vals[k] == nil {
			vals[k] = make([][]float64, len(easMetrics))
		}
		for m, em := range easMetrics {
			vals[k][m] = append(vals[k][m], em.get(s))
		}
	}
	if !testgate.Enabled(testgate.Repro) {
		return
	}
	// Fig. 4 is normalised to [0, 1] by the largest mean of the figure.
	var lbMax float64
	for _, v := range vals {
		lbMax = max(lbMax, stat.Mean(v[1], nil))
	}
	var b strings.Builder
	for m, em := range easMetrics {
		fmt.Fprintf(&b, "\n%s, %s\n\n| replication |", em.fig, em.name)
		for _, p := range e.Policies {
			fmt.Fprintf(&b, " %s |", p)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(e.Policies)) + "\n")
		for _, r := range repls {
			fmt.Fprintf(&b, "| %s |", r)
			for _, p := range e.Policies {
				x := slices.Clone(vals[key{p, r}][m])
				if m == 1 {
					for i := range x {
						x[i] /= lbMax
					}
				}
				mean, half := meanCI(x)
				fmt.Fprintf(&b, " "+em.format+" |", mean, half)
			}
			b.WriteString("\n")
		}
	}
	t.Log(b.String())
}
