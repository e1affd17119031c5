// Package preset is the registry of the paper presets of the report command
// (report --preset NAME): each paper's tables and figures live in a package of
// their own under report/preset, and this package lists them, one line per
// paper. The generic summary (package report) does not go through it.
package preset

import (
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/report"
	"github.com/tracereplay/tracereplay/report/preset/bar"
	"github.com/tracereplay/tracereplay/report/preset/coupling"
	"github.com/tracereplay/tracereplay/report/preset/eas"
	"github.com/tracereplay/tracereplay/report/preset/hpfsp"
	"github.com/tracereplay/tracereplay/report/preset/hybsmrp"
)

// Preset is the paper-specific output --preset NAME adds to the summary: a
// table printed after it and written as NAME.md and NAME.csv, and figures.
type Preset struct {
	Name string
	// Table builds the preset's table from the runs.
	Table func([]report.Run) *report.Table
	// Figures writes the preset's figures into dir in format and returns their
	// paths.
	Figures func(runs []report.Run, dir, format string) ([]string, error)
}

// All lists the presets, sorted by name.
func All() []Preset {
	p := []Preset{
		{"hpfsp", hpfsp.Table, hpfsp.WriteFigures},
		{"eas", eas.Table, eas.WriteFigures},
		{"hybsmrp", hybsmrp.Table, hybsmrp.WriteFigures},
		{"bar-table4", bar.Table4, bar.WriteTable4Figures},
		{"bar-fig9", bar.Fig9Table, bar.WriteFig9Figures},
		{"coupling", coupling.Table, coupling.WriteFigures},
	}
	slices.SortFunc(p, func(a, b Preset) int { return strings.Compare(a.Name, b.Name) })
	return p
}

// Names lists the presets' names, sorted.
func Names() []string {
	var n []string
	for _, p := range All() {
		n = append(n, p.Name)
	}
	return n
}

// Lookup returns the named preset; the empty name is no preset (nil, true).
func Lookup(name string) (*Preset, bool) {
	if name == "" {
		return nil, true
	}
	for _, p := range All() {
		if p.Name == name {
			return &p, true
		}
	}
	return nil, false
}
