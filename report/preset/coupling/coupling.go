// Package coupling is the report preset of Tan, Meng and Zhang, Coupling Task
// Progress for MapReduce Resource-Aware Scheduling (INFOCOM 2013): the table and
// figures of report --preset coupling, drawn from the results of
// samples/experiments/coupling-*.toml.
package coupling

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracereplay/tracereplay/internal/results"

	"github.com/tracereplay/tracereplay/report"
)

// The coupling preset draws the results of samples/experiments/coupling-*.toml in
// the form of Tan, Meng and Zhang, Coupling Task Progress for MapReduce
// Resource-Aware Scheduling (INFOCOM 2013). Every value is the mean over seeds
// with its 95% confidence interval (Student's t, MeanCI95); times are in minutes,
// as in the paper.
//
// Runs are grouped into workloads by their labels other than policy and seed
// (trace, hardware, sweep values). A workload is fixed when every run has the
// same jobs (names, sizes, submit times); its jobs are then comparable across
// seeds and are listed one by one. Which figures a workload gets follows from
// its shape, so that each spec gets the paper's figures:
//   - coupling_running[_W]_POLICY (Figs. 1, 2, 5, 6(b)): a fixed workload of 2 to
//     10 jobs with reduces: per policy, running maps (top) and reduces (bottom)
//     of each job against time, mean over seeds with a 95% band; every policy's
//     figure has the same axes.
//   - coupling_maps[_W] (Figs. 10, 11, 13(b)): a fixed workload of up to 10 jobs
//     that is map-only or a single job: running maps of each job against time,
//     one panel per policy, with the cluster's map slots as a dashed line when
//     the run recorded its hardware.
//   - coupling_spans[_W] (Figs. 3, 6(a), 13(a)): a fixed workload of 2 to 50 jobs:
//     per job ID, a line from submission to the mean finish, ticks at the
//     minimum and maximum finish over seeds, the 95% interval of the finish as
//     error bars, one colour per policy.
//   - coupling_local_maps[_W] (Fig. 15): a fixed map-only workload of 2 or more
//     jobs: node-local maps per job ID, grouped bars with 95% error bars.
//   - coupling_network[_W] (Fig. 14): a fixed workload whose runs wrote
//     node_net.parquet: per
//     policy, the largest bytes any node received and sent in each timeline
//     interval, mean over seeds with a 95% band, panels sharing the y axis.
//   - coupling_processing (Fig. 12): when there are several workloads of one job
//     each: the job's mean processing time per workload and policy with its 95%
//     interval (error bars) and the range over seeds (thin line).
//   - coupling_cdf[_W] (Fig. 16): a workload that is not fixed, or has more than
//     50 jobs: the empirical CDF of job processing time, the mean over seeds of
//     each seed's CDF with a pointwise 95% band.
//
// _W names the workload when there are several. The table (Table) has one
// row per job of each fixed workload of at most 50 jobs (Tables III and IV: ID,
// name, submit time, maps, reduces) and a row for the mean over all jobs, with,
// per policy, the processing time T, the starvation time S (§III-C, when some job
// has reduces; Table IV's SF and SC) or, for map-only workloads, the node-local
// maps L (Fig. 15); its notes give each workload's mean processing time against
// the first policy (Fair), and the network and running-map figures' summaries.
const (
	couplingMaxPlotJobs  = 10 // running-task figures for workloads up to this size
	couplingMaxTableJobs = 50 // per-job rows and spans for workloads up to this size
)

// cpGroup is one workload: the runs of every policy and seed on it.
type cpGroup struct {
	title    string // trace on hardware, other labels
	short    string // the values of the labels that tell workloads apart
	slug     string // file-name part, "" when there is one workload
	runs     []report.Run
	policies []string // Fair first, then compareSeries order
	fixed    bool     // the same jobs in every run
	jobs     []results.Job
	reduces  bool // some job has reduces
}

// byPolicy returns the group's runs of policy p, in seed order.
func (g *cpGroup) byPolicy(p string) []report.Run {
	var out []report.Run
	for _, r := range g.runs {
		if r.Policy == p {
			out = append(out, r)
		}
	}
	return out
}

