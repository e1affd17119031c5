package report

import (
	"bytes"
	"image/png"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/tracereplay/tracereplay/internal/results"
)

// seedRuns are figureRuns replicated over two seeds, the second a little slower.
func seedRuns() []Run {
	var out []Run
	for seed, scale := range map[string]int64{"1": 1, "2": 2} {
		for _, r := range figureRuns() {
			labels := map[string]string{PolicyLabel: r.Policy, SeedLabel: seed}
			for i := range r.Jobs {
				r.Jobs[i].FlowtimeUs += scale * sec
				r.Jobs[i].FinishUs += scale * sec
			}
			r.Labels = labels
			out = append(out, r)
		}
	}
	SortRuns(out) // map order must not matter
	return out
}

func pngSize(t *testing.T, data []byte) (int, int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

func TestPaperFigureSizes(t *testing.T) {
	for _, tt := range []struct {
		width         FigureWidth
		w, h, hPanels int // pixels at 300 dpi
	}{
		{OneColumn, 1050, 720, 1080},
		{TwoColumn, 2100, 780, 1170},
	} {
		figs, err := RenderFigures(figureRuns(), FigureOptions{Format: "png", Style: PaperStyle, Width: tt.width})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			w, h := pngSize(t, f.Data)
			wantH := tt.h
			if f.Name == RunningTasksFigure {
				wantH = tt.hPanels
			}
			if w != tt.w || h != wantH {
				t.Errorf("width %v, %s: %dx%d pixels, want %dx%d", tt.width, f.Name, w, h, tt.w, wantH)
			}
		}
	}
}

// TestPaperFigureLegendBelow: a legend too wide for a column goes below the
// plot; the figure keeps the column width and grows in height.
func TestPaperFigureLegendBelow(t *testing.T) {
	runs := figureRuns()
	runs[0].Policy = "fair:node-delay=15s,rack-delay=15s,preemption-timeout=600s"
	runs[0].Labels[PolicyLabel] = runs[0].Policy
	figs, err := RenderFigures(runs, FigureOptions{Format: "png", Style: PaperStyle})
	if err != nil {
		t.Fatal(err)
	}
	if w, h := pngSize(t, figs[0].Data); w != 1050 || h <= 720 {
		t.Errorf("%dx%d pixels, want 1050 wide and taller than 720", w, h)
	}
}

func TestPaperFigureSVGText(t *testing.T) {
	figs, err := RenderFigures(figureRuns(), FigureOptions{Format: "svg", Style: PaperStyle})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		s := string(f.Data)
		if !strings.Contains(s, "font-family:Liberation Serif") || !strings.Contains(s, "font-size:7px") || !strings.Contains(s, "font-size:8px") {
			t.Errorf("%s: not set in 7-8 pt Liberation Serif", f.Name)
		}
		if strings.Contains(s, "font-size:12px") {
			t.Errorf("%s: screen-sized (12 pt) text in a paper figure", f.Name)
		}
		for _, title := range []string{"Job flowtime CDF", "Reduce starvation", "Running tasks in the cluster"} {
			if strings.Contains(s, ">"+title) {
				t.Errorf("%s: paper figure has the title %q", f.Name, title)
			}
		}
	}
}

// TestPaperSeriesDistinct: in the paper style, any two of the first 24 series
// differ in dash pattern or marker, so they stay apart in grayscale.
func TestPaperSeriesDistinct(t *testing.T) {
	lk := look{paper: true}
	for i := range 24 {
		for j := range i {
			a, b := lk.series(i), lk.series(j)
			if reflect.DeepEqual(a.line.Dashes, b.line.Dashes) && reflect.TypeOf(a.glyph.Shape) == reflect.TypeOf(b.glyph.Shape) {
				t.Errorf("series %d and %d share dashes %v and marker %T", i, j, a.line.Dashes, a.glyph.Shape)
			}
		}
	}
	if s := (look{}).series(0); s.glyph != nil {
		t.Error("screen series have markers")
	}
}

