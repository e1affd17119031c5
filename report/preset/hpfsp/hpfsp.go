// Package hpfsp is the report preset of Li et al., H-PFSP (TrustCom 2013):
// the table and figures (Figs. 2-5) of report --preset hpfsp, drawn from the
// results of samples/experiments/hpfsp-*.toml.
package hpfsp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracereplay/tracereplay/internal/results"
	"github.com/tracereplay/tracereplay/report"
)

// The hpfsp preset draws the results of samples/experiments/hpfsp-*.toml in the
// form of Li et al., H-PFSP (TrustCom 2013), Figs. 2-5, each point the mean over
// seeds with its 95% confidence interval (Student's t):
//   - hpfsp_mean: the per-run mean of the metric against the experiment's
//     parameter, one line per policy. The metric is mean slowdown (flowtime over
//     flowtime alone) when the runs replayed every job alone (Figs. 4-5), else
//     mean flowtime (Figs. 2-3). The x axis is the swept label (trace.jobs:
//     Fig. 2), else whichever of the policies' fair-limit (Figs. 4-5; Fair, which
//     has none, is a horizontal line with error bars at both ends) and the trace
//     (one category per trace: Fig. 3(a)) has more values, fair-limit on a tie.
//   - hpfsp_by_size: mean flowtime of the jobs of each size (number of maps; size
//     quintiles when a run has more than ten sizes), one dot with its interval
//     per policy side by side (Fig. 3(b)'s bars); only when the jobs of a run
//     differ in size.
//   - hpfsp_profile: mean slowdown by arrival quintile, one line per policy (the
//     slowdown profile of Figs. 4-5); only when the runs replayed jobs alone.
const (
	MeanFigure    = "hpfsp_mean"
	SizeFigure    = "hpfsp_by_size"
	ProfileFigure = "hpfsp_profile"
)

// hpfspPoint gathers one series' values at one x: one value per seed.
type hpfspPoint struct {
	series string
	x      float64
	vals   []float64
}

// hpfspAxis says what the x axis of hpfsp_mean is.
type hpfspAxis struct {
	label  string
	ticks  []string // category names when the axis is categorical
	xOf    func(report.Run) (float64, bool)
	series func(report.Run) string
}

// aloneMeasured reports whether every job of every run has a flowtime alone
// (positive: Unset is -1, and results written before the column existed read 0).
func aloneMeasured(runs []report.Run) bool {
	for _, r := range runs {
		for _, j := range r.Jobs {
			if j.AloneUs <= 0 {
				return false
			}
		}
	}
	return len(runs) > 0
}

// hpfspAxisOf picks the x axis of hpfsp_mean for runs (see the constants' doc).
func hpfspAxisOf(runs []report.Run) hpfspAxis {
	varying := report.VaryingLabels(runs)
	extra := func(r report.Run, skip string) string {
		var parts []string
		for _, k := range varying {
			if k != report.PolicyLabel && k != "seed" && k != skip {
				v, _ := r.Label(k)
				parts = append(parts, k+"="+v)
			}
		}
		return strings.Join(parts, " ")
	}
	join := func(a, b string) string { return strings.TrimSpace(a + " " + b) }
	policy := func(r report.Run) string { p, _ := r.Label(report.PolicyLabel); return p }
	for _, k := range varying {
		if slices.Contains(report.FixedLabels, k) {
			continue
		}
		return hpfspAxis{label: k, xOf: func(r report.Run) (float64, bool) {
			v, _ := r.Label(k)
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}, series: func(r report.Run) string { return join(policy(r), extra(r, k)) }}
	}
	var traces []string
	var limits []float64
	for _, r := range runs {
		if t, _ := r.Label("trace"); !slices.Contains(traces, t) {
			traces = append(traces, t)
		}
		if x, _, ok := report.FairLimit(policy(r)); ok && !slices.Contains(limits, x) {
			limits = append(limits, x)
		}
	}
	slices.SortFunc(traces, report.CompareLabelValues)
	if len(limits) > 0 && len(limits) >= len(traces) {
		return hpfspAxis{label: "FAIR_LIMIT", xOf: func(r report.Run) (float64, bool) {
			x, _, ok := report.FairLimit(policy(r))
			return x, ok
		}, series: func(r report.Run) string {
			_, name, _ := report.FairLimit(policy(r))
			return join(name, extra(r, ""))
		}}
	}
	return hpfspAxis{label: "trace", ticks: traces, xOf: func(r report.Run) (float64, bool) {
		t, _ := r.Label("trace")
		return float64(slices.Index(traces, t)), true
	}, series: func(r report.Run) string { return join(policy(r), extra(r, "trace")) }}
}

