package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/internal/testgate"
	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/hpfsp"
)

// chromiumNames are the browser binaries the browser test looks for, in order;
// $CHROMIUM overrides them. Debian's package is chromium.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"}

// findChromium returns the path of a Chromium binary, or "".
func findChromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
		return ""
	}
	for _, n := range chromiumNames {
		if path, err := exec.LookPath(n); err == nil {
			return path
		}
	}
	return ""
}

// requireChromium returns the browser, skips the test when there is none, and
// fails it when CI=true: CI must install it (apt-get install -y chromium).
func requireChromium(t *testing.T) string {
	t.Helper()
	bin := findChromium()
	if bin != "" {
		return bin
	}
	testgate.Unavailable(t, "the browser test needs Chromium: no Chromium binary ("+strings.Join(chromiumNames, ", ")+" or $CHROMIUM) on PATH; install Debian's package: apt-get install -y chromium")
	return ""
}

// loadInBrowser opens page in headless Chromium and returns the DOM after
// loading and the page's console messages (Chromium logs them to stderr as
// "INFO:CONSOLE..." lines; a blocked load under the page's Content Security
// Policy is one). A fresh profile directory keeps runs independent; flags
// are passed on to Chromium (a screenshot or a PDF print of the same start).
func loadInBrowser(t *testing.T, bin, page string, flags ...string) (dom string, console []string) {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--dump-dom"}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+filepath.ToSlash(abs))...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return stdout.String(), consoleLines(stderr.String())
}

// consoleLines returns the page's console messages among Chromium's log
// lines (with --enable-logging=stderr).
func consoleLines(stderr string) (console []string) {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return console
}

