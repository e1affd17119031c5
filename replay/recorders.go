package replay

// taskRecorder records a task row for each map and reduce that ends
// (Options.RecordTasks).
type taskRecorder struct {
	NopObserver
	s *Sim
}

// TaskEnded records the task's row; a preempted attempt has none (the task's
// row is its completing attempt's).
func (t taskRecorder) TaskEnded(e TaskEvent) {
	if e.Killed {
		return
	}
	switch e.Kind {
	case TaskMap:
		t.s.recordMap(e.Job, e.Index)
	case TaskReduce:
		t.s.recordReduce(e.Job, e.Index)
	}
}

// timelineRecorder records, at each sample instant, the running maps and
// reduces of every active job with a running task and of the cluster
// (Options.Timeline), for simulated and observed runs alike; add keeps a row.
type timelineRecorder struct {
	NopObserver
	add func(TimelineSample)
}

// Sample records the instant's rows.
func (t timelineRecorder) Sample(e SampleEvent) {
	var tm, tr int32
	for _, j := range e.Active {
		if j.Running() > 0 {
			t.add(TimelineSample{TimeUs: e.Time, JobIndex: j.Index,
				RunningMaps: j.RunningMaps, RunningReduces: j.RunningReduces})
			tm += j.RunningMaps
			tr += j.RunningReduces
		}
	}
	t.add(TimelineSample{TimeUs: e.Time, JobIndex: -1, RunningMaps: tm, RunningReduces: tr})
}
