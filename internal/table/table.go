// Package table renders titled tables of text and numbers as aligned text,
// Markdown and CSV. It depends on the standard library only, so that commands
// which print a table (replay's summary) stay quick to build.
package table

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Align is a column's alignment in text and Markdown output.
type Align int

// Alignments.
const (
	AlignLeft Align = iota
	AlignRight
)

// Column describes one table column.
type Column struct {
	// Header is the heading in text and Markdown output, unit included; a "\n"
	// splits it over several header lines in text output.
	Header string
	// Name is the CSV header: short, snake_case, unit as a suffix (flowtime_p95_s).
	Name  string
	Align Align
	// CI marks a column of MeanCI cells: CSV and Arrow output add a column
	// Name+"_ci95" with the half-widths of the intervals.
	CI bool
}

// Cell is one table value: Text for text and Markdown output and, for numbers,
// the raw value that CSV output writes at full precision.
type Cell struct {
	Text  string
	Num   float64
	IsNum bool
	// IsInt marks a cell made by Int; Arrow output types a column of such
	// cells as int64.
	IsInt bool
	// Prec is the number of decimals Text shows (LaTeX output formats Num and
	// CI with it).
	Prec int
	// CI is the half-width of the 95% confidence interval of Num, NaN when
	// there is none (one value); only in MeanCI cells.
	CI float64
}

// Str returns a text cell.
func Str(s string) Cell { return Cell{Text: s} }

// Float returns a numeric cell shown with prec decimals; NaN shows as "-" and is
// an empty CSV field.
func Float(v float64, prec int) Cell {
	c := Cell{Num: v, IsNum: true, Text: "-", Prec: prec, CI: math.NaN()}
	if !math.IsNaN(v) {
		c.Text = strconv.FormatFloat(v, 'f', prec, 64)
	}
	return c
}

// MeanCI returns a numeric cell holding a mean m and the half-width h of its 95%
// confidence interval, shown as "m ± h" with prec decimals, or as m alone when h
// is NaN (a single value). It belongs in a column with CI set.
func MeanCI(m, h float64, prec int) Cell {
	c := Float(m, prec)
	c.CI = h
	if !math.IsNaN(m) && !math.IsNaN(h) {
		c.Text += " ± " + strconv.FormatFloat(h, 'f', prec, 64)
	}
	return c
}

// Int returns an integer cell.
func Int(n int) Cell {
	return Cell{Text: strconv.Itoa(n), Num: float64(n), IsNum: true, IsInt: true, CI: math.NaN()}
}

// Table is a titled table of cells with optional notes, rendered as aligned text,
// Markdown or CSV.
type Table struct {
	Title   string
	Columns []Column
	Rows    [][]Cell
	// Notes are printed under the table in text and Markdown output.
	Notes []string
}

// AddRow appends a row; it must have one cell per column.
func (t *Table) AddRow(cells ...Cell) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("table %q: row of %d cells for %d columns", t.Title, len(cells), len(t.Columns)))
	}
	t.Rows = append(t.Rows, cells)
}

// WriteText writes the table aligned for a terminal: the title, the header lines,
// a rule, the rows and the notes. Columns are separated by two spaces.
func (t *Table) WriteText(w io.Writer) error {
	headers := make([][]string, len(t.Columns))
	nh := 0
	for i, c := range t.Columns {
		headers[i] = strings.Split(c.Header, "\n")
		nh = max(nh, len(headers[i]))
	}
	width := make([]int, len(t.Columns))
	for i := range t.Columns {
		for _, h := range headers[i] {
			width[i] = max(width[i], utf8.RuneCountInString(h))
		}
		for _, row := range t.Rows {
			width[i] = max(width[i], utf8.RuneCountInString(row[i].Text))
		}
	}
	var b strings.Builder
	if t.Title != "" {
		b.WriteString(t.Title + "\n\n")
	}
	line := func(cell func(i int) string) {
		var l strings.Builder
		for i, c := range t.Columns {
			if i > 0 {
				l.WriteString("  ")
			}
			s := cell(i)
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if c.Align == AlignRight {
				l.WriteString(pad + s)
			} else {
				l.WriteString(s + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	for k := range nh {
		// Header lines are bottom-aligned: a one-line header sits on the last line.
		line(func(i int) string {
			if j := k - (nh - len(headers[i])); j >= 0 {
				return headers[i][j]
			}
			return ""
		})
	}
	line(func(i int) string { return strings.Repeat("-", width[i]) })
	for _, row := range t.Rows {
		line(func(i int) string { return row[i].Text })
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.Notes {
			b.WriteString(n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the table as a GitHub-flavoured Markdown table under a
// "##" heading, followed by the notes as a list.
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("## " + t.Title + "\n\n")
	}
	row := func(cell func(i int) string) {
		b.WriteString("|")
		for i := range t.Columns {
			b.WriteString(" " + cell(i) + " |")
		}
		b.WriteString("\n")
	}
	row(func(i int) string { return MDEscape(strings.ReplaceAll(t.Columns[i].Header, "\n", " ")) })
	row(func(i int) string {
		if t.Columns[i].Align == AlignRight {
			return "---:"
		}
		return ":---"
	})
	for _, r := range t.Rows {
		row(func(i int) string { return MDEscape(r[i].Text) })
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.Notes {
			b.WriteString("- " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MDEscape escapes s for a Markdown table cell: "|" is backslash-escaped and
// newlines become spaces.
func MDEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// WriteCSV writes the table as CSV (RFC 4180 via encoding/csv): a header of the
// columns' Names, then one record per row, numbers at full precision without an
// exponent and NaN as an empty field. A CI column is followed by NAME_ci95, the
// half-widths of its intervals (empty where there is none). Title and notes are
// left out.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	var rec []string
	for _, c := range t.Columns {
		rec = append(rec, c.Name)
		if c.CI {
			rec = append(rec, c.Name+"_ci95")
		}
	}
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	num := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for _, r := range t.Rows {
		rec = rec[:0]
		for i, c := range r {
			if c.IsNum {
				rec = append(rec, num(c.Num))
			} else {
				rec = append(rec, c.Text)
			}
			if t.Columns[i].CI {
				if c.IsNum {
					rec = append(rec, num(c.CI))
				} else {
					rec = append(rec, "")
				}
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}
