package replay

import (
	"fmt"
	"slices"
)

// invariantError is a broken invariant; the run stops with it.
type invariantError struct{ msg string }

func (e invariantError) Error() string { return "invariant violated: " + e.msg }

// checker verifies the simulator's invariants as the run goes: slots are never
// over-used, each task is launched and finished exactly once, no reduce phase
// begins before its job's last map has ended, simulated time never goes back, and
// every flowtime is at least the job's ideal, and a map without input runs
// node-local. With the lifecycle, setup and
// cleanup tasks count against the slots they hold, a job's setup ends before
// any of its maps or reduces starts, and its cleanup starts after all of them
// have ended.
type checker struct {
	s          *Sim
	last       int64
	running    []int32 // tasks running per node, maps and reduces
	runningR   []int32
	launched   map[[3]int32]bool // (job, kind, task)
	finished   map[[3]int32]bool
	jobs       int
	used       []Resource // cluster = "yarn": what each node's containers hold
	mixSlot    []int32    // sourceMix's walk: by node, 1 + its index in the sources listed
	mixes      int        // batch rounds whose sources sourceMix checked
	tallies    int        // reduces whose outputs queued from the job's tally were checked (checkTallied)
	quietSkips int        // reduces a map's end skipped as quiet, checked (checkQuiet)
}

func newChecker(s *Sim) *checker {
	return &checker{s: s, running: make([]int32, len(s.nodes)), runningR: make([]int32, len(s.nodes)),
		launched: map[[3]int32]bool{}, finished: map[[3]int32]bool{}}
}

// The checker is an observer of the run's bus (bus.go): task launches and
// ends and job finishes; the loop checks time and the reduce phase directly.

// TaskLaunched checks a launch and the slot it takes.
func (c *checker) TaskLaunched(e TaskEvent) {
	switch e.Kind {
	case TaskMap, TaskReduce:
		c.launch(e.Job, e.Kind == TaskReduce, e.Index, e.Node)
		c.yarnTask(e, 1)
	case TaskSetup:
		c.lcLaunch(e.Job, lcKindSetup, e.Node, e.MapSlot)
	case TaskCleanup:
		c.lcLaunch(e.Job, lcKindCleanup, e.Node, e.MapSlot)
	case TaskSpeculative:
		c.specLaunch(e.Node)
	}
}

// TaskEnded checks an end and frees the slot, and the candidates the policy
// sees in the TaskFinished hook that follows.
func (c *checker) TaskEnded(e TaskEvent) {
	c.checkCands()
	switch e.Kind {
	case TaskMap, TaskReduce:
		c.yarnTask(e, -1)
		if e.Killed {
			c.killed(e.Job, e.Kind == TaskReduce, e.Index, e.Node)
			return
		}
		c.finish(e.Job, e.Kind == TaskReduce, e.Index, e.Node)
	case TaskSetup:
		c.lcFinish(e.Job, lcKindSetup, e.Node, e.MapSlot)
	case TaskCleanup:
		c.lcFinish(e.Job, lcKindCleanup, e.Node, e.MapSlot)
	case TaskSpeculative:
		c.specEnd(e.Node)
	}
}

// JobFinished checks a finished job.
func (c *checker) JobFinished(e JobEvent) { c.jobDone(e.Job, e.Time) }

// JobArrived does nothing.
func (c *checker) JobArrived(JobEvent) {}

// Sample does nothing.
func (c *checker) Sample(SampleEvent) {}

// Transfer does nothing.
func (c *checker) Transfer(TransferEvent) {}

func (c *checker) fail(format string, a ...any) {
	panic(invariantError{fmt.Sprintf("t=%dus: ", c.s.now) + fmt.Sprintf(format, a...)})
}

func (c *checker) time(t int64) {
	if t < c.last {
		c.fail("time went back from %d to %d", c.last, t)
	}
	c.last = t
}

func kind(reduce bool) int32 {
	if reduce {
		return 1
	}
	return 0
}

