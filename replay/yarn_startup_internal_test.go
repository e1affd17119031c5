package replay

import "testing"

// TestRunHardwareContainerStartup: container_startup replaces task_startup
// only on a YARN cluster with modelled durations; trace mode (whose start-up
// is the gap before an observed attempt) and slot clusters keep theirs.
func TestRunHardwareContainerStartup(t *testing.T) {
	for _, c := range []struct {
		cluster ClusterKind
		times   TaskTimeSource
		want    Duration
	}{
		{ClusterYARN, TaskTimesModel, 7e5},
		{ClusterYARN, TaskTimesTrace, 5e6},
		{ClusterSlots, TaskTimesModel, 5e6},
	} {
		hw := DefaultHardware()
		hw.Cluster, hw.TaskTimes, hw.TaskStartup, hw.ContainerStartup = c.cluster, c.times, 5e6, 7e5
		got := runHardware(&hw, hw.TaskTimeModel())
		if got.TaskStartup != c.want || hw.TaskStartup != 5e6 {
			t.Errorf("%s, %s: task_startup %v (the model's %v), want %v", c.cluster, c.times, got.TaskStartup, hw.TaskStartup, c.want)
		}
	}
}
