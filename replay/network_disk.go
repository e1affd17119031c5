package replay

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// Disks as shared resources under network = "flow".
//
// Each node has one disk (disk_mb_per_s), a resource of the flow network like
// a NIC: every transfer reading or writing it shares it max-min fairly with
// the others, and a transfer's rate is its slowest resource's share. Four
// kinds of transfer are flows (TransferKind):
//
//   - a map's input read: the source replica's disk, then (remote) the
//     network path to the map's node;
//   - a map's output spill to its own disk; in a job without reduces, its
//     output written through the HDFS replication pipeline instead, as a
//     reduce's is (below): Hadoop's MapTask hands a map-only job's records
//     to the job's OutputFormat (NewDirectOutputCollector), with no sort,
//     spill or merge, so the map ends when its pipeline write does;
//   - a reduce's fetch of a map's output: the map node's disk, the network
//     path, the reduce node's disk (a fetch from its own node: its disk once);
//   - a reduce's output written through the HDFS replication pipeline: each
//     replica's disk and the network hops between them, one flow at the
//     pipeline's bottleneck, since HDFS forwards each packet down the
//     pipeline as it arrives. The first replica is the writer's node (a
//     random data node when the writer is not one), the second off its rack
//     and the third on the second's rack (placement = "rack-aware"), as
//     HDFS's default block placement does; the draws come from a stream of
//     their own seeded per task (streamOutput), so every policy sees the same
//     pipeline for a task written from a given node.
//
// CPU stays a per-MB rate (map_compute_mb_per_s, reduce_compute_mb_per_s,
// sort_mb_per_s), not shared, and the duration noise (duration_cv) applies to
// it alone. A modelled map runs
//
//	start-up | read ∥ compute | spill
//
// after its start-up (task_startup, and any failed attempts before it, less
// a reused JVM's start-up) its input read starts, and its compute runs beside
// it: Hadoop's MapTask feeds map() from the record reader's stream, so the
// map function processes records while HDFS reads ahead, and the phase lasts
// as long as the slower of the two. The spill follows: MapOutputBuffer sorts
// and spills its buffer when it fills (io.sort.mb × io.sort.spill.percent, 80
// MB by default, more than most maps' output) and at the end (flush), then
// merges the spills into one file; one spill of the whole output after the
// map function ends is that behaviour for outputs that fit the buffer, and for
// larger ones stands for the final spill and merge, which cannot start before
// the map function ends either. The map ends with its spill. A reduce runs
// start-up | fetches | shuffle_fetch_latency's share | merge and reduce ∥ output
// write: the reduce function consumes the merged stream and writes its output
// as it goes, so its CPU (sort and reduce compute) and the pipeline write
// overlap, and the reduce ends with the later. The final merge's read of the
// fetched segments, streamed into the reduce function, is not a flow: under
// fixed the shuffled bytes meet the reduce's disk once (disk_mb_per_s), and
// here that is the fetch's write.
//
// Maps whose duration comes from the trace keep it, and a reduce with an
// observed duration keeps its observed work after its fetches (no output
// write flow). A trace-timed map with a locality rule (trace_locality's
// factors) runs without flows, as under the other models. One without a rule
// (the trace gives its duration but not where it ran, as the generators do,
// or trace_locality = "bandwidth") is timed as under fixed, the observed
// node-local time after its start-up and, when it runs away from its input,
// its read before it, here a flow (the source disk and the network path):
// the observed time already holds its node-local read and spill, so neither
// is a flow of its own.

// streamOutput seeds each reduce's output pipeline placement (and, in a
// job without reduces, each map's).
const streamOutput = 7

// Stages of a modelled map's attempt under network = "flow" (the original's
// in jobDisk.stage, a speculative copy's in mapCopy.stage).
const (
	mapStartup  uint8 = iota // its start-up: the read starts at its end (a timer event is queued)
	mapReading               // its input read (and compute) under way
	mapCompute               // read done, compute still under way: the spill starts at its end (a timer event is queued)
	mapSpilling              // its output spill under way
	mapGone                  // it ended, or was killed when the other attempt won (lifecycle_flowspec.go)
	// A modelled map's failed attempts before its successful one
	// (failingRead): their start-up (a timer event: the read starts at its
	// end), their input read under way until the failure (a timer event
	// too), and the read done before the failure.
	mapFailStartup
	mapFailReading
	mapFailWait
)

