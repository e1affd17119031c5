package report

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
}

// Cell is one table value: Text for text and Markdown output and, for numbers,
// the raw value that CSV output writes at full precision.
type Cell struct {
	Text  string
	Num   float64
	IsNum bool
}

// Str returns a text cell.
func Str(s string) Cell { return Cell{Text: s} }

// Float returns a numeric cell shown with prec decimals; NaN shows as "-" and is
// an empty CSV field.
func Float(v float64, prec int) Cell {
	c := Cell{Num: v, IsNum: true, Text: "-"}
	if !math.IsNaN(v) {
		c.Text = strconv.FormatFloat(v, 'f', prec, 64)
	}
	return c
}

// Int returns an integer cell.
func Int(n int) Cell { return Cell{Text: strconv.Itoa(n), Num: float64(n), IsNum: true} }

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
		panic(fmt.Sprintf("report: table %q: row of %d cells for %d columns", t.Title, len(cells), len(t.Columns)))
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
	row(func(i int) string { return mdEscape(strings.ReplaceAll(t.Columns[i].Header, "\n", " ")) })
	row(func(i int) string {
		if t.Columns[i].Align == AlignRight {
			return "---:"
		}
		return ":---"
	})
	for _, r := range t.Rows {
		row(func(i int) string { return mdEscape(r[i].Text) })
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

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// WriteCSV writes the table as CSV (RFC 4180 via encoding/csv): a header of the
// columns' Names, then one record per row, numbers at full precision without an
// exponent and NaN as an empty field. Title and notes are left out.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	rec := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		rec[i] = c.Name
	}
	if err := cw.Write(rec); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			switch {
			case !c.IsNum:
				rec[i] = c.Text
			case math.IsNaN(c.Num):
				rec[i] = ""
			default:
				rec[i] = strconv.FormatFloat(c.Num, 'f', -1, 64)
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
