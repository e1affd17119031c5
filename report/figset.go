package report

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot helpers shared by the paper presets (report/preset/...).

// WriteFigureSet renders figs into dir in format and returns the paths written.
func WriteFigureSet(dir, format string, figs []Figure) ([]string, error) {
	if err := CheckFigureFormat(format); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range figs {
		path, err := WriteFigure(dir, format, f)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// StackFigure lays panels out top to bottom, sharing the legend of the first
// panel that has one, panelHeight each.
func StackFigure(name string, panels []*plot.Plot, panelHeight vg.Length) Figure {
	var legend plot.Legend
	var top vg.Length
	found := false
	for _, p := range panels {
		l, t := TakeLegend(p)
		if !found && legendWidth(l) > 0 {
			legend, top, found = l, t, true
		}
	}
	if !found {
		legend = plot.NewLegend()
	}
	legend.Padding = vg.Points(2)
	drawPanels := func(c draw.Canvas) {
		grid := make([][]*plot.Plot, len(panels))
		for i, p := range panels {
			grid[i] = []*plot.Plot{p}
		}
		tiles := plot.Align(grid, draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Points(8), PadTop: vg.Points(2),
			PadBottom: vg.Points(2), PadLeft: vg.Points(2)}, c)
		for i, p := range panels {
			p.Draw(tiles[i][0])
		}
	}
	return Figure{Name: name, Height: panelHeight * vg.Length(len(panels)), Legend: legend, Top: top + vg.Points(2), Draw: drawPanels}
}

// SideLegend takes p's legend for render to draw beside the plot, with room
// between its entries.
func SideLegend(p *plot.Plot) (plot.Legend, vg.Length) {
	l, top := TakeLegend(p)
	l.Padding = vg.Points(2)
	return l, top
}

// bandAlpha is the opacity of a 95% band drawn around a mean line.
const bandAlpha = 0x38

// translucent returns c with alpha bandAlpha.
func translucent(c color.Color) color.Color { return WithAlpha(c, bandAlpha) }

// WithAlpha returns the opaque colour c with alpha a.
func WithAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	// Premultiplied: scale the channels by the new alpha.
	k := uint32(a)
	return color.RGBA{R: uint8((r >> 8) * k / 0xff), G: uint8((g >> 8) * k / 0xff), B: uint8((b >> 8) * k / 0xff), A: a}
}

// MeanBand is a mean line with the half-widths of its 95% interval at each x.
type MeanBand struct {
	XY   plotter.XYs
	Half []float64 // NaN where the interval is undefined (one seed)
}

// AddMeanBand draws m as a line of style (col, dash) over a translucent band of
// mean ± half, kept within [floor, ceil] (counts cannot be negative, a
// probability not above 1), and returns the line for a legend.
func AddMeanBand(p *plot.Plot, m MeanBand, col color.Color, dash []vg.Length, width vg.Length, floor, ceil float64) (*plotter.Line, error) {
	if len(m.XY) == 0 {
		return nil, nil
	}
	var upper, lower plotter.XYs
	for i, q := range m.XY {
		h := m.Half[i]
		if math.IsNaN(h) {
			h = 0
		}
		upper = append(upper, plotter.XY{X: q.X, Y: min(ceil, q.Y+h)})
		lower = append(lower, plotter.XY{X: q.X, Y: max(floor, q.Y-h)})
	}
	// Draw the band in chunks, as addLine does lines, so that long series
	// rasterise quickly.
	for lo := 0; lo == 0 || lo < len(upper)-1; lo += lineChunk {
		hi := min(lo+lineChunk+1, len(upper))
		ring := slices.Clone(upper[lo:hi])
		for i := hi - 1; i >= lo; i-- {
			ring = append(ring, lower[i])
		}
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, err
		}
		poly.Color = translucent(col)
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	return addLine(p, m.XY, plotter.NoStep, draw.LineStyle{Color: col, Dashes: dash, Width: width})
}

// PolicyDisplay names policies as the papers do: the registry name
// capitalised, its parameters after it ("Coupling β=0.1"); Fair's node and rack
// delays are left out when they are the same for every Fair policy shown.
// When two policies would get the same name, both keep their full names.
func PolicyDisplay(policies []string) map[string]string {
	fairArgs := map[string]bool{}
	for _, p := range policies {
		if name, args, _ := strings.Cut(p, ":"); name == "fair" {
			fairArgs[args] = true
		}
	}
	out := map[string]string{}
	seen := map[string]int{}
	for _, p := range policies {
		name, args, _ := strings.Cut(p, ":")
		d := name
		if name != "" {
			d = strings.ToUpper(name[:1]) + name[1:]
		}
		if args != "" && !(name == "fair" && len(fairArgs) == 1) {
			d += " " + strings.ReplaceAll(strings.ReplaceAll(args, "beta=", "β="), ",", " ")
		}
		out[p] = d
		seen[d]++
	}
	for _, p := range policies {
		if seen[out[p]] > 1 {
			out[p] = p
		}
	}
	return out
}

// FileSlug turns s into a file-name part: lower case letters, digits, '.', '-'
// and '_' kept, β spelt out, anything else a '_'.
func FileSlug(s string) string {
	s = strings.ReplaceAll(strings.ToLower(s), "β", "beta")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		case r == '=':
		default:
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}

// ColumnSlug turns s into a CSV column-name part: snake case.
func ColumnSlug(s string) string {
	return strings.NewReplacer("-", "_", ".", "_").Replace(FileSlug(s))
}

// ClampLog keeps values drawn on a log axis positive.
func ClampLog(v, floor float64) float64 {
	if !(v > floor) {
		return floor
	}
	return v
}

// DenseTicks labels a linear axis every 1, 2 or 5 times a power of ten, so that
// at most 9 steps span the axis, with an unlabelled tick halfway.
type DenseTicks struct{}

// Ticks implements plot.Ticker.
func (DenseTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return TidyTicks{}.Ticks(lo, hi)
	}
	step, digits := niceStep(hi - lo)
	var ticks []plot.Tick
	for k := math.Ceil(2 * lo / step); k*step/2 <= hi+step*1e-9; k++ {
		t := plot.Tick{Value: k * step / 2}
		if math.Mod(k, 2) == 0 {
			t.Label = strconv.FormatFloat(k*step/2, 'f', digits, 64)
			if t.Label == "-0" {
				t.Label = "0"
			}
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep returns the smallest of 1, 2 or 5 times a power of ten that divides
// span into at most 9 steps, and the decimals its multiples need.
func niceStep(span float64) (float64, int) {
	e := int(math.Floor(math.Log10(span))) - 1
	for {
		for _, m := range []float64{1, 2, 5} {
			if step := m * math.Pow10(e); span/step <= 9 {
				return step, max(0, -e)
			}
		}
		e++
	}
}

// CIErrors are the half-widths of 95% intervals, for plotter.YErrorBars.
type CIErrors struct {
	plotter.XYs
	Half []float64
}

func (c CIErrors) YError(i int) (float64, float64) { return c.Half[i], c.Half[i] }