// Faults under network = "flow" (lifecycle_faults.go draws them, with the
// same draws as under the other models).
//
// A straggler's factor stretches the stages the task runs by itself: its
// start-up and its CPU — a map's compute (a trace-timed map's observed
// node-local time), a reduce's sort and reduce function (an observed
// reduce's work). Its flows (input read, spill, fetches, output write) run
// at their max-min share like any other task's. The factor is drawn per
// task, independently of its node and of the tasks beside it, so it can only
// stand for what is the task's own; a slow disk or link is its node's and
// would slow every task crossing it, which this model states through that
// resource's capacity and sharing. Slowing one task's flows would also have
// it take less than its max-min share of a bottleneck while its neighbours
// get no more: a per-flow weight, which the solver (plain max-min, as
// SimGrid's CM02 without its factors) does not have. Under fixed the factor
// multiplies the task's whole nominal time, transfers included, because
// there nothing else moves them. So with compute rates of 0 (the paper
// generators') a straggler is slowed under flow in its start-up alone.
//
// Failed attempts (attempt_failure_rate, and in trace mode the observed
// failed and killed attempts before the successful one) hold the task's
// slot before its successful attempt, as under fixed: their drawn or
// observed time comes before the successful attempt's start-up. A modelled
// failed attempt lasts a uniform fraction of the task's nominal, stretched
// time (the draw is made when the job is built, before any flow runs), the
// same time as under fixed. A modelled map's failed attempts read their
// input (failingRead): after their start-up, a read of the map's input from
// the replica it reads, as a flow sharing disks and links, withdrawn when
// the attempts' time is over (the bytes it moved reported, network_cancel.go);
// a read that ends first leaves them computing until then. The draws give
// the failed attempts' total time, not each one's, so two or more failed
// attempts are one start-up and one read over their whole time (a choice:
// each would re-read from the start). A reduce's failed attempts fetch as
// flows until they fail (lifecycle_flowreduce.go). A trace-timed map's
// failed attempts and a map whose every attempt fails (it runs its stages
// and fails at its end) keep the wait without flows.
//
// A reused JVM (jvm_reuse) skips the start-up: the start-up stage lasts
// (task_startup − what the JVM saves) × the factor.

// jobDisk is a job's per-task state under network = "flow". Its per-map
// tables are dropped with the job's map records (dropMaps, from retireMaps);
// maps keeps their count, the offset of the reduces in the per-task tables
// (slow, xhead) and attempt indexes (network_cancel.go).
type jobDisk struct {
	maps    int32    // the job's maps
	mapCPU  []int64  // per map: its compute time, duration noise included
	redOut  []bool   // per reduce: its output is written as a flow (false: an observed duration holds it)
	redSeed []uint64 // per reduce: seeds its output pipeline's placement
	mapSeed uint64   // in a job without reduces (mapOnly): with the map's index, seeds its output pipeline's placement
	mapOnly bool     // the job has no reduces: its maps write their output through HDFS pipelines (startSpill)
	mapEnd  []int64  // per map, while it runs: when its compute ends
	redEnd  []int64  // per reduce, while it runs: when its compute ends
	stage   []uint8  // per map: its original attempt's stage while it runs
	timed   []bool   // per map: its node-local time is observed (mapCPU holds it, after start-up); nil when none is
	// Faults (above), nil when none applies to the job.
	slow     []float64 // per map, then per reduce: its straggler factor (0: none)
	stretch  []int64   // per map: what its factor adds to its nominal time (in its retryUs, which policies' estimates use; not a wait)
	failEnd  []int64   // per map whose failed attempts read (failingRead), while they run: when they fail
	redRetry []int64   // per reduce: its failed attempts' time, before its successful attempt (they fetch: lifecycle_flowreduce.go)
	redLeft  []uint8   // per reduce, with flow_merges: its output write and merge read under way, when both are (lifecycle_flowmerge.go)
	// Speculation (lifecycle_flowspec.go), nil without it.
	copies  map[int32]*mapCopy // per map with one: its speculative copy
	outNode map[int32]int32    // per map whose copy won: the copy's node, which holds the map's output
	// xhead is, per attempt (attempt), 1 + the first of its transfers under
	// way in Sim.xi, 0 none; nil until the job's first transfer
	// (network_cancel.go).
	xhead []int32
}

