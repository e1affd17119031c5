package report

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/png"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"

	"github.com/tracereplay/tracereplay/internal/golden"
	"github.com/tracereplay/tracereplay/internal/testgate"
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
// differences pass and a changed layout does not). In the SVG of each figure
// (checkSVGText) every series is named, in the legend or, for starvation, as
// a bar's label; no text reaches past the canvas's edges; and no two texts
// overlap (tick labels running together, names stacked into a block). A paper
// figure is at most 1.5 times as tall as wide; further small multiples go to
// further pages (NAME_partK). Rerun with -update after an intended change, and
// look at the PNGs written into the directory FIGDIR names.
func TestFiguresManySeries(t *testing.T) {
	testgate.Require(t, testgate.Full, "renders 18 figures")
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
			if len(svgs) != len(pngs) {
				t.Fatalf("%d series, %s: %d PNG figures, %d SVG", n, st, len(pngs), len(svgs))
			}
			named := map[string]map[string]bool{} // figure kind → the texts of all its pages
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
				if st == PaperStyle && float64(b.Dy()) > 1.5*float64(b.Dx())+1 {
					t.Errorf("%d series, %s, %s: %dx%d pixels, taller than 1.5 times the width", n, st, f.Name, b.Dx(), b.Dy())
				}
				where := fmt.Sprintf("%d series, %s, %s", n, st, f.Name)
				kind, _, _ := strings.Cut(f.Name, "_part")
				if named[kind] == nil {
					named[kind] = map[string]bool{}
				}
				for _, txt := range checkSVGText(t, where, svgs[i].Data) {
					named[kind][txt] = true
				}
			}
			for kind, texts := range named {
				for _, r := range runs {
					if !texts[r.Policy] {
						t.Errorf("%d series, %s, %s: %s not named", n, st, kind, r.Policy)
					}
				}
			}
		}
	}
	goldenPath := filepath.Join("testdata", "figures_many.golden")
	if golden.Update() {
		golden.Write(t, goldenPath, []byte(got.String()))
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	wl, gl := strings.Split(strings.TrimSpace(string(want)), "\n"), strings.Split(strings.TrimSpace(got.String()), "\n")
	if len(wl) != len(gl) {
		t.Fatalf("%d figures, golden has %d (rerun with -update if intended)", len(gl), len(wl))
	}
	for i := range wl {
		var wh, gh uint64
		fmt.Sscanf(wl[i][strings.LastIndex(wl[i], " ")+1:], "%x", &wh)
		fmt.Sscanf(gl[i][strings.LastIndex(gl[i], " ")+1:], "%x", &gh)
		wn := wl[i][:strings.LastIndex(wl[i], " ")]
		gn := gl[i][:strings.LastIndex(gl[i], " ")]
		if wn != gn || bits.OnesCount64(wh^gh) > 6 {
			t.Errorf("figure differs from the golden (rerun with -update if intended):\n got %s\nwant %s", gl[i], wl[i])
		}
	}
}

// svgText is a text of an SVG drawn by gonum's vgsvg: its string and the
// corners of the box its glyphs cover, in the SVG's coordinates (y down).
type svgText struct {
	text   string
	corner [4][2]float64
}

// affine is the transform (x, y) → (a·x + c·y + e, b·x + d·y + f).
type affine [6]float64

func (m affine) then(n affine) affine { // n after m
	return affine{
		n[0]*m[0] + n[2]*m[1], n[1]*m[0] + n[3]*m[1],
		n[0]*m[2] + n[2]*m[3], n[1]*m[2] + n[3]*m[3],
		n[0]*m[4] + n[2]*m[5] + n[4], n[1]*m[4] + n[3]*m[5] + n[5],
	}
}

func (m affine) apply(x, y float64) [2]float64 {
	return [2]float64{m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]}
}

var (
	svgToken  = regexp.MustCompile(`(?s)<g transform="([^"]*)">|</g>|<text x="([-0-9.e]+)" y="([-0-9.e]+)" transform="scale\(1, -1\)"[^>]*font-size:([0-9.]+)px[^>]*>([^<]*)</text>`)
	svgOp     = regexp.MustCompile(`(scale|translate|rotate)\(([-0-9.e]+)(?:, ?([-0-9.e]+))?\)`)
	svgSizeRe = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)
)

