package main

import (
	"strings"
	"testing"
)

// TestHelpListsPolicyParameters: replay --help names each policy with its
// parameters, descriptions starting in one column, and --version prints the
// one version string.
func TestHelpListsPolicyParameters(t *testing.T) {
	code, _, errOut := runCmd("--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, list, ok := strings.Cut(errOut, "\nPolicies")
	if !ok {
		t.Fatalf("no policy list in:\n%s", errOut)
	}
	col := -1
	for _, l := range strings.Split(list, "\n")[1:] {
		if l == "" {
			break
		}
		if strings.HasPrefix(l, "    ") { // a parameter line
			continue
		}
		i := strings.Index(l[2:], "  ") + 2
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if col >= 0 && i != col {
			t.Errorf("description of %q starts at column %d, others at %d", strings.Fields(l)[0], i, col)
		}
		col = i
	}
	if !strings.Contains(errOut, "node-delay  auto") || !strings.Contains(errOut, "maxcover-balassign  MaxCover") {
		t.Errorf("parameters or long names missing:\n%s", list)
	}
	code, out, _ := runCmd("--version")
	if code != 0 || out != "tracereplay replay 0.1.0\n" {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