// setMapFaults records map i's straggler factor (f.factor) and what it adds
// to the map's nominal time (stretchUs).
func (d *jobDisk) setMapFaults(i int, f taskFaults, stretchUs int64) {
	if f.factor == 1 {
		return
	}
	d.setSlow(i, f.factor)
	if d.stretch == nil {
		d.stretch = make([]int64, int(d.maps))
	}
	d.stretch[i] = stretchUs
}

// setReduceFaults records reduce i's straggler factor and failed attempts.
func (d *jobDisk) setReduceFaults(i int, f taskFaults) {
	if f.factor != 1 {
		d.setSlow(int(d.maps)+i, f.factor)
	}
	d.addReduceRetry(i, f.failedUs)
}

// setSlow records task k's straggler factor (k: a map, or the maps' count
// plus a reduce).
func (d *jobDisk) setSlow(k int, factor float64) {
	if d.slow == nil {
		d.slow = make([]float64, int(d.maps)+len(d.redOut))
	}
	d.slow[k] = factor
}

// addReduceRetry adds us of failed attempts before reduce i's successful one.
func (d *jobDisk) addReduceRetry(i int, us int64) {
	if us == 0 {
		return
	}
	if d.redRetry == nil {
		d.redRetry = make([]int64, len(d.redOut))
	}
	d.redRetry[i] += us
}

// slowed is us µs of task k's own work (start-up or CPU) at its straggler
// factor (k: a map, or the maps' count plus a reduce).
func (d *jobDisk) slowed(k int, us int64) int64 {
	if d.slow == nil || d.slow[k] == 0 {
		return us
	}
	return int64(math.Round(float64(us) * d.slow[k]))
}

// mapWaitUs is map i's time from its launch to its read under flow: its
// failed attempts (retryUs less its straggler's stretch, which is in retryUs
// for estimates only), then its start-up, less what a reused JVM saves,
// stretched by its straggler factor.
func (d *jobDisk) mapWaitUs(hw *Hardware, retryUs int64, i int32, saved int64) int64 {
	wait := retryUs + d.slowed(int(i), max(0, int64(hw.TaskStartup)-saved))
	if d.stretch != nil {
		wait -= d.stretch[i]
	}
	return max(0, wait)
}

// reduceWaitUs is reduce i's time from its launch to its first fetch under
// flow: its failed attempts, then its start-up, less what a reused JVM
// saves, stretched by its straggler factor.
func (d *jobDisk) reduceWaitUs(hw *Hardware, i int32, saved int64) int64 {
	wait := d.slowed(int(d.maps)+int(i), max(0, int64(hw.TaskStartup)-saved))
	if d.redRetry != nil {
		wait += d.redRetry[i]
	}
	return wait
}

// setTimed makes map i trace-timed: its observed node-local time localUs
// (start-up included) follows its read, when it has one, instead of the
// modelled read ∥ compute and spill.
func (d *jobDisk) setTimed(hw *Hardware, i int, localUs int64) {
	if d.timed == nil {
		d.timed = make([]bool, int(d.maps))
	}
	d.timed[i] = true
	d.mapCPU[i] = max(0, localUs-int64(hw.TaskStartup))
}

// isTimed reports whether map i is trace-timed (setTimed).
func (d *jobDisk) isTimed(i int32) bool { return d.timed != nil && d.timed[i] }

// dropMaps drops the per-map tables once every map is done and nothing
// reads them again (retireMaps, under flowRetiresMaps: no speculation, faults,
// YARN or lifecycle, whose copies, failed attempts and containers read them
// after a map's end). The per-task tables (slow, xhead) are kept: the
// reduces index them past the maps.
func (d *jobDisk) dropMaps() {
	d.mapCPU, d.mapEnd, d.stage, d.timed, d.stretch, d.failEnd = nil, nil, nil, nil, nil, nil
}

