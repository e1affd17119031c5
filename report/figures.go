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

	"github.com/tracereplay/tracereplay/internal/safeout"
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
	MinPlotWidth = 4.4 * vg.Inch
	legendGap    = 3 * vg.Millimeter
	pngDPI       = 150
)

// Paper figure widths and the paper PNG resolution.
const (
	oneColumnWidth = 3.5 * vg.Inch
	twoColumnWidth = 7 * vg.Inch
	paperDPI       = 300
)

// Figure is one figure: plots drawn by draw into the canvas left of a legend.
type Figure struct {
	Name string
	// Caption says what the figure shows, for the HTML report.
	Caption string
	Height  vg.Length
	Legend  plot.Legend
	// Top is the legend's distance from the top edge (the title's height), so
	// that it starts level with the data area.
	Top  vg.Length
	Draw func(draw.Canvas)
	// Skip, when set, says why the figure has no data and is not drawn.
	Skip string
	// Rows, when set, are small multiples stacked from the top, each with its
	// own height, legend and drawing; height, legend, top and draw are unused.
	Rows []Figure
}

// RenderedFigure is one encoded figure.
type RenderedFigure struct {
	// Name is the file name without extension (FlowtimeCDFFigure, ...).
	Name string
	// Caption says what the figure shows and how seeds were combined.
	Caption string
	// Data is the encoded file; nil when the figure was not drawn.
	Data []byte
	// Skipped, when set, says why the figure has no data and was not drawn
	// (e.g. no timeline); a figure without data is never written.
	Skipped string
}

// WriteFigures draws the figures of runs into dir in format png, svg or pdf in
// the screen style; see WriteFiguresWith.
func WriteFigures(runs []Run, dir string, format string) ([]string, error) {
	return WriteFiguresWith(runs, dir, FigureOptions{Format: format})
}

