// Package bar is the report presets of Jin et al., BAR (CCGrid 2011): the
// tables and figures of report --preset bar-table4 (Table IV) and bar-fig9
// (Fig. 9), drawn from the allocation studies of
// samples/experiments/bar_table4.toml and bar_fig9.toml.
package bar

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracereplay/tracereplay/report"
)

// The bar-table4 and bar-fig9 presets draw the allocation studies of
// samples/experiments/bar_table4.toml and bar_fig9.toml in the form of Jin et al.,
// BAR (CCGrid 2011), Table IV and Fig. 9. Every value is the mean over seeds with
// its 95% confidence interval (Student's t, MeanCI95).
//   - bar-table4: the table lists, per case, system and algorithm, the makespan
//     ratio MR (to the study's first algorithm, BAR), the data locality DR and
//     the makespan, beside the paper's MR and DR where the case and system are
//     the paper's (matched on q, W, servers and tasks). Figure bar_table4_CASE
//     per case: MR (log scale, top) and DR (bottom) per system, one dot with its
//     interval per algorithm, the paper's values as rings.
//   - bar-fig9: the table lists, per case and task count, each algorithm's
//     computation time (alloc_timing.parquet) in milliseconds; figure
//     bar_fig9_CASE per case: time against tasks, both on log scales, one line
//     per algorithm. On the log axes an interval reaching below half its mean
//     (wall times of a few runs, one slow) is cut there.

// barPaperTable4 holds Table IV of the paper: per (q, W) in seconds and (servers,
// tasks), per algorithm, MR and DR in percent.
var barPaperTable4 = map[[4]int]map[string][2]float64{
	{10, 40, 100, 300}:      {"bar": {1, 99.9}, "maxcover-balassign": {1.1, 100}, "hds": {3.84, 91.4}, "gcc": {2.89, 94.3}, "ds0.15": {1.17, 99.8}, "ds0.25": {1.13, 99.9}},
	{10, 40, 2000, 100}:     {"bar": {1, 97.3}, "maxcover-balassign": {1.19, 100}, "hds": {19.35, 6.7}, "gcc": {14.16, 32.6}, "ds0.15": {1.11, 99}, "ds0.25": {1.06, 100}},
	{10, 40, 2000, 15000}:   {"bar": {1, 100}, "maxcover-balassign": {1.03, 100}, "hds": {31.05, 96.4}, "gcc": {21.39, 97.5}, "ds0.15": {1.12, 100}, "ds0.25": {1.11, 100}},
	{1, 1000, 100, 300}:     {"bar": {1, 80.3}, "maxcover-balassign": {1.01, 80.6}, "hds": {1.24, 62.2}, "gcc": {1.24, 68.9}, "ds0.15": {1.26, 82.1}, "ds0.25": {1.31, 86.9}},
	{1, 1000, 2000, 100}:    {"bar": {1, 27.3}, "maxcover-balassign": {1.01, 26.8}, "hds": {1.19, 5.8}, "gcc": {1.71, 28.6}, "ds0.15": {2.15, 48.7}, "ds0.25": {2.55, 63.5}},
	{1, 1000, 2000, 15000}:  {"bar": {1, 98.1}, "maxcover-balassign": {1.01, 98.2}, "hds": {5.95, 90.4}, "gcc": {2.56, 91.7}, "ds0.15": {1.20, 99.8}, "ds0.25": {1.21, 99.9}},
	{10, 1000, 100, 300}:    {"bar": {1, 89.9}, "maxcover-balassign": {1.01, 90}, "hds": {2.33, 75.1}, "gcc": {2.02, 78.2}, "ds0.15": {1.67, 83.1}, "ds0.25": {1.52, 86.9}},
	{10, 1000, 2000, 100}:   {"bar": {1, 64.1}, "maxcover-balassign": {1, 64.1}, "hds": {2.71, 5.3}, "gcc": {2.31, 28.3}, "ds0.15": {2.21, 42.3}, "ds0.25": {2.01, 64.3}},
	{10, 1000, 2000, 15000}: {"bar": {1, 99.5}, "maxcover-balassign": {1.01, 99.7}, "hds": {30.11, 88.5}, "gcc": {14.64, 89.8}, "ds0.15": {1.14, 99.9}, "ds0.25": {1.05, 100}},
}