// newJobDisk is the flow state of trace job ti with the given maps and
// reduces; each reduce's pipeline seed is drawn from its own stream.
func (w *Workload) newJobDisk(ti, maps, reduces int) *jobDisk {
	d := &jobDisk{maps: int32(maps), mapCPU: make([]int64, maps), redOut: make([]bool, reduces), redSeed: make([]uint64, reduces),
		mapEnd: make([]int64, maps), redEnd: make([]int64, reduces), stage: make([]uint8, maps)}
	rng := jobRand(w.seed, streamOutput, ti)
	for i := range d.redSeed {
		d.redSeed[i] = rng.Uint64()
	}
	if reduces == 0 {
		d.mapOnly, d.mapSeed = true, rng.Uint64()
	}
	return d
}

// floorUs is the time in µs to move b bytes at r MB/s, rounded down: a lower
// bound on the flow, which runs at most at r (a nominal time that IdealUs may
// use).
func floorUs(b int64, r float64) int64 { return int64(math.Floor(bytesUs(b, r))) }

// mapLocalUs is map i's nominal node-local time under network = "flow", alone
// on its node: start-up, the longer of its read at the disk's rate and its
// compute at rate MB/s (f, the duration noise, on the compute alone), then
// its spill (and with flow_merges its merge), or in a job without reduces
// its output write, which crosses a disk too. It records the compute time.
func (d *jobDisk) mapLocalUs(hw *Hardware, i int, m *MapTask, f, rate float64) int64 {
	cpu := int64(math.Ceil(f * bytesUs(m.InputBytes, rate)))
	d.mapCPU[i] = cpu
	out := m.OutputBytes
	if !d.mapOnly {
		out += mergeBytes(hw, m.OutputBytes)
	}
	return int64(hw.TaskStartup) + max(floorUs(m.InputBytes, hw.DiskMBps), cpu) + floorUs(out, hw.DiskMBps)
}

// reduceWorkUs is reduce i's work after its shuffle under network = "flow":
// the merge's sort and the reduce function, per MB with the noise f; its
// output write is a flow beside it.
func (d *jobDisk) reduceWorkUs(hw *Hardware, i int, r *ReduceTask, f float64) int64 {
	d.redOut[i] = true
	return int64(math.Ceil(f * (bytesUs(r.ShuffleBytes, hw.ReduceComputeMBps) + bytesUs(r.ShuffleBytes, hw.SortMBps))))
}

// reducePostUs is what reduce i needs after its shuffle at the least: its
// work, and beside it its output write at the disk's rate (every pipeline
// crosses a disk) and with flow_merges its merge read.
func (d *jobDisk) reducePostUs(hw *Hardware, i int, r *ReduceTask) int64 {
	if !d.redOut[i] {
		return r.workUs
	}
	post := max(r.workUs, floorUs(r.OutputBytes, hw.DiskMBps))
	if hw.FlowMerges {
		post = max(post, floorUs(r.ShuffleBytes, hw.DiskMBps))
	}
	return post
}

// flowMapLaunched starts map i's stages: its failed attempts and start-up
// (less saved, what a reused JVM saves), then its read; on YARN all of them
// amWait later, when its AM takes the container (amWaitUs, yarn.go).
func (s *Sim) flowMapLaunched(j *Job, i int32, saved, amWait int64) {
	d := j.out.disk
	d.stage[i] = mapStartup
	if fs := s.failingRead(j, i); fs > 0 {
		// Its failed attempts read (above): their start-up, then their read
		// until they fail at now + fs; the successful attempt's read starts
		// at the end of the wait (held in mapEnd until then).
		if d.failEnd == nil {
			d.failEnd = make([]int64, int(d.maps))
		}
		d.stage[i], d.failEnd[i] = mapFailStartup, s.now+amWait+fs
		d.mapEnd[i] = s.now + amWait + d.mapWaitUs(s.hw, j.retryUs(i), i, saved)
		s.schedule(s.now+amWait+min(fs, d.slowed(int(i), int64(s.hw.TaskStartup))), evTaskFlow, j.Index, i)
		return
	}
	if delay := amWait + d.mapWaitUs(s.hw, j.retryUs(i), i, saved); delay > 0 {
		s.schedule(s.now+delay, evTaskFlow, j.Index, i)
		return
	}
	s.taskFlowStage(j, i)
}

