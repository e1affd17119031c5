package replay

import (
	"math"

	"github.com/tracereplay/tracereplay/internal/results"
)

// The results schema (the rows of a run's Parquet files, run.json and
// manifest.json) is package internal/results, which the report reads without
// linking the simulator. These aliases keep the engine's names for its types.

// JobResult is one job's outcome in one run (results.Job).
type JobResult = results.Job

// TaskResult is one task's outcome in one run (results.Task).
type TaskResult = results.Task

// TimelineSample is the number of running tasks of one job at one sampled
// instant (results.TimelineSample).
type TimelineSample = results.TimelineSample

// RunSummary holds the run-level metrics of one run, run.json
// (results.RunSummary).
type RunSummary = results.RunSummary

// JobRow is a JobResult as stored in jobs.parquet (results.JobRow).
type JobRow = results.JobRow

// TaskRow is a TaskResult as stored in tasks.parquet (results.TaskRow).
type TaskRow = results.TaskRow

// TimelineRow is a TimelineSample as stored in timeline.parquet
// (results.TimelineRow).
type TimelineRow = results.TimelineRow

// NodeResult is one node's totals in one run (results.NodeResult).
type NodeResult = results.NodeResult

// NodeNetSample is one node's network bytes in one timeline interval
// (results.NodeNetSample).
type NodeNetSample = results.NodeNetSample

// QueueSample is one queue's resources at one timeline instant of a YARN run
// (results.QueueSample).
type QueueSample = results.QueueSample

// LinkSample is one link's load at one timeline instant under network =
// "flow" (results.LinkSample).
type LinkSample = results.LinkSample

// Manifest is OUT/manifest.json with each run's hardware model
// (results.Manifest).
type Manifest = results.Manifest[Hardware]

// ManifestRun is one run of a Manifest (results.ManifestRun).
type ManifestRun = results.ManifestRun[Hardware]

// Unset marks a result time that did not happen.
const Unset = results.Unset

// JobResults converts stored rows back to JobResults (results.Jobs).
func JobResults(rows []JobRow) []JobResult { return results.Jobs(rows) }

// TimelineSamples converts rows read from timeline.parquet
// (results.TimelineSamples).
func TimelineSamples(rows []TimelineRow) []TimelineSample { return results.TimelineSamples(rows) }

// ReadSummary reads a run's run.json (results.ReadSummary).
func ReadSummary(dir string) (RunSummary, error) { return results.ReadSummary(dir) }

// RackCount is the number of racks in the cluster: its layout's when derived
// from a trace, else Racks.
func (h *Hardware) RackCount() int {
	if h.Layout != nil {
		return len(h.Layout)
	}
	return h.Racks
}

// runAcc accumulates the run summary's per-job figures (summarise) one job at
// a time, in the order the jobs finished, so that a run that streams its
// results need not hold them: the sums are those of a loop over Result.Jobs
// before they are sorted, to the bit (Jain's index sums its floats in that
// order).
type runAcc struct {
	jobs                  int
	maps, reduces, flowUs int64
	first, last           int64 // earliest submit, latest finish
	local, rack           int64 // maps node-local, rack-local
	slowSum, slowSq       float64
}

func (a *runAcc) init() { *a = runAcc{first: math.MaxInt64} }

func (a *runAcc) add(r *JobResult) {
	a.jobs++
	a.maps += int64(r.Maps)
	a.reduces += int64(r.Reduces)
	a.flowUs += r.FlowtimeUs
	a.first, a.last = min(a.first, r.SubmitUs), max(a.last, r.FinishUs)
	a.local += int64(r.MapsNodeLocal)
	a.rack += int64(r.MapsRackLocal)
	a.slowSum += r.Slowdown
	a.slowSq += r.Slowdown * r.Slowdown
}

// jain is Jain's fairness index of the jobs' slowdowns, (Σx)² / (n·Σx²).
func (a *runAcc) jain() float64 {
	if a.slowSq == 0 {
		return 1
	}
	return a.slowSum * a.slowSum / (float64(a.jobs) * a.slowSq)
}
