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

	"github.com/tracereplay/tracereplay/replay"
)

// HTMLReport is the content of a self-contained HTML report (WriteHTML).
type HTMLReport struct {
	// Source names the results, e.g. the directory given on the command line.
	Source string
	// Manifest and ManifestJSON are the results' manifest.json, nil when none.
	Manifest     *replay.Manifest
	ManifestJSON []byte
	// Runs is the number of runs reported.
	Runs int
	// Tables are shown in order; each gets the id "table-" + its key.
	Tables []HTMLTable
	// Figures are SVG renderings (RenderFigures with format svg), shown in
	// order; each gets the id "fig-" + its Name.
	Figures []RenderedFigure
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
	v := htmlView{Source: r.Source, Runs: r.Runs, ManifestJSON: string(r.ManifestJSON)}
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
	Manifest     *replay.Manifest
	Command      string
	Inputs       [][2]string
	ManifestJSON string
	Tables       []tableData
	Figures      []figureView
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
}

type figureView struct {
	ID, Name, Caption string
	SVG               template.HTML
}

func tableView(t HTMLTable) tableData {
	v := tableData{ID: HTMLTableID(t.Key), Title: t.Table.Title, Notes: t.Table.Notes}
	for _, c := range t.Table.Columns {
		v.Headers = append(v.Headers, cellView{Text: strings.ReplaceAll(c.Header, "\n", " "), Num: c.Align == AlignRight})
	}
	for _, r := range t.Table.Rows {
		row := make([]cellView, len(r))
		for i, c := range r {
			row[i] = cellView{Text: c.Text, Num: t.Table.Columns[i].Align == AlignRight}
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
	"f3": func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	"f0": func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) },
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
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4rem; }
th, td { padding: 0.25rem 0.6rem; border-bottom: 1px solid #e2e2e2; vertical-align: bottom; }
thead th { border-bottom: 2px solid #888; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.txt { text-align: left; }
.notes { font-size: 0.85rem; color: #555; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; }
code, pre, .hash { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.85rem; }
pre { background: #f6f6f6; padding: 0.8rem; overflow-x: auto; }
figure { margin: 2rem 0; }
figure svg { max-width: 100%; height: auto; background: #fff; }
figcaption { font-size: 0.9rem; color: #444; max-width: 50rem; }
nav ul { padding-left: 1.2rem; }
.scroll { overflow-x: auto; }
</style>
</head>
<body>
<header>
<h1>tracereplay report</h1>
<p>Results <code>{{.Source}}</code>: {{.Runs}} run{{if ne .Runs 1}}s{{end}}.</p>
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
<table id="manifest-inputs">
<caption>Inputs (SHA-256)</caption>
<thead><tr><th class="txt">file</th><th class="txt">sha256</th></tr></thead>
<tbody>
{{range $.Inputs}}<tr><td class="txt"><code>{{index . 0}}</code></td><td class="txt hash">{{index . 1}}</td></tr>
{{end}}</tbody>
</table>
<div class="scroll">
<table id="manifest-runs">
<caption>Runs</caption>
<thead><tr><th class="txt">directory</th><th class="txt">policy</th><th class="txt">trace</th><th class="txt">hardware</th><th class="num">seed</th><th class="num">jobs</th><th class="num">events</th><th class="num">wall (s)</th><th class="num">events/s</th></tr></thead>
<tbody>
{{range .Runs}}<tr><td class="txt"><code>{{.Dir}}</code></td><td class="txt">{{.Policy}}</td><td class="txt">{{.Trace}}</td><td class="txt">{{.Hardware.Name}}</td><td class="num">{{.Seed}}</td><td class="num">{{.Jobs}}</td><td class="num">{{.Events}}</td><td class="num">{{f3 .WallSec}}</td><td class="num">{{f0 .EventsPerSec}}</td></tr>
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
<table id="{{.ID}}">
<thead><tr>{{range .Headers}}<th class="{{if .Num}}num{{else}}txt{{end}}">{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td class="{{if .Num}}num{{else}}txt{{end}}">{{.Text}}</td>{{end}}</tr>
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
{{end}}</section>
</body>
</html>
`))