// taskFlowStage is an evTaskFlow event: map b's next stage starts (its read
// after its start-up, or its spill after its compute), for b ≥ the job's
// maps the next stage of map b − maps' speculative copy
// (lifecycle_flowspec.go), or for b < 0 reduce -1-b's output write, after
// its fetch latency.
func (s *Sim) taskFlowStage(j *Job, b int32) {
	if b < 0 {
		s.startOutput(j, -1-b)
		return
	}
	if b >= j.NumMaps() {
		s.copyStage(j, b-j.NumMaps())
		return
	}
	d, m := j.out.disk, &j.Maps[b]
	switch d.stage[b] {
	case mapStartup:
		d.stage[b] = mapReading
		timed := d.isTimed(b)
		if !timed {
			d.mapEnd[b] = s.now + d.slowed(int(b), d.mapCPU[b])
		}
		if m.InputBytes > 0 && (!timed || m.srcNode != m.Node) {
			s.flowStart(Transfer{Kind: TransferMapRead, Job: j.Index, Task: b, FetchOf: -1, Src: m.srcNode, Dst: m.Node, Bytes: m.InputBytes})
			return
		}
		s.mapReadEnded(j, b)
	case mapCompute:
		s.startSpill(j, b)
	case mapFailStartup:
		if s.now < d.failEnd[b] {
			d.stage[b] = mapFailReading
			if m.srcNode != m.Node {
				s.netBytes += m.InputBytes // counted at the start, as every transfer's
			}
			s.flowStart(Transfer{Kind: TransferMapRead, Job: j.Index, Task: b, FetchOf: -1, Src: m.srcNode, Dst: m.Node, Bytes: m.InputBytes})
			s.schedule(d.failEnd[b], evTaskFlow, j.Index, b)
			return
		}
		s.mapAttemptsFailed(j, b)
	case mapFailReading, mapFailWait:
		s.mapAttemptsFailed(j, b)
	default:
		if s.chk != nil {
			s.chk.fail("map %d of job %s: a stage event in stage %d (stale)", b, j.Trace.ID, d.stage[b])
		}
	}
}

// failingRead is the time of map i's failed attempts when they read their
// input as a flow (above): a modelled map (not trace-timed) with input,
// failed attempts before its successful one, and a successful one; 0
// otherwise.
func (s *Sim) failingRead(j *Job, i int32) int64 {
	d, m := j.out.disk, &j.Maps[i]
	if m.InputBytes <= 0 || d.isTimed(i) || j.life.fail.mapFails(i) {
		return 0
	}
	fs := j.retryUs(i)
	if d.stretch != nil {
		fs -= d.stretch[i]
	}
	return max(0, fs)
}

// mapAttemptsFailed: map i's failed attempts are over (now); their read, if
// still under way, is withdrawn, and the successful attempt starts up.
func (s *Sim) mapAttemptsFailed(j *Job, i int32) {
	d := j.out.disk
	if d.stage[i] == mapFailReading {
		s.withdrawAttempt(j, int(i)) // network_cancel.go
	}
	d.stage[i] = mapStartup
	if d.mapEnd[i] > s.now {
		s.schedule(d.mapEnd[i], evTaskFlow, j.Index, i)
		return
	}
	s.taskFlowStage(j, i)
}

// mapReadEnded: map i's read is done; its spill starts when its compute is
// (a trace-timed map's observed time starts now).
func (s *Sim) mapReadEnded(j *Job, i int32) {
	d := j.out.disk
	if d.isTimed(i) {
		d.mapEnd[i] = s.now + d.slowed(int(i), d.mapCPU[i])
	}
	if d.mapEnd[i] > s.now {
		d.stage[i] = mapCompute
		s.schedule(d.mapEnd[i], evTaskFlow, j.Index, i)
		return
	}
	s.startSpill(j, i)
}