// cpPolicyOrder orders Fair before the others, then as compareSeries does.
func cpPolicyOrder(a, b string) int {
	fa := strings.HasPrefix(a, "fair:") || a == "fair"
	fb := strings.HasPrefix(b, "fair:") || b == "fair"
	if fa != fb {
		if fa {
			return -1
		}
		return 1
	}
	return report.CompareSeries(a, b)
}

// couplingGroups splits the simulation runs among runs into workloads, in
// SortRuns order.
func couplingGroups(runs []report.Run) []*cpGroup {
	_, sims := report.SplitAllocStudies(runs)
	if len(sims) == 0 {
		return nil
	}
	sorted := slices.Clone(sims)
	report.SortRuns(sorted)
	var keys []string
	for _, k := range report.LabelKeys(sorted) {
		if k != report.PolicyLabel && k != "seed" {
			keys = append(keys, k)
		}
	}
	varying := report.VaryingLabels(sorted)
	var groups []*cpGroup
	index := map[string]*cpGroup{}
	for _, r := range sorted {
		var id, short []string
		for _, k := range keys {
			v, _ := r.Label(k)
			id = append(id, k+"="+v)
			if slices.Contains(varying, k) {
				short = append(short, v)
			}
		}
		key := strings.Join(id, "\x00")
		g, ok := index[key]
		if !ok {
			g = &cpGroup{title: groupTitle(r, keys), short: strings.Join(short, " "), slug: report.FileSlug(strings.Join(short, "_"))}
			index[key] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, r)
		if !slices.Contains(g.policies, r.Policy) {
			g.policies = append(g.policies, r.Policy)
		}
	}
	for _, g := range groups {
		slices.SortFunc(g.policies, cpPolicyOrder)
		g.jobs = g.runs[0].Jobs
		g.fixed = true
		for _, r := range g.runs {
			g.fixed = g.fixed && sameJobs(g.jobs, r.Jobs)
			for _, j := range r.Jobs {
				g.reduces = g.reduces || j.Reduces > 0
			}
		}
		if len(groups) == 1 {
			g.slug = ""
		}
	}
	return groups
}

