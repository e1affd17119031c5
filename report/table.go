package report

import "github.com/tracereplay/tracereplay/internal/table"

// Align is a column's alignment in text and Markdown output (table.Align).
type Align = table.Align

// Alignments.
const (
	AlignLeft  = table.AlignLeft
	AlignRight = table.AlignRight
)

// Column describes one table column (table.Column).
type Column = table.Column

// Cell is one table value (table.Cell).
type Cell = table.Cell

// Table is a titled table of cells with optional notes (table.Table).
type Table = table.Table

// Str returns a text cell (table.Str).
func Str(s string) Cell { return table.Str(s) }

// Float returns a numeric cell shown with prec decimals (table.Float).
func Float(v float64, prec int) Cell { return table.Float(v, prec) }

// MeanCI returns a mean ± half-width cell (table.MeanCI).
func MeanCI(m, h float64, prec int) Cell { return table.MeanCI(m, h, prec) }

// Int returns an integer cell (table.Int).
func Int(n int) Cell { return table.Int(n) }

func mdEscape(s string) string { return table.MDEscape(s) }