func (c *checker) launch(j *Job, reduce bool, i, n int32) {
	key := [3]int32{j.Index, kind(reduce), i}
	if c.s.hw.Lifecycle && j.life.setup.present && !c.finished[[3]int32{j.Index, lcKindSetup, 0}] {
		c.fail("task %v of job %s launched before its setup task ended", key, j.Trace.ID)
	}
	if c.launched[key] {
		c.fail("task %v of job %s launched twice", key, j.Trace.ID)
	}
	c.launched[key] = true
	node := &c.s.topo.Nodes[n]
	if reduce {
		c.runningR[n]++
		if c.runningR[n] > node.ReduceSlots {
			c.fail("node %d runs %d reduces on %d slots", n, c.runningR[n], node.ReduceSlots)
		}
	} else {
		if m := &j.Maps[i]; m.noInput && m.Locality != NodeLocal {
			c.fail("map %d of job %s has no input but ran %s on node %d", i, j.Trace.ID, m.Locality, n)
		}
		c.taken(j, i)
		c.running[n]++
		if c.running[n] > node.MapSlots {
			c.fail("node %d runs %d maps on %d slots", n, c.running[n], node.MapSlots)
		}
	}
}

// killed checks a preempted task's end: it ran, and may run again.
func (c *checker) killed(j *Job, reduce bool, i, n int32) {
	key := [3]int32{j.Index, kind(reduce), i}
	if !c.launched[key] || c.finished[key] {
		c.fail("task %v of job %s killed without launch or after its end", key, j.Trace.ID)
	}
	delete(c.launched, key)
	if reduce {
		c.runningR[n]--
	} else {
		c.running[n]--
	}
}

// yarnTask counts a map's or reduce's container on its node (sign 1 at
// launch, -1 at its end) on a YARN cluster.
func (c *checker) yarnTask(e TaskEvent, sign int64) {
	if !c.s.yarn.on {
		return
	}
	k := MapContainer
	if e.Kind == TaskReduce {
		k = ReduceContainer
	}
	c.yarnUse(e.Node, e.Job.yarn.size[k], sign)
}

// yarnUse adds sign × r to node n's use and checks it against the node's
// resources and the engine's own account of what is free.
func (c *checker) yarnUse(n int32, r Resource, sign int64) {
	if c.used == nil {
		c.used = make([]Resource, len(c.s.nodes))
	}
	c.used[n] = c.used[n].Add(Resource{sign * r.MemoryMB, sign * r.VCores})
	u, capa := c.used[n], c.s.yarn.capacity
	if !u.Fits(capa) || u.MemoryMB < 0 || u.VCores < 0 {
		c.fail("node %d: containers hold %d MB, %d vcores of its %d MB, %d vcores", n, u.MemoryMB, u.VCores, capa.MemoryMB, capa.VCores)
	}
	if free := c.s.yarn.free[n]; u.Add(free) != capa {
		c.fail("node %d: containers hold %d MB, %d vcores but %d MB, %d vcores are free of %d MB, %d vcores",
			n, u.MemoryMB, u.VCores, free.MemoryMB, free.VCores, capa.MemoryMB, capa.VCores)
	}
}

func (c *checker) finish(j *Job, reduce bool, i, n int32) {
	key := [3]int32{j.Index, kind(reduce), i}
	if !c.launched[key] || c.finished[key] {
		c.fail("task %v of job %s finished without launch or twice", key, j.Trace.ID)
	}
	c.finished[key] = true
	if reduce {
		c.runningR[n]--
		r := &j.Reduces[i]
		if r.FinishUs != c.s.now || !j.life.fail.failed && !j.life.fail.reduceFails(i) && (r.ShuffleEndUs < j.LastMapEndUs || j.LastMapEndUs < 0) {
			c.fail("reduce %d of job %s: finish %d, shuffle end %d, last map end %d", i, j.Trace.ID, r.FinishUs, r.ShuffleEndUs, j.LastMapEndUs)
		}
	} else {
		c.running[n]--
		c.taken(j, i)
		if j.Maps[i].FinishUs != c.s.now {
			c.fail("map %d of job %s ends at %d, scheduled for %d", i, j.Trace.ID, c.s.now, j.Maps[i].FinishUs)
		}
	}
}

// taken checks that the job's index sees map i as pending exactly when it is
// (Job.taken).
func (c *checker) taken(j *Job, i int32) {
	if (j.Maps[i].State != Pending) != j.isTaken(i) {
		c.fail("map %d of job %s: state %d, but the index's bit says taken=%v", i, j.Trace.ID, j.Maps[i].State, j.isTaken(i))
	}
}

