package main

import (
	"strings"
	"testing"
)

// TestPolicyFilter: --policy keeps the named policies' runs and rejects a name
// with no run, listing the policies there are.
func TestPolicyFilter(t *testing.T) {
	root := resultsTree(t)
	code, out, errs := runCmd("--policy", "fair", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "\nfair ") || strings.Contains(out, "\nfifo ") {
		t.Errorf("--policy fair kept the wrong rows:\n%s", out)
	}
	code, _, errs = runCmd("--policy", "fair,srpt", root)
	if code != exitUsage || !strings.Contains(errs, "report: --policy srpt: no run of that policy; the results hold fair, fifo") {
		t.Errorf("unknown policy: exit %d, stderr %q", code, errs)
	}
}

// TestVersion: report --version prints the version every command prints.
func TestVersion(t *testing.T) {
	code, out, _ := runCmd("--version")
	if code != 0 || out != "tracereplay report 0.1.0\n" {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
