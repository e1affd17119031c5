package trace

import (
	"os"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// TestMain runs the tests with testgate.Main (the fast lane collects less
// often), then removes the histories historyTraceDirs wrote.
func TestMain(m *testing.M) {
	code := testgate.Main(m)
	if root := historyTraceRoot.Load(); root != nil {
		os.RemoveAll(*root)
	}
	os.Exit(code)
}
