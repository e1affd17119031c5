package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"regexp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/tracereplay/tracereplay/replay"
)

// Figure formats accepted by WriteFigures.
var FigureFormats = []string{"png", "svg", "pdf"}

// Figure file names (without extension) written by WriteFigures.
const (
	FlowtimeCDFFigure  = "flowtime_cdf"
	StarvationFigure   = "starvation"
	RunningTasksFigure = "running_tasks"
)

// pngDPI is the resolution of PNG figures; vector formats ignore it.
const pngDPI = 150

// maxLinePoints bounds the points drawn per timeline line; longer series are
// reduced to the minimum and maximum of each of maxLinePoints/2 time buckets, which
// keeps every peak and trough visible.
const maxLinePoints = 2000

// WriteFigures draws the figures of runs into dir in format png, svg or pdf and
// returns the paths written, in a fixed order:
//   - flowtime_cdf: the empirical CDF of job flowtime, one line per run, x in
//     seconds on a log scale;
//   - starvation: mean and p95 reduce starvation per run as grouped bars (see
//     RunStats for the job set);
//   - running_tasks: running maps (top panel) and running reduces (bottom panel)
//     in the whole cluster over simulated time, one line per run.
//
// Runs are named by their policy and the labels that differ between them, and
// drawn in SortRuns order. Each file is written atomically; PDF output carries
// a fixed creation date so that equal inputs give equal bytes.
func WriteFigures(runs []Run, dir string, format string) ([]string, error) {
	if !slices.Contains(FigureFormats, format) {
		return nil, fmt.Errorf("figure format %q: want one of png, svg, pdf", format)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("figures: no runs")
	}
	sorted := slices.Clone(runs)
	SortRuns(sorted)
	keys := VaryingLabels(sorted)
	names := make([]string, len(sorted))
	for i, r := range sorted {
		names[i] = RunName(r, keys)
	}

	type figure struct {
		name string
		w, h vg.Length
		draw func(draw.Canvas) error
	}
	figs := []figure{
		{FlowtimeCDFFigure, 6 * vg.Inch, 4 * vg.Inch, func(c draw.Canvas) error { return drawFlowtimeCDF(c, sorted, names) }},
		{StarvationFigure, 6 * vg.Inch, 4 * vg.Inch, func(c draw.Canvas) error { return drawStarvation(c, sorted, names) }},
		{RunningTasksFigure, 6 * vg.Inch, 6 * vg.Inch, func(c draw.Canvas) error { return drawRunningTasks(c, sorted, names) }},
	}
	var paths []string
	for _, f := range figs {
		data, err := render(format, f.w, f.h, f.draw)
		if err != nil {
			return paths, fmt.Errorf("figure %s: %w", f.name, err)
		}
		path := filepath.Join(dir, f.name+"."+format)
		if err := writeBytesAtomic(path, data); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// render draws onto a canvas of the given format and returns the encoded file.
func render(format string, w, h vg.Length, drawFn func(draw.Canvas) error) ([]byte, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(w, h)
	case "pdf":
		c = vgpdf.New(w, h)
	}
	if err := drawFn(draw.New(c)); err != nil {
		return nil, err
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

func drawFlowtimeCDF(c draw.Canvas, runs []Run, names []string) error {
	p := plot.New()
	p.Title.Text = "Job flowtime CDF"
	p.X.Label.Text = "flowtime (s, log scale)"
	p.Y.Label.Text = "fraction of jobs"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range runs {
		flow := Flowtimes(r.Jobs)
		// A log axis cannot show a zero flowtime; such jobs still count in n.
		n := float64(len(flow))
		var pts plotter.XYs
		for k, f := range flow {
			if f <= 0 {
				continue
			}
			if len(pts) == 0 {
				pts = append(pts, plotter.XY{X: f, Y: float64(k) / n})
			}
			pts = append(pts, plotter.XY{X: f, Y: float64(k+1) / n})
		}
		if len(pts) == 0 {
			continue
		}
		lo, hi = min(lo, pts[0].X), max(hi, pts[len(pts)-1].X)
		col, dash := style(i)
		l, err := addLine(p, pts, plotter.PostStep, draw.LineStyle{Color: col, Dashes: dash, Width: vg.Points(1.5)})
		if err != nil {
			return err
		}
		p.Legend.Add(names[i], l)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	// Whole decades, so the log axis always shows at least two labelled ticks.
	p.X.Min = math.Pow(10, math.Floor(math.Log10(lo)))
	p.X.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
	if p.X.Max <= p.X.Min {
		p.X.Max = 10 * p.X.Min
	}
	p.Draw(legendRight(c, p))
	return nil
}

func drawStarvation(c draw.Canvas, runs []Run, names []string) error {
	p := plot.New()
	p.Title.Text = "Reduce starvation (jobs with reduces)"
	p.Y.Label.Text = "starvation (s)"
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	means := make(plotter.Values, len(runs))
	p95s := make(plotter.Values, len(runs))
	for i, r := range runs {
		s := ComputeStats(r)
		means[i], p95s[i] = zeroNaN(s.StarvationMean), zeroNaN(s.StarvationP95)
	}
	// Two bars fill about 70% of each group's slot of a ~330 pt wide plot.
	w := vg.Points(min(24, 115/float64(len(runs))))
	for k, series := range []struct {
		name string
		v    plotter.Values
	}{{"mean", means}, {"p95", p95s}} {
		b, err := plotter.NewBarChart(series.v, w)
		if err != nil {
			return err
		}
		b.Color, _ = style(k)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(2*k-1) * w / 2
		p.Add(b)
		p.Legend.Add(series.name, b)
	}
	p.NominalX(names...)
	// Room for the outer bars of the first and last group, and above the tallest.
	p.X.Min, p.X.Max = -0.5, float64(len(runs))-0.5
	p.Y.Max = 1.05 * max(floats(p95s), floats(means), 1e-9)
	if len(runs) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	p.Draw(legendRight(c, p))
	return nil
}

// floats returns the largest of v.
func floats(v plotter.Values) float64 {
	return slices.Max(append([]float64{0}, v...))
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func drawRunningTasks(c draw.Canvas, runs []Run, names []string) error {
	var maxUs int64
	for _, r := range runs {
		for _, s := range r.Timeline {
			maxUs = max(maxUs, s.TimeUs)
		}
	}
	unit, div := timeUnit(maxUs)
	panels := [2]*plot.Plot{plot.New(), plot.New()}
	panels[0].Title.Text = "Running tasks in the cluster"
	panels[0].Y.Label.Text = "running maps"
	panels[1].Y.Label.Text = "running reduces"
	panels[1].X.Label.Text = "simulated time (" + unit + ")"
	for _, p := range panels {
		p.Add(plotter.NewGrid())
		p.Y.Min = 0
		p.X.Min = 0
	}
	for i, r := range runs {
		maps, reduces := clusterSeries(r.Timeline, div)
		for k, pts := range [2]plotter.XYs{maps, reduces} {
			if len(pts) == 0 {
				continue
			}
			col, dash := style(i)
			l, err := addLine(panels[k], decimate(pts, maxLinePoints), plotter.NoStep, draw.LineStyle{Color: col, Dashes: dash, Width: vg.Points(1.2)})
			if err != nil {
				return err
			}
			if k == 0 {
				panels[k].Legend.Add(names[i], l)
			}
		}
	}
	// Both panels share the time range so that they line up.
	xmax := max(panels[0].X.Max, panels[1].X.Max)
	for _, p := range panels {
		p.X.Max = xmax
	}
	c = legendRight(c, panels[0])
	tiles := plot.Align([][]*plot.Plot{{panels[0]}, {panels[1]}},
		draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(8), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2), PadRight: vg.Points(8)}, c)
	panels[0].Draw(tiles[0][0])
	panels[1].Draw(tiles[1][0])
	return nil
}

// legendGap separates the legend strip from the plot.
const legendGap = 6 * vg.Millimeter / 2

// legendRight draws p's legend in a strip at the right of c, top-aligned with the
// data area below the title, clears it from p, and returns the part of c left for
// the plot. Outside the data area the legend never hides a line or a bar,
// however many runs there are.
func legendRight(c draw.Canvas, p *plot.Plot) draw.Canvas {
	c = draw.Crop(c, 0, -legendGap, 0, 0) // keep the text off the figure's edge
	l := p.Legend
	p.Legend = plot.NewLegend()
	r := l.Rectangle(c)
	w := r.Max.X - r.Min.X
	if w <= l.ThumbnailWidth {
		return c // no entries
	}
	top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	l.Top, l.Left = true, true
	l.XOffs, l.YOffs = 0, 0
	l.Draw(draw.Crop(c, c.Max.X-c.Min.X-w, 0, 0, -top))
	return draw.Crop(c, 0, -(w + legendGap), 0, 0)
}

// lineChunk is the number of points per stroked path of a long line.
const lineChunk = 64

// addLine adds pts to p as a line of the given style, stroked in chunks of
// lineChunk points that share their end points. The PNG rasteriser keeps a
// sorted list of cells per pixel row, so one long, dense path costs time
// quadratic in the plot width; short chunks keep those lists short (a 20,000-job
// run drew in 20 s as one path). It returns the first chunk, for the legend.
func addLine(p *plot.Plot, pts plotter.XYs, step plotter.StepKind, ls draw.LineStyle) (*plotter.Line, error) {
	var first *plotter.Line
	for lo := 0; lo == 0 || lo < len(pts)-1; lo += lineChunk {
		l, err := plotter.NewLine(pts[lo:min(lo+lineChunk+1, len(pts))])
		if err != nil {
			return nil, err
		}
		l.StepStyle = step
		l.LineStyle = ls
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	return first, nil
}

// timeUnit picks the unit of the time axis for a run of maxUs microseconds.
func timeUnit(maxUs int64) (string, float64) {
	switch s := Seconds(maxUs); {
	case s >= 72*3600:
		return "h", 3600 * usPerSecond
	case s >= 3*3600:
		return "min", 60 * usPerSecond
	default:
		return "s", usPerSecond
	}
}

// clusterSeries returns the cluster-wide running maps and reduces over time from
// the timeline rows with JobIndex -1, sorted by time, x in units of div µs.
func clusterSeries(tl []replay.TimelineSample, div float64) (maps, reduces plotter.XYs) {
	var rows []replay.TimelineSample
	for _, s := range tl {
		if s.JobIndex == -1 {
			rows = append(rows, s)
		}
	}
	slices.SortStableFunc(rows, func(a, b replay.TimelineSample) int {
		return cmp.Compare(a.TimeUs, b.TimeUs)
	})
	for _, s := range rows {
		x := float64(s.TimeUs) / div
		maps = append(maps, plotter.XY{X: x, Y: float64(s.RunningMaps)})
		reduces = append(reduces, plotter.XY{X: x, Y: float64(s.RunningReduces)})
	}
	return maps, reduces
}

// decimate reduces pts (sorted by X) to at most limit points by keeping, in each
// of limit/2 equal runs of consecutive points, the lowest and the highest point in
// their time order. Shorter series come back unchanged.
func decimate(pts plotter.XYs, limit int) plotter.XYs {
	if len(pts) <= limit {
		return pts
	}
	buckets := limit / 2
	out := make(plotter.XYs, 0, limit)
	for b := range buckets {
		lo, hi := b*len(pts)/buckets, (b+1)*len(pts)/buckets
		iMin, iMax := lo, lo
		for i := lo; i < hi; i++ {
			if pts[i].Y < pts[iMin].Y {
				iMin = i
			}
			if pts[i].Y > pts[iMax].Y {
				iMax = i
			}
		}
		first, second := min(iMin, iMax), max(iMin, iMax)
		out = append(out, pts[first])
		if second != first {
			out = append(out, pts[second])
		}
	}
	return out
}
