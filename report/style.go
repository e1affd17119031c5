package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FigureStyle selects how figures look.
type FigureStyle int

// Figure styles.
const (
	// ScreenStyle is for reading on a screen: 6 inches wide (wider when the
	// legend needs it), 12-point type, titles, colour lines told apart by
	// colour first.
	ScreenStyle FigureStyle = iota
	// PaperStyle is for a paper: the exact width of a column or of the text
	// block (FigureWidth), Liberation Serif (metrically compatible with Times)
	// at 7-8 points, no title (the caption says it), every series with its own
	// dash pattern and marker and bars in two greys with outlines, so that
	// grayscale printing keeps the series apart; PNGs at 300 dpi.
	PaperStyle
)

// FigureStyles are the names ParseFigureStyle accepts.
var FigureStyles = []string{"screen", "paper"}

// String returns the style's name.
func (s FigureStyle) String() string {
	if s == PaperStyle {
		return "paper"
	}
	return "screen"
}

// ParseFigureStyle parses "screen" or "paper".
func ParseFigureStyle(s string) (FigureStyle, error) {
	switch s {
	case "screen":
		return ScreenStyle, nil
	case "paper":
		return PaperStyle, nil
	}
	return 0, fmt.Errorf("figure style %q: want screen or paper", s)
}

// FigureWidth is the width of a paper-style figure.
type FigureWidth int

// Figure widths.
const (
	// OneColumn is one column of a two-column paper: 3.5 in (IEEE; ACM's
	// 3.33 in column scales by 5%).
	OneColumn FigureWidth = iota
	// TwoColumn spans both columns: 7 in.
	TwoColumn
)

// FigureWidths are the names ParseFigureWidth accepts.
var FigureWidths = []string{"one", "two"}

// ParseFigureWidth parses "one" or "two".
func ParseFigureWidth(s string) (FigureWidth, error) {
	switch s {
	case "one":
		return OneColumn, nil
	case "two":
		return TwoColumn, nil
	}
	return 0, fmt.Errorf("figure width %q: want one or two (columns)", s)
}

// FigureOptions choose the format and look of figures.
type FigureOptions struct {
	// Format is png, svg or pdf.
	Format string
	Style  FigureStyle
	// Width applies to PaperStyle only.
	Width FigureWidth
}

// look is the resolved appearance of one figure style.
type look struct {
	paper bool
	width FigureWidth
	// vector is set for SVG and PDF output, whose lines are thinned harder
	// (maxVectorPoints) since every point is a path command in the file.
	vector bool
}

func lookOf(o FigureOptions) look {
	return look{paper: o.Style == PaperStyle, width: o.Width, vector: o.Format == "svg" || o.Format == "pdf"}
}

// perPanel is the most series one panel draws; a figure with more is split
// into small multiples. Eight on a screen: the seven Okabe–Ito colours, each
// once, and black dashed; six in a paper column, which the dash patterns and
// markers keep apart in grey print.
func (lk look) perPanel() int {
	if lk.paper {
		return 6
	}
	return 8
}

// facetHeight is the height of one row of small multiples with the given
// number of stacked panels; the first row also holds the title. In the paper
// style three rows of one panel, or two of two, fill a page (paperMaxHeight).
func (lk look) facetHeight(panels int, first bool) vg.Length {
	h := lk.height(panels) * 3 / 4
	if lk.paper {
		return min(h, lk.paperMaxHeight()/vg.Length(max(1, 4-panels)))
	}
	if first {
		h += vg.Points(16)
	}
	return h
}

// contextLine is the style of the other cells' curves in a small multiple: thin
// and light grey, behind the panel's own.
func (lk look) contextLine() draw.LineStyle {
	return draw.LineStyle{Color: color.Gray{Y: 0xd0}, Width: lk.lineWidth() / 2}
}

// screenLook is the default style, which the presets use.
var screenLook = look{}

// paperFont is the paper style's typeface.
var paperFont = font.Font{Typeface: "Liberation", Variant: "Serif"}

// newPlot returns an empty plot in the style's type.
func (lk look) newPlot() *plot.Plot {
	p := plot.New()
	if !lk.paper {
		// gonum spaces legend entries by their height above the baseline,
		// so that descenders touch the next entry's capitals.
		p.Legend.Padding = vg.Points(2)
		return p
	}
	p.Title.TextStyle.Font = font.From(paperFont, 9)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(paperFont, 8)
		a.Tick.Label.Font = font.From(paperFont, 7)
		a.LineStyle.Width = vg.Points(0.5)
		a.Tick.LineStyle.Width = vg.Points(0.5)
		a.Tick.Length = vg.Points(3)
		a.Padding = vg.Points(3)
	}
	p.Legend.TextStyle.Font = font.From(paperFont, 7)
	p.Legend.ThumbnailWidth = vg.Points(24)
	p.Legend.Padding = vg.Points(1.5)
	return p
}

