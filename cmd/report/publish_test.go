package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracereplay/tracereplay/internal/safeout"
)

// TestSummaryOutLocked: while another report writes --out, a second one fails at
// once with exit 2 and leaves nothing behind.
func TestSummaryOutLocked(t *testing.T) {
	root := resultsTree(t)
	out := filepath.Join(t.TempDir(), "rep")
	held, err := safeout.Open(out, reportOwner, safeout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, stderr := runCmd("--out", out, "--format", "svg", root)
	if code != 2 || !strings.Contains(stderr, "another run is writing it") {
		t.Fatalf("exit %d, stderr %q; want exit 2 saying another run is writing it", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists: %v", out, err)
	}
}
