package trace

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/sample-trace from sampleTrace()")

// TestSampleTraceGolden pins the exact bytes Write produces for sampleTrace(), so
// that a change of the on-disk format (column order, types, encodings, metadata)
// cannot go unnoticed; regenerate with go test ./trace -run Golden -update.
// scripts/duckdb-check.sh reads the same files with DuckDB.
func TestSampleTraceGolden(t *testing.T) {
	golden := filepath.Join("testdata", "sample-trace")
	if *update {
		if err := Write(golden, sampleTrace()); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "trace")
	if err := Write(dir, sampleTrace()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JobsFile, TasksFile} {
		want, err := os.ReadFile(filepath.Join(golden, f))
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (%d vs %d bytes): on-disk format changed; run with -update if intended",
				f, filepath.Join(golden, f), len(got), len(want))
		}
	}
	got, err := Read(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sampleTrace()) {
		t.Errorf("golden trace reads back different from sampleTrace()")
	}
}