// barPaper looks a cell up in the paper's Table IV (BAR must be the reference).
func barPaper(c *report.AllocCell) (float64, float64, bool) {
	if c.QUs%1e6 != 0 || c.WUs%1e6 != 0 {
		return 0, 0, false
	}
	v, ok := barPaperTable4[[4]int{int(c.QUs / 1e6), int(c.WUs / 1e6), int(c.Servers), int(c.Tasks)}][c.Alg]
	return v[0], v[1], ok
}

// Table4 is the bar-table4 preset's table (see the package comment
// above).
func Table4(runs []report.Run) *report.Table {
	t := report.AllocTable(runs, "BAR (Jin et al. 2011) Table IV: makespan ratio MR and data locality DR, mean over seeds with 95% CIs", barPaper)
	if algs := report.AllocAlgorithms(report.AllocCells(runs)); len(algs) > 0 && algs[0] != "bar" {
		t.Notes = append(t.Notes, "The paper's MR is relative to BAR; this study's reference is "+algs[0]+", so its ratios are not the paper's.")
	}
	t.Notes = append(t.Notes, "Paper columns: Table IV for the same q, W, servers and tasks (E1 100×300, E2 2000×100, E3 2000×15000; (a) q=10 W=40, (b) q=1 W=1000, (c) q=10 W=1000).")
	return t
}

// WriteTable4Figures draws bar_table4_CASE for every case of the studies
// among runs and returns the paths written.
func WriteTable4Figures(runs []report.Run, dir, format string) ([]string, error) {
	cells := report.AllocCells(runs)
	if len(cells) == 0 {
		return nil, fmt.Errorf("bar-table4: no allocation study (%s) among the results", "alloc.parquet")
	}
	var figs []report.Figure
	for _, cs := range allocCases(cells) {
		f, err := barTable4Figure(cells, cs)
		if err != nil {
			return nil, fmt.Errorf("bar-table4 figure: %w", err)
		}
		figs = append(figs, f)
	}
	return report.WriteFigureSet(dir, format, figs)
}

