package report

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/tracereplay/tracereplay/internal/results"
)

// figureRuns are three policies with flowtimes spread over two decades.
func figureRuns() []Run {
	mk := func(policy string, scale, offset, starv int64) Run {
		specs := make([]jobSpec, 40)
		for i := range specs {
			// Flowtimes grow geometrically-ish: 3 s to a few hundred seconds.
			f := scale*(3+int64(i*i)/4) + offset
			specs[i] = jobSpec{submit: int64(3 * i), flow: f, reduces: int32(i % 3), starv: starv * int64(i%7) * int64(i%3), node: 4, rack: int32(i % 2), of: int32(i % 5 / 4)}
		}
		return makeRun(map[string]string{"policy": policy}, specs)
	}
	return []Run{mk("fifo", 3, 0, 9), mk("fair", 2, 0, 6), mk("coupling", 2, 20, 1)}
}

func TestWriteFigures(t *testing.T) {
	runs := figureRuns()
	for _, format := range FigureFormats {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := WriteFigures(runs, dir, format)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{FlowtimeCDFFigure, StarvationFigure, RunningTasksFigure}
			if len(paths) != len(want) {
				t.Fatalf("wrote %v, want %d figures", paths, len(want))
			}
			for i, p := range paths {
				if p != filepath.Join(dir, want[i]+"."+format) {
					t.Errorf("path %d = %s, want %s.%s in %s", i, p, want[i], format, dir)
				}
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				checkFigure(t, format, want[i], data)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != len(want) {
				t.Errorf("%d files in the output directory, want %d (temporary files left?)", len(entries), len(want))
			}
		})
	}
}

func checkFigure(t *testing.T, format, name string, data []byte) {
	t.Helper()
	switch format {
	case "png":
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantH := 4 * pngDPI
		if name == RunningTasksFigure {
			wantH = 6 * pngDPI
		}
		if b := img.Bounds(); b.Dx() != 6*pngDPI || b.Dy() != wantH {
			t.Errorf("%s: %dx%d pixels, want %dx%d", name, b.Dx(), b.Dy(), 6*pngDPI, wantH)
		}
		// Non-trivial: many distinct colours (lines, text anti-aliasing).
		colours := map[[4]uint32]bool{}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 3 {
			for x := b.Min.X; x < b.Max.X; x += 3 {
				r, g, bl, a := img.At(x, y).RGBA()
				colours[[4]uint32{r, g, bl, a}] = true
			}
		}
		if len(colours) < 20 {
			t.Errorf("%s: only %d colours, the figure looks empty", name, len(colours))
		}
	case "svg":
		dec := xml.NewDecoder(bytes.NewReader(data))
		var text strings.Builder
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: not XML: %v", name, err)
			}
			if cd, ok := tok.(xml.CharData); ok {
				text.Write(cd)
			}
		}
		labels := []string{"fifo", "fair", "coupling"}
		if name == StarvationFigure {
			labels = append(labels, "mean", "p95", "starvation (s)")
		}
		if name == FlowtimeCDFFigure {
			labels = append(labels, "flowtime (s, log scale)", "fraction of jobs")
		}
		if name == RunningTasksFigure {
			labels = append(labels, "running maps", "running reduces", "simulated time (s)")
		}
		for _, l := range labels {
			if !strings.Contains(text.String(), l) {
				t.Errorf("%s: SVG text lacks %q", name, l)
			}
		}
	case "pdf":
		if !bytes.HasPrefix(data, []byte("%PDF-")) || !bytes.Contains(data, []byte("%%EOF")) {
			t.Errorf("%s: not a PDF", name)
		}
		if !bytes.Contains(data, []byte("/CreationDate (D:19700101000000)")) {
			t.Errorf("%s: PDF creation date not fixed", name)
		}
	}
}

// TestWriteFiguresDeterministic renders twice and compares bytes; the PDF dates
// would differ across seconds without fixPDFDates, which TestFixPDFDates covers.
func TestWriteFiguresDeterministic(t *testing.T) {
	runs := figureRuns()
	for _, format := range FigureFormats {
		a, b := t.TempDir(), t.TempDir()
		pa, err := WriteFigures(runs, a, format)
		if err != nil {
			t.Fatal(err)
		}
		// Reversed input order: figures sort runs themselves.
		rev := []Run{runs[2], runs[0], runs[1]}
		pb, err := WriteFigures(rev, b, format)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pa {
			da, _ := os.ReadFile(pa[i])
			db, _ := os.ReadFile(pb[i])
			if !bytes.Equal(da, db) {
				t.Errorf("%s: two renderings differ", filepath.Base(pa[i]))
			}
		}
	}
}

