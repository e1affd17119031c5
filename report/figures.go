package report

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"regexp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// FigureFormats are the formats WriteFigures accepts.
var FigureFormats = []string{"png", "svg", "pdf"}

// Figure file names (without extension) written by WriteFigures.
const (
	FlowtimeCDFFigure  = "flowtime_cdf"
	StarvationFigure   = "starvation"
	RunningTasksFigure = "running_tasks"
)

// Figure geometry. A figure is figureWidth wide, or wider when its legend needs
// more than figureWidth-minPlotWidth; PNGs have pngDPI pixels per inch.
const (
	figureWidth  = 6 * vg.Inch
	minPlotWidth = 4.4 * vg.Inch
	legendGap    = 3 * vg.Millimeter
	pngDPI       = 150
)

// Paper figure widths and the paper PNG resolution.
const (
	oneColumnWidth = 3.5 * vg.Inch
	twoColumnWidth = 7 * vg.Inch
	paperDPI       = 300
)

// figure is one figure: plots drawn by draw into the canvas left of a legend.
type figure struct {
	name string
	// caption says what the figure shows, for the HTML report.
	caption string
	height  vg.Length
	legend  plot.Legend
	// top is the legend's distance from the top edge (the title's height), so
	// that it starts level with the data area.
	top  vg.Length
	draw func(draw.Canvas)
}

// RenderedFigure is one encoded figure.
type RenderedFigure struct {
	// Name is the file name without extension (FlowtimeCDFFigure, ...).
	Name string
	// Caption says what the figure shows and how seeds were combined.
	Caption string
	// Data is the encoded file.
	Data []byte
}

// WriteFigures draws the figures of runs into dir in format png, svg or pdf in
// the screen style; see WriteFiguresWith.
func WriteFigures(runs []Run, dir string, format string) ([]string, error) {
	return WriteFiguresWith(runs, dir, FigureOptions{Format: format})
}

// WriteFiguresWith draws the figures of runs (RenderFigures) into dir and returns
// the paths written, NAME.FORMAT in a fixed order. Each file is written
// atomically.
func WriteFiguresWith(runs []Run, dir string, o FigureOptions) ([]string, error) {
	figs, err := RenderFigures(runs, o)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range figs {
		path := filepath.Join(dir, f.Name+"."+o.Format)
		if err := writeBytesAtomic(path, f.Data); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// RenderFigures draws the figures of runs in o's format and style, in a fixed
// order:
//   - flowtime_cdf: the empirical CDF of job flowtime, one line per cell, x in
//     seconds on a log scale; the jobs of a cell's seeds are pooled into one
//     CDF, which the axis label and the legend say;
//   - starvation: mean and p95 reduce starvation per cell as paired bars (see
//     RunStats for the job set); over several seeds, the means over seeds of
//     the per-run values with 95% confidence intervals (MeanCI95) as error bars;
//   - running_tasks: running maps (top panel) and running reduces (bottom panel)
//     in the whole cluster over simulated time, one line per cell; over several
//     seeds, the mean over seeds at each instant with its 95% confidence band.
//
// Allocation studies (Run.Alloc) have no figures here and are left out; runs
// that are all allocation studies give no figures and no error.
//
// A cell is a Group: the runs that differ only in the seed. Cells are named by
// their policy and the labels that differ between them (plus the number of
// seeds when some cell has several), drawn in GroupRuns order, and listed in a
// legend right of the plots (below them in a paper figure whose legend would
// take more than 40% of its width). PDF output carries a fixed creation date so
// that equal inputs give equal bytes.
func RenderFigures(runs []Run, o FigureOptions) ([]RenderedFigure, error) {
	if err := checkFigureFormat(o.Format); err != nil {
		return nil, err
	}
	if studies, sims := SplitAllocStudies(runs); len(studies) > 0 {
		if len(sims) == 0 {
			return nil, nil // allocation studies have no jobs to draw
		}
		runs = sims
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("figures: no runs")
	}
	lk := lookOf(o)
	groups := GroupRuns(runs)
	agg := Aggregated(groups)
	keys := GroupLabels(groups)
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.Name(keys)
		if agg {
			names[i] += " (" + seedsText(len(g.Runs)) + ")"
		}
	}
	var out []RenderedFigure
	for _, build := range []func([]Group, []string, look) (figure, error){flowtimeCDF, starvationBars, runningTasks} {
		f, err := build(groups, names, lk)
		if err != nil {
			return nil, fmt.Errorf("figure: %w", err)
		}
		data, err := renderWith(o.Format, f, lk)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %w", f.name, err)
		}
		out = append(out, RenderedFigure{Name: f.name, Caption: f.caption, Data: data})
	}
	return out, nil
}

