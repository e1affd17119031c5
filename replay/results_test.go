package replay

import (
	"testing"

	"github.com/tracereplay/tracereplay/internal/results"
)

// The observed schedule's policy name is the engine's (observed.go) and the
// results schema's, which the report reads without the engine.
func TestObservedPolicyName(t *testing.T) {
	if ObservedPolicy != results.ObservedPolicy {
		t.Fatalf("replay.ObservedPolicy %q, results.ObservedPolicy %q", ObservedPolicy, results.ObservedPolicy)
	}
}