// groupTitle names a workload: "TRACE on HW", then the other labels as k=v.
func groupTitle(r report.Run, keys []string) string {
	var parts []string
	if v, ok := r.Label("trace"); ok {
		parts = append(parts, v)
	}
	if v, ok := r.Label("hw"); ok {
		parts = append(parts, "on "+v)
	}
	for _, k := range keys {
		if k != "trace" && k != "hw" {
			v, _ := r.Label(k)
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "all runs"
	}
	return strings.Join(parts, " ")
}

// allPolicies lists the policies of every workload, Fair first.
func allPolicies(groups []*cpGroup) []string {
	var ps []string
	for _, g := range groups {
		ps = append(ps, g.policies...)
	}
	slices.SortFunc(ps, cpPolicyOrder)
	return slices.Compact(ps)
}

// sameJobs reports whether two runs replayed the same jobs.
func sameJobs(a, b []results.Job) bool {
	return slices.EqualFunc(a, b, func(x, y results.Job) bool {
		return x.JobIndex == y.JobIndex && x.Name == y.Name && x.Maps == y.Maps && x.Reduces == y.Reduces && x.SubmitUs == y.SubmitUs
	})
}

// minutes converts simulated microseconds to minutes.
func minutes(us int64) float64 { return float64(us) / 60e6 }

// cpJobValue is one per-job metric: its value in a run, NaN for none.
type cpJobValue func(j *results.Job) float64

func cpProcessing(j *results.Job) float64 {
	if j.FinishUs == results.Unset {
		return math.NaN()
	}
	return minutes(j.FlowtimeUs)
}

func cpStarvation(j *results.Job) float64 {
	if j.Reduces == 0 {
		return math.NaN()
	}
	return minutes(j.StarvationUs)
}

func cpLocalMaps(j *results.Job) float64 { return float64(j.MapsNodeLocal) }

// perJob returns f of job k in each run, NaNs left out.
func perJob(runs []report.Run, k int, f cpJobValue) []float64 {
	var v []float64
	for _, r := range runs {
		if k < len(r.Jobs) {
			if x := f(&r.Jobs[k]); !math.IsNaN(x) {
				v = append(v, x)
			}
		}
	}
	return v
}

// perRunMean returns, per run, the mean of f over its jobs (NaNs left out);
// runs where every job is NaN are left out.
func perRunMean(runs []report.Run, f cpJobValue) []float64 {
	var v []float64
	for _, r := range runs {
		var s float64
		n := 0
		for i := range r.Jobs {
			if x := f(&r.Jobs[i]); !math.IsNaN(x) {
				s += x
				n++
			}
		}
		if n > 0 {
			v = append(v, s/float64(n))
		}
	}
	return v
}

// cpMetric is one per-policy column pair of the table.
type cpMetric struct {
	header, name string
	f            cpJobValue
	prec         int
}

// Table is the coupling preset's table (see the package comment above).
func Table(runs []report.Run) *report.Table {
	groups := couplingGroups(runs)
	t := &report.Table{}
	if len(groups) == 0 {
		t.Title = "Coupling (Tan et al. 2013)"
		t.Notes = []string{"No simulation runs among the results."}
		return t
	}
	policies := allPolicies(groups)
	anyReduces := slices.ContainsFunc(groups, func(g *cpGroup) bool { return g.reduces })
	display := report.PolicyDisplay(policies)
	metrics := []cpMetric{{"T (min)", "t_min", cpProcessing, 2}}
	what := "processing time T"
	if anyReduces {
		metrics = append(metrics, cpMetric{"S (min)", "s_min", cpStarvation, 2})
		what += " and starvation time S (Table IV's SF, SC)"
	} else {
		metrics = append(metrics, cpMetric{"L (maps)", "local_maps", cpLocalMaps, 1})
		what += " and node-local maps L (Fig. 15)"
	}
	t.Title = "Coupling (Tan et al. 2013): per-job " + what + ", mean over seeds with 95% CIs"
	if len(groups) > 1 {
		t.Columns = append(t.Columns, report.Column{Header: "workload", Name: "workload"})
	}
	t.Columns = append(t.Columns, report.Column{Header: "job", Name: "job", Align: report.AlignRight}, report.Column{Header: "name", Name: "name"},
		report.Column{Header: "submit\n(min)", Name: "submit_min", Align: report.AlignRight},
		report.Column{Header: "maps", Name: "maps", Align: report.AlignRight}, report.Column{Header: "reduces", Name: "reduces", Align: report.AlignRight})
	for _, p := range policies {
		for _, m := range metrics {
			t.Columns = append(t.Columns, report.Column{Header: strings.Replace(display[p], " ", "\n", 1) + "\n" + m.header, Name: report.ColumnSlug(display[p]) + "_" + m.name, Align: report.AlignRight},
				report.Column{Header: "±", Name: report.ColumnSlug(display[p]) + "_" + m.name + "_ci95", Align: report.AlignRight})
		}
	}
	for _, g := range groups {
		lead := func() []report.Cell {
			if len(groups) > 1 {
				return []report.Cell{report.Str(g.title)}
			}
			return nil
		}
		values := func(stat func(runs []report.Run, m cpMetric) []float64) []report.Cell {
			var cells []report.Cell
			for _, p := range policies {
				rp := g.byPolicy(p)
				for _, m := range metrics {
					mean, half := math.NaN(), math.NaN()
					if v := stat(rp, m); len(v) > 0 {
						mean, half = report.MeanCI95(v)
					}
					cells = append(cells, report.Float(mean, m.prec), report.Float(half, m.prec))
				}
			}
			return cells
		}
		listed := g.fixed && len(g.jobs) <= couplingMaxTableJobs
		if listed {
			for k, j := range g.jobs {
				row := append(lead(), report.Int(k+1), report.Str(j.Name), report.Float(minutes(j.SubmitUs), 2), report.Int(int(j.Maps)), report.Int(int(j.Reduces)))
				t.AddRow(append(row, values(func(rp []report.Run, m cpMetric) []float64 { return perJob(rp, k, m.f) })...)...)
			}
		}
		if !listed || len(g.jobs) > 1 {
			n := len(g.jobs)
			name := fmt.Sprintf("all %d jobs (mean)", n)
			if !g.fixed {
				name = "all jobs (mean; jobs differ by seed)"
			}
			row := append(lead(), report.Str("all"), report.Str(name), report.Float(math.NaN(), 2), report.Float(math.NaN(), 0), report.Float(math.NaN(), 0))
			t.AddRow(append(row, values(func(rp []report.Run, m cpMetric) []float64 { return perRunMean(rp, m.f) })...)...)
		}
	}
	defs := "T is a job's processing time (finish − submit), "
	if anyReduces {
		defs += "S its starvation time (§III-C: the mean, over its reduces launched after its last map ended, of the wait from that end; 0 when none waited; - for jobs without reduces)."
	} else {
		defs += "L its maps that ran on a node holding their input."
	}
	t.Notes = append(t.Notes, defs,
		"Each value is the mean over seeds, ± the half-width of its 95% confidence interval (Student's t); the \"all\" row averages over a run's jobs first.")
	single := singleJobSet(groups)
	for _, g := range groups {
		t.Notes = append(t.Notes, couplingNotes(g, display, single)...)
	}
	return t
}

// singleJobSet reports whether groups are several workloads of one job each
// (Fig. 12).
func singleJobSet(groups []*cpGroup) bool {
	single := len(groups) > 1
	for _, g := range groups {
		single = single && g.fixed && len(g.jobs) == 1
	}
	return single
}

// couplingNotes summarises a workload: mean processing time per policy against
// the first, and the figures' headline numbers; for a set of single jobs
// (Fig. 12) the range over seeds instead.
func couplingNotes(g *cpGroup, display map[string]string, single bool) []string {
	var parts []string
	var base float64
	for i, p := range g.policies {
		v := perRunMean(g.byPolicy(p), cpProcessing)
		m, h := report.MeanCI95(v)
		s := display[p] + " " + withCI(m, h, 2) + " min"
		if single && len(v) > 0 {
			s += fmt.Sprintf(" [%.2f, %.2f]", slices.Min(v), slices.Max(v))
		}
		if i == 0 {
			base = m
		} else if base > 0 {
			s += fmt.Sprintf(" (%+.1f%%)", 100*(m-base)/base)
		}
		parts = append(parts, s)
	}
	what := "mean processing time"
	if single {
		what = "processing time, mean ± 95% half-width [range over seeds]"
	}
	notes := []string{fmt.Sprintf("%s: %s: %s.", g.title, what, strings.Join(parts, "; "))}
	if single {
		return notes
	}
	if g.fixed && len(g.jobs) <= couplingMaxPlotJobs && (!g.reduces || len(g.jobs) == 1) {
		parts = parts[:0]
		for _, p := range g.policies {
			m, h := report.MeanCI95(perRunValue(g.byPolicy(p), meanRunningMaps))
			parts = append(parts, display[p]+" "+withCI(m, h, 1))
		}
		notes = append(notes, fmt.Sprintf("%s: running maps in the cluster, mean over the samples with a map running: %s.", g.title, strings.Join(parts, "; ")))
	}
	if !g.fixed || len(g.jobs) > couplingMaxTableJobs {
		parts = parts[:0]
		for _, p := range g.policies {
			var all []float64
			for _, r := range g.byPolicy(p) {
				for i := range r.Jobs {
					if x := cpProcessing(&r.Jobs[i]); !math.IsNaN(x) {
						all = append(all, x)
					}
				}
			}
			slices.Sort(all)
			parts = append(parts, fmt.Sprintf("%s %.2f, %.2f, %.2f, %.2f (max %.1f)", display[p],
				report.Percentile(all, 0.25), report.Percentile(all, 0.5), report.Percentile(all, 0.75), report.Percentile(all, 0.9), report.Percentile(all, 1)))
		}
		notes = append(notes, fmt.Sprintf("%s: processing-time quartiles and 90th percentile over all seeds' jobs (min): %s.", g.title, strings.Join(parts, "; ")))
	}
	if net, err := loadGroupNet(g); err == nil && net != nil {
		parts = parts[:0]
		for _, p := range g.policies {
			var peak, total []float64
			for _, n := range net.byPolicy(p) {
				peak = append(peak, n.meanPeakMB())
				total = append(total, n.totalGB())
			}
			pm, ph := report.MeanCI95(peak)
			tm, th := report.MeanCI95(total)
			parts = append(parts, fmt.Sprintf("%s %s MB, %s GB", display[p], withCI(pm, ph, 1), withCI(tm, th, 1)))
		}
		notes = append(notes, fmt.Sprintf("%s: network (Fig. 14), the busiest node's bytes per %s interval averaged over the makespan, and the total moved between nodes: %s.",
			g.title, net.width, strings.Join(parts, "; ")))
	} else if err != nil {
		notes = append(notes, fmt.Sprintf("%s: network: %v.", g.title, err))
	}
	return notes
}

// withCI formats a mean and its 95% half-width, "m ± h", or "m" alone when the
// interval is undefined (one seed).
func withCI(m, h float64, prec int) string {
	if math.IsNaN(h) {
		return strconv.FormatFloat(m, 'f', prec, 64)
	}
	return strconv.FormatFloat(m, 'f', prec, 64) + " ± " + strconv.FormatFloat(h, 'f', prec, 64)
}

// perRunValue returns f of each run.
func perRunValue(runs []report.Run, f func(report.Run) float64) []float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	return v
}