// lcLaunch checks a setup or cleanup task's launch and the slot it takes.
func (c *checker) lcLaunch(j *Job, kind, n int32, mapSlot bool) {
	key := [3]int32{j.Index, kind, 0}
	if c.launched[key] {
		c.fail("%s task of job %s launched twice", lcString(kind), j.Trace.ID)
	}
	c.launched[key] = true
	if kind == lcKindCleanup && !j.life.fail.failed {
		for i := range j.Maps {
			if j.Maps[i].State != Done {
				c.fail("cleanup of job %s launched with map %d not done", j.Trace.ID, i)
			}
		}
		for i := range j.Reduces {
			if j.Reduces[i].State != Done {
				c.fail("cleanup of job %s launched with reduce %d not done", j.Trace.ID, i)
			}
		}
	}
	node := &c.s.topo.Nodes[n]
	if mapSlot {
		c.running[n]++
		if c.running[n] > node.MapSlots {
			c.fail("node %d runs %d tasks on %d map slots (with a %s task)", n, c.running[n], node.MapSlots, lcString(kind))
		}
	} else {
		c.runningR[n]++
		if c.runningR[n] > node.ReduceSlots {
			c.fail("node %d runs %d tasks on %d reduce slots (with a %s task)", n, c.runningR[n], node.ReduceSlots, lcString(kind))
		}
	}
}

// specLaunch and specEnd count a speculative map copy against node n's map
// slots.
func (c *checker) specLaunch(n int32) {
	c.running[n]++
	if c.running[n] > c.s.topo.Nodes[n].MapSlots {
		c.fail("node %d runs %d maps on %d slots (with a speculative copy)", n, c.running[n], c.s.topo.Nodes[n].MapSlots)
	}
}

func (c *checker) specEnd(n int32) { c.running[n]-- }

// lcFinish checks a setup or cleanup task's end.
func (c *checker) lcFinish(j *Job, kind, n int32, mapSlot bool) {
	key := [3]int32{j.Index, kind, 0}
	if !c.launched[key] || c.finished[key] {
		c.fail("%s task of job %s finished without launch or twice", lcString(kind), j.Trace.ID)
	}
	c.finished[key] = true
	if mapSlot {
		c.running[n]--
	} else {
		c.runningR[n]--
	}
}

// mapTransferEnded checks that a map attempt's read or spill ends in the
// stage that started it: a killed attempt's transfers were withdrawn
// (network = "flow", lifecycle_flowspec.go).
func (c *checker) mapTransferEnded(j *Job, x Transfer, stage uint8) {
	want := mapReading
	if x.Kind == TransferSpill {
		want = mapSpilling
	}
	if stage != want {
		c.fail("map %d of job %s (copy %v): its transfer of kind %d ended in stage %d (stale)", x.Task, j.Trace.ID, x.Copy, x.Kind, stage)
	}
}

// sourceMix checks the sources of a batch round of class cl of reduce r of
// j, as sourceMix listed them from the done outputs' records
// (jobOutput.outs), against a walk of the maps' own records for the outputs
// the class waits for (those of the job's done maps the reduce has queued
// since the class's last round, roundClass.from): the hosts of the class's
// outputs with a non-empty share (outputNode, share), in the order of each
// host's first output, with the reduce's bytes from each. Once the job's map
// records were dropped (Sim.retireMaps) the walk reads each output's node and
// bytes from the done outputs' records, which flowOutputsKept compared with
// the maps' when they were dropped, and computes its share again.
func (c *checker) sourceMix(j *Job, r int32, cl int, got []roundSource, total int64) {
	s := c.s
	st := &j.out.fs[r]
	red := &j.Reduces[r]
	if c.mixSlot == nil {
		c.mixSlot = make([]int32, len(s.topo.Nodes))
	}
	var want []roundSource
	rack := s.topo.Nodes[red.Node].Rack
	from := int(st.rounds[cl].from)
	for k, i := range j.out.done[from:st.seen] {
		var node int32
		var b int64
		if j.retired {
			x := &j.out.outs[from+k]
			node, b = x.node, outputShare(red.ShuffleBytes, x.bytes, j.out.total, j.NumMaps())
		} else {
			node, b = s.outputNode(j, i), s.share(j, red, &j.Maps[i])
		}
		if node == red.Node || (s.topo.Nodes[node].Rack == rack) != (cl == roundRack) {
			continue
		}
		if b <= 0 {
			continue
		}
		k := c.mixSlot[node] - 1
		if k < 0 {
			want = append(want, roundSource{node: node})
			k = int32(len(want) - 1)
			c.mixSlot[node] = k + 1
		}
		want[k].bytes += b
	}
	for _, x := range want {
		c.mixSlot[x.node] = 0
	}
	c.mixes++
	if !slices.Equal(got, want) {
		c.fail("reduce %d of job %s, round class %d: sources %v from the done outputs' records, %v from the maps'", r, j.Trace.ID, cl, got, want)
	}
	var sum int64
	for _, x := range want {
		sum += x.bytes
	}
	if total != sum {
		c.fail("reduce %d of job %s, round class %d: sources of %d bytes in all, summed as they were listed; %d from the maps'", r, j.Trace.ID, cl, total, sum)
	}
}

