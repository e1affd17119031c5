package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIdleWarning: replay prints what it replayed and, on stderr, that the
// cluster was idle when its map-slot utilisation stays below 1% (the 50-job
// sample on 40 racks); --quiet drops the summary but not the warning.
func TestIdleWarning(t *testing.T) {
	code, out, errOut := runCmd("--trace", first50, "--policy", "fifo,fair", "--set", "racks=40")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "· seed 1 · slot utilisation: map ") {
		t.Errorf("no setting line in:\n%s", out)
	}
	if !strings.Contains(errOut, "replay: warning: map-slot utilisation is ") || !strings.Contains(errOut, "policies cannot differ on an idle cluster") {
		t.Errorf("no idle warning on stderr: %q", errOut)
	}
	code, out, errOut = runCmd("--trace", first50, "--policy", "fifo", "--set", "racks=40", "--quiet")
	if code != 0 || out != "" || !strings.Contains(errOut, "idle cluster") {
		t.Errorf("--quiet: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestResultFileModes: every results file is 0644, run.json and manifest.json
// included (they were written private through a temporary file).
func TestResultFileModes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	if code, _, errOut := runCmd("--trace", first50, "--policy", "fifo", "--quiet", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if m := st.Mode().Perm(); m != 0o644 {
			t.Errorf("%s: mode %o, want 644", p, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