// startSpill starts map i's output spill to its node's disk, or in a job
// without reduces its output write through its HDFS pipeline (mapWrite).
func (s *Sim) startSpill(j *Job, i int32) {
	m := &j.Maps[i]
	j.out.disk.stage[i] = mapSpilling
	if m.OutputBytes > 0 && !j.out.disk.isTimed(i) {
		s.flowStart(s.mapWrite(j, i, m.Node, false))
		return
	}
	s.flowMapEnded(j, i)
}

// mapWrite is the transfer of map i's output written from node (by its
// speculative copy when copy is set): a spill to node's disk, or in a job
// without reduces (jobDisk.mapOnly) a write through the HDFS replication
// pipeline placeOutput draws for it, as a reduce's output is written
// (startOutput): Kind TransferSpill, so that it is the map's stage, with
// the pipeline's nodes in Pipeline and Dst its first. The pipeline's draws
// come from the job's map seed and the map's index, so every policy sees
// the same pipeline for a map written from a given node; its hops between
// distinct nodes count in the network bytes.
func (s *Sim) mapWrite(j *Job, i, node int32, copy bool) Transfer {
	d, m := j.out.disk, &j.Maps[i]
	x := Transfer{Kind: TransferSpill, Copy: copy, Job: j.Index, Task: i, FetchOf: -1, Src: node, Dst: node, Bytes: m.OutputBytes}
	if !d.mapOnly {
		return x
	}
	s.outPCG.Seed(d.mapSeed, streamOutput<<40|uint64(i)) // as rand.NewPCG, with no allocation
	x.Pipeline = s.topo.placeOutput(rand.New(&s.outPCG), node, s.hw.Replication, s.hw.Placement == PlacementRackAware)
	x.Dst = x.Pipeline[0]
	prev := node
	for _, n := range x.Pipeline {
		if n != prev {
			s.netBytes += m.OutputBytes
		}
		prev = n
	}
	return x
}

// flowMapEnded: map i's spill is done, so is the map (reported as the model
// says); a speculative copy still running runs on until its kill
// (lifecycle_kill.go). An original that lost to its copy stops here.
func (s *Sim) flowMapEnded(j *Job, i int32) {
	m := &j.Maps[i]
	d := j.out.disk
	d.stage[i] = mapGone
	if m.specWon {
		return // it lost to its copy: it waits for its kill (lifecycle_kill.go)
	}
	old := m.FinishUs
	m.endUs = s.now
	m.FinishUs = s.reportedTask(j, false, i, m.Node, s.now)
	s.mm.retime(m, old)
	s.lateRetimed(j, i, old) // lifecycle_flowspec.go
	s.schedule(m.FinishUs, evMapDone, j.Index, i)
}

// flowShuffleEnded: reduce r's last fetch has ended (now); its shuffle ends
// at its ShuffleEndUs (now plus its fetch latency), or for a reduce with an
// observed copy tail (trace mode, tracemode.go) at the tail's end, or now
// when its fetches outlast it, as under fixed: the tail is what the reduce's
// copier spent after the last map output appeared (Hadoop 1's ReduceCopier
// sleeps between fetch rounds), which the fetches themselves leave out, and
// it holds the fetch rounds' latency, which is not added again (under fixed
// such a reduce's copy has no fetch overhead either). Its work and output
// write follow.
func (s *Sim) flowShuffleEnded(j *Job, r int32) {
	red := &j.Reduces[r]
	if red.obsTail {
		red.ShuffleEndUs = max(s.now, obsTailEnd(j, r))
	}
	if !j.out.disk.redOut[r] {
		red.FinishUs = s.reportedTask(j, true, r, red.Node, red.ShuffleEndUs+j.out.disk.slowed(int(j.out.disk.maps)+int(r), red.workUs))
		s.schedule(red.FinishUs, evReduceDone, j.Index, r)
		return
	}
	if red.ShuffleEndUs > s.now {
		s.schedule(red.ShuffleEndUs, evTaskFlow, j.Index, -1-r)
		return
	}
	s.startOutput(j, r)
}

