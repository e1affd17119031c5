package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

func htmlReport(t *testing.T) ([]byte, HTMLReport) {
	t.Helper()
	runs := seedRuns()
	figs, err := RenderFigures(runs, FigureOptions{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	m := &results.RunManifest{Tool: "tracereplay 0.1.0", GoVersion: "go1.26", Args: []string{"--experiment", "x y.toml", "--out", "o"},
		Experiment: "x y.toml", Inputs: map[string]string{"b.tsv": "bb", "a.toml": "aa"}, WallSec: 1.5,
		Runs: []results.ManifestRun[results.HardwareJSON]{{Dir: "policy=fifo/seed=1", Policy: "fifo", Jobs: 40, Events: 100, WallSec: 0.1, EventsPerSec: 1000}}}
	hostile := &Table{Title: "<script>alert(1)</script>", Columns: []Column{{Header: "a&b", Name: "a"}}}
	hostile.AddRow(Str("<img src=x onerror=alert(1)>"))
	r := HTMLReport{Source: "runs/x", Manifest: m, ManifestJSON: []byte(`{"tool": "<b>"}`), Runs: len(runs),
		Tables: []HTMLTable{{Key: "summary", Table: SummaryTable(runs)}, {Key: "hostile", Table: hostile}}, Figures: figs}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), r
}

func TestWriteHTML(t *testing.T) {
	page, r := htmlReport(t)
	s := string(page)
	for _, want := range []string{
		"<!DOCTYPE html>", `http-equiv="Content-Security-Policy" content="default-src 'none'`,
		`id="manifest"`, `id="manifest-inputs"`, `id="manifest-runs"`, "policy=fifo/seed=1",
		"replay --experiment &#39;x y.toml&#39; --out o", // the command, shell-quoted
		`id="table-summary"`, `id="table-hostile"`, "mean ± 95% CI over seeds",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Inputs are listed sorted, whatever the map order.
	if strings.Index(s, "a.toml") > strings.Index(s, "b.tsv") {
		t.Error("inputs not sorted")
	}
	for _, f := range r.Figures {
		re := regexp.MustCompile(`<figure id="` + HTMLFigureID(f.Name) + `">\s*<svg [^>]*viewBox`)
		if !re.MatchString(s) {
			t.Errorf("figure %s is not inline SVG", f.Name)
		}
	}
	if strings.Contains(s, "<?xml") {
		t.Error("an XML declaration was left inside the HTML")
	}
	// Text from the results is escaped.
	for _, bad := range []string{"<script>", "<img", `"<b>"`} {
		if strings.Contains(s, bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
	// No tag refers to anything outside the page.
	attr := regexp.MustCompile(`\s(src|href|xlink:href|action|data)\s*=\s*"([^"]*)"`)
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(s, -1) {
		for _, m := range attr.FindAllStringSubmatch(tag, -1) {
			if !strings.HasPrefix(m[2], "#") {
				t.Errorf("tag %.80s refers to %q", tag, m[2])
			}
		}
		if strings.Contains(tag, "url(") {
			t.Errorf("tag %.80s loads a url()", tag)
		}
	}
	if strings.Contains(s, "@import") || strings.Contains(s, "<script") || strings.Contains(s, "<link") {
		t.Error("page imports, links or runs something")
	}
	// Equal inputs, equal bytes.
	again, _ := htmlReport(t)
	if !bytes.Equal(page, again) {
		t.Error("two renderings differ")
	}
}

// TestWriteHTMLSVGsAreXML: every inline SVG is well-formed on its own.
func TestWriteHTMLSVGsAreXML(t *testing.T) {
	page, _ := htmlReport(t)
	re := regexp.MustCompile(`(?s)<svg .*?</svg>`)
	svgs := re.FindAll(page, -1)
	if len(svgs) != 3 {
		t.Fatalf("%d inline SVGs, want 3", len(svgs))
	}
	for i, svg := range svgs {
		dec := xml.NewDecoder(bytes.NewReader(svg))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("SVG %d: %v", i, err)
			}
		}
	}
}

func TestWriteHTMLWithoutManifest(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, HTMLReport{Source: "r", Tables: []HTMLTable{{Key: "summary", Table: testTable()}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No manifest.json") {
		t.Error("no note about the missing manifest")
	}
}

func TestWriteHTMLErrors(t *testing.T) {
	for _, r := range []HTMLReport{
		{Tables: []HTMLTable{{Key: "bad key", Table: testTable()}}},
		{Figures: []RenderedFigure{{Name: "x", Data: []byte("not svg")}}},
		{Figures: []RenderedFigure{{Name: `x"y`, Data: []byte("<svg></svg>")}}},
	} {
		if err := WriteHTML(io.Discard, r); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}
