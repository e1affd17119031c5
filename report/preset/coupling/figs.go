package coupling

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracereplay/tracereplay/internal/results"

	"github.com/tracereplay/tracereplay/report"
)

// The coupling preset's figure builders; see the package comment in
// coupling.go for which workloads get which.

const (
	cpPanelHeight = 2.6 * vg.Inch
	cpLineWidth   = 1.3
)

// timePanel returns a plot with a time axis in minutes from 0 and counts on y.
func timePanel(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.X.Label.Text = "time (min)"
	p.X.Tick.Marker = report.DenseTicks{}
	p.Y.Tick.Marker = report.DenseTicks{}
	p.X.Min, p.Y.Min = 0, 0
	p.Add(plotter.NewGrid())
	return p
}

// bandMax is the largest upper end of the bands.
func bandMax(bands ...[]report.MeanBand) float64 {
	hi := 0.0
	for _, bs := range bands {
		for _, b := range bs {
			for i, q := range b.XY {
				hi = max(hi, q.Y+report.ZeroNaN(b.Half[i]))
			}
		}
	}
	return hi
}

// jobLabel names job k of g in a legend.
func (g *cpGroup) jobLabel(k int) string {
	if len(g.jobs) == 1 {
		return g.jobs[0].Name
	}
	return fmt.Sprintf("Job %d", k+1)
}

// seedsNote says over how many seeds a policy's runs were averaged.
func seedsNote(runs []report.Run) string {
	if len(runs) == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("mean of %d seeds, 95%% band", len(runs))
}

// cpRunningFigures draws Figs. 1, 2, 5 and 6(b): per policy, running maps and
// reduces of each job.
func cpRunningFigures(g *cpGroup, display map[string]string) ([]report.Figure, error) {
	step, err := g.step()
	if err != nil {
		return nil, err
	}
	n := g.gridLen(step)
	maps := make([][]report.MeanBand, len(g.policies))
	reds := make([][]report.MeanBand, len(g.policies))
	for i, p := range g.policies {
		maps[i], reds[i] = g.runningBands(p, step, n)
	}
	ymaxM, ymaxR := bandMax(maps...), bandMax(reds...)
	var figs []report.Figure
	for i, p := range g.policies {
		top := timePanel(fmt.Sprintf("%s: running tasks per job\n%s (%s)", display[p], g.title, seedsNote(g.byPolicy(p))), "running maps")
		bottom := timePanel("", "running reduces")
		for k := range g.jobs {
			col, dash := report.SeriesStyle(k)
			l, err := report.AddMeanBand(top, maps[i][k], col, dash, vg.Points(cpLineWidth), 0, math.Inf(1))
			if err != nil {
				return nil, err
			}
			if _, err := report.AddMeanBand(bottom, reds[i][k], col, dash, vg.Points(cpLineWidth), 0, math.Inf(1)); err != nil {
				return nil, err
			}
			top.Legend.Add(g.jobLabel(k), l)
		}
		for _, pp := range []*plot.Plot{top, bottom} {
			pp.X.Max = minutes(int64(n) * step)
		}
		top.Y.Max, bottom.Y.Max = max(1, 1.05*ymaxM), max(1, 1.05*ymaxR)
		figs = append(figs, report.StackFigure(g.figName("running", display[p]), []*plot.Plot{top, bottom}, cpPanelHeight))
	}
	return figs, nil
}

// cpMapsFigure draws Figs. 10, 11 and 13(b): running maps of each job, one panel
// per policy, with the cluster's map slots.
func cpMapsFigure(g *cpGroup, display map[string]string) ([]report.Figure, error) {
	step, err := g.step()
	if err != nil {
		return nil, err
	}
	hw, hwOK, err := runHardware(g.runs[0])
	if err != nil {
		return nil, err
	}
	n := g.gridLen(step)
	bands := make([][]report.MeanBand, len(g.policies))
	for i, p := range g.policies {
		bands[i], _ = g.runningBands(p, step, n)
	}
	ymax := bandMax(bands...)
	slots := 0
	if hwOK {
		slots = hw.TotalMapSlots()
		ymax = max(ymax, float64(slots))
	}
	var panels []*plot.Plot
	for i, p := range g.policies {
		title := display[p]
		if i == 0 {
			what := "running maps per job"
			if len(g.jobs) == 1 {
				what = "running maps"
			}
			title = fmt.Sprintf("%s: %s\n(%s)\n%s", g.title, what, seedsNote(g.byPolicy(p)), display[p])
		}
		pp := timePanel(title, "running maps")
		pp.X.Max = minutes(int64(n) * step)
		pp.Y.Max = max(1, 1.08*ymax)
		if slots > 0 {
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(slots)}, {X: pp.X.Max, Y: float64(slots)}})
			if err != nil {
				return nil, err
			}
			l.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x70}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
			pp.Add(l)
			if i == 0 {
				pp.Legend.Add(fmt.Sprintf("map slots (%d)", slots), l)
			}
		}
		for k := range g.jobs {
			col, dash := report.SeriesStyle(k)
			l, err := report.AddMeanBand(pp, bands[i][k], col, dash, vg.Points(cpLineWidth), 0, math.Inf(1))
			if err != nil {
				return nil, err
			}
			if i == 0 {
				pp.Legend.Add(g.jobLabel(k), l)
			}
		}
		panels = append(panels, pp)
	}
	return []report.Figure{report.StackFigure(g.figName("maps"), panels, 2.2*vg.Inch)}, nil
}

