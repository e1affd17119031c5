package policy

import "github.com/tracereplay/tracereplay/replay"

// SchedulesContainers marks the YARN policies as replay.ContainerPolicy: they
// run on cluster = "yarn" models only, and --policy all picks them there.
func (b *yarnBase) SchedulesContainers() {}

// TickInterval is the preemption monitor's interval when preemption is on
// (yarn.resourcemanager.monitor.capacity.preemption.monitoring_interval), so
// that the engine's timer (replay.Ticker) runs it even when no NodeManager
// heartbeats; 0 otherwise.
func (p *YARNCapacity) TickInterval() int64 {
	if !p.conf.Preemption.Enabled {
		return 0
	}
	return p.conf.Preemption.MonitoringIntervalUs
}

// TickInterval is the preemption interval when preemption is on
// (yarn.scheduler.fair.preemptionInterval), for the engine's timer
// (replay.Ticker); 0 otherwise.
func (p *YARNFair) TickInterval() int64 {
	if !p.preempt {
		return 0
	}
	return p.preemptEvery
}

// LeafQueue is the path of the leaf queue job j is in ("root.a.b"), or the
// trace's queue name for a job the policy never placed (replay.QueueReporter).
func (p *YARNCapacity) LeafQueue(j *replay.JobView) string {
	if a := p.apps[j.Index()]; a != nil {
		return a.q.conf.Path
	}
	return j.Queue()
}

// GuaranteedShare is the leaf queue's absolute capacity, the share of the
// cluster it is guaranteed; -1 for a name that is not a leaf.
func (p *YARNCapacity) GuaranteedShare(queue string) float64 {
	if q, ok := p.leaves[queue]; ok {
		return q.conf.AbsoluteCapacity
	}
	return -1
}

// LeafQueue is the path of the leaf queue job j is in, or the trace's queue
// name for a job the policy never placed (replay.QueueReporter).
func (p *YARNFair) LeafQueue(j *replay.JobView) string {
	if a := p.apps[j.Index()]; a != nil {
		return a.q.conf.Path
	}
	return j.Queue()
}

// GuaranteedShare is the queue's instantaneous fair share of the cluster's
// memory (FSQueue.getFairShare over the cluster), -1 for a name that is not a
// queue or before the first update.
func (p *YARNFair) GuaranteedShare(queue string) float64 {
	q, ok := p.byPath[queue]
	if !ok || p.yc == nil || p.yc.ClusterResource().MemoryMB <= 0 {
		return -1
	}
	return float64(q.fairShare.MemoryMB) / float64(p.yc.ClusterResource().MemoryMB)
}