// elementRE matches an element with the given id and its content up to the
// closing tag of that kind (tables and figures are not nested here).
func elementRE(tag, id string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)<` + tag + `[^>]*\bid="` + regexp.QuoteMeta(id) + `"[^>]*>(.*?)</` + tag + `>`)
}

// TestHTMLReportInBrowser writes the HTML report of a results tree with a preset
// and checks, in the DOM that Chromium built from it, that every table and
// figure is there with content, and that the page logged nothing (no script
// error, no resource the Content Security Policy had to block).
func TestHTMLReportInBrowser(t *testing.T) {
	bin := requireChromium(t)
	root := resultsTree(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if code, _, stderr := runCmd("--html", page, "--preset", "hpfsp", root); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Parallel() // Chromium's start waits more than it computes: the browser tests wait side by side
	// The fast lane takes TestHTMLReportFits' 1280 px screenshot and PDF print
	// of this page (the same results tree and preset) in this start.
	var flags []string
	dir := t.TempDir()
	shot, pdf := filepath.Join(dir, "report-1280.png"), filepath.Join(dir, "report.pdf")
	shared := sharedStarts()
	if shared {
		flags = []string{"--window-size=1280,1000", "--screenshot=" + shot, "--no-pdf-header-footer", "--print-to-pdf=" + pdf}
	}
	dom, console := loadInBrowser(t, bin, page, flags...)
	if shared {
		checkScreenshot(t, shot, 1280)
		checkPDF(t, pdf)
	}
	if len(console) > 0 {
		t.Errorf("the page logged to the console:\n%s", strings.Join(console, "\n"))
	}
	if !strings.Contains(dom, "<title>tracereplay report: ") {
		t.Fatalf("Chromium did not render the report; DOM:\n%.500s", dom)
	}
	tables := map[string]int{ // id: rows in the body
		report.HTMLTableID("summary"): 2, // fair, fifo
		report.HTMLTableID("hpfsp"):   2,
		"manifest-inputs":             0,
		"manifest-runs":               0,
	}
	for id, rows := range tables {
		m := elementRE("table", id).FindStringSubmatch(dom)
		if m == nil {
			t.Errorf("table %s missing", id)
			continue
		}
		if got := strings.Count(m[1], "<tr>") - 1; got != rows { // minus the header row
			t.Errorf("table %s: %d body rows, want %d", id, got, rows)
		}
	}
	figures := []string{report.FlowtimeCDFFigure, report.StarvationFigure, report.RunningTasksFigure, hpfsp.MeanFigure}
	for _, name := range figures {
		m := elementRE("figure", report.HTMLFigureID(name)).FindStringSubmatch(dom)
		if m == nil {
			t.Errorf("figure %s missing", name)
			continue
		}
		if !strings.Contains(m[1], "<svg") || strings.Count(m[1], "<path") < 5 || strings.Count(m[1], "<text") < 5 {
			t.Errorf("figure %s has no drawing (%d paths, %d texts)", name, strings.Count(m[1], "<path"), strings.Count(m[1], "<text"))
		}
		if !strings.Contains(m[1], "<figcaption>") {
			t.Errorf("figure %s has no caption", name)
		}
	}
	if n, want := strings.Count(dom, "<figure "), strings.Count(dom, "<svg "); n != want || n < len(figures) {
		t.Errorf("%d figures and %d SVGs in the DOM, want equal and at least %d", n, want, len(figures))
	}
}

// TestBrowserCheckCatchesErrors makes sure the check above can fail: a page
// with a script error and a reference to an outside image logs both (the bad
// page, loadBadPage; in the fast lane, as a frame of loadFastLayout's page).
func TestBrowserCheckCatchesErrors(t *testing.T) {
	bin := requireChromium(t)
	t.Parallel()
	var console []string
	if sharedStarts() {
		_, console = loadFastLayout(t, bin)
	} else {
		_, console = loadBadPage(t, bin)
	}
	joined := strings.Join(console, "\n")
	for _, want := range []string{"notDefined is not defined", "violates the following Content Security Policy"} {
		if !strings.Contains(joined, want) {
			t.Errorf("console lacks %q:\n%s", want, joined)
		}
	}
}

// layoutProbe measures, once the page has loaded, every table container and
// the page itself, and records in the body's data-overflow attribute each one
// whose content is wider than its box (scrollWidth > clientWidth).
const layoutProbe = `<script>
(function () {
  var bad = [];
  document.querySelectorAll('.scroll, table').forEach(function (el) {
    if (el.scrollWidth > el.clientWidth + 1) {
      bad.push((el.id || (el.querySelector('table') || {}).id || el.className) + ':' + el.scrollWidth + '>' + el.clientWidth);
    }
  });
  var root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) { bad.push('page:' + root.scrollWidth + '>' + root.clientWidth); }
  document.body.setAttribute('data-overflow', bad.join(' '));
  document.body.setAttribute('data-measured', 'yes');
})();
</script>`

var overflowRE = regexp.MustCompile(`data-overflow="([^"]*)"`)

// measureLayout loads a copy of page at the given viewport width with
// layoutProbe added (and scripts allowed in its Content Security Policy) and
// returns the overflowing elements; flags are passed on to Chromium (a
// screenshot or a PDF print of the same start). With print set, the page's print styles
// apply on screen (@media print becomes @media all) at the width of an A4
// page's printable area, 718 px, as a stand-in for print layout.
func measureLayout(t *testing.T, bin, page string, width int, print bool, flags ...string) []string {
	t.Helper()
	probe := probeCopy(t, page, print)
	dom, _ := runChromium(t, bin, probe, append([]string{fmt.Sprintf("--window-size=%d,1000", width), "--dump-dom"}, flags...)...)
	return overflows(t, dom, width)
}