// vbarGlyph is a short vertical bar, the paper's tick for a minimum, mean or
// maximum in Fig. 3.
type vbarGlyph struct{}

// DrawGlyph implements draw.GlyphDrawer.
func (vbarGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.StrokeLine2(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.2)}, pt.X, pt.Y-sty.Radius, pt.X, pt.Y+sty.Radius)
}

// xCIErrors are horizontal 95% half-widths, for plotter.XErrorBars.
type xCIErrors struct {
	plotter.XYs
	half []float64
}

func (e xCIErrors) XError(i int) (float64, float64) { return e.half[i], e.half[i] }

// cpSpansFigure draws Figs. 3, 6(a) and 13(a): per job ID, submission to finish.
func cpSpansFigure(g *cpGroup, display map[string]string) ([]report.Figure, error) {
	nj := len(g.jobs)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: job processing times\nline: submission to mean finish; |: min and max; bars: 95%% CI", g.title)
	p.X.Label.Text = "time (min)"
	p.Y.Label.Text = "job ID"
	p.X.Tick.Marker = report.DenseTicks{}
	p.X.Min = 0
	p.Add(plotter.NewGrid())
	np := len(g.policies)
	dy := min(0.25, 0.8/float64(np))
	xmax := 0.0
	for pi, pol := range g.policies {
		runs := g.byPolicy(pol)
		col, _ := report.SeriesStyle(pi)
		var means xCIErrors
		var ends plotter.XYs
		for k, j := range g.jobs {
			fin := perJob(runs, k, func(j *results.Job) float64 {
				if j.FinishUs == results.Unset {
					return math.NaN()
				}
				return minutes(j.FinishUs)
			})
			if len(fin) == 0 {
				continue
			}
			y := float64(k+1) + dy*(float64(pi)-float64(np-1)/2)
			m, h := report.MeanCI95(fin)
			seg, err := plotter.NewLine(plotter.XYs{{X: minutes(j.SubmitUs), Y: y}, {X: m, Y: y}})
			if err != nil {
				return nil, err
			}
			seg.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
			p.Add(seg)
			means.XYs = append(means.XYs, plotter.XY{X: m, Y: y})
			means.half = append(means.half, report.ZeroNaN(h))
			ends = append(ends, plotter.XY{X: slices.Min(fin), Y: y}, plotter.XY{X: slices.Max(fin), Y: y})
			xmax = max(xmax, slices.Max(fin), m+report.ZeroNaN(h))
		}
		if len(means.XYs) == 0 {
			continue
		}
		ticks, err := plotter.NewScatter(ends)
		if err != nil {
			return nil, err
		}
		ticks.GlyphStyle = draw.GlyphStyle{Color: col, Shape: vbarGlyph{}, Radius: vg.Points(3.5)}
		dots, err := plotter.NewScatter(means.XYs)
		if err != nil {
			return nil, err
		}
		dots.GlyphStyle = draw.GlyphStyle{Color: col, Shape: draw.CircleGlyph{}, Radius: vg.Points(2)}
		eb, err := plotter.NewXErrorBars(means)
		if err != nil {
			return nil, err
		}
		eb.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1)}
		eb.CapWidth = vg.Points(5)
		p.Add(ticks, eb, dots)
		legendLine, err := plotter.NewLine(plotter.XYs{{}, {X: 1}})
		if err != nil {
			return nil, err
		}
		legendLine.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
		p.Legend.Add(display[pol], legendLine, dots)
	}
	p.X.Max = xmax * 1.03
	p.Y.Min, p.Y.Max = 0.4, float64(nj)+0.6
	every := 1
	if nj > 25 {
		every = 5
	}
	var ticks []plot.Tick
	for k := 1; k <= nj; k++ {
		t := plot.Tick{Value: float64(k)}
		if k%every == 0 || every == 1 {
			t.Label = strconv.Itoa(k)
		}
		ticks = append(ticks, t)
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	l, top := report.SideLegend(p)
	height := max(4*vg.Inch, vg.Length(nj)*0.2*vg.Inch+1.8*vg.Inch)
	return []report.Figure{{Name: g.figName("spans"), Height: height, Legend: l, Top: top, Draw: p.Draw}}, nil
}