// hpfspMetric is the per-run value of hpfsp_mean and its axis title.
func hpfspMetric(runs []report.Run) (func(report.Run) float64, string) {
	if aloneMeasured(runs) {
		return func(r report.Run) float64 {
			var s float64
			for _, j := range r.Jobs {
				s += j.Slowdown
			}
			return s / float64(len(r.Jobs))
		}, "mean slowdown (flowtime / alone)"
	}
	return func(r report.Run) float64 { return report.Mean(report.Flowtimes(r.Jobs)) }, "mean flowtime (s)"
}

// hpfspPoints groups one value per run into points by series and x; runs that
// have no x (Fair on a fair-limit axis) get x = NaN.
func hpfspPoints(runs []report.Run, series func(report.Run) string, xOf func(report.Run) (float64, bool), value func(report.Run) float64) []hpfspPoint {
	var pts []hpfspPoint
	for _, r := range runs {
		s := series(r)
		x, ok := xOf(r)
		if !ok {
			x = math.NaN()
		}
		k := slices.IndexFunc(pts, func(p hpfspPoint) bool {
			return p.series == s && (p.x == x || math.IsNaN(p.x) && math.IsNaN(x))
		})
		if k < 0 {
			pts = append(pts, hpfspPoint{series: s, x: x})
			k = len(pts) - 1
		}
		pts[k].vals = append(pts[k].vals, value(r))
	}
	slices.SortStableFunc(pts, func(a, b hpfspPoint) int {
		if c := report.CompareSeries(a.series, b.series); c != 0 {
			return c
		}
		return cmp.Compare(a.x, b.x)
	})
	return pts
}

// Table lists the points of hpfsp_mean: series, x, seeds, mean and 95% CI.
func Table(runs []report.Run) *report.Table {
	ax := hpfspAxisOf(runs)
	value, metric := hpfspMetric(runs)
	csvName := "mean_flowtime_s"
	if strings.HasPrefix(metric, "mean slowdown") {
		csvName = "mean_slowdown"
	}
	t := &report.Table{
		Title: "H-PFSP (Li et al. 2013): " + metric + " against " + ax.label,
		Columns: []report.Column{{Header: "policy", Name: "policy"},
			{Header: ax.label, Name: strings.ToLower(strings.NewReplacer(".", "_", "-", "_").Replace(ax.label))},
			{Header: "seeds", Name: "seeds", Align: report.AlignRight},
			{Header: metric, Name: csvName, Align: report.AlignRight},
			{Header: "95% CI ±", Name: "ci95_half_width", Align: report.AlignRight}},
		Notes: []string{"Each point is the mean over seeds of a run's mean; the interval is Student's t at 95% over the seeds."},
	}
	for _, p := range hpfspPoints(runs, ax.series, ax.xOf, value) {
		x := "–"
		switch {
		case ax.ticks != nil:
			x = ax.ticks[int(p.x)]
		case !math.IsNaN(p.x):
			x = strconv.FormatFloat(p.x, 'g', -1, 64)
		}
		m, h := report.MeanCI95(p.vals)
		t.AddRow(report.Str(p.series), report.Str(x), report.Int(len(p.vals)), report.Float(m, 3), report.Float(h, 3))
	}
	return t
}

