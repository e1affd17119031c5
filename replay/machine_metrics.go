package replay

import "math"

// machineMetrics accumulates the per-machine quantities of EAS's metrics as the run
// goes: the bytes each machine processed and when its last task ended (eqs. 1-4),
// and the un-processed input of the unfinished maps on each machine (§5.4).
type machineMetrics struct {
	mapBytes, mapLastUs []int64 // D^m and T^m per node
	redBytes, redLastUs []int64 // D^r and T^r per node

	// The un-processed input of the running maps that read from a node is
	// Σ B·(F−t)/(F−L) over them (progress linear in time from launch L to finish
	// F), kept as loadA − t·loadRate with loadA = Σ B·F/(F−L) and loadRate =
	// Σ B/(F−L); loadN counts them so that the sums restart from zero, free of
	// rounding drift, whenever a node has none.
	loadA, loadRate []float64
	loadN           []int32
	// pending is the input of the pending maps holding a replica on each node,
	// each map counted on every replica holder; repl is the run's replication.
	pending []int64
	repl    int64

	lbSum float64
}

// JobArrived, TaskLaunched and TaskEnded make the metrics an observer of the
// run's bus (bus.go).

// JobArrived counts the job's maps as pending.
func (mm *machineMetrics) JobArrived(e JobEvent) { mm.jobArrived(e.Job) }

// TaskLaunched moves a map's input from pending to running.
func (mm *machineMetrics) TaskLaunched(e TaskEvent) {
	if e.Kind == TaskMap {
		mm.mapLaunched(e.Job, e.Index)
	}
}

// TaskEnded credits a map's or a reduce's input to its machine.
func (mm *machineMetrics) TaskEnded(e TaskEvent) {
	switch e.Kind {
	case TaskMap:
		mm.mapDone(&e.Job.Maps[e.Index])
	case TaskReduce:
		mm.reduceDone(&e.Job.Reduces[e.Index])
	}
}

// JobFinished does nothing.
func (mm *machineMetrics) JobFinished(JobEvent) {}

// Sample does nothing: the load balance is sampled per map launches
// (sampleUnprocessedLoad).
func (mm *machineMetrics) Sample(SampleEvent) {}

// Transfer does nothing.
func (mm *machineMetrics) Transfer(TransferEvent) {}

func (mm *machineMetrics) init(nodes int, repl int) {
	mm.pending, mm.repl = make([]int64, nodes), int64(max(repl, 1))
	mm.mapBytes, mm.mapLastUs = make([]int64, nodes), make([]int64, nodes)
	mm.redBytes, mm.redLastUs = make([]int64, nodes), make([]int64, nodes)
	mm.loadA, mm.loadRate, mm.loadN = make([]float64, nodes), make([]float64, nodes), make([]int32, nodes)
}

// jobArrived counts the job's maps as pending on their replica holders.
func (mm *machineMetrics) jobArrived(j *Job) {
	for i := range j.Maps {
		for _, n := range j.Replicas(int32(i)) {
			mm.pending[n] += j.Maps[i].InputBytes
		}
	}
}

// mapLaunched moves a launched map's input from pending on its replica holders to
// running on the node it reads from.
func (mm *machineMetrics) mapLaunched(j *Job, i int32) {
	m := &j.Maps[i]
	for _, n := range j.Replicas(i) {
		mm.pending[n] -= m.InputBytes
	}
	mm.loadN[m.srcNode]++
	if d := m.FinishUs - m.LaunchUs; d > 0 && m.InputBytes > 0 {
		rate := float64(m.InputBytes) / float64(d)
		mm.loadA[m.srcNode] += rate * float64(m.FinishUs)
		mm.loadRate[m.srcNode] += rate
	}
}

// mapDone credits a finished map's input to the machine that ran it and takes its
// load off the machine it read from.
func (mm *machineMetrics) mapDone(m *MapTask) {
	mm.mapBytes[m.Node] += m.InputBytes
	mm.mapLastUs[m.Node] = max(mm.mapLastUs[m.Node], m.FinishUs)
	src := m.srcNode
	mm.loadN[src]--
	if mm.loadN[src] == 0 {
		mm.loadA[src], mm.loadRate[src] = 0, 0
	} else if d := m.FinishUs - m.LaunchUs; d > 0 && m.InputBytes > 0 {
		rate := float64(m.InputBytes) / float64(d)
		mm.loadA[src] -= rate * float64(m.FinishUs)
		mm.loadRate[src] -= rate
	}
}

// reduceDone credits a finished reduce's shuffle input to its machine.
func (mm *machineMetrics) reduceDone(r *ReduceTask) {
	mm.redBytes[r.Node] += r.ShuffleBytes
	mm.redLastUs[r.Node] = max(mm.redLastUs[r.Node], r.FinishUs)
}

// sampleUnprocessedLoad adds LB^t of EAS §5.4 to the sum: the standard deviation
// over the map machines of their load in MB, the load of a machine being the
// un-processed input of the unfinished maps on it. Those are the running maps
// reading from it (a best-effort remote map loads the machine it reads from, as
// §5.4 says) and the maps not yet launched: for a plan-based policy
// (QueuedLoader), the maps it holds queued there; otherwise a pending map, which
// may still run on any of its replica holders, loads each of them by its input
// divided by the replication.
func (s *Sim) sampleUnprocessedLoad() {
	mm := &s.mm
	ql, _ := s.pol.(QueuedLoader)
	now := float64(s.now)
	var sum, sq float64
	n := 0
	for i := range s.nodes {
		if s.topo.Nodes[i].MapSlots == 0 {
			continue
		}
		l := max(0, mm.loadA[i]-now*mm.loadRate[i])
		if ql != nil {
			l += float64(ql.QueuedInputBytes(int32(i)))
		} else {
			l += float64(mm.pending[i]) / float64(mm.repl)
		}
		l /= 1e6
		sum += l
		sq += l * l
		n++
	}
	mean := sum / float64(n)
	mm.lbSum += math.Sqrt(max(0, sq/float64(n)-mean*mean))
}

// summarise fills the EAS metrics of the run summary: eqs. 3 and 4 sum eqs. 1 and
// 2, D/T per machine in MB/s with T counted from the first submission, over the
// machines that ran a task of that kind.
func (mm *machineMetrics) summarise(sum *RunSummary) {
	for i := range mm.mapBytes {
		if mm.mapLastUs[i] > 0 {
			sum.MapMachineThroughput += float64(mm.mapBytes[i]) / float64(mm.mapLastUs[i])
		}
		if mm.redLastUs[i] > 0 {
			sum.ReduceMachineThroughput += float64(mm.redBytes[i]) / float64(mm.redLastUs[i])
		}
	}
	sum.LoadBalanceSum = mm.lbSum
}
