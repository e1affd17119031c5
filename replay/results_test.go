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

// A manifest written by the simulator records each run's hardware identity and
// reads back without the simulator (results.RunManifest) with that identity and
// the model's name; a manifest of before the identity was recorded (hardware
// under its Go field names) gets the same identity computed from its JSON
// (results.HardwareJSON.SHA256), as report/identity.go does.
func TestManifestHardwareIdentity(t *testing.T) {
	base := DefaultHardware()
	life := DefaultHardware()
	life.Name, life.Lifecycle, life.Racks = "life", true, 3
	for _, hw := range []Hardware{base, life} {
		id := HardwareSHA256(hw)
		b, err := json.Marshal(Manifest{Runs: []ManifestRun{{Dir: "d", Hardware: hw, HardwareSHA256: id}}})
		if err != nil {
			t.Fatal(err)
		}
		var m results.RunManifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got := m.Runs[0]
		if got.HardwareSHA256 != id || id == "" {
			t.Errorf("%s: identity read back %q, the simulator's %q", hw.Name, got.HardwareSHA256, id)
		}
		if got.Hardware.Name() != hw.Name {
			t.Errorf("name read back %q, want %q", got.Hardware.Name(), hw.Name)
		}
		again, err := json.Marshal(m)
		if err != nil || string(again) != string(b) {
			t.Errorf("%s: manifest re-encoded differs:\n%s\n%s (%v)", hw.Name, again, b, err)
		}
		legacy, err := hw.FieldJSON()
		if err != nil {
			t.Fatal(err)
		}
		if got := results.HardwareJSON(legacy).SHA256(); got != id {
			t.Errorf("%s: identity of the legacy manifest's hardware %s, want %s", hw.Name, got, id)
		}
	}
}
