package main

import (
	"slices"
	"strings"

	"github.com/tracereplay/tracereplay/report"
)

// preset is the paper-specific output --preset NAME adds to the summary: a table
// printed after it and written as NAME.md and NAME.csv, and figures.
type preset struct {
	name    string
	table   func([]report.Run) *report.Table
	figures func(runs []report.Run, dir, format string) ([]string, error)
}

// presets lists the presets, one line per paper.
func presets() []preset {
	p := []preset{
		{"hpfsp", report.HPFSPTable, report.WriteHPFSPFigures},
		{"eas", report.EASTable, report.WriteEASFigures},
		{"hybsmrp", report.HybSMRPTable, report.WriteHybSMRPFigures},
		{"bar-table4", report.BARTable4Table, report.WriteBARTable4Figures},
		{"bar-fig9", report.BARFig9Table, report.WriteBARFig9Figures},
		{"coupling", report.CouplingTable, report.WriteCouplingFigures},
	}
	slices.SortFunc(p, func(a, b preset) int { return strings.Compare(a.name, b.name) })
	return p
}

// presetNames lists the presets' names, sorted.
func presetNames() []string {
	var n []string
	for _, p := range presets() {
		n = append(n, p.name)
	}
	return n
}

// lookupPreset returns the named preset; the empty name is no preset.
func lookupPreset(name string) (*preset, bool) {
	if name == "" {
		return nil, true
	}
	for _, p := range presets() {
		if p.name == name {
			return &p, true
		}
	}
	return nil, false
}