// startOutput starts reduce r's work and its output write through its HDFS
// pipeline (with flow_merges, its merge read too: lifecycle_flowmerge.go).
func (s *Sim) startOutput(j *Job, r int32) {
	red := &j.Reduces[r]
	d := j.out.disk
	d.redEnd[r] = s.now + d.slowed(int(d.maps)+int(r), red.workUs)
	merging := s.startMergeRead(j, r)
	if red.OutputBytes <= 0 {
		if !merging {
			s.flowReduceEnded(j, r)
		}
		return
	}
	if merging {
		if d.redLeft == nil {
			d.redLeft = make([]uint8, len(d.redOut))
		}
		d.redLeft[r] = 2
	}
	s.outPCG.Seed(d.redSeed[r], streamOutput)
	pipe := s.topo.placeOutput(rand.New(&s.outPCG), red.Node, s.hw.Replication, s.hw.Placement == PlacementRackAware)
	prev := red.Node
	for _, n := range pipe {
		if n != prev {
			s.netBytes += red.OutputBytes
		}
		prev = n
	}
	s.flowStart(Transfer{Kind: TransferOutput, Job: j.Index, Task: r, FetchOf: -1, Src: red.Node, Dst: pipe[0], Bytes: red.OutputBytes, Pipeline: pipe})
}

// flowReduceEnded: reduce r's output write (and with flow_merges its merge
// read) is done; it ends when its work is too.
func (s *Sim) flowReduceEnded(j *Job, r int32) {
	if d := j.out.disk; d.redLeft != nil && d.redLeft[r] > 1 {
		d.redLeft[r]-- // the other of its output write and merge read runs on
		return
	}
	red := &j.Reduces[r]
	end := max(s.now, j.out.disk.redEnd[r])
	red.FinishUs = s.reportedTask(j, true, r, red.Node, end)
	s.schedule(red.FinishUs, evReduceDone, j.Index, r)
}

// flowTaskEnded handles the end of a transfer other than a fetch.
func (s *Sim) flowTaskEnded(j *Job, x Transfer) {
	if x.Copy {
		s.copyTransferEnded(j, x) // lifecycle_flowspec.go
		return
	}
	if x.Kind == TransferMapRead && j.out.disk.stage[x.Task] == mapFailReading {
		j.out.disk.stage[x.Task] = mapFailWait // its failed attempts compute until they fail
		return
	}
	if s.chk != nil && x.Kind != TransferOutput {
		s.chk.mapTransferEnded(j, x, j.out.disk.stage[x.Task])
	}
	switch x.Kind {
	case TransferMapRead:
		s.mapReadEnded(j, x.Task)
	case TransferSpill:
		if !x.Merge && s.startMapMerge(j, x.Task, x.Dst, false) { // lifecycle_flowmerge.go
			return
		}
		s.flowMapEnded(j, x.Task)
	case TransferOutput:
		s.flowReduceEnded(j, x.Task)
	}
}

// flowTransferred reports a transfer's network hops to the observers: none
// for one within a node, each hop between distinct nodes of a pipeline.
func (s *Sim) flowTransferred(x Transfer, at int64) {
	if x.Round > 0 {
		// A batch round: its sources counted their bytes out as the outputs
		// became ready (queueOutput); its bytes from other nodes count in here.
		if x.Round-1 != roundOwn {
			s.bus.transfer(TransferEvent{Src: x.Dst, Dst: x.Dst, Bytes: x.Bytes, Start: x.Start, End: at, Ends: EndsIn})
		}
		return
	}
	if len(x.Pipeline) == 0 {
		if x.Src != x.Dst {
			s.bus.transfer(TransferEvent{Src: x.Src, Dst: x.Dst, Bytes: x.Bytes, Start: x.Start, End: at})
		}
		return
	}
	prev := x.Src
	for _, n := range x.Pipeline {
		if n != prev {
			s.bus.transfer(TransferEvent{Src: prev, Dst: n, Bytes: x.Bytes, Start: x.Start, End: at})
		}
		prev = n
	}
}

