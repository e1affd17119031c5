package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tracereplay/tracereplay/internal/results"
)

// HTMLReport is the content of a self-contained HTML report (WriteHTML).
type HTMLReport struct {
	// Source names the results, e.g. the directory given on the command line.
	Source string
	// Manifest and ManifestJSON are the results' manifest.json, nil when none.
	Manifest     *results.RunManifest
	ManifestJSON []byte
	// Runs is the number of runs reported.
	Runs int
	// Tables are shown in order; each gets the id "table-" + its key.
	Tables []HTMLTable
	// Figures are SVG renderings (RenderFigures with format svg), shown in
	// order; each gets the id "fig-" + its Name. A figure without Data (see
	// RenderedFigure.Skipped) is listed as not drawn, with the reason.
	Figures []RenderedFigure
	// Setting is the line saying what the runs replayed and the slot
	// utilisation (summary.Setting); Notes are further lines under it, such as
	// the policies with identical results and idle-cluster warnings.
	Setting string
	Notes   []string
}

// HTMLTable is one table of an HTMLReport with its key (letters, digits, '-'
// and '_'), which makes its element id.
type HTMLTable struct {
	Key   string
	Table *Table
}

// HTMLTableID and HTMLFigureID are the element ids WriteHTML gives a table and a
// figure, for tests and links.
func HTMLTableID(key string) string { return "table-" + key }

// HTMLFigureID is the element id of figure name; see HTMLTableID.
func HTMLFigureID(name string) string { return "fig-" + name }

// WriteHTML writes r as one HTML5 page that needs nothing else: styles inline,
// figures as inline SVG, no scripts, fonts or other resources, and a Content
// Security Policy that forbids loading any (so a browser reports a stray
// reference as an error instead of fetching it). It holds the run manifest (a
// digest, the runs and the raw JSON), the tables and the figures with their
// captions. Equal inputs give equal bytes.
func WriteHTML(w io.Writer, r HTMLReport) error {
	v := htmlView{Source: r.Source, Runs: r.Runs, ManifestJSON: string(r.ManifestJSON), Setting: r.Setting, Notes: r.Notes}
	if m := r.Manifest; m != nil {
		v.Manifest = m
		v.Command = shellJoin(append([]string{"replay"}, m.Args...))
		keys := make([]string, 0, len(m.Inputs))
		for k := range m.Inputs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			v.Inputs = append(v.Inputs, [2]string{k, m.Inputs[k]})
		}
	}
	for _, t := range r.Tables {
		if !validKey(t.Key) {
			return fmt.Errorf("html report: table key %q: want letters, digits, '-' and '_'", t.Key)
		}
		v.Tables = append(v.Tables, tableView(t))
	}
	for _, f := range r.Figures {
		if !validKey(f.Name) {
			return fmt.Errorf("html report: figure name %q: want letters, digits, '-' and '_'", f.Name)
		}
		if f.Data == nil {
			v.Skipped = append(v.Skipped, figureView{ID: HTMLFigureID(f.Name), Name: f.Name, Caption: f.Skipped})
			continue
		}
		svg, err := inlineSVG(f.Data)
		if err != nil {
			return fmt.Errorf("html report: figure %s: %w", f.Name, err)
		}
		v.Figures = append(v.Figures, figureView{ID: HTMLFigureID(f.Name), Name: f.Name, Caption: f.Caption, SVG: svg})
	}
	var buf bytes.Buffer
	if err := htmlTemplate.Execute(&buf, v); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

type htmlView struct {
	Source       string
	Runs         int
	Manifest     *results.RunManifest
	Command      string
	Inputs       [][2]string
	ManifestJSON string
	Tables       []tableData
	Figures      []figureView
	Skipped      []figureView
	Setting      string
	Notes        []string
}

type tableData struct {
	ID, Title string
	Headers   []cellView
	Rows      [][]cellView
	Notes     []string
}

type cellView struct {
	Text string
	Num  bool
	// Lines are a header's lines; Label is a body cell's column header, shown
	// beside it when a narrow screen stacks the rows as cards.
	Lines []string
	Label string
	// Mean and CI split a "m ± h" cell so that the interval can wrap under
	// the mean.
	Mean, CI string
}

