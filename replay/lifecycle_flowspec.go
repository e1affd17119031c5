package replay

import "slices"

// Speculative copies under network = "flow".
//
// A copy of a map that runs its stages as flows (network_disk.go; a map
// without flows, trace-timed with a locality rule, is copied as under fixed)
// is a second attempt with flows of its own, on the copy's node: its
// start-up (task_startup: the copy takes no reused JVM, as under fixed),
// then its input read from the replica nearest that node (a flow from the
// replica's disk over the network path, or of the node's own disk when it
// holds one) beside its compute, then its output spill to that node's disk;
// a trace-timed map's copy reads (when remote) and then runs the observed
// node-local time. As under fixed, the copy runs without the original's
// straggler factor and failed attempts. An observed copy (trace mode,
// lifecycle_specobs.go) runs its observed duration, start-up included,
// without flows: the trace gives its time, not its bytes' path.
//
// The first attempt to end its last stage completes the map, reported from
// the winner's node (Sim.reported). The other runs on, its flows sharing
// the network, until Hadoop 1 would kill it: its node's first heartbeat at
// or after that report (lifecycle_kill.go); then its transfer under way is
// withdrawn from the flow network (network_cancel.go: the flows it shared
// resources with are re-timed, and the bytes it moved are reported) or its
// queued stage event dropped, so no flow and no event of a killed attempt
// is left. A loser that ends its own last stage before its kill stops
// there. Its slot is held until its kill and clean-up are reported
// (lifecycle_kill.go), the winner's until the report, as under fixed. When
// the copy wins, the map's output is the one it spilled, on the copy's
// node, and reduces fetch it from there (outputNode; under fixed the output
// stays on the original's node). A job that finishes kills its losers still
// running at once.
//
// A copy launched after the original ended but before its end was reported
// (the JobTracker cannot know) loses, and is killed as any loser. A copy's
// remote read counts in the run's network bytes when it starts, as a map's
// does at its launch.

// mapCopy is a running speculative copy of a map under network = "flow".
type mapCopy struct {
	node, src int32 // where it runs, and the replica it reads
	stage     uint8 // mapStartup … mapSpilling, mapGone when it ended or was killed
	cpuEnd    int64 // when its compute ends
	plainUs   int64 // an observed copy's duration, run without flows; -1 a modelled copy
}

// flowCopies reports whether a copy of map i of job j runs its stages as
// flows: under flow, for a map whose own stages are flows.
func (s *Sim) flowCopies(j *Job, i int32) bool { return s.fn != nil && j.obsOf(i) == obsNone }

// outputNode is the node holding map i's output: its own, or under flow its
// speculative copy's when the copy won.
func (s *Sim) outputNode(j *Job, i int32) int32 {
	if d := j.out.disk; d != nil && d.outNode != nil {
		if n, ok := d.outNode[i]; ok {
			return n
		}
	}
	return j.Maps[i].Node
}

// launchFlowCopy starts a speculative copy of map i of job j on node n, which
// has a free map slot: a modelled copy (plainUs < 0) or an observed one of
// plainUs µs.
func (s *Sim) launchFlowCopy(j *Job, i, n int32, plainUs int64) {
	s.copySlot(j, i, n)
	d := j.out.disk
	c := &mapCopy{node: n, src: n, plainUs: plainUs}
	if s.locality(j, i, n) != NodeLocal {
		c.src = s.nearestReplica(j, i, n)
	}
	if d.copies == nil {
		d.copies = map[int32]*mapCopy{}
	}
	d.copies[i] = c
	b := int32(len(j.Maps)) + i
	if plainUs >= 0 {
		c.stage, c.cpuEnd = mapCompute, s.now+plainUs
		s.schedule(c.cpuEnd, evTaskFlow, j.Index, b)
		return
	}
	c.stage = mapStartup
	if su := int64(s.hw.TaskStartup); su > 0 {
		s.schedule(s.now+su, evTaskFlow, j.Index, b)
		return
	}
	s.copyStage(j, i)
}

// copyStage is an evTaskFlow event of map i's copy: its read (and compute)
// after its start-up, or its spill after its compute.
func (s *Sim) copyStage(j *Job, i int32) {
	d, m := j.out.disk, &j.Maps[i]
	c := d.copies[i]
	if c == nil {
		if s.chk != nil {
			s.chk.fail("map %d of job %s: a copy's stage event with no copy (stale)", i, j.Trace.ID)
		}
		return
	}
	switch c.stage {
	case mapStartup:
		c.stage = mapReading
		timed := d.isTimed(i)
		if !timed {
			c.cpuEnd = s.now + d.mapCPU[i] // without the original's straggler factor
		}
		if m.InputBytes > 0 && (!timed || c.src != c.node) {
			if c.src != c.node {
				s.netBytes += m.InputBytes
			}
			s.flowStart(Transfer{Kind: TransferMapRead, Copy: true, Job: j.Index, Task: i, FetchOf: -1, Src: c.src, Dst: c.node, Bytes: m.InputBytes})
			return
		}
		s.copyReadEnded(j, i, c)
	case mapCompute:
		if c.plainUs >= 0 {
			s.copyEnded(j, i, c)
			return
		}
		s.copySpill(j, i, c)
	default:
		if s.chk != nil {
			s.chk.fail("map %d of job %s: a copy's stage event in stage %d (stale)", i, j.Trace.ID, c.stage)
		}
	}
}

// copyReadEnded: the copy's read is done; its spill starts when its compute
// is.
func (s *Sim) copyReadEnded(j *Job, i int32, c *mapCopy) {
	d := j.out.disk
	if d.isTimed(i) {
		c.cpuEnd = s.now + d.mapCPU[i]
	}
	if c.cpuEnd > s.now {
		c.stage = mapCompute
		s.schedule(c.cpuEnd, evTaskFlow, j.Index, int32(len(j.Maps))+i)
		return
	}
	s.copySpill(j, i, c)
}

