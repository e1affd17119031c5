package replay

// taskRecorder records a task row for each map and reduce that ends
// (Options.RecordTasks).
type taskRecorder struct {
	NopObserver
	s *Sim
}

// TaskEnded records the task's row.
func (t taskRecorder) TaskEnded(e TaskEvent) {
	switch e.Kind {
	case TaskMap:
		t.s.recordMap(e.Job, e.Index)
	case TaskReduce:
		t.s.recordReduce(e.Job, e.Index)
	}
}

// timelineRecorder records, at each sample instant, the running maps and
// reduces of every active job with a running task and of the cluster
// (Options.Timeline).
type timelineRecorder struct {
	NopObserver
	s *Sim
}

// Sample records the instant's rows.
func (t timelineRecorder) Sample(e SampleEvent) {
	var tm, tr int32
	for _, j := range e.Active {
		if j.Running() > 0 {
			t.s.addSample(TimelineSample{TimeUs: e.Time, JobIndex: j.Index,
				RunningMaps: j.RunningMaps, RunningReduces: j.RunningReduces})
			tm += j.RunningMaps
			tr += j.RunningReduces
		}
	}
	t.s.addSample(TimelineSample{TimeUs: e.Time, JobIndex: -1, RunningMaps: tm, RunningReduces: tr})
}
