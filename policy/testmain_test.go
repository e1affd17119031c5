package policy

import (
	"os"
	"testing"

	"github.com/tracereplay/tracereplay/internal/testgate"
)

// TestMain runs the tests with testgate.Main: the fast lane collects less
// often.
func TestMain(m *testing.M) { os.Exit(testgate.Main(m)) }