// copySpill starts the copy's spill to its node's disk (or its output
// write through its HDFS pipeline: mapWrite).
func (s *Sim) copySpill(j *Job, i int32, c *mapCopy) {
	m := &j.Maps[i]
	c.stage = mapSpilling
	if m.OutputBytes > 0 && !j.out.disk.isTimed(i) {
		s.flowStart(s.mapWrite(j, i, c.node, true))
		return
	}
	s.copyEnded(j, i, c)
}

// copyTransferEnded handles the end of a copy's read or spill.
func (s *Sim) copyTransferEnded(j *Job, x Transfer) {
	c := j.out.disk.copies[x.Task]
	if c == nil {
		if s.chk != nil {
			s.chk.fail("map %d of job %s: a copy's transfer ended with no copy (stale)", x.Task, j.Trace.ID)
		}
		return
	}
	if s.chk != nil {
		s.chk.mapTransferEnded(j, x, c.stage)
	}
	if x.Kind == TransferMapRead {
		s.copyReadEnded(j, x.Task, c)
		return
	}
	if !x.Merge && s.startMapMerge(j, x.Task, c.node, true) { // lifecycle_flowmerge.go
		return
	}
	s.copyEnded(j, x.Task, c)
}

// copyEnded: map i's copy ended its last stage. If the original still runs,
// the copy wins: the map completes now, on the copy's node, which holds its
// output, and the original runs on until its kill (lifecycle_kill.go). If the
// original had ended (the copy was launched before its end was reported, or
// lost the race), the map completes then and the copy waits for its kill.
func (s *Sim) copyEnded(j *Job, i int32, c *mapCopy) {
	d, m := j.out.disk, &j.Maps[i]
	c.stage = mapGone
	if d.stage[i] == mapGone || m.specWon {
		return
	}
	m.specWon = true
	if d.outNode == nil {
		d.outNode = map[int32]int32{}
	}
	d.outNode[i] = c.node
	old := m.FinishUs
	m.endUs = s.now
	m.FinishUs = s.reported(c.node, s.now)
	s.mm.retime(m, old)
	s.schedule(m.FinishUs, evMapDone, j.Index, i)
}

// killCopy kills map i's copy, if it still runs: the original completed the
// map.
func (s *Sim) killCopy(j *Job, i int32, c *mapCopy) {
	if c.stage == mapGone {
		return
	}
	s.killAttempt(j, len(j.Maps)+int(i), c.stage)
	c.stage = mapGone
}

// killAttempt withdraws what an attempt in stage stage has under way: its
// transfer (network_cancel.go), or its stage event (b: the event's task, a
// map's index or the maps' count plus it for its copy).
func (s *Sim) killAttempt(j *Job, b int, stage uint8) {
	switch stage {
	case mapStartup, mapCompute, mapFailStartup, mapFailReading, mapFailWait:
		// For rare kills: dropEventsWhere rebuilds the queue.
		s.dropEventsWhere(func(e event) bool { return e.kind() == evTaskFlow && e.a == j.Index && int(e.b) == b })
		if stage == mapFailReading {
			s.withdrawAttempt(j, b) // its failed attempts' read (network_disk.go)
		}
	case mapReading, mapSpilling:
		k := b // the original attempt's index is the map's (jobDisk.attempt)
		if b >= len(j.Maps) {
			k = len(j.Maps) + len(j.Reduces) + b - len(j.Maps)
		}
		s.withdrawAttempt(j, k)
	}
}

// flowKillLoser is killLoser's part under flow: map i's losing attempt, the
// copy or the original, is killed if it still runs (its transfer withdrawn,
// its stage event dropped).
func (s *Sim) flowKillLoser(j *Job, i int32, copy bool) {
	d := j.out.disk
	if d == nil || !s.flowCopies(j, i) {
		return
	}
	if copy {
		if c := d.copies[i]; c != nil {
			s.killCopy(j, i, c)
			delete(d.copies, i)
		}
		return
	}
	if d.stage[i] != mapGone {
		s.killAttempt(j, int(i), d.stage[i])
		d.stage[i] = mapGone
	}
}

// flowCopyDone is specEnded's part under flow when map i completed: a copy
// that won leaves its map (one that lost leaves it at its kill).
func (s *Sim) flowCopyDone(j *Job, i int32, copyWon bool) {
	if d := j.out.disk; d != nil && d.copies != nil && copyWon {
		delete(d.copies, i)
	}
}

// flowSpecEnded is specEnded's part under flow when the job fails: the copy,
// killed if it still runs, leaves its map.
func (s *Sim) flowSpecEnded(j *Job, i int32) {
	d := j.out.disk
	if d == nil || d.copies == nil {
		return
	}
	if c := d.copies[i]; c != nil {
		s.killCopy(j, i, c)
		delete(d.copies, i)
	}
}

// lateRetimed moves map i of job j in LATE's index when its reported end
// moved from old while it still runs (under flow a map's end is known only
// when its spill ends; until then it is the launch's estimate).
func (s *Sim) lateRetimed(j *Job, i int32, old int64) {
	m := &j.Maps[i]
	sp := &j.life.spec
	x := &s.lc.spec.late
	if m.FinishUs == old || s.hw.Speculation != "late" || !x.started || sp.ids == nil {
		return
	}
	k, ok := slices.BinarySearch(sp.running, i)
	if !ok || sp.ids[k] < 0 {
		return
	}
	v := sp.ids[k]
	x.remove(v)
	x.t[v].d, x.t[v].finish = max(m.FinishUs-m.LaunchUs, 1), m.FinishUs
	x.insert(v)
}