// probeCopy writes the copy of page that measureLayout loads (layoutProbe
// added, scripts allowed, print styles on screen when print is set) and
// returns its path.
func probeCopy(t *testing.T, page string, print bool) string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := strings.Replace(string(data), "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
	if print {
		html = strings.ReplaceAll(html, "@media print", "@media all")
		html = strings.ReplaceAll(html, "@media screen and", "@media print and")
	}
	html = strings.Replace(html, "</body>", layoutProbe+"\n</body>", 1)
	probe := filepath.Join(t.TempDir(), "probe.html")
	if err := os.WriteFile(probe, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return probe
}

// overflows returns the elements layoutProbe found wider than their box in
// the DOM of a probe copy loaded at width px.
func overflows(t *testing.T, dom string, width int) []string {
	t.Helper()
	if !strings.Contains(dom, `data-measured="yes"`) {
		t.Fatalf("the layout probe did not run at %d px; DOM:\n%.300s", width, dom)
	}
	m := overflowRE.FindStringSubmatch(dom)
	if m == nil || m[1] == "" {
		return nil
	}
	return strings.Fields(m[1])
}

// runChromium runs headless Chromium on page with extra flags and returns its
// standard output and standard error.
func runChromium(t *testing.T, bin, page string, flags ...string) (stdout, stderr string) {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+filepath.ToSlash(abs))...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, flags, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestHTMLReportFits: the report of a results tree with a preset and seeds
// (mean ± CI cells, the widest table) has no table wider than its box at
// 1280 px and 390 px and in the print layout; screenshots at both widths and
// a PDF print are made (kept in $REPORT_SHOTS when set, for a person to look
// at). The fast lane measures the three as frames of one page in one
// Chromium start shared with the two negative controls (loadFastLayout), and
// TestHTMLReportInBrowser's start, of the same report, takes the 1280 px
// screenshot and the PDF: two starts for the four browser tests instead of
// five; the full suite, or $REPORT_SHOTS, starts Chromium for each
// measurement and shot (six), the measurements side by side (parallel
// subtests of "layout"), as are the browser tests.
func TestHTMLReportFits(t *testing.T) {
	bin := requireChromium(t)
	if sharedStarts() {
		// The screenshot and the PDF: TestHTMLReportInBrowser's start.
		t.Parallel()
		got, _ := loadFastLayout(t, bin)
		for i, name := range fastFrameNames[:3] {
			if len(got[i]) > 0 {
				t.Errorf("%s: content wider than its box: %s", name, strings.Join(got[i], ", "))
			}
		}
		return
	}
	root := resultsTree(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if code, _, stderr := runCmd("--html", page, "--preset", "hpfsp", root); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t.Parallel()
	shots := os.Getenv("REPORT_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	shot := func(w int) string { return filepath.Join(shots, fmt.Sprintf("report-%d.png", w)) }
	pdf := filepath.Join(shots, "report.pdf")
	t.Run("layout", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			width int
			print bool
		}{{"1280 px", 1280, false}, {"390 px", 390, false}, {"print", 718, true}} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				if bad := measureLayout(t, bin, page, c.width, c.print); len(bad) > 0 {
					t.Errorf("%s: content wider than its box: %s", c.name, strings.Join(bad, ", "))
				}
			})
		}
	})
	for _, w := range []int{1280, 390} {
		runChromium(t, bin, page, fmt.Sprintf("--window-size=%d,2400", w), "--screenshot="+shot(w))
		checkScreenshot(t, shot(w), w)
	}
	runChromium(t, bin, page, "--no-pdf-header-footer", "--print-to-pdf="+pdf)
	checkPDF(t, pdf)
}

// checkScreenshot checks that Chromium wrote a screenshot of w px to file.
func checkScreenshot(t *testing.T, file string, w int) {
	t.Helper()
	if st, err := os.Stat(file); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot at %d px: %v", w, err)
	}
}

// checkPDF checks that Chromium printed a PDF of two pages or more to file.
func checkPDF(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(data, []byte("%PDF-")) || len(pdfPage.FindAll(data, -1)) < 2 {
		t.Errorf("print to PDF: %v, %d bytes, %d pages", err, len(data), len(pdfPage.FindAll(data, -1)))
	}
}

// pdfPage matches a page object's type in a PDF ("/Type /Page"), not the
// page tree's ("/Type /Pages"), so that counting it counts pages.
var pdfPage = regexp.MustCompile(`/Type\s*/Page\b`)