// cpLocalMapsFigure draws Fig. 15: node-local maps per job ID, grouped bars.
func cpLocalMapsFigure(g *cpGroup, display map[string]string) ([]report.Figure, error) {
	nj, np := len(g.jobs), len(g.policies)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: maps with local data\nmean over seeds, 95%% CI", g.title)
	p.X.Label.Text = "job ID"
	p.Y.Label.Text = "node-local maps"
	p.Y.Tick.Marker = report.DenseTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	slot := 0.8 / float64(np)
	w := min(vg.Points(14), 0.75*(report.MinPlotWidth-vg.Inch)/vg.Length(nj*np))
	ymax := 0.0
	for pi, pol := range g.policies {
		runs := g.byPolicy(pol)
		shift := slot * (float64(pi) - float64(np-1)/2)
		vals := make(plotter.Values, nj)
		var e report.CIErrors
		for k := range nj {
			m, h := report.MeanCI95(perJob(runs, k, cpLocalMaps))
			vals[k] = m
			e.XYs = append(e.XYs, plotter.XY{X: float64(k) + shift, Y: m})
			e.Half = append(e.Half, report.ZeroNaN(h))
			ymax = max(ymax, m+report.ZeroNaN(h))
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		col, _ := report.SeriesStyle(pi)
		b.Color = col
		b.LineStyle.Width = 0
		b.XMin = shift
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return nil, err
		}
		eb.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(0.8)}
		eb.CapWidth = vg.Points(3)
		p.Add(b, eb)
		p.Legend.Add(display[pol], b)
	}
	names := make([]string, nj)
	for k := range names {
		names[k] = strconv.Itoa(k + 1)
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(nj)-0.5
	p.Y.Max = max(1, 1.05*ymax)
	l, top := report.SideLegend(p)
	return []report.Figure{{Name: g.figName("local_maps"), Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}}, nil
}

// cpNetworkFigure draws Fig. 14: per policy, the busiest node's bytes received
// and sent per timeline interval.
func cpNetworkFigure(g *cpGroup, display map[string]string) ([]report.Figure, error) {
	net, err := loadGroupNet(g)
	if err != nil || net == nil {
		return nil, err
	}
	n := 0
	for _, r := range net.runs {
		n = max(n, len(r.in)+1)
	}
	x := minutes(int64(net.width))
	bands := make([][]report.MeanBand, len(g.policies))
	for i, p := range g.policies {
		runs := net.byPolicy(p)
		in, out := make([][]float64, len(runs)), make([][]float64, len(runs))
		for k, r := range runs {
			in[k], out[k] = make([]float64, n), make([]float64, n)
			for j := range r.in {
				in[k][j], out[k][j] = r.in[j]/1e6, r.out[j]/1e6
			}
		}
		bands[i] = []report.MeanBand{bandOf(in, n, x), bandOf(out, n, x)}
	}
	ymax := bandMax(bands...)
	var panels []*plot.Plot
	for i, p := range g.policies {
		title := display[p]
		if i == 0 {
			title = fmt.Sprintf("%s: busiest node's network\n(%s)\n%s", g.title, seedsNote(g.byPolicy(p)), display[p])
		}
		pp := timePanel(title, fmt.Sprintf("MB per %s", net.width))
		pp.X.Max = float64(n) * x
		pp.Y.Max = max(1, 1.05*ymax)
		for k, name := range []string{"in (largest node)", "out (largest node)"} {
			col, dash := report.SeriesStyle(k)
			l, err := report.AddMeanBand(pp, bands[i][k], col, dash, vg.Points(1), 0, math.Inf(1))
			if err != nil {
				return nil, err
			}
			if i == 0 {
				pp.Legend.Add(name, l)
			}
		}
		panels = append(panels, pp)
	}
	return []report.Figure{report.StackFigure(g.figName("network"), panels, 2.2*vg.Inch)}, nil
}

// rangeErrors are the distances from a mean down to the minimum and up to the
// maximum, for plotter.YErrorBars.
type rangeErrors struct {
	plotter.XYs
	lo, hi []float64
}

