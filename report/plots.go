package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// flowtimeCDF is the empirical CDF of job flowtime per cell, x on a log scale;
// the jobs of a cell's seeds are pooled. More cells than one panel holds
// (look.perPanel) are drawn as small multiples sharing the x range, each panel
// showing its cells in colour over the others in light grey.
func flowtimeCDF(groups []Group, names []string, lk look) (Figure, error) {
	agg := Aggregated(groups)
	title := "Job flowtime CDF"
	ylabel := "fraction of jobs"
	caption := "Empirical CDF of job flowtime (finish minus submit, finished jobs), log scale; further left and steeper is better."
	if agg {
		title += ", jobs of all seeds pooled"
		ylabel = "fraction of jobs (seeds pooled)"
		caption += " Each curve pools the jobs of all seeds of its cell."
	}
	limit := maxLinePoints
	if lk.vector {
		limit = maxVectorPoints
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	curves := make([]plotter.XYs, len(groups))
	for i, g := range groups {
		var flow []float64
		for _, r := range g.Runs {
			flow = append(flow, Flowtimes(r.Jobs)...)
		}
		slices.Sort(flow)
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
		curves[i] = thinSteps(pts, limit)
		lo, hi = min(lo, pts[0].X), max(hi, pts[len(pts)-1].X)
	}
	if math.IsInf(lo, 1) {
		return Figure{Name: FlowtimeCDFFigure, Skip: "no finished job with a positive flowtime"}, nil
	}
	// A margin of 10% on each side; at least a factor of 4 so that the axis
	// gets ticks to label.
	xmin, xmax := lo/1.1, hi*1.1
	if r := xmax / xmin; r < 4 {
		g := math.Sqrt(4 / r)
		xmin, xmax = xmin/g, xmax*g
	}
	chunks := facets(len(groups), lk.perPanel())
	f := Figure{Name: FlowtimeCDFFigure, Caption: caption}
	if len(chunks) > 1 {
		f.Caption += fmt.Sprintf(" %d cells in %d panels; each panel draws its cells in colour over the others in grey.", len(groups), len(chunks))
	}
	for ci, chunk := range chunks {
		p := lk.newPlot()
		if ci == 0 {
			lk.title(p, title)
		}
		p.Y.Label.Text = ylabel
		p.X.Label.Text = "flowtime (s, log scale)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = LogTicks{}
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Min, p.X.Max = xmin, xmax
		p.Add(plotter.NewGrid())
		if len(chunks) > 1 {
			for i, pts := range curves {
				if len(pts) > 0 && !slices.Contains(chunk, i) {
					if _, err := addLine(p, pts, plotter.PostStep, lk.contextLine()); err != nil {
						return Figure{}, err
					}
				}
			}
		}
		for k, i := range chunk {
			if len(curves[i]) == 0 {
				continue
			}
			thumbs, err := lk.addSeries(p, k, curves[i], plotter.PostStep, true)
			if err != nil {
				return Figure{}, err
			}
			p.Legend.Add(names[i], thumbs...)
		}
		p.X.Min, p.X.Max = xmin, xmax
		l, top := TakeLegend(p)
		h := lk.height(1)
		if len(chunks) > 1 {
			h = lk.facetHeight(1, ci == 0)
		}
		drawPlot := func(c draw.Canvas) {
			fitXTicks(p, LogTicks{}, c)
			p.Draw(c)
		}
		f.Rows = append(f.Rows, Figure{Height: h, Legend: l, Top: top, Draw: drawPlot})
	}
	if len(f.Rows) == 1 {
		r := f.Rows[0]
		f.Height, f.Legend, f.Top, f.Draw, f.Rows = r.Height, r.Legend, r.Top, r.Draw, nil
	}
	return f, nil
}

// thinSteps keeps at most about limit points of a CDF's steps (sorted by X and
// Y): every k-th, and the first and the last. The curve moves by at most k/n in
// y, under one pixel for limit = maxLinePoints, and a pooled CDF of many seeds of
// a large trace draws in a fraction of the time.
func thinSteps(pts plotter.XYs, limit int) plotter.XYs {
	if len(pts) <= limit {
		return pts
	}
	k := (len(pts) + limit - 1) / limit
	out := make(plotter.XYs, 0, limit+1)
	for i := 0; i < len(pts)-1; i += k {
		out = append(out, pts[i])
	}
	return append(out, pts[len(pts)-1])
}

// starvationBars shows mean and p95 starvation per cell as paired bars. A bar
// chart rather than a CDF: most jobs do not starve (value 0, which a log axis
// cannot show and which flattens a linear CDF), and the policies differ in a few
// long waits, which the mean and p95 summarise. Over several seeds each bar is
// the mean over seeds of the per-run value, with its 95% interval. Up to
// maxColumnCells cells stand as columns named below them; more lie as rows
// named left of them (starvationRows), one name a line, so that names never
// collide however many cells there are.
func starvationBars(groups []Group, names []string, lk look) (Figure, error) {
	if !slices.ContainsFunc(groups, func(g Group) bool {
		return slices.ContainsFunc(g.Runs, func(r Run) bool { return len(Starvations(r.Jobs)) > 0 })
	}) {
		return Figure{Name: StarvationFigure, Skip: "no job has reduces"}, nil
	}
	agg := Aggregated(groups)
	title := "Reduce starvation (jobs with reduces)"
	caption := "Mean and p95 reduce starvation per cell (Coupling sec. III-C: wait of reduces launched after the job's last map ended), over jobs with reduces."
	if agg {
		title += ", mean over seeds"
		caption += " Bars are means over seeds of the per-run values; error bars are 95% confidence intervals (Student's t)."
	}
	var sb starvationData
	sb.values = [2]plotter.Values{make(plotter.Values, len(groups)), make(plotter.Values, len(groups))}
	sb.halves = [2][]float64{make([]float64, len(groups)), make([]float64, len(groups))}
	for i, g := range groups {
		var ms, ps []float64
		for _, r := range g.Runs {
			s := ComputeStats(r)
			ms, ps = append(ms, ZeroNaN(s.StarvationMean)), append(ps, ZeroNaN(s.StarvationP95))
		}
		var hm, hp float64
		sb.values[0][i], hm = MeanCI95(ms)
		sb.values[1][i], hp = MeanCI95(ps)
		sb.halves[0][i], sb.halves[1][i] = ZeroNaN(hm), ZeroNaN(hp)
		for k := range 2 {
			sb.top = max(sb.top, sb.values[k][i]+sb.halves[k][i])
		}
	}
	if len(groups) > maxColumnCells {
		return starvationRows(groups, names, lk, sb, title, caption)
	}
	p := lk.newPlot()
	lk.title(p, title)
	p.Y.Label.Text = "starvation (s)"
	p.Y.Tick.Marker = TidyTicks{}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // lines through the names would part a cell's bars
	p.Add(grid)
	// Two bars fill about 60-70% of each cell's slot of the plot width.
	plotWidth := MinPlotWidth - vg.Inch
	if lk.paper {
		plotWidth = 0.6 * oneColumnWidth
		if lk.width == TwoColumn {
			plotWidth = 0.6 * twoColumnWidth
		}
	}
	w := min(vg.Points(24), 0.3*plotWidth/vg.Length(len(groups)))
	if err := sb.add(p, lk, agg, w, false, 0, len(groups)); err != nil {
		return Figure{}, err
	}
	p.NominalX(names...)
	// Room for the outer bars of the first and last cell, and above the tallest.
	p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	p.Y.Min, p.Y.Max = 0, headroom(sb.top)
	// Names slant when they would collide.
	if len(groups) > 4 || agg && len(groups) > 2 || lk.paper && len(groups) > 2 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	l, legendTop := TakeLegend(p)
	return Figure{Name: StarvationFigure, Caption: caption, Height: lk.height(1), Legend: l, Top: legendTop, Draw: p.Draw}, nil
}

// maxColumnCells is the most cells the starvation figure draws as columns.
const maxColumnCells = 8

// starvationData are the bars of the starvation figure: per series (0 = mean,
// 1 = p95) the value of each cell and the half-width of its interval, and the
// tallest bar with its interval.
type starvationData struct {
	values [2]plotter.Values
	halves [2][]float64
	top    float64
}

// add draws the bars of cells lo..hi-1 of sb into p, w thick, with their error
// bars when agg, and their legend entries. Horizontal bars lie in reverse order
// (the first cell on top) with the mean above the p95.
func (sb starvationData) add(p *plot.Plot, lk look, agg bool, w vg.Length, horizontal bool, lo, hi int) error {
	for k, name := range []string{"mean", "p95"} {
		v := slices.Clone(sb.values[k][lo:hi])
		half := slices.Clone(sb.halves[k][lo:hi])
		if horizontal {
			slices.Reverse(v)
			slices.Reverse(half)
		}
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return err
		}
		b.Horizontal = horizontal
		b.Color, b.LineStyle = lk.bar(k)
		b.Offset = vg.Length(2*k-1) * w / 2
		if horizontal {
			b.Offset = -b.Offset
		}
		p.Add(b)
		p.Legend.Add(name, b)
		if agg {
			p.Add(&ciBars{values: v, half: half, offset: b.Offset, capWidth: w / 3, lineWidth: lk.lineWidth() * 2 / 3, horizontal: horizontal})
		}
	}
	if agg {
		p.Legend.Add("95% CI over seeds", &ciBars{capWidth: vg.Points(4), lineWidth: lk.lineWidth() * 2 / 3})
	}
	return nil
}

