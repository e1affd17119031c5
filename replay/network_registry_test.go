package replay

import (
	"testing"

	"github.com/tracereplay/tracereplay/trace"
)

// TestModelRegistries: every registered network model keeps its contract
// (NewFlows returns a transfer network exactly when it Retimes) and every
// name the keys accept builds its own model.
func TestModelRegistries(t *testing.T) {
	for _, name := range NetworkModelNames() {
		h := DefaultHardware()
		h.Network = NetworkName(name)
		if err := h.Validate(); err != nil {
			t.Fatalf("network %s: %v", name, err)
		}
		m := h.NetworkModel()
		fl, err := m.NewFlows(NewTopology(&h, 1))
		if err != nil || (fl != nil) != m.Retimes() {
			t.Errorf("network %s: NewFlows = %v, %v; Retimes %v", name, fl, err, m.Retimes())
		}
		if got := m.ReadUs(125e6, RackLocal, 2); got <= 0 {
			t.Errorf("network %s: ReadUs = %g", name, got)
		}
	}
	tt := &trace.Task{StartMs: 1000, FinishMs: 4000}
	for name, want := range map[TaskTimeSource]int64{TaskTimesModel: -1, TaskTimesTrace: 3e6, TaskTimesAuto: 3e6} {
		h := DefaultHardware()
		h.TaskTimes = name
		if got := h.TaskTimeModel().ObservedUs(tt); got != want {
			t.Errorf("task_times %s: ObservedUs = %d, want %d", name, got, want)
		}
	}
}
