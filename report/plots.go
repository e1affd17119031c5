package report

import (
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// flowtimeCDF is the empirical CDF of job flowtime per run, x on a log scale.
func flowtimeCDF(runs []Run, names []string) (figure, error) {
	p := plot.New()
	p.Title.Text = "Job flowtime CDF"
	p.X.Label.Text = "flowtime (s, log scale)"
	p.Y.Label.Text = "fraction of jobs"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
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
			return figure{}, err
		}
		p.Legend.Add(names[i], l)
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	// A margin of 10% on each side; at least a factor of 4 so that the axis
	// gets ticks to label.
	p.X.Min, p.X.Max = lo/1.1, hi*1.1
	if r := p.X.Max / p.X.Min; r < 4 {
		g := math.Sqrt(4 / r)
		p.X.Min, p.X.Max = p.X.Min/g, p.X.Max*g
	}
	l, top := takeLegend(p)
	return figure{name: FlowtimeCDFFigure, height: 4 * vg.Inch, legend: l, top: top, draw: p.Draw}, nil
}

// starvationBars shows mean and p95 starvation per run as paired bars. A bar chart
// rather than a CDF: most jobs do not starve (value 0, which a log axis cannot
// show and which flattens a linear CDF), and the policies differ in a few long
// waits, which the mean and p95 summarise.
func starvationBars(runs []Run, names []string) (figure, error) {
	p := plot.New()
	p.Title.Text = "Reduce starvation (jobs with reduces)"
	p.Y.Label.Text = "starvation (s)"
	p.Y.Tick.Marker = tidyTicks{}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	means := make(plotter.Values, len(runs))
	p95s := make(plotter.Values, len(runs))
	for i, r := range runs {
		s := ComputeStats(r)
		means[i], p95s[i] = zeroNaN(s.StarvationMean), zeroNaN(s.StarvationP95)
	}
	// Two bars fill about 70% of each run's slot of the plot width.
	w := min(vg.Points(24), 0.35*(minPlotWidth-vg.Inch)/vg.Length(len(runs)))
	for k, series := range []struct {
		name string
		v    plotter.Values
	}{{"mean", means}, {"p95", p95s}} {
		b, err := plotter.NewBarChart(series.v, w)
		if err != nil {
			return figure{}, err
		}
		b.Color, _ = style(k)
		b.LineStyle.Width = 0
		b.Offset = vg.Length(2*k-1) * w / 2
		p.Add(b)
		p.Legend.Add(series.name, b)
	}
	p.NominalX(names...)
	// Room for the outer bars of the first and last run, and above the tallest.
	p.X.Min, p.X.Max = -0.5, float64(len(runs))-0.5
	p.Y.Max = 1.05 * max(slices.Max(p95s), slices.Max(means), 1e-9)
	if len(runs) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	l, top := takeLegend(p)
	return figure{name: StarvationFigure, height: 4 * vg.Inch, legend: l, top: top, draw: p.Draw}, nil
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// runningTasks shows running maps (top panel) and reduces (bottom panel) in the
// whole cluster over simulated time.
func runningTasks(runs []Run, names []string) (figure, error) {
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
		p.X.Tick.Marker = tidyTicks{}
		p.Y.Tick.Marker = tidyTicks{}
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
				return figure{}, err
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
	l, top := takeLegend(panels[0])
	drawPanels := func(c draw.Canvas) {
		tiles := plot.Align([][]*plot.Plot{{panels[0]}, {panels[1]}},
			draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(8), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2)}, c)
		panels[0].Draw(tiles[0][0])
		panels[1].Draw(tiles[1][0])
	}
	return figure{name: RunningTasksFigure, height: 6 * vg.Inch, legend: l, top: top + vg.Points(2), draw: drawPanels}, nil
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
