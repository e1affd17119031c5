// Package golden is the one -update golden-file helper of the tests: a test
// compares what it produced with a committed file through Check, and
// `go test -update` rewrites the files instead. Only test files import it; the
// -update flag is registered once per test binary, here.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// update is the -update flag; set on the command line, never written by code.
var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Update reports whether the test binary was run with -update.
func Update() bool { return *update }

// Check compares got with the golden file at path. Under -update it writes got
// to path instead (creating its directory) and passes.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	switch {
	case bytes.Equal(got, want):
	case !utf8.Valid(got) || !utf8.Valid(want):
		t.Errorf("%s differs from the golden file (%d vs %d bytes; go test -update rewrites it)", path, len(got), len(want))
	default:
		t.Errorf("%s differs from the golden file %s (go test -update rewrites it)\n--- got ---\n%s\n--- want ---\n%s",
			firstDiff(got, want), path, got, want)
	}
}

// Write writes data to the golden file at path, creating its directory; for
// tests that compare in their own way and rewrite under Update.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff names the first line where got and want differ.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) && i < len(w); i++ {
		if !bytes.Equal(g[i], w[i]) {
			return fmt.Sprintf("line %d", i+1)
		}
	}
	if len(g) != len(w) {
		return fmt.Sprintf("line %d (%d lines, want %d)", min(len(g), len(w))+1, len(g), len(w))
	}
	return "the output"
}
