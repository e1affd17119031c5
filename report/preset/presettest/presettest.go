// Package presettest holds what the tests of the paper presets share.
package presettest

import (
	"math"
	"strings"

	"github.com/tracereplay/tracereplay/report"
)

// RowTexts returns the cells' texts of every row of tb.
func RowTexts(tb *report.Table) [][]string {
	var out [][]string
	for _, r := range tb.Rows {
		var row []string
		for _, c := range r {
			row = append(row, c.Text)
		}
		out = append(out, row)
	}
	return out
}

// Half95 returns the 95% half-width of n values (2 or 3) with sample standard
// deviation sd: Student's t 0.975 quantile for n-1 degrees of freedom × sd/√n.
func Half95(n int, sd float64) float64 {
	t := 12.706204736174698 // 1 degree of freedom
	if n == 3 {
		t = 4.302652729911275
	}
	return t * sd / math.Sqrt(float64(n))
}

// RowLines returns each row of tb as its cells' texts joined by '|'.
func RowLines(tb *report.Table) []string {
	var out []string
	for _, r := range RowTexts(tb) {
		out = append(out, strings.Join(r, "|"))
	}
	return out
}