// placeOutput chooses the replicas of a block written from node writer, in
// pipeline order, as HDFS's default placement does: the first on the writer
// when it is a data node (else a random data node); with rackAware, the
// second on another rack than the first's and the third on the second's rack;
// the others (and all of them without rackAware) on random data nodes not yet
// chosen. It always returns at least one node: the writer, when the cluster
// has no data node.
func (t *Topology) placeOutput(rng *rand.Rand, writer int32, replication int, rackAware bool) []int32 {
	n := len(t.DataNodes)
	replication = min(replication, n)
	if replication <= 0 {
		return []int32{writer}
	}
	dst := make([]int32, 0, replication)
	if slices.Contains(t.dataRacks[t.Nodes[writer].Rack], writer) {
		dst = append(dst, writer)
	} else {
		dst = append(dst, t.DataNodes[rng.IntN(n)])
	}
	for i := 1; i < replication; i++ {
		c := int32(-1)
		switch {
		case rackAware && i == 1 && t.dataRackCount > 1:
			first := t.Nodes[dst[0]].Rack
			for c < 0 {
				if x := t.DataNodes[rng.IntN(n)]; t.Nodes[x].Rack != first {
					c = x
				}
			}
		case rackAware && i == 2:
			rack := t.dataRacks[t.Nodes[dst[1]].Rack]
			used := 0
			for _, y := range dst {
				if t.Nodes[y].Rack == t.Nodes[dst[1]].Rack {
					used++
				}
			}
			if len(rack) > used {
				for c < 0 {
					if x := rack[rng.IntN(len(rack))]; !slices.Contains(dst, x) {
						c = x
					}
				}
			}
		}
		for c < 0 {
			if x := t.DataNodes[rng.IntN(n)]; !slices.Contains(dst, x) {
				c = x
			}
		}
		dst = append(dst, c)
	}
	return dst
}

// xferPath appends transfer x's resources to dst, each once: the disks it
// reads and writes and the network paths between its nodes (TransferKind).
func (fn *flowNet) xferPath(dst []flow.ResourceID, x Transfer) ([]flow.ResourceID, error) {
	start := len(dst)
	var err error
	switch {
	case x.Round > 0:
		// A batch round (network_retimed.go): the reduce side's resources
		// only, the network ones for outputs from other nodes.
		if x.Round-1 != roundOwn {
			dst = fn.res.inbound(dst, x.Dst, x.Round-1 == roundFar)
		}
		dst, err = fn.addDisk(dst, start, x.Dst)
		return dst, err
	}
	switch x.Kind {
	case TransferMapRead, TransferFetch:
		if dst, err = fn.addDisk(dst, start, x.Src); err != nil {
			return dst, err
		}
		if dst, err = fn.addHop(dst, start, x.Src, x.Dst); err != nil {
			return dst, err
		}
		if x.Kind == TransferFetch {
			dst, err = fn.addDisk(dst, start, x.Dst)
		}
	case TransferSpill:
		if len(x.Pipeline) == 0 {
			dst, err = fn.addDisk(dst, start, x.Dst)
			break
		}
		fallthrough // a map-only job's map output write (mapWrite)
	case TransferOutput:
		prev := x.Src
		for _, n := range x.Pipeline {
			if dst, err = fn.addHop(dst, start, prev, n); err != nil {
				return dst, err
			}
			if dst, err = fn.addDisk(dst, start, n); err != nil {
				return dst, err
			}
			prev = n
		}
	}
	return dst, err
}

// addDisk appends node n's disk to the path dst[start:] unless it is there.
func (fn *flowNet) addDisk(dst []flow.ResourceID, start int, n int32) ([]flow.ResourceID, error) {
	return addResource(dst, start, fn.res.node[n].disk), nil
}

// addHop appends the network path from node a to node b to the path
// dst[start:], each resource once.
func (fn *flowNet) addHop(dst []flow.ResourceID, start int, a, b int32) ([]flow.ResourceID, error) {
	if a == b {
		return dst, nil
	}
	k := len(dst)
	p := fn.res.path(dst, a, b)
	dst = p[:k]
	for _, r := range p[k:] { // each is read before anything is written over it
		dst = addResource(dst, start, r)
	}
	return dst, nil
}

// addResource appends r to dst unless dst[start:] holds it.
func addResource(dst []flow.ResourceID, start int, r flow.ResourceID) []flow.ResourceID {
	if slices.Contains(dst[start:], r) {
		return dst
	}
	return append(dst, r)
}
