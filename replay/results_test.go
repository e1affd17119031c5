package replay

import (
	"encoding/json"
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

// A hardware model read back from a manifest without the simulator
// (results.HardwareJSON) has the identity the simulator gives it, and the
// manifest written with replay.Hardware reads back with its name.
func TestManifestHardwareIdentity(t *testing.T) {
	base := DefaultHardware()
	life := DefaultHardware()
	life.Name, life.Lifecycle, life.Racks = "life", true, 3
	for _, hw := range []Hardware{base, life} {
		b, err := json.Marshal(Manifest{Runs: []ManifestRun{{Dir: "d", Hardware: hw}}})
		if err != nil {
			t.Fatal(err)
		}
		var m results.RunManifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got := m.Runs[0].Hardware
		if got.SHA256() != HardwareSHA256(hw) || got.SHA256() == "" {
			t.Errorf("%s: identity read back %s, the simulator's %s", hw.Name, got.SHA256(), HardwareSHA256(hw))
		}
		if got.Name() != hw.Name {
			t.Errorf("name read back %q, want %q", got.Name(), hw.Name)
		}
		again, err := json.Marshal(m)
		if err != nil || string(again) != string(b) {
			t.Errorf("%s: manifest re-encoded differs:\n%s\n%s (%v)", hw.Name, again, b, err)
		}
	}
}
