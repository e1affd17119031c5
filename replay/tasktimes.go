package replay

import "github.com/tracereplay/tracereplay/trace"

// Task-time models. The hardware model's task_times key names one of the
// models taskTimeModels registers; the name is checked when the TOML is parsed
// (TaskTimeSource.UnmarshalText) and the workload builds the model from it.
// Adding a model is one file with its type and a line in taskTimeModels.

// TaskTimeModel is where a task's duration comes from: computed from its bytes
// and the hardware's rates (the workload's model), or taken from the trace.
type TaskTimeModel interface {
	// ObservedUs is the duration in µs the model takes for trace task tt
	// (finish − start of its successful attempt, in trace mode rescaled to
	// where the replay runs it), or -1 to compute it from bytes and rates.
	ObservedUs(tt *trace.Task) int64
	// UsesTrace reports whether the model reads the trace's times at all: with
	// the lifecycle, the jobs' observed initialisation, setup and cleanup
	// times, failed attempts and the cluster's start (lifecycle*.go).
	UsesTrace() bool
}

// The task-time models this package registers.
const (
	// TaskTimesModel computes durations from bytes and rates.
	TaskTimesModel TaskTimeSource = "model"
	// TaskTimesTrace takes each task's observed duration, rescaled to where the
	// replay runs it (tracemode.go).
	TaskTimesTrace TaskTimeSource = "trace"
	// TaskTimesAuto takes the trace's duration when the task has one and the
	// model's otherwise.
	TaskTimesAuto TaskTimeSource = "auto"
)

// taskTimeModel is one entry of the registry: a task_times name and its model.
type taskTimeModel struct {
	name TaskTimeSource
	new  func(h *Hardware) TaskTimeModel
}

// taskTimeModels is the registry of task-time models, in the order the
// task_times key's valid values are listed. "trace" and "auto" are one model:
// a task without a recorded duration takes the modelled one under both.
func taskTimeModels() []taskTimeModel {
	return []taskTimeModel{
		{TaskTimesModel, func(*Hardware) TaskTimeModel { return modelTimes{} }},
		{TaskTimesTrace, func(*Hardware) TaskTimeModel { return traceTimes{} }},
		{TaskTimesAuto, func(*Hardware) TaskTimeModel { return traceTimes{} }},
	}
}

// TaskTimeSourceNames lists the valid values of the task_times key.
func TaskTimeSourceNames() []string {
	var names []string
	for _, m := range taskTimeModels() {
		names = append(names, string(m.name))
	}
	return names
}

// TaskTimeModel builds the model the task_times key names; the modelled
// times when the key is invalid, which Validate reports.
func (h *Hardware) TaskTimeModel() TaskTimeModel {
	for _, m := range taskTimeModels() {
		if m.name == h.TaskTimes {
			return m.new(h)
		}
	}
	return modelTimes{}
}

// modelTimes computes every duration from bytes and rates (task_times = "model").
type modelTimes struct{}

// ObservedUs is -1: never the trace's.
func (modelTimes) ObservedUs(*trace.Task) int64 { return -1 }

// UsesTrace is false.
func (modelTimes) UsesTrace() bool { return false }

// traceTimes takes each task's observed duration when the trace records one
// (task_times = "trace" or "auto"; tracemode.go).
type traceTimes struct{}

// ObservedUs is the task's finish − start, -1 when either is unknown.
func (traceTimes) ObservedUs(tt *trace.Task) int64 {
	if tt.StartMs < 0 || tt.FinishMs < tt.StartMs {
		return -1
	}
	return (tt.FinishMs - tt.StartMs) * 1000
}

// UsesTrace is true.
func (traceTimes) UsesTrace() bool { return true }