// WriteFigures draws the hpfsp preset's figures into dir and returns the
// paths written (see MeanFigure).
func WriteFigures(runs []report.Run, dir, format string) ([]string, error) {
	sorted, err := report.SortedForFigures(runs, format, "hpfsp figures")
	if err != nil {
		return nil, err
	}
	figs := []func([]report.Run) (report.Figure, bool, error){hpfspMean, hpfspBySize, hpfspProfile}
	var paths []string
	for _, build := range figs {
		f, ok, err := build(sorted)
		if err != nil {
			return paths, fmt.Errorf("hpfsp figure: %w", err)
		}
		if !ok {
			continue
		}
		path, err := report.WriteFigure(dir, format, f)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// addCILines draws one line with 95% error bars per series of pts; points with x
// NaN (series without the parameter) become horizontal lines with a band.
func addCILines(p *plot.Plot, pts []hpfspPoint) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, q := range pts {
		if !math.IsNaN(q.x) {
			lo, hi = min(lo, q.x), max(hi, q.x)
		}
	}
	var order []string
	for _, q := range pts {
		if !slices.Contains(order, q.series) {
			order = append(order, q.series)
		}
	}
	slices.SortFunc(order, report.CompareSeries)
	for i, s := range order {
		var e report.CIErrors
		for _, q := range pts {
			if q.series != s {
				continue
			}
			m, h := report.MeanCI95(q.vals)
			if math.IsNaN(h) {
				h = 0
			}
			if math.IsNaN(q.x) { // a reference level across the axis
				e.XYs = append(e.XYs, plotter.XY{X: lo, Y: m}, plotter.XY{X: hi, Y: m})
				e.Half = append(e.Half, h, h)
				continue
			}
			e.XYs = append(e.XYs, plotter.XY{X: q.x, Y: m})
			e.Half = append(e.Half, h)
		}
		col, dash := report.SeriesStyle(i)
		l, sc, err := plotter.NewLinePoints(e.XYs)
		if err != nil {
			return err
		}
		l.LineStyle = draw.LineStyle{Color: col, Dashes: dash, Width: vg.Points(1.5)}
		sc.GlyphStyle.Color = col
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return err
		}
		eb.LineStyle.Color = col
		p.Add(l, sc, eb)
		p.Legend.Add(s, l, sc)
	}
	return nil
}

func hpfspMean(runs []report.Run) (report.Figure, bool, error) {
	ax := hpfspAxisOf(runs)
	value, metric := hpfspMetric(runs)
	p := plot.New()
	p.Title.Text = "H-PFSP: mean over seeds, 95% CI"
	p.X.Label.Text = ax.label
	p.Y.Label.Text = metric
	p.Add(plotter.NewGrid())
	if err := addCILines(p, hpfspPoints(runs, ax.series, ax.xOf, value)); err != nil {
		return report.Figure{}, false, err
	}
	if ax.ticks != nil {
		var t []plot.Tick
		for i, name := range ax.ticks {
			t = append(t, plot.Tick{Value: float64(i), Label: name})
		}
		p.X.Tick.Marker = plot.ConstantTicks(t)
		p.X.Min, p.X.Max = -0.5, float64(len(ax.ticks))-0.5
	}
	l, top := report.TakeLegend(p)
	return report.Figure{Name: MeanFigure, Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}, true, nil
}

// jobGroups returns a key per job of r: its number of maps, or its size quintile
// (1-5) when the run has more than ten sizes.
func jobGroups(r report.Run) []int {
	sizes := make([]int32, len(r.Jobs))
	for i, j := range r.Jobs {
		sizes[i] = j.Maps
	}
	sorted := slices.Clone(sizes)
	slices.Sort(sorted)
	distinct := slices.Compact(slices.Clone(sorted))
	keys := make([]int, len(r.Jobs))
	for i, s := range sizes {
		if len(distinct) <= 10 {
			keys[i] = int(s)
			continue
		}
		k, _ := slices.BinarySearch(sorted, s)
		keys[i] = 1 + 5*k/len(sorted)
	}
	return keys
}