type figureView struct {
	ID, Name, Caption string
	SVG               template.HTML
}

func tableView(t HTMLTable) tableData {
	v := tableData{ID: HTMLTableID(t.Key), Title: t.Table.Title, Notes: t.Table.Notes}
	for _, c := range t.Table.Columns {
		v.Headers = append(v.Headers, cellView{Text: strings.ReplaceAll(c.Header, "\n", " "), Lines: strings.Split(c.Header, "\n"), Num: c.Align == AlignRight})
	}
	for _, r := range t.Table.Rows {
		row := make([]cellView, len(r))
		for i, c := range r {
			cv := cellView{Text: c.Text, Num: t.Table.Columns[i].Align == AlignRight, Label: v.Headers[i].Text}
			if m, h, ok := strings.Cut(c.Text, " ± "); ok {
				cv.Mean, cv.CI = m, "± "+h
			}
			row[i] = cv
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

var keyRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func validKey(k string) bool { return keyRE.MatchString(k) }

// svgStart finds the root element of an SVG document.
var svgStart = regexp.MustCompile(`<svg[\s>]`)

// inlineSVG strips the XML declaration and comments before the root element of
// an SVG file (gonum's vgsvg writes both), so that it can sit inside HTML.
func inlineSVG(data []byte) (template.HTML, error) {
	loc := svgStart.FindIndex(data)
	if loc == nil {
		return "", fmt.Errorf("not an SVG document")
	}
	return template.HTML(bytes.TrimSpace(data[loc[0]:])), nil
}

// shellJoin quotes args for a POSIX shell where needed.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"f3":        func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	"f0":        func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) },
	"hasPrefix": strings.HasPrefix,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tracereplay report: {{.Source}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 80rem; padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; margin-top: 2.5rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.85rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4rem; }
th, td { padding: 0.2rem 0.45rem; border-bottom: 1px solid #e2e2e2; vertical-align: bottom; }
thead th { border-bottom: 2px solid #888; font-weight: 600; line-height: 1.2; }
th:first-child, td:first-child { position: sticky; left: 0; background: #fff; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
td.num .ci { color: #555; font-size: 0.9em; }
.txt { text-align: left; }
td.txt { overflow-wrap: anywhere; }
.notes, .setting { font-size: 0.85rem; color: #555; }
.setting { color: #222; }
.warning { color: #8a3b00; font-weight: 600; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
header code { overflow-wrap: anywhere; }
code, pre, .hash { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.85rem; }
.hash { word-break: break-all; }
pre { background: #f6f6f6; padding: 0.8rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
figure { margin: 2rem 0; }
figure svg { display: block; width: 100%; max-width: 60rem; height: auto; background: #fff; overflow: visible; }
/* The figures' text is measured with Liberation's metrics; Arial and Helvetica
   share them, so the legends keep their room where Liberation is missing. */
figure svg text[style*="Liberation Sans"] { font-family: "Liberation Sans", Arimo, Arial, Helvetica, sans-serif !important; }
figure svg text[style*="Liberation Serif"] { font-family: "Liberation Serif", Tinos, "Times New Roman", Times, serif !important; }
figcaption { font-size: 0.9rem; color: #444; max-width: 50rem; }
nav ul { padding-left: 1.2rem; }
.scroll { max-width: 100%; overflow-x: auto; }
@media screen and (max-width: 48rem) {
  body { margin: 1rem auto; padding: 0 0.6rem; }
  table.data, table.data tbody, table.data tr, table.data td { display: block; width: auto; }
  table.data thead { display: none; }
  table.data tr { border: 1px solid #ddd; border-radius: 4px; margin: 0 0 0.6rem; padding: 0.3rem 0.5rem; }
  table.data td { display: flex; justify-content: space-between; gap: 1rem; border: 0; padding: 0.1rem 0; position: static; text-align: right; white-space: normal; }
  table.data td::before { content: attr(data-label); font-weight: 600; text-align: left; color: #444; }
  table.data td:first-child { font-weight: 600; }
}
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 9pt; }
  nav, details { display: none; }
  h2 { break-after: avoid; }
  .scroll { overflow: visible; }
  table { font-size: 7pt; width: 100%; }
  th, td { padding: 1px 3px; position: static; }
  td.num .ci { display: block; }
  thead { display: table-header-group; }
  tr, figure { break-inside: avoid; }
}
</style>
</head>
<body>
<header>
<h1>tracereplay report</h1>
<p>Results <code>{{.Source}}</code>: {{.Runs}} run{{if ne .Runs 1}}s{{end}}.</p>
{{if .Setting}}<p class="setting" id="setting">{{.Setting}}</p>
{{end}}{{range .Notes}}<p class="{{if hasPrefix . "warning"}}warning{{else}}setting{{end}}">{{.}}</p>
{{end}}
<nav><ul>
<li><a href="#manifest">Run manifest</a></li>
{{range .Tables}}<li><a href="#{{.ID}}">{{.Title}}</a></li>
{{end}}{{range .Figures}}<li><a href="#{{.ID}}">Figure {{.Name}}</a></li>
{{end}}</ul></nav>
</header>
<section id="manifest">
<h2>Run manifest</h2>
{{with .Manifest}}<dl>
<dt>tool</dt><dd>{{.Tool}} ({{.GoVersion}})</dd>
<dt>command</dt><dd><code>{{$.Command}}</code></dd>
{{if .Experiment}}<dt>experiment</dt><dd><code>{{.Experiment}}</code></dd>
{{else}}<dt>seed</dt><dd>{{.Seed}}</dd>
{{end}}<dt>wall time</dt><dd>{{f3 .WallSec}} s</dd>
</dl>
<div class="scroll">
<table id="manifest-inputs">
<caption>Inputs (SHA-256)</caption>
<thead><tr><th class="txt">file</th><th class="txt">sha256</th></tr></thead>
<tbody>
{{range $.Inputs}}<tr><td class="txt"><code>{{index . 0}}</code></td><td class="txt hash">{{index . 1}}</td></tr>
{{end}}</tbody>
</table>
</div>
<div class="scroll">
<table id="manifest-runs" class="data">
<caption>Runs</caption>
<thead><tr><th class="txt">directory</th><th class="txt">policy</th><th class="txt">trace</th><th class="txt">hardware</th><th class="num">seed</th><th class="num">jobs</th><th class="num">events</th><th class="num">wall (s)</th><th class="num">events/s</th></tr></thead>
<tbody>
{{range .Runs}}<tr><td class="txt" data-label="directory"><code>{{.Dir}}</code></td><td class="txt" data-label="policy">{{.Policy}}</td><td class="txt" data-label="trace">{{.Trace}}</td><td class="txt" data-label="hardware">{{.Hardware.Name}}</td><td class="num" data-label="seed">{{.Seed}}</td><td class="num" data-label="jobs">{{.Jobs}}</td><td class="num" data-label="events">{{.Events}}</td><td class="num" data-label="wall (s)">{{f3 .WallSec}}</td><td class="num" data-label="events/s">{{f0 .EventsPerSec}}</td></tr>
{{end}}</tbody>
</table>
</div>
<details><summary>manifest.json</summary>
<pre>{{$.ManifestJSON}}</pre>
</details>
{{else}}<p>No manifest.json in the results directory.</p>
{{end}}</section>
{{range .Tables}}<section>
<h2>{{.Title}}</h2>
<div class="scroll">
<table id="{{.ID}}" class="data">
<thead><tr>{{range .Headers}}<th class="{{if .Num}}num{{else}}txt{{end}}">{{range $i, $l := .Lines}}{{if $i}}<br>{{end}}{{$l}}{{end}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td class="{{if .Num}}num{{else}}txt{{end}}" data-label="{{.Label}}">{{if .CI}}<span>{{.Mean}} <span class="ci">{{.CI}}</span></span>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
{{if .Notes}}<ul class="notes">
{{range .Notes}}<li>{{.}}</li>
{{end}}</ul>
{{end}}</section>
{{end}}<section id="figures">
<h2>Figures</h2>
{{range .Figures}}<figure id="{{.ID}}">
{{.SVG}}
<figcaption><strong>{{.Name}}.</strong> {{.Caption}}</figcaption>
</figure>
{{end}}{{range .Skipped}}<p class="notes" id="{{.ID}}">Figure <strong>{{.Name}}</strong> not drawn: {{.Caption}}.</p>
{{end}}</section>
</body>
</html>
`))