// flowOutputsKept checks, as job j's map records are about to be dropped
// under network = "flow" (Sim.retireMaps), that the done outputs' records the
// reduces read afterwards (jobOutput.outs, in the order of jobOutput.done)
// hold each done map's output node and bytes, and that every map is in done
// once.
func (c *checker) flowOutputsKept(j *Job) {
	o := &j.out
	if len(o.done) != len(j.Maps) || len(o.outs) != len(o.done) {
		c.fail("job %s: maps dropped with %d maps, %d done and %d done outputs", j.Trace.ID, len(j.Maps), len(o.done), len(o.outs))
		return
	}
	for k, i := range o.done {
		if x, n := &o.outs[k], c.s.outputNode(j, i); x.node != n || x.rack != c.s.topo.Nodes[n].Rack || x.bytes != j.Maps[i].OutputBytes {
			c.fail("job %s: done output %d (map %d) records node %d, rack %d, %d bytes; the map's are %d, %d, %d",
				j.Trace.ID, k, i, x.node, x.rack, x.bytes, n, c.s.topo.Nodes[n].Rack, j.Maps[i].OutputBytes)
			return
		}
	}
}

func (c *checker) reducePhase(j *Job, i int32) {
	if !j.MapsDone() || j.Reduces[i].ShuffleEndUs < j.LastMapEndUs {
		c.fail("reduce %d of job %s enters its reduce phase before the job's maps are done", i, j.Trace.ID)
	}
}

func (c *checker) jobDone(j *Job, finish int64) {
	c.jobs++
	if j.life.fail.failed {
		c.failedJobDone(j)
		return
	}
	for i := range j.Maps {
		if j.Maps[i].State != Done {
			c.fail("job %s finished with map %d not done", j.Trace.ID, i)
		}
	}
	for i := range j.Reduces {
		if j.Reduces[i].State != Done {
			c.fail("job %s finished with reduce %d not done", j.Trace.ID, i)
		}
	}
	if c.s.hw.Lifecycle && j.life.cleanup.present && !c.finished[[3]int32{j.Index, lcKindCleanup, 0}] {
		c.fail("job %s finished before its cleanup task", j.Trace.ID)
	}
	if flow := finish - j.SubmitUs; flow < j.IdealUs {
		c.fail("job %s: flowtime %d below its ideal %d", j.Trace.ID, flow, j.IdealUs)
	}
	if j.FirstLaunchUs < j.SubmitUs {
		c.fail("job %s launched a task before it was submitted", j.Trace.ID)
	}
}

// failedJobDone checks a job that failed (jobfail.go): none of its tasks
// runs, and it finished no earlier than it failed.
func (c *checker) failedJobDone(j *Job) {
	if j.RunningMaps != 0 || j.RunningReduces != 0 || j.PendingMaps != 0 || j.PendingReduces != 0 {
		c.fail("failed job %s finished with %d maps and %d reduces running, %d and %d pending", j.Trace.ID,
			j.RunningMaps, j.RunningReduces, j.PendingMaps, j.PendingReduces)
	}
	for i := range j.Maps {
		if j.Maps[i].State == Running {
			c.fail("failed job %s finished with map %d running", j.Trace.ID, i)
		}
	}
	for i := range j.Reduces {
		if j.Reduces[i].State == Running {
			c.fail("failed job %s finished with reduce %d running", j.Trace.ID, i)
		}
	}
	if c.s.now < j.life.fail.failUs {
		c.fail("failed job %s finished at %d, before its failure at %d", j.Trace.ID, c.s.now, j.life.fail.failUs)
	}
}

func (c *checker) final() {
	c.checkCands()
	for n := range c.running {
		if c.running[n] != 0 || c.runningR[n] != 0 {
			c.fail("node %d still runs tasks after the last event", n)
		}
	}
	if c.jobs != c.s.w.Len() {
		c.fail("%d of %d jobs finished", c.jobs, c.s.w.Len())
	}
	if len(c.launched) != len(c.finished) {
		c.fail("%d tasks launched, %d finished", len(c.launched), len(c.finished))
	}
	if c.s.fn != nil && c.s.fn.Active() {
		c.fail("transfers left in the flow network after the last event")
	}
	if c.s.specRunning != 0 {
		c.fail("%d speculative copies still running after the last event", c.s.specRunning)
	}
}