func (e rangeErrors) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// cpProcessingFigure draws Fig. 12: one job per workload, mean processing time
// with its 95% interval and its range over seeds.
func cpProcessingFigure(groups []*cpGroup, display map[string]string) ([]report.Figure, error) {
	policies := allPolicies(groups)
	p := plot.New()
	p.Title.Text = "Single-job processing time\nmean (black dot), 95% CI (thick bar), range over seeds (whiskers)"
	p.Y.Label.Text = "job processing time (min)"
	p.Y.Tick.Marker = report.DenseTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	np := len(policies)
	slot := 0.6 / float64(np)
	ymax := 0.0
	for pi, pol := range policies {
		col, _ := report.SeriesStyle(pi)
		var e report.CIErrors
		var r rangeErrors
		for gi, g := range groups {
			v := perJob(g.byPolicy(pol), 0, cpProcessing)
			if len(v) == 0 {
				continue
			}
			x := float64(gi) + slot*(float64(pi)-float64(np-1)/2)
			m, h := report.MeanCI95(v)
			e.XYs = append(e.XYs, plotter.XY{X: x, Y: m})
			e.Half = append(e.Half, report.ZeroNaN(h))
			r.XYs = append(r.XYs, plotter.XY{X: x, Y: m})
			r.lo, r.hi = append(r.lo, m-slices.Min(v)), append(r.hi, slices.Max(v)-m)
			ymax = max(ymax, slices.Max(v), m+report.ZeroNaN(h))
		}
		if len(e.XYs) == 0 {
			continue
		}
		whiskers, err := plotter.NewYErrorBars(r)
		if err != nil {
			return nil, err
		}
		whiskers.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(0.8)}
		whiskers.CapWidth = vg.Points(8)
		ci, err := plotter.NewYErrorBars(e)
		if err != nil {
			return nil, err
		}
		ci.LineStyle = draw.LineStyle{Color: report.WithAlpha(col, 0x99), Width: vg.Points(8)}
		ci.CapWidth = 0
		sc, err := plotter.NewScatter(e.XYs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Shape: draw.CircleGlyph{}, Radius: vg.Points(1.5)}
		p.Add(whiskers, ci, sc)
		key, err := plotter.NewScatter(plotter.XYs{{}})
		if err != nil {
			return nil, err
		}
		key.GlyphStyle = draw.GlyphStyle{Color: report.WithAlpha(col, 0x99), Shape: draw.BoxGlyph{}, Radius: vg.Points(4)}
		p.Legend.Add(display[pol], key)
	}
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.short
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Y.Max = max(1, 1.05*ymax)
	l, top := report.SideLegend(p)
	return []report.Figure{{Name: "coupling_processing", Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}}, nil
}

// cpCDFFigure draws Fig. 16: the empirical CDF of job processing time, the mean
// of the seeds' CDFs with a pointwise 95% band.
func cpCDFFigure(g *cpGroup, display map[string]string) ([]report.Figure, error) {
	const points = 400
	tmax := 0.0
	for _, r := range g.runs {
		for i := range r.Jobs {
			if x := cpProcessing(&r.Jobs[i]); !math.IsNaN(x) {
				tmax = max(tmax, x)
			}
		}
	}
	if tmax == 0 {
		tmax = 1
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: job processing time CDF\nmean of the seeds' CDFs, 95%% band", g.title)
	p.X.Label.Text = "job processing time (min)"
	p.Y.Label.Text = "P[T ≤ t]"
	p.X.Tick.Marker = report.DenseTicks{}
	p.X.Min, p.X.Max = 0, tmax*1.02
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Y.Tick.Marker = report.DenseTicks{}
	p.Add(plotter.NewGrid())
	for pi, pol := range g.policies {
		runs := g.byPolicy(pol)
		cdfs := make([][]float64, len(runs))
		for k, r := range runs {
			var v []float64
			for i := range r.Jobs {
				if x := cpProcessing(&r.Jobs[i]); !math.IsNaN(x) {
					v = append(v, x)
				}
			}
			slices.Sort(v)
			cdfs[k] = make([]float64, points+1)
			for i := range points + 1 {
				t := tmax * float64(i) / points
				at, _ := slices.BinarySearchFunc(v, t, func(a, b float64) int {
					if a <= b {
						return -1
					}
					return 1
				})
				cdfs[k][i] = float64(at) / float64(max(1, len(r.Jobs)))
			}
		}
		col, dash := report.SeriesStyle(pi)
		l, err := report.AddMeanBand(p, bandOf(cdfs, points+1, tmax/points), col, dash, vg.Points(1.5), 0, 1)
		if err != nil {
			return nil, err
		}
		p.Legend.Add(display[pol], l)
	}
	l, top := report.SideLegend(p)
	return []report.Figure{{Name: g.figName("cdf"), Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}}, nil
}