func TestParseFigureStyleAndWidth(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want FigureStyle
		ok   bool
	}{{"screen", ScreenStyle, true}, {"paper", PaperStyle, true}, {"print", 0, false}, {"", 0, false}} {
		got, err := ParseFigureStyle(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseFigureStyle(%q) = %v, %v", tt.in, got, err)
		}
	}
	for _, tt := range []struct {
		in   string
		want FigureWidth
		ok   bool
	}{{"one", OneColumn, true}, {"two", TwoColumn, true}, {"1", 0, false}} {
		got, err := ParseFigureWidth(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseFigureWidth(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestAggregatedFiguresSaySo: with several seeds per cell, the CDF says that it
// pools seeds, the other figures that they show means with 95% intervals, and
// every legend entry gives the number of seeds.
func TestAggregatedFiguresSaySo(t *testing.T) {
	for _, style := range []FigureStyle{ScreenStyle, PaperStyle} {
		figs, err := RenderFigures(seedRuns(), FigureOptions{Format: "svg", Style: style})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			FlowtimeCDFFigure:  {"seeds pooled", "fair (2 seeds)"},
			StarvationFigure:   {"95% CI over seeds", "coupling (2 seeds)"},
			RunningTasksFigure: {"95% CI over seeds", "fifo (2 seeds)"},
		}
		for _, f := range figs {
			for _, w := range want[f.Name] {
				if !strings.Contains(string(f.Data), w) {
					t.Errorf("%v %s: no %q", style, f.Name, w)
				}
			}
			if !strings.Contains(f.Caption, "seed") {
				t.Errorf("%s: caption %q does not say how seeds were combined", f.Name, f.Caption)
			}
		}
	}
}

func TestMeanSeries(t *testing.T) {
	// Two seeds with 2 and 4 running maps from 0 to 10 s (samples every 10 s).
	flat := func(maps int32) Run {
		r := makeRun(map[string]string{PolicyLabel: "p"}, []jobSpec{{flow: 10, node: 1}})
		r.Timeline = r.Timeline[:0]
		for ts := int64(0); ts <= 10; ts += 10 {
			r.Timeline = append(r.Timeline, timelineRow(ts, maps))
		}
		return r
	}
	mean, band := meanSeries([]Run{flat(2), flat(4)}, sec, 10)
	if len(mean[0]) != meanGridPoints || len(band[0]) != 2*meanGridPoints {
		t.Fatalf("%d mean points, %d band points", len(mean[0]), len(band[0]))
	}
	half := 12.706204736174705 * math.Sqrt2 / math.Sqrt2 // t(0.975, 1)·sd/√n, sd = √2
	for k, p := range mean[0] {
		if p.Y != 3 {
			t.Fatalf("mean at %v = %v, want 3", p.X, p.Y)
		}
		if up := band[0][k].Y; math.Abs(up-(3+half)) > 1e-9 {
			t.Fatalf("band top at %v = %v, want %v", p.X, up, 3+half)
		}
	}
	if low := band[0][meanGridPoints].Y; low != 0 {
		t.Errorf("band bottom %v, want clipped at 0", low)
	}
}

func TestSampleAt(t *testing.T) {
	pts := plotter.XYs{{X: 1, Y: 2}, {X: 3, Y: 6}, {X: 3, Y: 0}, {X: 5, Y: 4}}
	got := sampleAt(pts, []float64{0, 1, 2, 3, 4, 5, 6})
	want := []float64{0, 2, 4, 6, 2, 4, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sampleAt = %v, want %v", got, want)
	}
}

// timelineRow is a cluster-wide timeline sample at ts seconds.
func timelineRow(ts int64, maps int32) results.TimelineSample {
	return results.TimelineSample{TimeUs: ts * sec, JobIndex: -1, RunningMaps: maps}
}

// TestStarvationAxisWhenNobodyStarves: all-zero starvation gets a 0-1 s axis,
// not ticks that all read 0.
func TestStarvationAxisWhenNobodyStarves(t *testing.T) {
	runs := []Run{
		makeRun(map[string]string{PolicyLabel: "a"}, []jobSpec{{flow: 5, reduces: 1, node: 1}}),
		makeRun(map[string]string{PolicyLabel: "b"}, []jobSpec{{flow: 6, reduces: 1, node: 1}}),
	}
	figs, err := RenderFigures(runs, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	svg := string(figs[1].Data)
	if figs[1].Name != StarvationFigure || !strings.Contains(svg, ">0.4</text>") || !strings.Contains(svg, ">1</text>") {
		t.Errorf("%s: no 0.4 and 1 s ticks", figs[1].Name)
	}
}

func TestThinSteps(t *testing.T) {
	pts := make(plotter.XYs, 10001)
	for i := range pts {
		pts[i] = plotter.XY{X: float64(i * i), Y: float64(i) / 10000}
	}
	got := thinSteps(pts, 2000)
	if len(got) > 2001 || got[0] != pts[0] || got[len(got)-1] != pts[len(pts)-1] {
		t.Fatalf("%d points, first %v, last %v", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if got[i].X <= got[i-1].X || got[i].Y-got[i-1].Y > 6.0/10000+1e-12 {
			t.Fatalf("points %d-%d: %v to %v: out of order or a gap over 6 steps", i-1, i, got[i-1], got[i])
		}
	}
	if short := pts[:100]; len(thinSteps(short, 2000)) != 100 {
		t.Error("a short CDF was thinned")
	}
}
