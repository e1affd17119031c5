package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// readFB50 reads the first 50 jobs of FB-2009.
func readFB50(t *testing.T) *trace.Trace {
	t.Helper()
	path := filepath.Join("..", "samples", "traces", "fb2009-first50.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
