package replay

import "github.com/tracereplay/tracereplay/internal/results"

// jobMetrics builds each job's JobResult from the bus's events, for simulated
// and observed runs alike: the first task launch, the last map end, the first
// and last reduce launch, the reduces launched after the last map ended and
// their wait for it (starvation, Coupling §III-C), map locality, flowtime,
// waiting time and slowdown. A per-job metric is computed here once.
//
// It reads the state the run keeps on the Job (FirstLaunchUs, LastMapEndUs,
// FinishedMaps), keeps its own per-job state in the Job's metric fields
// (firstRed, lastRed, late, lateSumUs, loc), so that nothing is kept of a
// finished job, and appends each result to jobs when the job finishes.
type jobMetrics struct {
	NopObserver
	jobs *[]JobResult
	// adjust, if set, amends a result before it is kept: the simulator's
	// lifecycle reports times as the job history records them (lcHistoryTimes).
	adjust func(j *Job, r *JobResult)
	// observed marks the observed schedule's run: a job's status is the
	// trace's, not the simulation's.
	observed bool
	// sink, if set, receives each finished job's result, built in scratch,
	// instead of jobs; it copies what it keeps.
	sink    func(*JobResult)
	scratch JobResult
}

// jobMetricsEvents are the events jobMetrics listens to.
const jobMetricsEvents = onJobArrived | onTaskLaunched | onJobFinished

func newJobMetrics(jobs *[]JobResult, adjust func(*Job, *JobResult)) *jobMetrics {
	return &jobMetrics{jobs: jobs, adjust: adjust}
}

// JobArrived starts the job's reduce counts.
func (m *jobMetrics) JobArrived(e JobEvent) {
	j := e.Job
	j.firstRed, j.lastRed, j.late, j.lateSumUs = Unset, Unset, 0, 0
}

// TaskLaunched counts a map's locality, and a reduce's launch and, when the
// job's maps are all done, its wait since the last one ended.
func (m *jobMetrics) TaskLaunched(e TaskEvent) {
	j := e.Job
	switch e.Kind {
	case TaskMap:
		if e.Locality <= OffRack {
			j.loc[e.Locality]++
		}
	case TaskReduce:
		if j.firstRed == Unset {
			j.firstRed = e.Time
		}
		j.lastRed = max(j.lastRed, e.Time)
		if j.MapsDone() {
			j.late++
			j.lateSumUs += e.Time - j.LastMapEndUs
		}
	}
}

// JobFinished builds the job's result; a finish at Unset (an observed job
// whose trace records none) leaves its flowtime and slowdown unset.
func (m *jobMetrics) JobFinished(e JobEvent) {
	j, tj := e.Job, e.Job.Trace
	// built in place (in jobs, or in scratch for sink): a result passed to
	// adjust would escape
	var r *JobResult
	if m.sink == nil {
		*m.jobs = append(*m.jobs, JobResult{})
		r = &(*m.jobs)[len(*m.jobs)-1]
	} else {
		r = &m.scratch
	}
	*r = JobResult{
		JobIndex: j.Index, JobID: tj.ID, Name: tj.Name, User: tj.User, Queue: tj.Queue,
		Maps: j.NumMaps(), Reduces: int32(len(j.Reduces)),
		SubmitUs: j.SubmitUs, FirstLaunchUs: j.FirstLaunchUs, LastMapEndUs: j.LastMapEndUs,
		FirstReduceLaunchUs: j.firstRed, LastReduceLaunchUs: j.lastRed, FinishUs: e.Time,
		FlowtimeUs: Unset, IdealUs: j.IdealUs, WaitingUs: Unset,
		ReducesLate: j.late, InputBytes: tj.InputBytes, ShuffleBytes: tj.ShuffleBytes, OutputBytes: tj.OutputBytes,
		ObservedFlowtimeUs: Unset, AloneUs: Unset, Status: results.StatusSucceeded,
	}
	switch {
	case m.observed:
		r.Status = tj.Status
	case j.life.fail.failed:
		r.Status = results.StatusFailed
	}
	if e.Time != Unset {
		r.FlowtimeUs = e.Time - j.SubmitUs
	}
	if j.FirstLaunchUs != Unset {
		r.WaitingUs = j.FirstLaunchUs - j.SubmitUs
	}
	if j.late > 0 {
		r.StarvationUs = j.lateSumUs / int64(j.late)
	}
	if m.adjust != nil {
		m.adjust(j, r)
	}
	if e.Time != Unset && j.IdealUs > 0 {
		r.Slowdown = float64(r.FlowtimeUs) / float64(j.IdealUs)
	}
	if tj.FinishMs >= 0 && tj.SubmitMs >= 0 && tj.FinishMs >= tj.SubmitMs {
		r.ObservedFlowtimeUs = (tj.FinishMs - tj.SubmitMs) * 1000
	}
	l := j.loc
	r.MapsNodeLocal, r.MapsRackLocal, r.MapsOffRack = l[NodeLocal], l[RackLocal], l[OffRack]
	if m.sink != nil {
		m.sink(r)
	}
}