// TestLayoutProbeCatchesOverflow makes sure the overflow check can fail: a
// page with a table wider than its scrolling box at 390 px (the bad page,
// loadBadPage; in the fast lane, as a frame of loadFastLayout's page, which
// is how TestHTMLReportFits measures there).
func TestLayoutProbeCatchesOverflow(t *testing.T) {
	bin := requireChromium(t)
	t.Parallel()
	var bad []string
	if sharedStarts() {
		got, _ := loadFastLayout(t, bin)
		bad = got[3]
	} else {
		dom, _ := loadBadPage(t, bin)
		bad = overflows(t, dom, 390)
	}
	if len(bad) == 0 || !strings.HasPrefix(bad[0], "wide:") {
		t.Errorf("overflow not detected: %q", bad)
	}
}

// badPage is the page of the two negative controls above, loaded once for
// both in the full suite: Chromium's start is most of either test's cost.
var badPage struct {
	once    sync.Once
	loaded  bool
	dom     string
	console []string
}

// loadBadPage returns the DOM and the console messages of a page that does
// what the browser checks must catch: a script error, a reference to an
// outside image (which its Content Security Policy blocks), and a table
// wider than its scrolling box at 390 px. It is loaded as measureLayout
// loads a page (probeCopy, at 390 px) with Chromium's log on standard error
// as loadInBrowser reads it; the first test to call it loads it, in its own
// temporary directory.
func loadBadPage(t *testing.T, bin string) (dom string, console []string) {
	t.Helper()
	badPage.once.Do(func() {
		page := badPageFile(t)
		var stderr string
		badPage.dom, stderr = runChromium(t, bin, probeCopy(t, page, false), "--window-size=390,1000", "--enable-logging=stderr", "--v=0", "--dump-dom")
		badPage.console = consoleLines(stderr)
		badPage.loaded = true
	})
	if !badPage.loaded {
		t.Fatal("the bad page did not load (see the other test that loads it)")
	}
	return badPage.dom, badPage.console
}

// badPageFile writes the bad page of loadBadPage to a temporary file and
// returns its path.
func badPageFile(t *testing.T) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "bad.html")
	bad := `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
		`<meta name="viewport" content="width=device-width, initial-scale=1"><style>.scroll{overflow-x:auto}</style><title>bad</title></head><body>` +
		`<div class="scroll"><table id="wide"><tr><td style="white-space:nowrap">` + strings.Repeat("wide cell ", 80) + `</td></tr></table></div>` +
		`<img src="https://example.invalid/x.png"><script>notDefined();</script></body></html>`
	if err := os.WriteFile(page, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

// layoutFrame is one measurement of measureFrames: page's probe copy (print
// styles on screen when print is set) in a frame width px wide.
type layoutFrame struct {
	name  string
	page  string
	width int
	print bool
}

// framesScript copies, once every frame has loaded, what layoutProbe recorded
// in each frame's body, and the width of the frame's viewport, to an element
// of the outer page, whose DOM is the one Chromium dumps.
const framesScript = `<script>
window.addEventListener('load', function () {
  document.querySelectorAll('iframe').forEach(function (f) {
    var d = f.contentDocument, out = document.createElement('div');
    out.setAttribute('data-frame', f.id);
    out.setAttribute('data-width', d.documentElement.clientWidth);
    out.setAttribute('data-measured', d.body.getAttribute('data-measured') || 'no');
    out.setAttribute('data-overflow', d.body.getAttribute('data-overflow') || '');
    document.body.appendChild(out);
  });
});
</script>`

var frameOutRE = regexp.MustCompile(`<div data-frame="frame-(\d+)" data-width="(\d+)"[^>]*>`)

// measureFrames measures several probe copies in one Chromium start: each is
// the srcdoc of a frame as wide as its width and 1000 px high, without
// scrollbars (as --hide-scrollbars gives the window measureLayout loads), so
// its media queries and layout see a viewport of that width. A frame can be
// narrower than a window: headless Chromium (156) widens a window to 500 px
// (window.innerWidth is 500 at --window-size=390,1000), so measureLayout's
// "390 px" is 500 px, a frame's 390 px is 390. It returns each
// frame's overflowing elements and fails the test unless every frame's
// viewport had the width asked for and its probe ran; with
// --enable-logging=stderr among flags, it also returns the frames' console
// messages.
func measureFrames(t *testing.T, bin string, frames []layoutFrame, flags ...string) (overflow [][]string, console []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>frames</title></head><body style="margin:0">` + "\n")
	for i, f := range frames {
		data, err := os.ReadFile(probeCopy(t, f.page, f.print))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, `<iframe id="frame-%d" scrolling="no" style="display:block;border:0;width:%dpx;height:1000px" srcdoc="%s"></iframe>`+"\n",
			i, f.width, html.EscapeString(string(data)))
	}
	b.WriteString(framesScript + "\n</body></html>")
	outer := filepath.Join(t.TempDir(), "frames.html")
	if err := os.WriteFile(outer, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, stderr := runChromium(t, bin, outer, append([]string{"--window-size=1280,1000", "--dump-dom"}, flags...)...)
	got := make([][]string, len(frames))
	seen := make([]bool, len(frames))
	for _, m := range frameOutRE.FindAllStringSubmatch(dom, -1) {
		i, _ := strconv.Atoi(m[1])
		if i >= len(frames) {
			continue
		}
		f := frames[i]
		if w, _ := strconv.Atoi(m[2]); w != f.width {
			t.Fatalf("%s: the frame's viewport is %d px wide, want %d", f.name, w, f.width)
		}
		got[i], seen[i] = overflows(t, m[0], f.width), true
	}
	for i, f := range frames {
		if !seen[i] {
			t.Fatalf("%s: no measurement of its frame; DOM:\n%.300s", f.name, dom)
		}
	}
	return got, consoleLines(stderr)
}