// title sets p's title in the screen style; a paper figure has none, its
// caption in the paper says what it shows.
func (lk look) title(p *plot.Plot, text string) {
	if !lk.paper {
		p.Title.Text = text
	}
}

// height is a figure's height for the given number of stacked panels.
func (lk look) height(panels int) vg.Length {
	switch {
	case !lk.paper:
		return vg.Length(2+2*panels) * vg.Inch // 4 in, 6 in
	case lk.width == TwoColumn:
		return 2.6*vg.Inch + vg.Length(panels-1)*1.3*vg.Inch
	default:
		return 2.4*vg.Inch + vg.Length(panels-1)*1.2*vg.Inch
	}
}

// lineWidth is the width of data lines.
func (lk look) lineWidth() vg.Length {
	if lk.paper {
		return vg.Points(1)
	}
	return vg.Points(1.5)
}

// Paper series styles: the Okabe-Ito colours led by black, six dash patterns and
// eight markers (hollow, then crossed, then filled), cycled independently so
// that any two of the first 24 series differ in dash or marker.
var (
	paperColors = []color.Color{
		color.Black,
		color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermilion
		color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
		color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
		color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
		color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
		color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	}
	paperDashes = [][]vg.Length{
		nil,
		{vg.Points(4), vg.Points(2)},
		{vg.Points(1), vg.Points(1.5)},
		{vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2), vg.Points(1), vg.Points(2)},
	}
	paperGlyphs = []draw.GlyphDrawer{
		draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
	}
)

// seriesStyle is the appearance of series i: its line and, in the paper style,
// the marker set along it.
type seriesStyle struct {
	line  draw.LineStyle
	glyph *draw.GlyphStyle
}

func (lk look) series(i int) seriesStyle {
	if !lk.paper {
		col, dash := SeriesStyle(i)
		return seriesStyle{line: draw.LineStyle{Color: col, Dashes: dash, Width: lk.lineWidth()}}
	}
	col := paperColors[i%len(paperColors)]
	return seriesStyle{
		line:  draw.LineStyle{Color: col, Dashes: paperDashes[i%len(paperDashes)], Width: lk.lineWidth()},
		glyph: &draw.GlyphStyle{Color: col, Shape: paperGlyphs[i%len(paperGlyphs)], Radius: vg.Points(2.5)},
	}
}

// markersPerLine is how many markers the paper style sets along a line.
const markersPerLine = 6

// addSeries adds a line through pts (sorted by X) in series i's style and, in
// the paper style, markersPerLine markers on it at instants spread evenly over
// its x range (in log space when logX), shifted per series so that the markers
// of lines that run together do not overlap. It returns the legend thumbnails.
func (lk look) addSeries(p *plot.Plot, i int, pts plotter.XYs, step plotter.StepKind, logX bool) ([]plot.Thumbnailer, error) {
	st := lk.series(i)
	l, err := addLine(p, pts, step, st.line)
	if err != nil {
		return nil, err
	}
	thumbs := []plot.Thumbnailer{l}
	if st.glyph == nil || len(pts) == 0 {
		return thumbs, nil
	}
	lo, hi := pts[0].X, pts[len(pts)-1].X
	tr, inv := func(x float64) float64 { return x }, func(x float64) float64 { return x }
	if logX && lo > 0 {
		tr, inv = math.Log, math.Exp
	}
	var marks plotter.XYs
	j := 0
	for k := range markersPerLine {
		f := (float64(k) + 0.5 + 0.3*float64(i%3)) / (markersPerLine + 0.6)
		x := inv(tr(lo) + f*(tr(hi)-tr(lo)))
		for j+1 < len(pts) && pts[j+1].X <= x {
			j++
		}
		y := pts[j].Y
		if step == plotter.NoStep && j+1 < len(pts) && pts[j+1].X > pts[j].X {
			a, b := pts[j], pts[j+1]
			y = a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X)
		}
		marks = append(marks, plotter.XY{X: x, Y: y})
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = *st.glyph
	p.Add(sc)
	return append(thumbs, sc), nil
}

// barStyles returns the fill colour and outline of bar series k (0 = mean,
// 1 = p95): the screen colours, or a light and a dark grey outlined in black.
func (lk look) bar(k int) (color.Color, draw.LineStyle) {
	if !lk.paper {
		c, _ := SeriesStyle(k)
		return c, draw.LineStyle{}
	}
	fills := []color.Color{color.Gray{Y: 0xdd}, color.Gray{Y: 0x55}}
	return fills[k%2], draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
}

// bandColor is the fill of series i's confidence band.
func (lk look) bandColor(i int) color.Color {
	c := lk.series(i).line.Color
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
}