// headroom is the top of a value axis whose tallest bar is top: at least 8%
// above it, rounded up to the next tidy tick so that the axis ends on a
// label; 1 when nothing is above zero (a 0-1 s axis rather than ticks all
// labelled 0).
func headroom(top float64) float64 {
	if top < 1e-6 {
		return 1
	}
	step, _ := tickStep(1.08 * top / tidyTarget)
	return roundTo(math.Ceil(1.08*top/step-1e-9)*step, step)
}

// starvationRows draws the starvation figure of more than maxColumnCells cells
// as horizontal bars, a cell a line named at its left, the first on top. The
// Figure grows a line per cell; in the paper style, cells beyond what a page
// holds (paperMaxHeight) go to further panels sharing the value axis, each
// with its legend, which paginate puts on pages of their own.
func starvationRows(groups []Group, names []string, lk look, sb starvationData, title, caption string) (Figure, error) {
	agg := Aggregated(groups)
	// pitch is the height of one cell's line; overhead the rest of a panel
	// (title, value axis and its label, padding).
	pitch, overhead := vg.Points(16), vg.Points(70)
	if lk.paper {
		pitch, overhead = vg.Points(9), vg.Points(36)
	}
	per := len(groups)
	if lk.paper {
		per = max(1, int((lk.paperMaxHeight()-overhead)/pitch))
	}
	chunks := facets(len(groups), per)
	f := Figure{Name: StarvationFigure, Caption: caption}
	if len(chunks) > 1 {
		f.Caption += fmt.Sprintf(" %d cells in %d panels sharing the value axis.", len(groups), len(chunks))
	}
	for ci, chunk := range chunks {
		lo, hi := chunk[0], chunk[len(chunk)-1]+1
		p := lk.newPlot()
		if ci == 0 {
			lk.title(p, title)
		}
		p.X.Label.Text = "starvation (s)"
		grid := plotter.NewGrid()
		grid.Horizontal.Color = nil // lines through the names would part a cell's bars
		p.Add(grid)
		if err := sb.add(p, lk, agg, 0.35*pitch, true, lo, hi); err != nil {
			return Figure{}, err
		}
		rev := slices.Clone(names[lo:hi])
		slices.Reverse(rev)
		p.NominalY(rev...)
		p.Y.Min, p.Y.Max = -0.5, float64(hi-lo)-0.5
		p.X.Min, p.X.Max = 0, headroom(sb.top)
		l, legendTop := TakeLegend(p)
		h := max(vg.Length(hi-lo)*pitch+overhead, lk.height(1))
		if lk.paper && len(chunks) > 1 {
			h = vg.Length(hi-lo)*pitch + overhead
		}
		drawPlot := func(c draw.Canvas) {
			c = draw.Crop(c, vg.Points(2), 0, 0, 0) // the names off the left edge
			fitXTicks(p, TidyTicks{}, c)
			p.Draw(c)
		}
		f.Rows = append(f.Rows, Figure{Height: h, Legend: l, Top: legendTop, Draw: drawPlot})
	}
	if len(f.Rows) == 1 {
		r := f.Rows[0]
		f.Height, f.Legend, f.Top, f.Draw, f.Rows = r.Height, r.Legend, r.Top, r.Draw, nil
	}
	return f, nil
}

func ZeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// ciBars draws error bars of half-width half[i] around values[i] at x = i, moved
// by offset on the canvas (to sit on a bar of a grouped bar chart); with
// horizontal set, around values[i] along x at y = i.
type ciBars struct {
	values     plotter.Values
	half       []float64
	offset     vg.Length
	capWidth   vg.Length
	lineWidth  vg.Length
	horizontal bool
}

// Plot implements plot.Plotter.
func (e *ciBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ls := draw.LineStyle{Color: color.Black, Width: e.lineWidth}
	for i, v := range e.values {
		if e.half[i] <= 0 {
			continue
		}
		if e.horizontal {
			y := trY(float64(i)) + e.offset
			lo, hi := trX(max(0, v-e.half[i])), trX(v+e.half[i])
			c.StrokeLine2(ls, lo, y, hi, y)
			c.StrokeLine2(ls, lo, y-e.capWidth/2, lo, y+e.capWidth/2)
			c.StrokeLine2(ls, hi, y-e.capWidth/2, hi, y+e.capWidth/2)
			continue
		}
		x := trX(float64(i)) + e.offset
		lo, hi := trY(max(0, v-e.half[i])), trY(v+e.half[i])
		c.StrokeLine2(ls, x, lo, x, hi)
		c.StrokeLine2(ls, x-e.capWidth/2, lo, x+e.capWidth/2, lo)
		c.StrokeLine2(ls, x-e.capWidth/2, hi, x+e.capWidth/2, hi)
	}
}

