package table

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteLaTeX writes the table as a LaTeX tabular in the booktabs style (\toprule,
// \midrule, \bottomrule; the document needs \usepackage{booktabs}), ready to
// \input inside the caller's table environment. The title and the notes become
// comments above the tabular, for the caption. A header split by "\n" spans
// several header rows, bottom-aligned as in text output. Numbers are set in math
// mode (a true minus sign), a MeanCI cell as $m \pm h$, a missing value as "--";
// text is escaped.
func (t *Table) WriteLaTeX(w io.Writer) error {
	var b strings.Builder
	b.WriteString("% Requires \\usepackage{booktabs}.\n")
	if t.Title != "" {
		b.WriteString("% " + oneLine(t.Title) + "\n")
	}
	for _, n := range t.Notes {
		b.WriteString("% " + oneLine(n) + "\n")
	}
	b.WriteString("\\begin{tabular}{@{}")
	for _, c := range t.Columns {
		if c.Align == AlignRight {
			b.WriteString("r")
		} else {
			b.WriteString("l")
		}
	}
	b.WriteString("@{}}\n\\toprule\n")
	headers := make([][]string, len(t.Columns))
	nh := 0
	for i, c := range t.Columns {
		headers[i] = strings.Split(c.Header, "\n")
		nh = max(nh, len(headers[i]))
	}
	row := func(cell func(i int) string) {
		parts := make([]string, len(t.Columns))
		for i := range t.Columns {
			parts[i] = cell(i)
		}
		b.WriteString(strings.Join(parts, " & ") + " \\\\\n")
	}
	for k := range nh {
		row(func(i int) string {
			if j := k - (nh - len(headers[i])); j >= 0 {
				return latexEscape(headers[i][j])
			}
			return ""
		})
	}
	b.WriteString("\\midrule\n")
	for _, r := range t.Rows {
		row(func(i int) string { return latexCell(r[i]) })
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n")
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("write LaTeX: %w", err)
	}
	return nil
}

// latexCell renders one cell: numbers in math mode, text escaped.
func latexCell(c Cell) string {
	if !c.IsNum {
		return latexEscape(c.Text)
	}
	if math.IsNaN(c.Num) {
		return "--"
	}
	if c.IsInt {
		return "$" + c.Text + "$"
	}
	s := strconv.FormatFloat(c.Num, 'f', c.Prec, 64)
	if !math.IsNaN(c.CI) {
		s += ` \pm ` + strconv.FormatFloat(c.CI, 'f', c.Prec, 64)
	}
	return "$" + s + "$"
}

// latexReplacer escapes the characters LaTeX treats specially in text mode and
// spells out the few non-ASCII symbols the tables use.
var latexReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
	`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	`<`, `\textless{}`, `>`, `\textgreater{}`, `|`, `\textbar{}`,
	`±`, `$\pm$`, `–`, `--`, `—`, `---`, `…`, `\dots{}`, "\n", " ",
)

func latexEscape(s string) string { return latexReplacer.Replace(s) }

// oneLine keeps a comment on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