// meanRunningMaps is the cluster's mean number of running maps over the
// timeline samples at which some map ran.
func meanRunningMaps(r report.Run) float64 {
	var s, n float64
	for _, x := range r.Timeline {
		if x.JobIndex == -1 && x.RunningMaps > 0 {
			s += float64(x.RunningMaps)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / n
}

// WriteFigures draws the coupling preset's figures (see the package
// comment above) into dir and returns the paths written.
func WriteFigures(runs []report.Run, dir, format string) ([]string, error) {
	groups := couplingGroups(runs)
	if len(groups) == 0 {
		return nil, fmt.Errorf("coupling figures: no simulation runs")
	}
	var figs []report.Figure
	add := func(f []report.Figure, err error) error {
		figs = append(figs, f...)
		return err
	}
	display := report.PolicyDisplay(allPolicies(groups))
	if singleJobSet(groups) {
		if err := add(cpProcessingFigure(groups, display)); err != nil {
			return nil, err
		}
		return report.WriteFigureSet(dir, format, figs)
	}
	for _, g := range groups {
		n := len(g.jobs)
		var err error
		switch {
		case g.fixed && n >= 2 && n <= couplingMaxPlotJobs && g.reduces:
			err = add(cpRunningFigures(g, display))
		case g.fixed && n <= couplingMaxPlotJobs:
			err = add(cpMapsFigure(g, display))
		}
		if err == nil && g.fixed && n >= 2 && n <= couplingMaxTableJobs {
			err = add(cpSpansFigure(g, display))
		}
		if err == nil && g.fixed && n >= 2 && !g.reduces {
			err = add(cpLocalMapsFigure(g, display))
		}
		if err == nil && g.fixed {
			err = add(cpNetworkFigure(g, display))
		}
		if err == nil && (!g.fixed || n > couplingMaxTableJobs) {
			err = add(cpCDFFigure(g, display))
		}
		if err != nil {
			return nil, fmt.Errorf("coupling figures, %s: %w", g.title, err)
		}
	}
	return report.WriteFigureSet(dir, format, figs)
}

// figName is a figure's file name: coupling_FORM, the workload and the parts.
func (g *cpGroup) figName(form string, parts ...string) string {
	name := "coupling_" + form
	if g.slug != "" {
		name += "_" + g.slug
	}
	for _, p := range parts {
		name += "_" + report.FileSlug(p)
	}
	return name
}