// DataRange implements plot.DataRanger: the bars' tops with their intervals.
func (e *ciBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	var top float64
	for i, v := range e.values {
		top = max(top, v+e.half[i])
	}
	if e.horizontal {
		return 0, top, 0, float64(max(0, len(e.values)-1))
	}
	return 0, float64(max(0, len(e.values)-1)), 0, top
}

// Thumbnail implements plot.Thumbnailer: an error bar with caps.
func (e *ciBars) Thumbnail(c *draw.Canvas) {
	ls := draw.LineStyle{Color: color.Black, Width: e.lineWidth}
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(ls, x-e.capWidth/2, c.Min.Y, x+e.capWidth/2, c.Min.Y)
	c.StrokeLine2(ls, x-e.capWidth/2, c.Max.Y, x+e.capWidth/2, c.Max.Y)
}

// runningTasks shows running maps (top panel) and reduces (bottom panel) in the
// whole cluster over simulated time; over several seeds, the mean over seeds
// with a 95% confidence band. More cells than one panel holds are drawn as
// small multiples (a pair of panels per chunk of cells) sharing both axes.
func runningTasks(groups []Group, names []string, lk look) (Figure, error) {
	agg := Aggregated(groups)
	var maxUs int64
	samples := 0
	for _, g := range groups {
		for _, r := range g.Runs {
			for _, s := range r.Timeline {
				maxUs = max(maxUs, s.TimeUs)
				if s.JobIndex == -1 {
					samples++
				}
			}
		}
	}
	if samples == 0 {
		return Figure{Name: RunningTasksFigure, Skip: "no timeline (the runs were made with timeline sampling off)"}, nil
	}
	unit, div := timeUnit(maxUs)
	title := "Running tasks in the cluster"
	caption := "Running maps (top) and reduces (bottom) in the whole cluster over simulated time."
	if agg {
		title += ": mean over seeds, 95% CI band"
		caption += " Each line is the mean over its cell's seeds at each instant, the band its 95% confidence interval (Student's t)."
	}
	xmaxAll := float64(maxUs) / div
	series := make([][2]plotter.XYs, len(groups))
	bands := make([][2]plotter.XYs, len(groups))
	var ymax [2]float64
	limit := maxLinePoints
	if lk.vector {
		limit = maxVectorPoints
	}
	for i, g := range groups {
		if len(g.Runs) == 1 {
			series[i][0], series[i][1] = clusterSeries(g.Runs[0].Timeline, div)
		} else {
			series[i], bands[i] = meanSeries(g.Runs, div, xmaxAll)
		}
		for k := range 2 {
			series[i][k] = decimate(series[i][k], limit)
			for _, pt := range series[i][k] {
				ymax[k] = max(ymax[k], pt.Y)
			}
			for _, pt := range bands[i][k] {
				ymax[k] = max(ymax[k], pt.Y)
			}
		}
	}
	chunks := facets(len(groups), lk.perPanel())
	f := Figure{Name: RunningTasksFigure, Caption: caption}
	if len(chunks) > 1 {
		f.Caption += fmt.Sprintf(" %d cells in %d pairs of panels sharing both axes.", len(groups), len(chunks))
	}
	for ci, chunk := range chunks {
		panels := [2]*plot.Plot{lk.newPlot(), lk.newPlot()}
		if ci == 0 {
			lk.title(panels[0], title)
		}
		panels[0].Y.Label.Text = "running maps"
		panels[1].Y.Label.Text = "running reduces"
		panels[1].X.Label.Text = "simulated time (" + unit + ")"
		for k, p := range panels {
			p.Add(plotter.NewGrid())
			p.X.Tick.Marker = TidyTicks{}
			p.Y.Tick.Marker = TidyTicks{}
			p.X.Min, p.X.Max = 0, max(xmaxAll, 1e-9)
			// Headroom so that peaks do not touch the frame.
			p.Y.Min, p.Y.Max = 0, max(1, 1.08*ymax[k])
		}
		for pos, i := range chunk {
			for k, pts := range series[i] {
				if len(pts) == 0 {
					continue
				}
				if len(bands[i][k]) > 0 {
					poly, err := plotter.NewPolygon(bands[i][k])
					if err != nil {
						return Figure{}, err
					}
					poly.Color = lk.bandColor(pos)
					poly.LineStyle.Width = 0
					panels[k].Add(poly)
				}
				thumbs, err := lk.addSeries(panels[k], pos, pts, plotter.NoStep, false)
				if err != nil {
					return Figure{}, err
				}
				if k == 0 {
					panels[k].Legend.Add(names[i], thumbs...)
				}
			}
		}
		if agg {
			band := &plotter.Polygon{Color: color.Gray{Y: 0xc0}}
			panels[0].Legend.Add("95% CI over seeds", band)
		}
		for k, p := range panels {
			p.X.Min, p.X.Max = 0, max(xmaxAll, 1e-9)
			p.Y.Min, p.Y.Max = 0, max(1, 1.08*ymax[k])
		}
		l, top := TakeLegend(panels[0])
		drawPanels := func(c draw.Canvas) {
			tiles := plot.Align([][]*plot.Plot{{panels[0]}, {panels[1]}},
				draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(8), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2)}, c)
			for k, p := range panels {
				fitXTicks(p, TidyTicks{}, tiles[k][0])
				p.Draw(tiles[k][0])
			}
		}
		h := lk.height(2)
		if len(chunks) > 1 {
			h = lk.facetHeight(2, ci == 0)
		}
		f.Rows = append(f.Rows, Figure{Height: h, Legend: l, Top: top + vg.Points(2), Draw: drawPanels})
	}
	if len(f.Rows) == 1 {
		r := f.Rows[0]
		f.Height, f.Legend, f.Top, f.Draw, f.Rows = r.Height, r.Legend, r.Top, r.Draw, nil
	}
	return f, nil
}