// parseTransform parses an SVG transform list of scale, translate and rotate.
func parseTransform(t *testing.T, s string) affine {
	m := affine{1, 0, 0, 1, 0, 0}
	ops := svgOp.FindAllStringSubmatch(s, -1)
	for i := len(ops) - 1; i >= 0; i-- { // the rightmost applies first
		op := ops[i]
		a, _ := strconv.ParseFloat(op[2], 64)
		b := a
		if op[3] != "" {
			b, _ = strconv.ParseFloat(op[3], 64)
		} else if op[1] == "translate" {
			b = 0
		}
		var n affine
		switch op[1] {
		case "scale":
			n = affine{a, 0, 0, b, 0, 0}
		case "translate":
			n = affine{1, 0, 0, 1, a, b}
		case "rotate":
			r := a * math.Pi / 180
			n = affine{math.Cos(r), math.Sin(r), -math.Sin(r), math.Cos(r), 0, 0}
		}
		m = m.then(n)
	}
	if len(ops) == 0 {
		t.Fatalf("transform %q not understood", s)
	}
	return m
}

// svgTexts returns the texts of svg and its width and height. A text's box
// spans its advance width and from 0.22 em below its baseline (descenders) to
// 0.72 em above (capitals and ascenders): the ink a reader sees.
func svgTexts(t *testing.T, svg []byte) (texts []svgText, w, h float64) {
	t.Helper()
	sz := svgSizeRe.FindSubmatch(svg)
	if sz == nil {
		t.Fatal("no SVG size")
	}
	w, _ = strconv.ParseFloat(string(sz[1]), 64)
	h, _ = strconv.ParseFloat(string(sz[2]), 64)
	stack := []affine{{1, 0, 0, 1, 0, 0}}
	serif := font.Font{Typeface: "Liberation", Variant: "Serif"}
	for _, m := range svgToken.FindAllSubmatch(svg, -1) {
		switch {
		case m[1] != nil:
			stack = append(stack, parseTransform(t, string(m[1])).then(stack[len(stack)-1]))
		case string(m[0]) == "</g>":
			stack = stack[:len(stack)-1]
		default:
			x, _ := strconv.ParseFloat(string(m[2]), 64)
			y, _ := strconv.ParseFloat(string(m[3]), 64)
			size, _ := strconv.ParseFloat(string(m[4]), 64)
			str := html.UnescapeString(string(m[5]))
			face := font.DefaultCache.Lookup(serif, font.Length(size))
			adv := face.Width(str).Points()
			// The text's own scale(1, -1), then the groups around it.
			tr := affine{1, 0, 0, -1, 0, 0}.then(stack[len(stack)-1])
			st := svgText{text: str}
			for k, c := range [4][2]float64{{0, 0.22}, {adv, 0.22}, {adv, -0.72}, {0, -0.72}} {
				st.corner[k] = tr.apply(x+c[0], y+c[1]*size)
			}
			texts = append(texts, st)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("unbalanced <g> in SVG: %d open", len(stack)-1)
	}
	return texts, w, h
}

// overlap tells whether two convex quadrilaterals intersect by more than a
// hair (separating axis theorem, over the edges of both).
func overlap(a, b [4][2]float64) bool {
	for _, q := range [][4][2]float64{a, b} {
		for i := range 4 {
			p, r := q[i], q[(i+1)%4]
			nx, ny := -(r[1] - p[1]), r[0]-p[0]
			l := math.Hypot(nx, ny)
			if l == 0 {
				continue
			}
			nx, ny = nx/l, ny/l
			amin, amax, bmin, bmax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
			for k := range 4 {
				pa := a[k][0]*nx + a[k][1]*ny
				pb := b[k][0]*nx + b[k][1]*ny
				amin, amax = min(amin, pa), max(amax, pa)
				bmin, bmax = min(bmin, pb), max(bmax, pb)
			}
			if amax <= bmin+0.2 || bmax <= amin+0.2 {
				return false
			}
		}
	}
	return true
}

// checkSVGText reports texts of svg that reach past its edges or overlap
// another, and returns the strings of its texts.
func checkSVGText(t *testing.T, where string, svg []byte) []string {
	t.Helper()
	texts, w, h := svgTexts(t, svg)
	var out []string
	for i, a := range texts {
		out = append(out, a.text)
		for _, c := range a.corner {
			if c[0] < -0.5 || c[0] > w+0.5 || c[1] < -0.5 || c[1] > h+0.5 {
				t.Errorf("%s: text %q reaches past the %gx%g pt canvas (corner at %.1f, %.1f)", where, a.text, w, h, c[0], c[1])
				break
			}
		}
		for _, b := range texts[:i] {
			if overlap(a.corner, b.corner) {
				t.Errorf("%s: texts %q and %q overlap", where, b.text, a.text)
			}
		}
	}
	return out
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