func TestFixPDFDates(t *testing.T) {
	in := []byte("<<\n/Producer (x)\n/CreationDate (D:20261122043312)\n/ModDate (D:20261122043313)\n>>")
	want := "<<\n/Producer (x)\n/CreationDate (D:19700101000000)\n/ModDate (D:19700101000000)\n>>"
	got := fixPDFDates(in)
	if string(got) != want {
		t.Errorf("fixPDFDates = %q, want %q", got, want)
	}
	if len(got) != len(in) {
		t.Errorf("length changed from %d to %d: xref offsets would break", len(in), len(got))
	}
}

func TestWriteFiguresErrors(t *testing.T) {
	if _, err := WriteFigures(figureRuns(), t.TempDir(), "jpeg"); err == nil || !strings.Contains(err.Error(), "jpeg") {
		t.Errorf("format jpeg: error %v", err)
	}
	if _, err := WriteFigures(nil, t.TempDir(), "png"); err == nil {
		t.Error("no runs: no error")
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := WriteFigures(figureRuns(), missing, "svg"); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: error %v", err)
	}
}

func TestWriteFiguresDegenerateRuns(t *testing.T) {
	// No finished job, no reduces, no timeline: the figures still render.
	r := makeRun(map[string]string{"policy": "idle"}, []jobSpec{{flow: -1}})
	r.Timeline = nil
	if _, err := WriteFigures([]Run{r}, t.TempDir(), "png"); err != nil {
		t.Fatal(err)
	}
}

func TestDecimate(t *testing.T) {
	pts := make(plotter.XYs, 10000)
	for i := range pts {
		pts[i] = plotter.XY{X: float64(i), Y: float64(i % 100)}
	}
	pts[5555].Y = 1000 // a spike that must survive
	got := decimate(pts, 400)
	if len(got) > 400 {
		t.Fatalf("%d points, want at most 400", len(got))
	}
	spike := false
	for i, p := range got {
		if i > 0 && p.X <= got[i-1].X {
			t.Fatalf("points out of order at %d", i)
		}
		spike = spike || p.Y == 1000
	}
	if !spike {
		t.Error("the spike was dropped")
	}
	if short := pts[:50]; len(decimate(short, 400)) != 50 {
		t.Error("a short series was changed")
	}
}

func TestTimeUnit(t *testing.T) {
	for _, tt := range []struct {
		us   int64
		want string
	}{{0, "s"}, {3*3600*sec - 1, "s"}, {3 * 3600 * sec, "min"}, {72 * 3600 * sec, "h"}} {
		if got, _ := timeUnit(tt.us); got != tt.want {
			t.Errorf("timeUnit(%d) = %s, want %s", tt.us, got, tt.want)
		}
	}
}

func TestClusterSeriesFillsIdleGaps(t *testing.T) {
	tl := []results.TimelineSample{
		// Out of order, with a per-job row to ignore; sampling every 10 s,
		// stopped between 20 s and 55 s.
		{TimeUs: 10 * sec, JobIndex: -1, RunningMaps: 4, RunningReduces: 1},
		{TimeUs: 0, JobIndex: -1, RunningMaps: 2},
		{TimeUs: 10 * sec, JobIndex: 3, RunningMaps: 4},
		{TimeUs: 20 * sec, JobIndex: -1, RunningMaps: 1, RunningReduces: 2},
		{TimeUs: 55 * sec, JobIndex: -1, RunningMaps: 3},
		{TimeUs: 65 * sec, JobIndex: -1, RunningReduces: 1},
	}
	maps, reduces := clusterSeries(tl, sec)
	wantMaps := plotter.XYs{{X: 0, Y: 2}, {X: 10, Y: 4}, {X: 20, Y: 1}, {X: 30, Y: 0}, {X: 55, Y: 0}, {X: 55, Y: 3}, {X: 65, Y: 0}, {X: 75, Y: 0}}
	wantReduces := plotter.XYs{{X: 0, Y: 0}, {X: 10, Y: 1}, {X: 20, Y: 2}, {X: 30, Y: 0}, {X: 55, Y: 0}, {X: 55, Y: 0}, {X: 65, Y: 1}, {X: 75, Y: 0}}
	if !slices.Equal(maps, wantMaps) {
		t.Errorf("maps = %v, want %v", maps, wantMaps)
	}
	if !slices.Equal(reduces, wantReduces) {
		t.Errorf("reduces = %v, want %v", reduces, wantReduces)
	}
	if m, _ := clusterSeries(tl[1:2], sec); len(m) != 1 {
		t.Errorf("a single sample gives %v, want it alone", m)
	}
}

func TestWriteFiguresWidenForLongNames(t *testing.T) {
	runs := figureRuns()
	runs[0].Policy = "fair:node-delay=15s,rack-delay=15s,preemption-timeout=600s"
	runs[0].Labels[PolicyLabel] = runs[0].Policy
	dir := t.TempDir()
	paths, err := WriteFigures(runs, dir, "png")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() <= 6*pngDPI || b.Dy() != 4*pngDPI {
		t.Errorf("%dx%d pixels: want wider than %d for the long legend, %d high", b.Dx(), b.Dy(), 6*pngDPI, 4*pngDPI)
	}
}
