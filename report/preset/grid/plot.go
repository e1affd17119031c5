package grid

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracereplay/tracereplay/report"
)

// The figures of a grid preset (eas, hybsmrp): one per block, the block's x
// values on the x axis, one series per policy with the 95% interval over seeds.

// Figure draws one block of a grid.
type Figure func(p *Preset, g *grid, b *gridBlock) (report.Figure, error)

// WriteFigures draws every block of the grid of runs into dir with draw and
// returns the paths written, in block order.
func (p *Preset) WriteFigures(runs []report.Run, dir, format string, draw Figure) ([]string, error) {
	if err := report.CheckFigureFormat(format); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s figures: no runs", p.Name)
	}
	g := p.build(runs)
	var paths []string
	for _, b := range g.blocks {
		f, err := draw(p, g, b)
		if err != nil {
			return paths, fmt.Errorf("%s figure %s: %w", p.Name, p.fileName(b), err)
		}
		f.Name = p.fileName(b)
		path, err := report.WriteFigure(dir, format, f)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// styleIndex is the style (colour, dashes, glyph) number of policy s: its place
// in the paper's list, the same in every figure and every results set; other
// policies follow in the grid's order.
func (p *Preset) styleIndex(g *grid, s string) int {
	if i := slices.IndexFunc(p.Series, func(q Series) bool { return q.Policy == s }); i >= 0 {
		return i
	}
	n := len(p.Series)
	for _, q := range g.series {
		if q == s {
			break
		}
		if !slices.ContainsFunc(p.Series, func(k Series) bool { return k.Policy == q }) {
			n++
		}
	}
	return n
}

// newGridPlot starts the plot of block b: title, axis labels, grid lines, y
// from 0.
func (p *Preset) newGridPlot(g *grid, b *gridBlock) *plot.Plot {
	pl := plot.New()
	title := p.Label
	if b.paper != "" {
		title += " " + b.paper
	}
	if len(b.context) > 0 {
		title += ", " + strings.Join(b.context, " ")
	}
	seeds := 0
	for _, c := range b.cells {
		seeds = max(seeds, len(c.vals))
	}
	pl.Title.Text = fmt.Sprintf("%s: mean of %d seed%s, 95%% CI", title, seeds, report.Plural(seeds))
	pl.X.Label.Text = p.XHeader
	if g.xLabel != "" && g.xLabel != p.XLabel {
		pl.X.Label.Text = g.xLabel
	}
	pl.Y.Label.Text = b.metric.Title
	pl.Y.Min = 0
	pl.Y.Tick.Marker = report.TidyTicks{}
	pl.Add(plotter.NewGrid())
	return pl
}

// Bars draws b as grouped bars, as the EAS paper's figures: a group per x
// value, a bar per policy with its 95% interval as a black whisker. A policy
// keeps its colour in every figure (styleIndex).
func Bars(p *Preset, g *grid, b *gridBlock) (report.Figure, error) {
	pl := p.newGridPlot(g, b)
	const groupWidth = 0.8
	w := groupWidth / float64(len(b.series))
	for i, s := range b.series {
		var rings []plotter.XYer
		var e report.CIErrors
		for k, x := range b.xs {
			c := b.cell(x, s)
			if c == nil {
				continue
			}
			m, h := report.MeanCI95(c.vals)
			if math.IsNaN(h) {
				h = 0
			}
			left := float64(k) - groupWidth/2 + w*float64(i)
			rings = append(rings, plotter.XYs{{X: left, Y: 0}, {X: left + w, Y: 0}, {X: left + w, Y: m}, {X: left, Y: m}})
			e.XYs = append(e.XYs, plotter.XY{X: left + w/2, Y: m})
			e.Half = append(e.Half, h)
		}
		poly, err := plotter.NewPolygon(rings...)
		if err != nil {
			return report.Figure{}, err
		}
		poly.Color, _ = report.SeriesStyle(p.styleIndex(g, s))
		poly.LineStyle.Color = color.White
		poly.LineStyle.Width = vg.Points(0.5)
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return report.Figure{}, err
		}
		eb.LineStyle.Color = color.Black
		eb.LineStyle.Width = vg.Points(1)
		eb.CapWidth = vg.Points(4)
		pl.Add(poly, eb)
		pl.Legend.Add(p.display(s), poly)
	}
	pl.NominalX(b.xs...)
	pl.X.Min, pl.X.Max = -0.5, float64(len(b.xs))-0.5
	pl.Y.Max = max(pl.Y.Max*1.05, 1e-9)
	l, top := report.TakeLegend(pl)
	return report.Figure{Height: 4 * vg.Inch, Legend: l, Top: top, Draw: pl.Draw}, nil
}

// Lines draws b as one line per policy with 95% error bars against the x
// values, numeric ones at their value, others as categories. Each policy has
// its own colour, dash pattern and glyph, and is shifted sideways by a small
// fraction of the spacing of the x values, so that policies with equal values
// stay visible side by side instead of hiding each other.
func Lines(p *Preset, g *grid, b *gridBlock) (report.Figure, error) {
	pl := p.newGridPlot(g, b)
	xs := make([]float64, len(b.xs))
	numeric := true
	for k, x := range b.xs {
		v, err := strconv.ParseFloat(x, 64)
		numeric = numeric && err == nil
		xs[k] = v
	}
	spacing := 1.0
	if numeric {
		for k := 1; k < len(xs); k++ {
			if d := xs[k] - xs[k-1]; k == 1 || d < spacing {
				spacing = d
			}
		}
	} else {
		for k := range xs {
			xs[k] = float64(k)
		}
	}
	if spacing <= 0 {
		spacing = 1
	}
	for i, s := range b.series {
		shift := spacing * 0.06 * (float64(i) - float64(len(b.series)-1)/2)
		var e report.CIErrors
		for k, x := range b.xs {
			c := b.cell(x, s)
			if c == nil {
				continue
			}
			m, h := report.MeanCI95(c.vals)
			if math.IsNaN(h) {
				h = 0
			}
			e.XYs = append(e.XYs, plotter.XY{X: xs[k] + shift, Y: m})
			e.Half = append(e.Half, h)
		}
		j := p.styleIndex(g, s)
		col, _ := report.SeriesStyle(j)
		l, sc, err := plotter.NewLinePoints(e.XYs)
		if err != nil {
			return report.Figure{}, err
		}
		l.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5), Dashes: plotutil.Dashes(j)}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: plotutil.Shape(j)}
		eb, err := plotter.NewYErrorBars(e)
		if err != nil {
			return report.Figure{}, err
		}
		eb.LineStyle.Color = col
		eb.CapWidth = vg.Points(4)
		pl.Add(l, sc, eb)
		pl.Legend.Add(p.display(s), l, sc)
	}
	var ticks []plot.Tick
	for k, x := range b.xs {
		ticks = append(ticks, plot.Tick{Value: xs[k], Label: x})
	}
	pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	if len(xs) > 0 {
		pl.X.Min, pl.X.Max = xs[0]-spacing/2, xs[len(xs)-1]+spacing/2
	}
	pl.Y.Max = max(pl.Y.Max*1.05, 1e-9)
	l, top := report.TakeLegend(pl)
	return report.Figure{Height: 4 * vg.Inch, Legend: l, Top: top, Draw: pl.Draw}, nil
}