// sortedForFigures checks the figure format and that there are runs (what names the
// figures in the error), and returns a copy of runs in SortRuns order.
func sortedForFigures(runs []Run, format, what string) ([]Run, error) {
	if err := checkFigureFormat(format); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", what)
	}
	sorted := slices.Clone(runs)
	SortRuns(sorted)
	return sorted, nil
}

// checkFigureFormat reports a format not in FigureFormats.
func checkFigureFormat(format string) error {
	if !slices.Contains(FigureFormats, format) {
		return fmt.Errorf("figure format %q: want one of png, svg, pdf", format)
	}
	return nil
}

// writeFigure renders f in format (screen style) and writes it atomically to
// dir/<name>.<format>, whose path it returns.
func writeFigure(dir, format string, f figure) (string, error) {
	data, err := render(format, f)
	if err != nil {
		return "", fmt.Errorf("figure %s: %w", f.name, err)
	}
	path := filepath.Join(dir, f.name+"."+format)
	if err := writeBytesAtomic(path, data); err != nil {
		return "", err
	}
	return path, nil
}

// render lays f out in the screen style on a canvas of the given format and
// returns the encoded file.
func render(format string, f figure) ([]byte, error) { return renderWith(format, f, screenLook) }

// renderWith lays f out in style lk on a canvas of the given format and returns
// the encoded file. A screen figure is figureWidth wide, or wider when its legend
// needs more than figureWidth-minPlotWidth; a paper figure has its column width
// and puts a legend wider than 40% of it below the plot.
func renderWith(format string, f figure, lk look) ([]byte, error) {
	lw := legendWidth(f.legend)
	w := max(figureWidth, minPlotWidth+lw+2*legendGap)
	dpi := pngDPI
	var lh vg.Length // height of a legend below the plot, 0 when beside it
	h := f.height
	if lk.paper {
		w, dpi = oneColumnWidth, paperDPI
		if lk.width == TwoColumn {
			w = twoColumnWidth
		}
		if lw > 0.4*w {
			// Legend.Draw starts the first entry one descent below the top.
			r := f.legend.Rectangle(draw.Canvas{})
			lh = r.Max.Y - r.Min.Y + f.legend.TextStyle.FontExtents().Descent
			h += lh + 2*legendGap
		}
	}
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(w, h)
	case "pdf":
		c = vgpdf.New(w, h)
	}
	dc := draw.New(c)
	switch {
	case lh > 0: // below the plot, a gap above and below
		l := f.legend
		l.Top, l.Left = true, true
		l.XOffs, l.YOffs = 0, 0
		l.Draw(draw.Crop(dc, legendGap, 0, legendGap, -(h - lh - legendGap)))
		dc = draw.Crop(dc, 0, 0, lh+2*legendGap, 0)
	case lw > 0:
		l := f.legend
		l.Top, l.Left = true, true
		l.XOffs, l.YOffs = 0, 0
		l.Draw(draw.Crop(dc, w-lw-legendGap, -legendGap, 0, -f.top))
		dc = draw.Crop(dc, 0, -(lw + 2*legendGap), 0, 0)
	}
	f.draw(dc)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if format == "pdf" {
		data = fixPDFDates(data)
	}
	return data, nil
}

// legendWidth returns the width l needs, 0 when it has no entries.
func legendWidth(l plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	if w := r.Max.X - r.Min.X; w > l.ThumbnailWidth {
		return w
	}
	return 0
}

// takeLegend moves p's legend out of the plot, for render to draw beside it, and
// returns it with the height of p's title.
func takeLegend(p *plot.Plot) (plot.Legend, vg.Length) {
	l := p.Legend
	p.Legend = plot.NewLegend()
	return l, p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
}

// pdfDate matches the creation and modification dates that fpdf takes from the
// wall clock; vgpdf offers no way to set them.
var pdfDate = regexp.MustCompile(`/(CreationDate|ModDate) \(D:[0-9]{14}\)`)

// fixPDFDates replaces the PDF's wall-clock dates by the Unix epoch. The
// replacement has the same length, so the cross-reference offsets stay valid.
func fixPDFDates(pdf []byte) []byte {
	return pdfDate.ReplaceAll(pdf, []byte("/$1 (D:19700101000000)"))
}

// style returns the colour and dash pattern of series i: seven dark colours, then
// the same colours dashed.
func style(i int) (color.Color, []vg.Length) {
	n := len(plotutil.DarkColors)
	return plotutil.DarkColors[i%n], plotutil.DefaultDashes[(i/n)%len(plotutil.DefaultDashes)]
}
