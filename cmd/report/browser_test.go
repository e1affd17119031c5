package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tracereplay/tracereplay/report"
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
	msg := "no Chromium binary (" + strings.Join(chromiumNames, ", ") + " or $CHROMIUM) on PATH; install Debian's package: apt-get install -y chromium"
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and " + msg)
	}
	t.Skip("skipping the browser test: " + msg)
	return ""
}

// loadInBrowser opens page in headless Chromium and returns the DOM after
// loading and the page's console messages (Chromium logs them to stderr as
// "INFO:CONSOLE..." lines; a blocked load under the page's Content Security
// Policy is one). A fresh profile directory keeps runs independent.
func loadInBrowser(t *testing.T, bin, page string) (dom string, console []string) {
	t.Helper()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+filepath.ToSlash(abs))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	return stdout.String(), console
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
	root := results(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if code, _, stderr := runCmd("--html", page, "--preset", "hpfsp", root); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dom, console := loadInBrowser(t, bin, page)
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
	figures := []string{report.FlowtimeCDFFigure, report.StarvationFigure, report.RunningTasksFigure, report.HPFSPMeanFigure}
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
// with a script error and a reference to an outside image logs both.
func TestBrowserCheckCatchesErrors(t *testing.T) {
	bin := requireChromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	bad := `<!DOCTYPE html><html><head><meta charset="utf-8">` +
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'">` +
		`<title>bad</title></head><body><img src="https://example.invalid/x.png"><script>notDefined();</script></body></html>`
	if err := os.WriteFile(page, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, console := loadInBrowser(t, bin, page)
	joined := strings.Join(console, "\n")
	for _, want := range []string{"notDefined is not defined", "violates the following Content Security Policy"} {
		if !strings.Contains(joined, want) {
			t.Errorf("console lacks %q:\n%s", want, joined)
		}
	}
}
