// Package scenario replays the schedule scenario files of internal/scenario/testdata/schedules
// through the public API (replay.NewWorkload, policy.New, replay.Run) and
// compares each run's launch log with the one the file records. It has tests
// only; see scenario_test.go for the file format and README.md beside the
// files.
package scenario
