package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestIngestDependencies keeps the ingest command free of the plotting
// libraries, Arrow, the simulator and the report package: the paper
// generators it lists come from report/preset/workloads, whose packages import
// only trace.
func TestIngestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "gonum") || strings.Contains(p, "arrow") ||
			p == "github.com/tracereplay/tracereplay/replay" || p == "github.com/tracereplay/tracereplay/report" {
			t.Errorf("cmd/ingest depends on %s", p)
		}
	}
}