// sharedStarts reports whether the browser tests share Chromium starts: in the
// fast lane, unless $REPORT_SHOTS asks for every screenshot.
func sharedStarts() bool { return testgate.IsFast() && os.Getenv("REPORT_SHOTS") == "" }

// phoneWidth is the fast lane's narrow frame: a true 390 px, which a frame
// has. The full suite's "390 px" window is 500 px wide, since headless
// Chromium (156) widens windows to 500 px; at 390 px the report's
// "Results <path>" line overflowed the page when the path was as long as a
// test's temporary directory, until its code could wrap.
const phoneWidth = 390

// fastFrameNames name the frames of loadFastLayout's page, in order.
var fastFrameNames = []string{"1280 px", "390 px", "print", "bad page at 390 px"}

// fastLayout is the fast lane's one Chromium start for TestHTMLReportFits and
// the two negative controls: the report of TestHTMLReportFits (a results tree
// with a preset and seeds) measured at 1280 px, 390 px and in the print
// layout, and the bad page (loadBadPage's) at 390 px, as frames of one page
// (measureFrames) with Chromium's log on standard error.
var fastLayout struct {
	once      sync.Once
	loaded    bool
	overflows [][]string // by fastFrameNames
	console   []string
}

// loadFastLayout returns fastLayout's overflowing elements (by frame) and
// console messages, loaded by the first test to call it, in its own
// temporary directories.
func loadFastLayout(t *testing.T, bin string) (overflow [][]string, console []string) {
	t.Helper()
	fastLayout.once.Do(func() {
		// the results under a long path without a hyphen, as a user's can be: the
		// header's "Results <path>" line must wrap at 390 px
		root := filepath.Join(t.TempDir(), "results_of_the_fb2010_day_on_fb3000_every_policy_seeds_1_to_5_lifecycle_on")
		if err := os.Rename(resultsTree(t), root); err != nil {
			t.Fatal(err)
		}
		page := filepath.Join(t.TempDir(), "report.html")
		if code, _, stderr := runCmd("--html", page, "--preset", "hpfsp", root); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		frames := []layoutFrame{{fastFrameNames[0], page, 1280, false}, {fastFrameNames[1], page, phoneWidth, false},
			{fastFrameNames[2], page, 718, true}, {fastFrameNames[3], badPageFile(t), phoneWidth, false}}
		fastLayout.overflows, fastLayout.console = measureFrames(t, bin, frames, "--enable-logging=stderr", "--v=0")
		fastLayout.loaded = true
	})
	if !fastLayout.loaded {
		t.Fatal("the fast lane's layout page did not load (see the other test that loads it)")
	}
	return fastLayout.overflows, fastLayout.console
}
