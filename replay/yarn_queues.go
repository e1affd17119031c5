package replay

import (
	"maps"
	"slices"
)

// QueueReporter is implemented by YARN policies that put jobs in a queue
// tree (yarn-capacity, yarn-fair): the run's queues.parquet then names each
// job's leaf queue as the policy placed it and each queue's guaranteed share.
type QueueReporter interface {
	// LeafQueue is the leaf queue job j is in.
	LeafQueue(j *JobView) string
	// GuaranteedShare is queue's guaranteed share of the cluster (the
	// Capacity Scheduler's absolute capacity, the Fair Scheduler's steady
	// fair share), or -1 when it has none to report.
	GuaranteedShare(queue string) float64
}

// queueRecorder writes, at each timeline instant of a YARN run, what each
// queue's active jobs hold (queues.parquet).
type queueRecorder struct {
	NopObserver
	s   *Sim
	acc map[string]*QueueSample
}

// Sample records one row per queue with an active job.
func (q *queueRecorder) Sample(e SampleEvent) {
	if q.acc == nil {
		q.acc = map[string]*QueueSample{}
	}
	clear(q.acc)
	rep, _ := q.s.pol.(QueueReporter)
	for _, j := range e.Active {
		name := j.Trace.Queue
		if rep != nil {
			name = rep.LeafQueue(j.View())
		}
		if name == "" {
			name = "default"
		}
		r := q.acc[name]
		if r == nil {
			r = &QueueSample{TimeUs: e.Time, Queue: name, Guaranteed: -1}
			if rep != nil {
				r.Guaranteed = rep.GuaranteedShare(name)
			}
			q.acc[name] = r
		}
		r.MemoryMB += j.yarn.usage.MemoryMB
		r.VCores += j.yarn.usage.VCores
		r.Containers += j.RunningMaps + j.RunningReduces
		if j.yarn.amNode >= 0 {
			r.Containers++
		}
		r.ActiveApps++
		if j.yarn.amPending {
			r.PendingAMs++
		}
	}
	total := float64(q.s.yarn.total.MemoryMB)
	for _, name := range slices.Sorted(maps.Keys(q.acc)) {
		r := q.acc[name]
		r.Share = float64(r.MemoryMB) / total
		q.s.addQueue(*r)
	}
}

// leafQueues wraps a job-result adjustment so that a job's result names the
// leaf queue rep placed it in.
func leafQueues(rep QueueReporter, then func(*Job, *JobResult)) func(*Job, *JobResult) {
	return func(j *Job, r *JobResult) {
		r.Queue = rep.LeafQueue(j.View())
		if then != nil {
			then(j, r)
		}
	}
}
