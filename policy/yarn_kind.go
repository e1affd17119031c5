package policy

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
