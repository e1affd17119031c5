package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracereplay/tracereplay/internal/safeout"
)

// Validation figure names (without extension).
const (
	ValidationScatterFigure = "validate_flowtime_scatter"
	ValidationErrorCDFigure = "validate_error_cdf"
)

// figureRows are the rows the figures draw: the checked rows (one per policy).
func (v *Validation) figureRows() []ValidationRow {
	out := make([]ValidationRow, len(v.Checked))
	for k, i := range v.Checked {
		out[k] = v.Rows[i]
	}
	return out
}

// RenderFigures draws the validation figures in o's format and style:
//   - validate_flowtime_scatter: simulated against observed flowtime per
//     matched job, log axes, with the line y = x; one marker colour per policy;
//   - validate_error_cdf: the empirical CDF of the signed relative flowtime
//     error (sim − obs)/obs in percent, one line per policy; left of 0 is
//     underestimated.
func (v *Validation) RenderFigures(o FigureOptions) ([]RenderedFigure, error) {
	if err := CheckFigureFormat(o.Format); err != nil {
		return nil, err
	}
	lk := lookOf(o)
	rows := v.figureRows()
	var out []RenderedFigure
	for _, build := range []func([]ValidationRow, look) (Figure, error){flowScatter, errorCDF} {
		f, err := build(rows, lk)
		if err != nil {
			return nil, fmt.Errorf("figure: %w", err)
		}
		data, err := renderWith(o.Format, f, lk)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", f.Name, err)
		}
		out = append(out, RenderedFigure{Name: f.Name, Caption: f.Caption, Data: data})
	}
	return out, nil
}

// WriteFigures writes the validation figures into dir and returns their paths.
func (v *Validation) WriteFigures(dir string, o FigureOptions) ([]string, error) {
	figs, err := v.RenderFigures(o)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range figs {
		path := filepath.Join(dir, f.Name+"."+o.Format)
		if err := safeout.WriteFile(path, f.Data); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// flowScatter is simulated against observed flowtime, log axes, y = x.
func flowScatter(rows []ValidationRow, lk look) (Figure, error) {
	p := lk.newPlot()
	lk.title(p, "Simulated vs observed job flowtime")
	p.X.Label.Text = "observed flowtime (s, log scale)"
	p.Y.Label.Text = "simulated flowtime (s, log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = LogTicks{}, LogTicks{}
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		for _, f := range r.Flow {
			if f.Obs > 0 && f.Sim > 0 {
				lo, hi = min(lo, f.Obs, f.Sim), max(hi, f.Obs, f.Sim)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	lo, hi = lo/1.2, hi*1.2
	if hi/lo < 4 {
		g := math.Sqrt(4 / (hi / lo))
		lo, hi = lo/g, hi*g
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return Figure{}, err
	}
	diag.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
	p.Add(diag)
	p.Legend.Add("y = x", diag)
	for i, r := range rows {
		var pts plotter.XYs
		for _, f := range r.Flow {
			if f.Obs > 0 && f.Sim > 0 {
				pts = append(pts, plotter.XY{X: f.Obs, Y: f.Sim})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Figure{}, err
		}
		st := lk.series(i)
		sc.GlyphStyle = draw.GlyphStyle{Color: st.line.Color, Shape: draw.CircleGlyph{}, Radius: vg.Points(2)}
		if st.glyph != nil {
			sc.GlyphStyle = *st.glyph
		}
		p.Add(sc)
		p.Legend.Add(r.Name, sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	l, top := TakeLegend(p)
	caption := "Simulated against observed flowtime of each job finished in both runs, log axes; points on the dashed line y = x are exact, below it the simulation is too short."
	return Figure{Name: ValidationScatterFigure, Caption: caption, Height: lk.height(1), Legend: l, Top: top, Draw: p.Draw}, nil
}

// errorCDF is the empirical CDF of the signed relative flowtime error.
func errorCDF(rows []ValidationRow, lk look) (Figure, error) {
	p := lk.newPlot()
	lk.title(p, "Flowtime error CDF")
	p.X.Label.Text = "(simulated - observed) / observed flowtime (%)"
	p.Y.Label.Text = "fraction of jobs"
	p.X.Tick.Marker = TidyTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	for i, r := range rows {
		e := r.Errors[0].Signed
		n := float64(len(e))
		var pts plotter.XYs
		for k, x := range e {
			if k == 0 {
				pts = append(pts, plotter.XY{X: 100 * x, Y: 0})
			}
			pts = append(pts, plotter.XY{X: 100 * x, Y: float64(k+1) / n})
		}
		if len(pts) == 0 {
			continue
		}
		pts = thinSteps(pts, maxLinePoints)
		thumbs, err := lk.addSeries(p, i, pts, plotter.PostStep, false)
		if err != nil {
			return Figure{}, err
		}
		p.Legend.Add(r.Name, thumbs...)
	}
	l, top := TakeLegend(p)
	caption := "Empirical CDF of the signed relative flowtime error per job; left of 0 the simulation is too short, right of it too long; steep around 0 is accurate."
	return Figure{Name: ValidationErrorCDFigure, Caption: caption, Height: lk.height(1), Legend: l, Top: top, Draw: p.Draw}, nil
}