// groupMeans returns, per series and job group, one value per run: the mean over
// the run's jobs in that group of f.
func groupMeans(runs []report.Run, groups func(report.Run) []int, f func(*results.Job) float64) []hpfspPoint {
	var pts []hpfspPoint
	for _, r := range runs {
		s, _ := r.Label(report.PolicyLabel)
		g := groups(r)
		sum, n := map[int]float64{}, map[int]int{}
		for i := range r.Jobs {
			sum[g[i]] += f(&r.Jobs[i])
			n[g[i]]++
		}
		keys := make([]int, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			x := float64(k)
			idx := slices.IndexFunc(pts, func(p hpfspPoint) bool { return p.series == s && p.x == x })
			if idx < 0 {
				pts = append(pts, hpfspPoint{series: s, x: x})
				idx = len(pts) - 1
			}
			pts[idx].vals = append(pts[idx].vals, sum[k]/float64(n[k]))
		}
	}
	return pts
}

func hpfspBySize(runs []report.Run) (report.Figure, bool, error) {
	varied, quintiles := false, false
	for _, r := range runs {
		g := jobGroups(r)
		if slices.ContainsFunc(g, func(k int) bool { return k != g[0] }) {
			varied = true
		}
		distinct := map[int32]bool{}
		for _, j := range r.Jobs {
			distinct[j.Maps] = true
		}
		quintiles = quintiles || len(distinct) > 10
	}
	if !varied {
		return report.Figure{}, false, nil
	}
	pts := groupMeans(runs, jobGroups, func(j *results.Job) float64 { return report.Seconds(j.FlowtimeUs) })
	var xs []float64
	var series []string
	for _, q := range pts {
		if !slices.Contains(xs, q.x) {
			xs = append(xs, q.x)
		}
		if !slices.Contains(series, q.series) {
			series = append(series, q.series)
		}
	}
	slices.Sort(xs)
	slices.SortFunc(series, report.CompareSeries)
	p := plot.New()
	p.Title.Text = "H-PFSP: flowtime by job size, 95% CI"
	p.X.Label.Text = "job size (maps)"
	if quintiles {
		p.X.Label.Text = "job size quintile"
	}
	p.Y.Label.Text = "mean flowtime (s)"
	p.Add(plotter.NewGrid())
	// One dot with its interval per series and size, side by side in each size's
	// slot.
	step := 0.8 / float64(len(series))
	for i, s := range series {
		var e report.CIErrors
		for k, x := range xs {
			idx := slices.IndexFunc(pts, func(q hpfspPoint) bool { return q.series == s && q.x == x })
			if idx < 0 {
				continue
			}
			m, h := report.MeanCI95(pts[idx].vals)
			if math.IsNaN(h) {
				h = 0
			}
			e.XYs = append(e.XYs, plotter.XY{X: float64(k) + step*(float64(i)-float64(len(series)-1)/2), Y: m})
			e.Half = append(e.Half, h)
		}
		sc, err := plotter.NewScatter(e.XYs)
		if err != nil {
			return report.Figure{}, false, err
		}
		col, _ := report.SeriesStyle(i)
		sc.GlyphStyle.Color = col
		sc.GlyphStyle.Shape = draw.BoxGlyph{}
		sc.GlyphStyle.Radius = vg.Points(3)
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return report.Figure{}, false, err
		}
		eb.LineStyle.Color = col
		p.Add(sc, eb)
		p.Legend.Add(s, sc)
	}
	names := make([]string, len(xs))
	for k, x := range xs {
		names[k] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	l, top := report.TakeLegend(p)
	return report.Figure{Name: SizeFigure, Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}, true, nil
}

func hpfspProfile(runs []report.Run) (report.Figure, bool, error) {
	if !aloneMeasured(runs) {
		return report.Figure{}, false, nil
	}
	quintile := func(r report.Run) []int {
		g := make([]int, len(r.Jobs))
		for i, j := range r.Jobs {
			g[i] = 1 + 5*int(j.JobIndex)/len(r.Jobs)
		}
		return g
	}
	p := plot.New()
	p.Title.Text = "H-PFSP: slowdown profile, 95% CI"
	p.X.Label.Text = "arrival quintile"
	p.Y.Label.Text = "mean slowdown"
	p.Add(plotter.NewGrid())
	if err := addCILines(p, groupMeans(runs, quintile, func(j *results.Job) float64 { return j.Slowdown })); err != nil {
		return report.Figure{}, false, err
	}
	l, top := report.TakeLegend(p)
	return report.Figure{Name: ProfileFigure, Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}, true, nil
}
