package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tracereplay/tracereplay/internal/summary"
)

// printSummary prints the summary table, the line saying what was replayed
// (trace, hardware, seed, slot utilisation) and which policies gave identical
// results, unless quiet; and, always, on stderr, the warning that the cluster
// was idle.
func printSummary(stdout, stderr io.Writer, runs []summary.Run, quiet bool) error {
	if !quiet {
		if err := summary.Table(runs).WriteText(stdout); err != nil {
			return err
		}
		var b strings.Builder
		b.WriteString("\n" + summary.Setting(runs) + "\n")
		if same := summary.Identical(runs); len(same) > 0 {
			b.WriteString("Identical results: " + strings.Join(same, "; ") + "\n")
		}
		if _, err := io.WriteString(stdout, b.String()); err != nil {
			return err
		}
	}
	for _, w := range summary.Warnings(runs) {
		fmt.Fprintf(stderr, "replay: %s\n", w)
	}
	return nil
}
