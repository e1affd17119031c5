// Package testtraces finds the public traces of ../shared/traces for tests and
// benchmarks that replay them (FB-2009, FB-2010), which are too large to commit.
package testtraces

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// SWIM reads the SWIM trace name from $TRACEREPLAY_TRACES/swim, else from the
// first shared/traces/swim found up to four directories above the test's
// package (the main checkout's sibling, or a worktree's), or skips tb.
func SWIM(tb testing.TB, name string) *trace.Trace {
	tb.Helper()
	path := filepath.Join(os.Getenv("TRACEREPLAY_TRACES"), "swim", name)
	if os.Getenv("TRACEREPLAY_TRACES") == "" {
		for _, up := range []string{"../..", "../../..", "../../../.."} {
			path = filepath.Join(up, "shared", "traces", "swim", name)
			if _, err := os.Stat(path); err == nil {
				break
			}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("shared trace not available: %v", err)
	}
	defer f.Close()
	tr, _, err := trace.ReadInput(path, f, "auto", trace.ReadOptions{})
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	return tr
}
