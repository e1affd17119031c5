package replay

// network = "flow" on a YARN cluster (docs/yarn.md, docs/network-model.md).
//
// The flow model's resources are a node's disk and NIC and the network's
// links, not its slots, so on cluster = "yarn" it runs as on a slot cluster:
// every container's map reads its input, spills its output, and every
// reduce fetches map outputs and writes its output through its HDFS pipeline
// as flows sharing the disks and links with every other container's. Two
// things are YARN's own:
//
//   - A container allocated at a NodeManager's heartbeat reaches its job at
//     the AM's next allocate call (amWaitUs): a map's or a reduce's stages
//     (its failed attempts, its start-up, then its read or its fetches)
//     start that much later (flowMapLaunched, flowReduceLaunched,
//     reduceAttemptsFetch).
//   - A container killed before its task ends — preempted by the scheduler
//     (YARNCluster.Preempt) or a reduce killed by its MRAppMaster
//     (amPreemptReduces) — ends its transfers with it, as a killed attempt's
//     do on a slot cluster (network_cancel.go): its transfers under way are
//     withdrawn (the bytes each moved reported to the observers), its
//     pending stage events are dropped, and its shuffle state is cleared, so
//     that the task, pending again, starts afresh when it is launched again.

// withdrawMapFlows ends preempted map i of job j's work under network =
// "flow": its read, spill or merge under way is withdrawn and its next stage
// event dropped. It does nothing under the other models.
func (s *Sim) withdrawMapFlows(j *Job, i int32) {
	if s.fn == nil || j.out.disk == nil {
		return
	}
	s.withdrawAttempt(j, int(i)) // network_cancel.go
	s.dropTaskEvent(j.Index, evTaskFlow, i)
	j.out.disk.stage[i] = mapGone
}

// withdrawReduceFlows ends preempted reduce i of job j's work under network
// = "flow": its fetches and output write under way are withdrawn, its stage
// events dropped, its shuffle state cleared and it receives no more map
// outputs until it is launched again. It does nothing under the other
// models.
func (s *Sim) withdrawReduceFlows(j *Job, i int32) {
	if s.fn == nil || j.out.disk == nil {
		return
	}
	s.cancelReduceFlows(j, i) // network_cancel.go: transfers, fetch state, stage events
	if d := j.out.disk; d.redLeft != nil {
		d.redLeft[i] = 0
	}
	s.dropFetcher(j, i) // shuffle.go
}