// meanGridPoints is the number of instants at which meanSeries averages the
// seeds of a cell.
const meanGridPoints = 500

// meanSeries averages the cluster series (clusterSeries) of runs over seeds at
// meanGridPoints evenly spaced instants from 0 to xmax (in units of div µs): for
// maps and reduces, the mean line and the polygon of its 95% confidence band
// (MeanCI95), clipped at zero. A run's series is interpolated linearly between
// its points and is zero before its first and after its last point.
func meanSeries(runs []Run, div, xmax float64) (mean, band [2]plotter.XYs) {
	if xmax <= 0 {
		return mean, band
	}
	grid := make([]float64, meanGridPoints)
	for k := range grid {
		grid[k] = xmax * float64(k) / float64(meanGridPoints-1)
	}
	// vals[panel][k] holds one value per run at grid[k].
	var vals [2][][]float64
	for p := range vals {
		vals[p] = make([][]float64, len(grid))
	}
	for _, r := range runs {
		maps, reduces := clusterSeries(r.Timeline, div)
		for p, pts := range [2]plotter.XYs{maps, reduces} {
			for k, v := range sampleAt(pts, grid) {
				vals[p][k] = append(vals[p][k], v)
			}
		}
	}
	for p := range vals {
		var lower plotter.XYs
		for k, x := range grid {
			m, h := MeanCI95(vals[p][k])
			h = ZeroNaN(h)
			mean[p] = append(mean[p], plotter.XY{X: x, Y: m})
			band[p] = append(band[p], plotter.XY{X: x, Y: m + h})
			lower = append(lower, plotter.XY{X: x, Y: max(0, m-h)})
		}
		slices.Reverse(lower)
		band[p] = append(band[p], lower...)
	}
	return mean, band
}

// sampleAt evaluates the polyline pts (sorted by X) at the increasing instants
// grid, by linear interpolation; 0 outside pts.
func sampleAt(pts plotter.XYs, grid []float64) []float64 {
	out := make([]float64, len(grid))
	j := 0
	for k, x := range grid {
		for j < len(pts) && pts[j].X < x {
			j++
		}
		switch {
		case len(pts) == 0 || j == len(pts):
			out[k] = 0
		case pts[j].X == x:
			out[k] = pts[j].Y
		case j == 0:
			out[k] = 0
		default:
			a, b := pts[j-1], pts[j]
			out[k] = a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X)
		}
	}
	return out
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