// allocCases lists the study and case pairs of cells in order.
func allocCases(cells []*report.AllocCell) [][2]string {
	var out [][2]string
	for _, c := range cells {
		if k := [2]string{c.Study, c.Case}; !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// casePrefix is the file-name prefix of a study's case: the case alone when
// one study was loaded.
func casePrefix(cells []*report.AllocCell, cs [2]string) string {
	studies := map[string]bool{}
	for _, c := range cells {
		studies[c.Study] = true
	}
	if len(studies) > 1 {
		return report.FileSlug(cs[0]) + "_" + report.FileSlug(cs[1])
	}
	return report.FileSlug(cs[1])
}

func barTable4Figure(cells []*report.AllocCell, cs [2]string) (report.Figure, error) {
	var systems []string
	var mine []*report.AllocCell
	for _, c := range cells {
		if c.Study == cs[0] && c.Case == cs[1] {
			mine = append(mine, c)
			if !slices.Contains(systems, c.System) {
				systems = append(systems, c.System)
			}
		}
	}
	algs := report.AllocAlgorithms(mine)
	mr, dr := plot.New(), plot.New()
	q, w := report.Seconds(mine[0].QUs), report.Seconds(mine[0].WUs)
	mr.Title.Text = fmt.Sprintf("Table IV (%s): q = %g s, W = %g s; mean over seeds, 95%% CI", cs[1], q, w)
	mr.Y.Label.Text = "makespan ratio MR (to " + algs[0] + ", log)"
	mr.Y.Scale = plot.LogScale{}
	mr.Y.Tick.Marker = report.LogTicks{}
	dr.Y.Label.Text = "data locality DR (%)"
	dr.Y.Tick.Marker = report.TidyTicks{}
	dr.Y.Min, dr.Y.Max = 0, 105
	dr.X.Label.Text = "system (servers × tasks)"
	lo, hi := math.Inf(1), math.Inf(-1)
	step := 0.8 / float64(len(algs))
	paperShown := false
	for i, alg := range algs {
		col, _ := report.SeriesStyle(i)
		var emr, edr report.CIErrors
		var pmr, pdr plotter.XYs
		for k, sys := range systems {
			idx := slices.IndexFunc(mine, func(c *report.AllocCell) bool { return c.System == sys && c.Alg == alg })
			if idx < 0 {
				continue
			}
			c := mine[idx]
			x := float64(k) + step*(float64(i)-float64(len(algs)-1)/2)
			m, h := report.MeanCI95(c.Ratio)
			h = report.ZeroNaN(h)
			emr.XYs = append(emr.XYs, plotter.XY{X: x, Y: m})
			emr.Half = append(emr.Half, h)
			lo, hi = min(lo, report.ClampLog(m-h, m/2)), max(hi, m+h)
			m, h = report.MeanCI95(c.Loc)
			edr.XYs = append(edr.XYs, plotter.XY{X: x, Y: m})
			edr.Half = append(edr.Half, report.ZeroNaN(h))
			if pm, pd, ok := barPaper(c); ok {
				pmr = append(pmr, plotter.XY{X: x, Y: pm})
				pdr = append(pdr, plotter.XY{X: x, Y: pd})
				lo, hi = min(lo, pm), max(hi, pm)
			}
		}
		for _, panel := range []struct {
			p     *plot.Plot
			e     report.CIErrors
			paper plotter.XYs
		}{{mr, emr, pmr}, {dr, edr, pdr}} {
			if len(panel.e.XYs) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(panel.e.XYs)
			if err != nil {
				return report.Figure{}, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Shape: draw.CircleGlyph{}, Radius: vg.Points(2.5)}
			eb, err := plotter.NewYErrorBars(logSafe{panel.e, panel.p == mr})
			if err != nil {
				return report.Figure{}, err
			}
			eb.LineStyle.Color = col
			eb.LineStyle.Width = vg.Points(1.2)
			eb.CapWidth = vg.Points(5)
			panel.p.Add(eb, sc)
			if len(panel.paper) > 0 {
				ring, err := plotter.NewScatter(panel.paper)
				if err != nil {
					return report.Figure{}, err
				}
				ring.GlyphStyle = draw.GlyphStyle{Color: col, Shape: draw.RingGlyph{}, Radius: vg.Points(4.5)}
				panel.p.Add(ring)
				paperShown = true
			}
			if panel.p == mr {
				mr.Legend.Add(alg, sc)
			}
		}
	}
	if paperShown {
		ring, err := plotter.NewScatter(plotter.XYs{{}})
		if err != nil {
			return report.Figure{}, err
		}
		ring.GlyphStyle = draw.GlyphStyle{Color: plotter.DefaultLineStyle.Color, Shape: draw.RingGlyph{}, Radius: vg.Points(4.5)}
		mr.Legend.Add("paper (ring)", ring)
	}
	mr.Y.Min, mr.Y.Max = min(0.9, lo/1.1), max(hi*1.15, 1.5)
	for _, p := range []*plot.Plot{mr, dr} {
		p.Add(plotter.NewGrid())
		names := make([]string, len(systems))
		for k, s := range systems {
			names[k] = s
			if idx := slices.IndexFunc(mine, func(c *report.AllocCell) bool { return c.System == s }); idx >= 0 {
				names[k] = fmt.Sprintf("%s (%d × %d)", s, mine[idx].Servers, mine[idx].Tasks)
			}
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.5, float64(len(systems))-0.5
	}
	return report.StackFigure("bar_table4_"+casePrefix(cells, cs), []*plot.Plot{mr, dr}, 2.6*vg.Inch), nil
}

// logSafe keeps error bars on a log axis above zero.
type logSafe struct {
	report.CIErrors
	log bool
}

func (l logSafe) YError(i int) (float64, float64) {
	lo, hi := l.CIErrors.YError(i)
	if l.log {
		_, y := l.XY(i)
		lo = min(lo, y-report.ClampLog(y-lo, y/2))
	}
	return lo, hi
}

// barTiming gathers one algorithm's wall times in milliseconds at one task count.
type barTiming struct {
	study, cs, alg string
	tasks          int32
	ms             []float64
}

// barTimings groups the timing rows of the studies among runs in order.
func barTimings(runs []report.Run) []*barTiming {
	var out []*barTiming
	for _, r := range runs {
		if r.Alloc == nil {
			continue
		}
		for _, t := range r.Alloc.Timing {
			s := report.StudyName(r)
			i := slices.IndexFunc(out, func(b *barTiming) bool {
				return b.study == s && b.cs == t.Case && b.alg == t.Algorithm && b.tasks == t.Tasks
			})
			if i < 0 {
				out = append(out, &barTiming{study: s, cs: t.Case, alg: t.Algorithm, tasks: t.Tasks})
				i = len(out) - 1
			}
			out[i].ms = append(out[i].ms, float64(t.WallNs)/1e6)
		}
	}
	slices.SortStableFunc(out, func(a, b *barTiming) int {
		return cmp.Or(cmp.Compare(a.study, b.study), cmp.Compare(a.cs, b.cs), cmp.Compare(a.tasks, b.tasks))
	})
	return out
}

// timingAlgorithms lists the algorithms of ts in first appearance order.
func timingAlgorithms(ts []*barTiming) []string {
	var algs []string
	for _, t := range ts {
		if !slices.Contains(algs, t.alg) {
			algs = append(algs, t.alg)
		}
	}
	return algs
}

// Fig9Table is the bar-fig9 preset's table: per case and task count, each
// algorithm's mean computation time in ms with its 95% half-width.
func Fig9Table(runs []report.Run) *report.Table {
	ts := barTimings(runs)
	algs := timingAlgorithms(ts)
	t := &report.Table{Title: "BAR (Jin et al. 2011) Fig. 9: computation time (ms), mean over seeds with 95% CIs"}
	studies := map[string]bool{}
	for _, b := range ts {
		studies[b.study] = true
	}
	if len(studies) > 1 {
		t.Columns = append(t.Columns, report.Column{Header: "study", Name: "study"})
	}
	t.Columns = append(t.Columns, report.Column{Header: "case", Name: "case"}, report.Column{Header: "tasks", Name: "tasks", Align: report.AlignRight})
	for _, a := range algs {
		t.Columns = append(t.Columns, report.Column{Header: a + "\n(ms)", Name: report.ColumnSlug(a) + "_ms", Align: report.AlignRight},
			report.Column{Header: "±", Name: report.ColumnSlug(a) + "_ms_ci95", Align: report.AlignRight})
	}
	type rowKey struct {
		study, cs string
		tasks     int32
	}
	var keys []rowKey
	for _, b := range ts {
		if k := (rowKey{b.study, b.cs, b.tasks}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		var row []report.Cell
		if len(studies) > 1 {
			row = append(row, report.Str(k.study))
		}
		row = append(row, report.Str(k.cs), report.Int(int(k.tasks)))
		for _, a := range algs {
			m, h := math.NaN(), math.NaN()
			if i := slices.IndexFunc(ts, func(b *barTiming) bool {
				return b.study == k.study && b.cs == k.cs && b.tasks == k.tasks && b.alg == a
			}); i >= 0 {
				m, h = report.MeanCI95(ts[i].ms)
			}
			row = append(row, report.Float(m, 2), report.Float(h, 2))
		}
		t.AddRow(row...)
	}
	if len(ts) == 0 {
		t.Notes = append(t.Notes, "No timed allocation study (alloc_timing.parquet) among the results.")
		return t
	}
	t.Notes = append(t.Notes, "Wall time of each algorithm alone on one core (the study runs one instance at a time); ± is the 95% half-width over seeds.")
	for i, k := range keys {
		if i+1 < len(keys) && keys[i+1].study == k.study && keys[i+1].cs == k.cs {
			continue // the BAR/HDS ratio is given at each case's largest task count
		}
		mean := func(alg string) float64 {
			j := slices.IndexFunc(ts, func(b *barTiming) bool {
				return b.study == k.study && b.cs == k.cs && b.tasks == k.tasks && b.alg == alg
			})
			if j < 0 {
				return math.NaN()
			}
			return report.Mean(ts[j].ms)
		}
		if r := mean("bar") / mean("hds"); !math.IsNaN(r) {
			t.Notes = append(t.Notes, fmt.Sprintf("Case %s, %d tasks: BAR/HDS time ratio %.2f (BAR %.2f ms, HDS %.2f ms; the paper's at 12,800 tasks: 9.1 s / 5.5 s = 1.65).",
				k.cs, k.tasks, r, mean("bar"), mean("hds")))
		}
	}
	t.Notes = append(t.Notes, "Paper (Java, Core 2 Quad Q8200) at 12,800 tasks on 2,000 servers: BAR 9.1 s, HDS 5.5 s, GCC 5.4 s, DS0.15 7.1 s, DS0.25 7.3 s, MaxCover-BalAssign 203 s.")
	return t
}

// WriteFig9Figures draws bar_fig9_CASE for every case of the timed studies
// among runs and returns the paths written.
func WriteFig9Figures(runs []report.Run, dir, format string) ([]string, error) {
	ts := barTimings(runs)
	if len(ts) == 0 {
		return nil, fmt.Errorf("bar-fig9: no timed allocation study (alloc_timing.parquet) among the results")
	}
	var figs []report.Figure
	var cases [][2]string
	for _, b := range ts {
		if k := [2]string{b.study, b.cs}; !slices.Contains(cases, k) {
			cases = append(cases, k)
		}
	}
	multi := false
	for _, c := range cases {
		multi = multi || c[0] != cases[0][0]
	}
	for _, cs := range cases {
		f, err := barFig9Figure(ts, cs, multi)
		if err != nil {
			return nil, fmt.Errorf("bar-fig9 figure: %w", err)
		}
		figs = append(figs, f)
	}
	return report.WriteFigureSet(dir, format, figs)
}

func barFig9Figure(all []*barTiming, cs [2]string, multi bool) (report.Figure, error) {
	var ts []*barTiming
	for _, b := range all {
		if b.study == cs[0] && b.cs == cs[1] {
			ts = append(ts, b)
		}
	}
	algs := timingAlgorithms(all)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Fig. 9 (case %s): computation time, mean over seeds, 95%% CI", cs[1])
	p.X.Label.Text = "tasks (log scale)"
	p.Y.Label.Text = "computation time (ms, log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = report.LogTicks{}
	var tasks []int32
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range ts {
		if !slices.Contains(tasks, b.tasks) {
			tasks = append(tasks, b.tasks)
		}
	}
	slices.Sort(tasks)
	var ticks []plot.Tick
	for _, n := range tasks {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(int(n))})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid())
	for i, alg := range algs {
		var e report.CIErrors
		for _, b := range ts {
			if b.alg != alg {
				continue
			}
			m, h := report.MeanCI95(b.ms)
			m = report.ClampLog(m, 1e-3)
			e.XYs = append(e.XYs, plotter.XY{X: float64(b.tasks), Y: m})
			e.Half = append(e.Half, report.ZeroNaN(h))
			lo, hi = min(lo, report.ClampLog(m-report.ZeroNaN(h), m/2)), max(hi, m+report.ZeroNaN(h))
		}
		if len(e.XYs) == 0 {
			continue
		}
		col, dash := report.SeriesStyle(i)
		l, sc, err := plotter.NewLinePoints(e.XYs)
		if err != nil {
			return report.Figure{}, err
		}
		l.LineStyle = draw.LineStyle{Color: col, Dashes: dash, Width: vg.Points(1.5)}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Shape: draw.CircleGlyph{}, Radius: vg.Points(2)}
		eb, err := plotter.NewYErrorBars(logSafe{e, true})
		if err != nil {
			return report.Figure{}, err
		}
		eb.LineStyle.Color = col
		p.Add(l, sc, eb)
		p.Legend.Add(alg, l, sc)
	}
	if len(tasks) > 0 {
		p.X.Min, p.X.Max = float64(tasks[0])/1.3, float64(tasks[len(tasks)-1])*1.3
	}
	if !math.IsInf(lo, 1) {
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
		if p.Y.Max/p.Y.Min < 10 {
			p.Y.Min, p.Y.Max = p.Y.Min/2, p.Y.Max*2
		}
	}
	name := "bar_fig9_" + report.FileSlug(cs[1])
	if multi {
		name = "bar_fig9_" + report.FileSlug(cs[0]) + "_" + report.FileSlug(cs[1])
	}
	l, top := report.SideLegend(p)
	return report.Figure{Name: name, Height: 4 * vg.Inch, Legend: l, Top: top, Draw: p.Draw}, nil
}
