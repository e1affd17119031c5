package report

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyRuns returns n runs of distinct policies with different results: 60 jobs
// each, flowtimes spread over two decades, every third job starving.
func manyRuns(n int) []Run {
	var runs []Run
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		var specs []jobSpec
		for k := range 60 {
			specs = append(specs, jobSpec{submit: int64(k * 20), flow: 5 + int64(r.ExpFloat64()*float64(20+10*i)),
				reduces: int32(k % 2), starv: int64(k%3) * int64(i%5), node: 2, rack: int32(i % 3), of: 1})
		}
		runs = append(runs, makeRun(map[string]string{PolicyLabel: fmt.Sprintf("policy-%02d", i)}, specs))
	}
	return runs
}

// dHash is a 64-bit difference hash of a PNG: the image shrunk to 9×8 grey
// cells, one bit per horizontally adjacent pair (left brighter). Renderings
// that look alike have hashes a few bits apart.
func dHash(t *testing.T, data []byte) (uint64, image.Rectangle) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	var cells [8][9]float64
	var counts [8][9]float64
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			cy, cx := (y-b.Min.Y)*8/b.Dy(), (x-b.Min.X)*9/b.Dx()
			cells[cy][cx] += 0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)
			counts[cy][cx]++
		}
	}
	var h uint64
	for y := range 8 {
		for x := range 8 {
			h <<= 1
			if cells[y][x]/counts[y][x] > cells[y][x+1]/counts[y][x+1] {
				h |= 1
			}
		}
	}
	return h, b
}

// TestFiguresManySeries renders every figure kind with 1, 10 and 40 series in
// both styles and checks each against testdata/figures_many.golden: the PNG's
// size and perceptual hash (within 6 of 64 bits, so that font rasterising
// differences pass and a changed layout does not), and the legend: every series
// named in the SVG, none clipped off the canvas. Rerun with -update after an
// intended change, and look at the PNGs written under -figdir.
func TestFiguresManySeries(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 18 figures")
	}
	var got strings.Builder
	for _, n := range []int{1, 10, 40} {
		runs := manyRuns(n)
		for _, st := range []FigureStyle{ScreenStyle, PaperStyle} {
			pngs, err := RenderFigures(runs, FigureOptions{Format: "png", Style: st})
			if err != nil {
				t.Fatal(err)
			}
			svgs, err := RenderFigures(runs, FigureOptions{Format: "svg", Style: st})
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range pngs {
				if f.Data == nil {
					t.Errorf("%d series, %s: %s not drawn: %s", n, st, f.Name, f.Skipped)
					continue
				}
				h, b := dHash(t, f.Data)
				fmt.Fprintf(&got, "%s %s n=%d %dx%d %016x\n", f.Name, st, n, b.Dx(), b.Dy(), h)
				if dir := os.Getenv("FIGDIR"); dir != "" {
					os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s-%d.png", f.Name, st, n)), f.Data, 0o644)
				}
				if f.Name == StarvationFigure {
					continue // names are tick labels, checked below
				}
				svg := string(svgs[i].Data)
				for _, r := range runs {
					if !strings.Contains(svg, ">"+r.Policy+"</text>") {
						t.Errorf("%d series, %s, %s: legend lacks %s", n, st, f.Name, r.Policy)
					}
				}
			}
		}
	}
	golden := filepath.Join("testdata", "figures_many.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	wl, gl := strings.Split(strings.TrimSpace(string(want)), "\n"), strings.Split(strings.TrimSpace(got.String()), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("%d figures, golden has %d (rerun with -update if intended)", len(gl), len(wl))
	}
	for i := range wl {
		var wn, gn, ws, gs string
		var wh, gh uint64
		fmt.Sscanf(wl[i][strings.LastIndex(wl[i], " ")+1:], "%x", &wh)
		fmt.Sscanf(gl[i][strings.LastIndex(gl[i], " ")+1:], "%x", &gh)
		wn, ws = wl[i][:strings.LastIndex(wl[i], " ")], ""
		gn, gs = gl[i][:strings.LastIndex(gl[i], " ")], ""
		if wn != gn || bits.OnesCount64(wh^gh) > 6 {
			t.Errorf("figure differs from the golden (rerun with -update if intended):\n got %s\nwant %s%s%s", gl[i], wl[i], gs, ws)
		}
	}
}

// TestFiguresMergeIdentical: cells with identical results are one series named
// by all of them.
func TestFiguresMergeIdentical(t *testing.T) {
	runs := manyRuns(2)
	same := manyRuns(1)[0]
	same.Policy, same.Labels = "capacity", map[string]string{PolicyLabel: "capacity"}
	for i := range same.Jobs {
		same.Jobs[i].Policy = "capacity"
	}
	runs = append(runs, same)
	figs, err := RenderFigures(runs, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	svg := string(figs[0].Data)
	if !strings.Contains(svg, ">capacity = policy-00</text>") || strings.Contains(svg, ">policy-00</text>") {
		t.Errorf("flowtime legend does not merge capacity and policy-00")
	}
	if !strings.Contains(svg, ">policy-01</text>") {
		t.Errorf("flowtime legend lost policy-01")
	}
}

// TestFiguresWithoutData: runs without a timeline or reduces give no
// running_tasks or starvation file, and say why.
func TestFiguresWithoutData(t *testing.T) {
	runs := []Run{makeRun(map[string]string{PolicyLabel: "fifo"}, []jobSpec{{flow: 5, node: 1}, {submit: 1, flow: 7, node: 1}})}
	runs[0].Timeline = nil
	dir := t.TempDir()
	paths, err := WriteFiguresWith(runs, dir, FigureOptions{Format: "png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || filepath.Base(paths[0]) != FlowtimeCDFFigure+".png" {
		t.Errorf("written %v, want only the flowtime CDF", paths)
	}
	figs, _ := RenderFigures(runs, FigureOptions{Format: "png"})
	got := strings.Join(SkippedFigures(figs), "; ")
	if want := "starvation: no job has reduces; running_tasks: no timeline (the runs were made with timeline sampling off)"; got != want {
		t.Errorf("skipped %q, want %q", got, want)
	}
}
