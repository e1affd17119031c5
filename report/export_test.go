package report

import "testing"

// CheckGolden is checkGolden for the external tests (package report_test), which
// may import the presets that import report.
func CheckGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	checkGolden(t, name, got)
}
