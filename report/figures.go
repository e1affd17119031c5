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

// figure is one figure: plots drawn by draw into the canvas left of a legend.
type figure struct {
	name   string
	height vg.Length
	legend plot.Legend
	// top is the legend's distance from the top edge (the title's height), so
	// that it starts level with the data area.
	top  vg.Length
	draw func(draw.Canvas)
}

// WriteFigures draws the figures of runs into dir in format png, svg or pdf and
// returns the paths written, in a fixed order:
//   - flowtime_cdf: the empirical CDF of job flowtime, one line per run, x in
//     seconds on a log scale;
//   - starvation: mean and p95 reduce starvation per run as paired bars (see
//     RunStats for the job set);
//   - running_tasks: running maps (top panel) and running reduces (bottom panel)
//     in the whole cluster over simulated time, one line per run.
//
// Allocation studies (Run.Alloc) have no figures here and are left out.
// Runs are named by their policy and the labels that differ between them, drawn
// in SortRuns order, and listed in a legend right of the plots. Each file is
// written atomically; PDF output carries a fixed creation date so that equal
// inputs give equal bytes.
func WriteFigures(runs []Run, dir string, format string) ([]string, error) {
	if studies, sims := SplitAllocStudies(runs); len(studies) > 0 {
		if len(sims) == 0 {
			return nil, checkFigureFormat(format) // allocation studies have no jobs to draw
		}
		runs = sims
	}
	sorted, err := sortedForFigures(runs, format, "figures")
	if err != nil {
		return nil, err
	}
	keys := VaryingLabels(sorted)
	names := make([]string, len(sorted))
	for i, r := range sorted {
		names[i] = RunName(r, keys)
	}
	var paths []string
	for _, build := range []func([]Run, []string) (figure, error){flowtimeCDF, starvationBars, runningTasks} {
		f, err := build(sorted, names)
		if err != nil {
			return paths, fmt.Errorf("figure: %w", err)
		}
		path, err := writeFigure(dir, format, f)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
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

// writeFigure renders f in format and writes it atomically to
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

// render lays f out on a canvas of the given format and returns the encoded file.
func render(format string, f figure) ([]byte, error) {
	lw := legendWidth(f.legend)
	w := max(figureWidth, minPlotWidth+lw+2*legendGap)
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, f.height), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(w, f.height)
	case "pdf":
		c = vgpdf.New(w, f.height)
	}
	dc := draw.New(c)
	if lw > 0 {
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