// WriteFiguresWith draws the figures of runs (RenderFigures) into dir and returns
// the paths written, NAME.FORMAT in a fixed order. Each file is written
// atomically. Figures without data are not written; SkippedFigures says which.
func WriteFiguresWith(runs []Run, dir string, o FigureOptions) ([]string, error) {
	figs, err := RenderFigures(runs, o)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range figs {
		if f.Data == nil {
			continue
		}
		path := filepath.Join(dir, f.Name+"."+o.Format)
		if err := safeout.WriteFile(path, f.Data); err != nil {
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
//     the per-run values with 95% confidence intervals (MeanCI95) as error bars.
//     Up to eight cells stand as columns; more lie as rows, one name a line;
//   - running_tasks: running maps (top panel) and running reduces (bottom panel)
//     in the whole cluster over simulated time, one line per cell; over several
//     seeds, the mean over seeds at each instant with its 95% confidence band;
//   - queue_shares, only when some run is a YARN run with queue samples: each
//     queue's share of the cluster's memory over time, one panel per cell;
//   - busiest_links, only when some run recorded link loads (network =
//     "flow" with a timeline): the utilisation of each cell's busiest links
//     over time, one panel per cell.
//
// Allocation studies (Run.Alloc) have no figures here and are left out; runs
// that are all allocation studies give no figures and no error.
//
// Cells whose runs gave identical results are drawn once, named by all of them
// ("fifo = capacity = hpfsp"); more cells than a panel tells apart are drawn
// as small multiples. A paper figure is at most 1.5 column widths tall (8 in
// for two columns): small multiples beyond that go to further figures named
// NAME_part2, NAME_part3, ... (paginate). A figure without data (no timeline, no job with reduces,
// no finished job) comes back with Skipped set and no Data.
//
// A cell is a Group: the runs that differ only in the seed. Cells are named by
// their policy and the labels that differ between them (plus the number of
// seeds when some cell has several), drawn in GroupRuns order, and listed in a
// legend right of the plots (below them in a paper figure whose legend would
// take more than 40% of its width). PDF output carries a fixed creation date so
// that equal inputs give equal bytes.
func RenderFigures(runs []Run, o FigureOptions) ([]RenderedFigure, error) {
	if err := CheckFigureFormat(o.Format); err != nil {
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
	groups, names = mergeIdentical(groups, names)
	var out []RenderedFigure
	builders := []func([]Group, []string, look) (Figure, error){flowtimeCDF, starvationBars, runningTasks}
	if hasQueues(runs) {
		builders = append(builders, queueShares)
	}
	if hasLinks(runs) {
		builders = append(builders, busiestLinks)
	}
	for _, build := range builders {
		f, err := build(groups, names, lk)
		if err != nil {
			return nil, fmt.Errorf("figure: %w", err)
		}
		if f.Skip != "" {
			out = append(out, RenderedFigure{Name: f.Name, Skipped: f.Skip})
			continue
		}
		for _, page := range paginate(f, lk) {
			data, err := renderWith(o.Format, page, lk)
			if err != nil {
				return nil, fmt.Errorf("figure %s: %w", page.Name, err)
			}
			out = append(out, RenderedFigure{Name: page.Name, Caption: page.Caption, Data: data})
		}
	}
	return out, nil
}

// WriteFigureFiles writes the drawn figures of figs into dir as NAME.FORMAT,
// each atomically, and returns their paths; figures without data are skipped.
func WriteFigureFiles(figs []RenderedFigure, dir, format string) ([]string, error) {
	var paths []string
	for _, f := range figs {
		if f.Data == nil {
			continue
		}
		path := filepath.Join(dir, f.Name+"."+format)
		if err := safeout.WriteFile(path, f.Data); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// SkippedFigures returns "NAME: reason" for each figure of figs that was not
// drawn for want of data.
func SkippedFigures(figs []RenderedFigure) []string {
	var out []string
	for _, f := range figs {
		if f.Skipped != "" {
			out = append(out, f.Name+": "+f.Skipped)
		}
	}
	return out
}

// SortedForFigures checks the figure format and that there are runs (what names the
// figures in the error), and returns a copy of runs in SortRuns order.
func SortedForFigures(runs []Run, format, what string) ([]Run, error) {
	if err := CheckFigureFormat(format); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", what)
	}
	sorted := slices.Clone(runs)
	SortRuns(sorted)
	return sorted, nil
}

// CheckFigureFormat reports a format not in FigureFormats.
func CheckFigureFormat(format string) error {
	if !slices.Contains(FigureFormats, format) {
		return fmt.Errorf("figure format %q: want one of png, svg, pdf", format)
	}
	return nil
}

// WriteFigure renders f in format (screen style) and writes it atomically to
// dir/<name>.<format>, whose path it returns.
func WriteFigure(dir, format string, f Figure) (string, error) {
	data, err := render(format, f)
	if err != nil {
		return "", fmt.Errorf("figure %s: %w", f.Name, err)
	}
	path := filepath.Join(dir, f.Name+"."+format)
	if err := safeout.WriteFile(path, data); err != nil {
		return "", err
	}
	return path, nil
}

// render lays f out in the screen style on a canvas of the given format and
// returns the encoded file.
func render(format string, f Figure) ([]byte, error) { return renderWith(format, f, screenLook) }

// paperMaxHeight is the tallest a paper figure gets: 1.5 times the width of a
// column, or 8 in for a two-column figure (a page's text block less its
// caption). Paginate moves the small multiples that do not fit to further pages.
func (lk look) paperMaxHeight() vg.Length {
	if lk.width == TwoColumn {
		return 8 * vg.Inch
	}
	return 1.5 * oneColumnWidth
}

// layout is where renderWith puts the rows of a figure.
type layout struct {
	rows []Figure
	// w and h are the canvas size, dpi the PNG resolution.
	w, h vg.Length
	dpi  int
	// lw is the width of the widest legend beside the plots, 0 when none is.
	lw vg.Length
	// heights are the rows' heights; lhs the heights of their legends when
	// below the plot, 0 when beside it.
	heights, lhs []vg.Length
}

// layoutOf lays f out in style lk: a screen figure is figureWidth wide, or
// wider when its legend needs more than figureWidth-minPlotWidth, and taller
// when its legend is taller than the plot, so that no entry is clipped; a paper
// Figure has its column width and puts a legend wider than 40% of it below the
// plot. A figure with rows (small multiples) stacks them, each with its own
// legend.
func layoutOf(f Figure, lk look) layout {
	ly := layout{rows: f.Rows}
	if len(ly.rows) == 0 {
		ly.rows = []Figure{f}
	}
	var lw vg.Length
	for _, r := range ly.rows {
		lw = max(lw, legendWidth(r.Legend))
	}
	ly.w, ly.dpi = max(figureWidth, MinPlotWidth+lw+2*legendGap), pngDPI
	if lk.paper {
		ly.w, ly.dpi = oneColumnWidth, paperDPI
		if lk.width == TwoColumn {
			ly.w = twoColumnWidth
		}
	}
	below := lk.paper && lw > 0.4*ly.w
	if !below {
		ly.lw = lw
	}
	ly.heights = make([]vg.Length, len(ly.rows))
	ly.lhs = make([]vg.Length, len(ly.rows))
	for i, r := range ly.rows {
		ly.heights[i] = r.Height
		lh := legendHeight(r.Legend)
		switch {
		case below && lh > 0:
			ly.lhs[i] = lh
			ly.heights[i] += lh + 2*legendGap
		case lh > 0 && r.Top+lh+legendGap > ly.heights[i]:
			ly.heights[i] = r.Top + lh + legendGap // a tall legend never clips
		}
		ly.h += ly.heights[i]
	}
	return ly
}

// paginate splits a paper figure taller than paperMaxHeight between its rows
// of small multiples into pages of about equal numbers of rows, each within
// the limit: the first page keeps f's name, page k is NAME_partK, and each
// caption says which part it is. Screen figures, figures that fit and figures
// of a single row are returned whole.
func paginate(f Figure, lk look) []Figure {
	if !lk.paper || len(f.Rows) < 2 {
		return []Figure{f}
	}
	ly := layoutOf(f, lk)
	limit := lk.paperMaxHeight() + vg.Points(0.01)
	if ly.h <= limit {
		return []Figure{f}
	}
	// per is the most rows that fit on a page; rows of equal height (small
	// multiples) then spread evenly over the pages.
	per, sum := 0, vg.Length(0)
	for _, h := range ly.heights {
		if sum+h > limit && per > 0 {
			break
		}
		sum += h
		per++
	}
	chunks := pageSplit(len(f.Rows), per)
	for _, c := range chunks {
		var h vg.Length
		for _, i := range c {
			h += ly.heights[i]
		}
		if h > limit && len(c) > 1 {
			chunks = pageSplit(len(f.Rows), 1) // rows of unequal height: one a page
			break
		}
	}
	pages := make([]Figure, len(chunks))
	for k, c := range chunks {
		p := Figure{Name: f.Name, Caption: f.Caption, Rows: make([]Figure, 0, len(c))}
		if k > 0 {
			p.Name = fmt.Sprintf("%s_part%d", f.Name, k+1)
		}
		p.Caption += fmt.Sprintf(" Part %d of %d.", k+1, len(chunks))
		for _, i := range c {
			p.Rows = append(p.Rows, f.Rows[i])
		}
		pages[k] = p
	}
	return pages
}

// pageSplit splits n rows into the fewest pages of at most per rows, as even
// as possible, fuller pages first.
func pageSplit(n, per int) [][]int {
	pages := (n + per - 1) / per
	out := make([][]int, pages)
	for k := range pages {
		lo, hi := (k*n+pages-1)/pages, ((k+1)*n+pages-1)/pages
		for i := lo; i < hi; i++ {
			out[k] = append(out[k], i)
		}
	}
	return out
}

// renderWith lays f out in style lk (layoutOf) on a canvas of the given
// format and returns the encoded file.
func renderWith(format string, f Figure, lk look) ([]byte, error) {
	ly := layoutOf(f, lk)
	w, h, lw := ly.w, ly.h, ly.lw
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(ly.dpi), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(w, h)
	case "pdf":
		c = vgpdf.New(w, h)
	}
	full := draw.New(c)
	var above vg.Length
	for i, r := range ly.rows {
		// The band of row i: above is the height of the rows over it.
		dc := draw.Crop(full, 0, 0, h-above-ly.heights[i], -above)
		above += ly.heights[i]
		rh := ly.heights[i]
		switch lh := ly.lhs[i]; {
		case lh > 0: // below the plot, a gap above and below
			l := r.Legend
			l.Top, l.Left = true, true
			l.XOffs, l.YOffs = 0, 0
			l.Draw(draw.Crop(dc, legendGap, 0, legendGap, -(rh - lh - legendGap)))
			dc = draw.Crop(dc, 0, 0, lh+2*legendGap, 0)
		case lw > 0:
			if legendWidth(r.Legend) > 0 {
				l := r.Legend
				l.Top, l.Left = true, true
				l.XOffs, l.YOffs = 0, 0
				l.Draw(draw.Crop(dc, w-lw-legendGap, -legendGap, 0, -r.Top))
			}
			dc = draw.Crop(dc, 0, -(lw + 2*legendGap), 0, 0)
		}
		r.Draw(dc)
	}
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

// legendHeight returns the height l's entries take, 0 when it has none.
func legendHeight(l plot.Legend) vg.Length {
	if legendWidth(l) == 0 {
		return 0
	}
	// Legend.Draw starts the first entry one descent below the top.
	r := l.Rectangle(draw.Canvas{})
	return r.Max.Y - r.Min.Y + l.TextStyle.FontExtents().Descent
}

// legendWidth returns the width l needs, 0 when it has no entries.
func legendWidth(l plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	if w := r.Max.X - r.Min.X; w > l.ThumbnailWidth {
		return w
	}
	return 0
}

// TakeLegend moves p's legend out of the plot, for render to draw beside it, and
// returns it with the height of p's title.
func TakeLegend(p *plot.Plot) (plot.Legend, vg.Length) {
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

// screenColors are the Okabe–Ito colours (Okabe and Ito, "Color Universal
// Design", 2008), told apart under every common colour-vision deficiency, in
// the order the screen style uses them; yellow is left out, too faint on white.
var screenColors = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermilion
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	color.Black,
}

// SeriesStyle returns the colour and dash pattern of series i: the seven
// screenColors, then the same colours with the next dash pattern.
func SeriesStyle(i int) (color.Color, []vg.Length) {
	n := len(screenColors)
	return screenColors[i%n], plotutil.DefaultDashes[(i/n)%len(plotutil.DefaultDashes)]
}
