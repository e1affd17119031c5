package replay

import (
	"math/bits"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// TaskState is where a task is in its life.
type TaskState uint8

// Task states.
const (
	Pending TaskState = iota
	Running
	Done
)

// Locality is how close a map ran to its input.
//
// A map without input (see MapTask.NoInput) runs NodeLocal wherever it runs:
// it reads nothing, so no node is farther from its input than another, and
// the level here is what decides a map's cost (a NodeLocal map reads no bytes
// over the network and is not among the running remote maps) and what the
// locality metrics count. Hadoop's own counters differ: Hadoop 1's
// JobInProgress (getLocalityLevel over an empty split location list) counts
// such a map in neither DATA_LOCAL_MAPS nor RACK_LOCAL_MAPS, and Hadoop 2's
// RMContainerAllocator counts it in OTHER_LOCAL_MAPS; a replay's node-local
// fraction of a workload with no-input maps is therefore above what those
// counters would report for the same schedule, by its no-input maps.
type Locality uint8

// Locality levels, ordered from best to worst.
const (
	NodeLocal Locality = iota
	RackLocal
	OffRack
)

// String returns Hadoop's name of the level.
func (l Locality) String() string {
	switch l {
	case NodeLocal:
		return trace.NodeLocal
	case RackLocal:
		return trace.RackLocal
	}
	return trace.OffSwitch
}

// MapTask is one map of a job being replayed. Its fields are ordered so that
// it takes 64 bytes, one cache line (TestTaskRecordSizes): a job's maps are
// held while it runs, and a map's record is first read at its launch and
// again at its end, each a cache miss on a large run. The fields few runs
// set (trace mode's observed time, failed attempts, a speculative copy's
// launch) are kept beside it, in the job's mapExtra records.
type MapTask struct {
	InputBytes  int64
	OutputBytes int64
	State       TaskState
	Locality    Locality
	noInput     bool  // no input: no replicas, local on every node (NoInput)
	specWon     bool  // its speculative copy completed it: the original lost (lifecycle_kill.go)
	Node        int32 // where it ran, -1 before launch
	LaunchUs    int64
	FinishUs    int64
	endUs       int64 // end of its attempt that completes it, before the report (lifecycle.go)
	localUs     int64 // modelled duration when node-local
	srcNode     int32 // replica read from when remote
	// A speculative copy (lifecycle_faults.go): its node (-1: none); its
	// launch is mapExtra.specLaunchUs.
	specNode int32
}

// mapExtra holds the fields of a map that most runs leave zero (Job.mx).
type mapExtra struct {
	// Trace mode (tracemode.go): the observed duration and how it is rescaled
	// to the replay's locality; obsNone uses localUs and the network model.
	obsUs int64
	// retryUs is the time of the failed attempts replayed before the
	// successful one (lifecycle_attempts.go), on the same slot, of a
	// straggler's slowdown and modelled failures (lifecycle_faults.go), and
	// the observed launch lag of the successful attempt (tracemode.go).
	retryUs int64
	// specLaunchUs is the launch of its speculative copy (MapTask.specNode).
	specLaunchUs int64
	obs          obsRule
}

// extra is map i's mapExtra record, for writing: the job's records are
// made, all zero, at the first call.
func (j *Job) extra(i int32) *mapExtra {
	if j.mx == nil {
		j.mx = make([]mapExtra, len(j.Maps))
	}
	return &j.mx[i]
}

// retryUs is map i's mapExtra.retryUs (0 when the job has no records).
func (j *Job) retryUs(i int32) int64 {
	if j.mx == nil {
		return 0
	}
	return j.mx[i].retryUs
}

// obsOf is map i's observed rule, obsNone when the job has no records.
func (j *Job) obsOf(i int32) obsRule {
	if j.mx == nil {
		return obsNone
	}
	return j.mx[i].obs
}

// ReduceTask is one reduce of a job being replayed. It takes 72 bytes
// (TestTaskRecordSizes): a job's reduces are held from its arrival to its end,
// and a policy that launches reduces one at a time (Coupling's Wait
// Scheduling) holds the pending reduces of a long backlog of jobs. Its YARN
// AM wait is kept beside it (jobYARN.redWait).
type ReduceTask struct {
	ShuffleBytes int64
	OutputBytes  int64
	State        TaskState
	// obsTail: trace mode with the lifecycle (tracemode.go): its shuffle ends
	// by the observed copy tail (tailUs) after the later of the attempt's
	// start and the job's last map attempt's end (obsTailEnd).
	obsTail      bool
	Node         int32
	LaunchUs     int64
	ShuffleEndUs int64
	FinishUs     int64
	copyUs       int64 // start-up plus copying its whole share at the NIC rate
	tailUs       int64 // copying the last map's share after the last map ends (the observed tail with obsTail)
	workUs       int64 // merge, reduce function and output write
}

// Job is a job while it is being replayed: its tasks, their states and the
// counters policies decide by. It is the engine's: policies never see it, only
// its read-only JobView (view.go), and launch tasks through their Cluster.
type Job struct {
	Index    int32 // position in the replayed workload (submit order)
	Trace    *trace.Job
	SubmitUs int64
	IdealUs  int64 // lower bound on the flowtime: alone, no heartbeat latency, all maps local

	// Maps is nil once every map has finished on a run that reads no map's
	// record after its end (Sim.retireMaps); NumMaps counts them still.
	Maps    []MapTask
	Reduces []ReduceTask
	// mx holds the maps' fields that most runs leave zero, beside Maps
	// (extra); nil while every map's are zero, and when Maps is dropped.
	mx []mapExtra

	PendingMaps, RunningMaps, FinishedMaps          int32
	PendingReduces, RunningReduces, FinishedReduces int32

	FirstLaunchUs int64
	LastMapEndUs  int64 // -1 until every map has finished

	replication int32
	replicas    []int32 // replication entries per map

	// Pending-map indexes by locality, with lazy deletion: an entry whose task is
	// no longer pending is dropped when met.
	// nodeMaps[nodeOff[k]:nodeOff[k+1]] are the maps with a replica on node
	// nodeKeys[k] (ascending), of which those before nodeHead[k] have
	// launched; rackMaps, rackOff and rackHead the same by rack.
	nodeKeys  []int32
	nodeOff   []int32
	nodeHead  []int32
	nodeMaps  []int32
	rackOff   []int32
	rackHead  []int32
	rackMaps  []int32
	onNode    []uint64 // bit n: node n may hold a pending map's input (clear: it holds none)
	taken     []uint64 // bit i: map i is not pending (MapTask.State), read by the index walks instead of the maps
	ownTaken  bool     // the engine runs the job: taken is set at every launch, so a clear bit is a pending map
	keyBits   []uint64 // bit n: n is in nodeKeys (onNode as built, never cleared)
	keyRank   []int32  // keyRank[w]: the nodes of nodeKeys below node 64·w, so n is nodeKeys[keyRank[n/64] + bits below n in keyBits]
	noInMaps  []int32  // the maps without input (MapTask.NoInput), ascending; nil when none
	noInHead  int32    // noInMaps before it have launched
	numNodes  int32    // nodes in the topology the index was built for
	nextAny   int32    // every map before it has been launched
	nextRed   int32
	ready     bool    // slow-start threshold reached
	waiting   []int32 // reduces launched before the last map ended
	firstRed  int64
	lastRed   int64
	late      int32
	lateSumUs int64
	loc       [3]int32 // maps launched node-local, rack-local, off-rack (jobMetrics)
	finished  bool
	out       jobOutput // intermediate data of finished maps (shuffle.go)
	life      jobLife   // lifecycle state (lifecycle.go)
	yarn      jobYARN   // containers on a YARN cluster (yarn.go)
	redAgain  []int32   // preempted reduces to launch again, before nextRed (yarn.go)
	view      JobView   // what policies see of it (View)
	cands     jobCands  // its place among the active jobs and the policies' candidates (candidates.go)
	retired   bool      // Maps and the map index were dropped (Sim.retireMaps)
	nMaps     int32     // len(Maps) before they were dropped
	mapsEndUs int64     // with the lifecycle, mapAttemptsEndUs when the maps were dropped

	// hist holds, in trace mode, the observed launch lags of the tasks whose
	// trace records one and the lags of the launches the job's history times
	// are taken from (lcHistoryTimes); nil when no task has a lag.
	hist *histLags
}

// NoInput reports whether the map has no input to read: its input is 0 bytes
// and, for a map from a trace, the trace lists no preferred location for it
// (a Hadoop map with an empty split and no locations: RandomWriter, TeraGen,
// the pi estimator, Sleep). It has no replicas (Job.Replicas is empty), and
// the job's locality index offers it on every node at node locality
// (Job.LocalMap), after the maps whose input is on that node, as Hadoop 1's
// JobInProgress.findNewMapTask serves its nonLocalMaps after its cache; no
// policy waits for locality to launch it. A 0-byte map with recorded
// preferred locations keeps them.
func (m *MapTask) NoInput() bool { return m.noInput }

// Replicas returns the nodes holding map i's input block: none for a map
// without input (MapTask.NoInput).
func (j *Job) Replicas(i int32) []int32 {
	if j.Maps[i].noInput {
		return nil
	}
	r := int(j.replication)
	return j.replicas[int(i)*r : int(i)*r+r]
}

// NumMaps is the number of the job's maps, also after their records were
// dropped (Sim.retireMaps).
func (j *Job) NumMaps() int32 {
	if j.retired {
		return j.nMaps
	}
	return int32(len(j.Maps))
}

// MapsDone reports whether every map of the job has finished.
func (j *Job) MapsDone() bool { return j.FinishedMaps == j.NumMaps() }

// ReducesReady reports whether the job's reduces may launch: the slow-start
// fraction of its maps has finished.
func (j *Job) ReducesReady() bool { return j.ready }

// Running is the number of the job's tasks holding a slot.
func (j *Job) Running() int32 { return j.RunningMaps + j.RunningReduces }

func (j *Job) index(topo *Topology) {
	var scratch indexScratch
	j.indexWith(topo, &scratch)
}

// indexScratch is Job.indexWith's scratch, kept between jobs.
type indexScratch struct {
	cnt []int32 // a count per node, all zero between calls
	// racks holds, for map i at i·(replication+1), the number of racks
	// its replicas are in (-1 for a map without input) and then those
	// racks (racksOf), so that the second pass over the maps reads
	// neither their records nor the topology again.
	racks []int32
}

// indexWith builds the job's pending-map indexes by node and by rack, with
// sc's buffers.
func (j *Job) indexWith(topo *Topology, sc *indexScratch) {
	nn, nr := len(topo.Nodes), len(topo.RackNodes)
	if len(sc.cnt) < nn {
		sc.cnt = make([]int32, nn)
	}
	c := sc.cnt[:nn]
	j.onNode = make([]uint64, (nn+63)/64)
	j.rackOff = make([]int32, nr+1)
	j.numNodes = int32(nn)
	j.taken = make([]uint64, (len(j.Maps)+63)/64)
	keys, total, rackTotal, free := 0, 0, 0, 0
	repl := int(j.replication)
	stride := repl + 1
	rk := slices.Grow(sc.racks[:0], len(j.Maps)*stride)[:len(j.Maps)*stride]
	for i := range j.Maps {
		m := &j.Maps[i]
		if m.State != Pending {
			j.taken[i>>6] |= 1 << (i & 63)
		}
		at := rk[i*stride : i*stride+stride]
		if m.noInput {
			at[0] = -1
			free++
			continue
		}
		for _, n := range j.replicas[i*repl : i*repl+repl] {
			if c[n] == 0 {
				keys++
				j.onNode[n>>6] |= 1 << (n & 63)
			}
			c[n]++
			total++
		}
		racks := j.racksOf(topo, int32(i), at[1:1:stride])
		at[0] = int32(len(racks))
		for _, r := range racks {
			j.rackOff[r+1]++
			rackTotal++
		}
	}
	sc.racks = rk
	j.nodeKeys = make([]int32, 0, keys)
	j.nodeOff = make([]int32, keys+1)
	j.keyBits = slices.Clone(j.onNode)
	j.keyRank = make([]int32, len(j.onNode))
	for w, word := range j.onNode {
		j.keyRank[w] = int32(len(j.nodeKeys))
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			n := int32(w*64 + b)
			k := len(j.nodeKeys)
			j.nodeKeys = append(j.nodeKeys, n)
			j.nodeOff[k+1] = j.nodeOff[k] + c[n]
			c[n] = j.nodeOff[k] // from here on, where n's next map goes
		}
	}
	j.nodeMaps = make([]int32, total)
	for r := range nr {
		j.rackOff[r+1] += j.rackOff[r]
	}
	j.rackHead = slices.Clone(j.rackOff[:nr])
	j.rackMaps = make([]int32, rackTotal)
	j.noInMaps, j.noInHead = nil, 0
	if free > 0 {
		j.noInMaps = make([]int32, 0, free)
	}
	for i := range len(j.Maps) {
		at := rk[i*stride : i*stride+stride]
		if at[0] < 0 {
			j.noInMaps = append(j.noInMaps, int32(i))
			continue
		}
		for _, n := range j.replicas[i*repl : i*repl+repl] {
			j.nodeMaps[c[n]] = int32(i)
			c[n]++
		}
		for _, r := range at[1 : 1+at[0]] {
			j.rackMaps[j.rackHead[r]] = int32(i)
			j.rackHead[r]++
		}
	}
	for _, n := range j.nodeKeys {
		c[n] = 0
	}
	j.nodeHead = slices.Clone(j.nodeOff[:keys])
	copy(j.rackHead, j.rackOff[:nr])
}

// eachRack calls f for each rack holding a replica of map i, once each (up
// to eight racks; further replicas' racks are not told apart from each
// other): the racks of racksOf, in order.
func (j *Job) eachRack(topo *Topology, i int32, f func(r int32)) {
	var b [8]int32
	for _, r := range j.racksOf(topo, i, b[:0]) {
		f(r)
	}
}

// racksOf appends to buf[:0] and returns the racks holding a replica of map
// i, in the order of its replicas, each once (up to eight racks; further
// replicas' racks are not told apart from each other).
func (j *Job) racksOf(topo *Topology, i int32, buf []int32) []int32 {
	buf = buf[:0]
replica:
	for _, n := range j.Replicas(i) {
		r := topo.Nodes[n].Rack
		for _, x := range buf[:min(len(buf), 8)] {
			if x == r {
				continue replica
			}
		}
		buf = append(buf, r)
	}
	return buf
}

// isTaken reports whether map i is known not to be pending: a bit of taken,
// which the engine's launchMap sets and requeueMap clears.
func (j *Job) isTaken(i int32) bool { return j.taken[i>>6]&(1<<(i&63)) != 0 }

// notPending reports whether map i is not pending. The bit answers without
// reading the map's MapTask (a cache miss per map on large jobs, and the
// index walks step over many launched maps); on a job that other code than
// the engine launches by setting MapTask.State (policytest), a clear bit is
// checked against the state.
func (j *Job) notPending(i int32) bool {
	return j.isTaken(i) || !j.ownTaken && j.Maps[i].State != Pending
}

// firstIn returns the first map of maps[*head:end] that is pending, moving
// *head past those that are not, or -1.
func (j *Job) firstIn(maps []int32, head *int32, end int32) int32 {
	h := *head
	for h < end && j.notPending(maps[h]) {
		h++
	}
	*head = h
	if h == end {
		return -1
	}
	return maps[h]
}

// localAt is LocalMap for the node nodeKeys[k].
func (j *Job) localAt(k int) int32 {
	return j.firstIn(j.nodeMaps, &j.nodeHead[k], j.nodeOff[k+1])
}

// LocalMap returns a pending map local to node n, or -1: the lowest-indexed
// pending map whose input is on n, else the lowest-indexed pending map without
// input (MapTask.NoInput), which is local everywhere. Most calls find none (a
// node asking for work that holds none of the job's pending input): a bit per
// node answers those without a look-up in nodeKeys.
func (j *Job) LocalMap(n int32) int32 {
	w, b := n>>6, uint64(1)<<(n&63)
	if j.onNode[w]&b != 0 {
		k := int(j.keyRank[w]) + bits.OnesCount64(j.keyBits[w]&(b-1)) // n's place in nodeKeys
		if t := j.localAt(k); t >= 0 {
			return t
		}
		j.onNode[w] &^= b
	}
	return j.noInputMap()
}

// noInputMap returns the lowest-indexed pending map without input, or -1.
func (j *Job) noInputMap() int32 {
	if int(j.noInHead) == len(j.noInMaps) {
		return -1
	}
	return j.firstIn(j.noInMaps, &j.noInHead, int32(len(j.noInMaps)))
}

// RackMap returns a pending map with a replica in rack r, else a pending map
// without input (local everywhere, so in every rack), or -1.
func (j *Job) RackMap(r int32) int32 {
	if t := j.firstIn(j.rackMaps, &j.rackHead[r], j.rackOff[r+1]); t >= 0 {
		return t
	}
	return j.noInputMap()
}

// AnyMap returns the lowest-indexed pending map, or -1.
func (j *Job) AnyMap() int32 {
	n := j.NumMaps()
	for j.nextAny < n && j.notPending(j.nextAny) {
		j.nextAny++
	}
	if j.nextAny == n {
		return -1
	}
	return j.nextAny
}

// HasLocalMap reports whether a pending map is local to node n: its input is
// on n, or it has none (LocalMap).
func (j *Job) HasLocalMap(n int32) bool { return j.LocalMap(n) >= 0 }

// retiresMaps reports whether the run drops a job's per-map records once all
// its maps have finished (retireMaps): true when nothing reads a finished
// map's record again. Those that do: the topology shuffle and network =
// "flow" but for flowRetiresMaps' case (a reduce launched later fetches each
// map's output from its node, from its end), speculative copies (the
// engine's and, in trace mode, the observed ones: a losing attempt is killed
// after its map's end), failed jobs and modelled faults, and YARN
// (containers and preemption). Under the lifecycle otherwise only the job's
// result reads them, for its last map attempt's end (lcHistoryTimes), which
// retireMaps keeps.
func (s *Sim) retiresMaps() bool {
	return s.hw.Speculation == "none" && !s.hw.faultsOn() && !s.yarn.on &&
		(s.fn == nil || s.flowRetiresMaps()) && !s.topologyShuffle() && s.w.fails == nil && s.w.specs == nil
}

// flowRetiresMaps reports whether, under network = "flow", a job's map
// records may be dropped (retiresMaps' other conditions held): with
// flow_shuffle = "batch", where the reduces read the done maps' outputs from
// the job's list of them (jobOutput.outs: node, rack, bytes, share) and not
// from the maps' records, without event_poll (its poll chain queues the
// outputs later, one by one) and without the lifecycle (a reduce's failed
// attempts fetch again). A reduce launched after the maps are done queues
// the outputs from the job's tally when it is on (queueTallied) and from the
// done outputs otherwise (queueOutput): no reduce reads the records once the
// maps are done.
func (s *Sim) flowRetiresMaps() bool {
	return s.hw.FlowShuffle == FlowShuffleBatch && !s.hw.EventPoll && !s.hw.Lifecycle
}

// mapsRetire reports whether j's map records may be dropped now: its maps
// are all done and the run drops them (retiresMaps; under network = "flow",
// flowRetiresMaps).
func (s *Sim) mapsRetire(j *Job) bool {
	return !j.retired && j.MapsDone() && s.retiresMaps()
}

// retireMaps drops the per-map records of j, whose maps have all finished
// and been reported to the bus's observers and to the policy: Maps, the
// replicas, the finish order (kept under network = "flow") and the
// pending-map index, which with a backlog of jobs waiting for their reduces
// (Coupling's; under the flow model, jobs whose reduces are still fetching)
// is most of a run's memory. What is read afterwards is kept as counts:
// NumMaps, the map output per node (MapOutputBytes; as a list of the nodes
// holding some when that is smaller) and its total, and under flow the done
// outputs (jobOutput.outs). The index is left empty but valid: LocalMap,
// RackMap, AnyMap and CountLocalMapNodes find no pending map. Under the
// invariant checker it first checks that every map is done and, under flow,
// that the done outputs are the maps' own (flowOutputsKept).
func (s *Sim) retireMaps(j *Job) {
	if s.chk != nil {
		for i := range j.Maps {
			if j.Maps[i].State != Done {
				s.chk.fail("job %s: maps dropped with map %d not done", j.Trace.ID, i)
			}
		}
	}
	if s.hw.Lifecycle {
		j.mapsEndUs = j.mapAttemptsEndUs()
	}
	if s.fn != nil && s.chk != nil {
		s.chk.flowOutputsKept(j)
	}
	j.nMaps, j.retired = int32(len(j.Maps)), true
	j.Maps, j.mx, j.replicas = nil, nil, nil
	if d := j.out.disk; d != nil {
		d.dropMaps() // network_disk.go: its per-map tables, under flow
	}
	if s.fn == nil {
		j.out.done = nil // under flow the reduces count and queue by it (network_retimed.go)
	}
	s.slotPool = j.out.tally.dropSlot(s.slotPool) // under flow with batch shuffle (network_retimed.go)
	if b := j.out.compact(); b != nil {
		s.outPool = append(s.outPool, b) // zeroed: the next job's per-node output (mapOutput)
	}
	j.nodeKeys, j.nodeOff, j.nodeHead, j.nodeMaps, j.rackMaps = nil, nil, nil, nil, nil
	j.taken, j.keyBits, j.keyRank = nil, nil, nil // nothing is pending: no walk reads them
	clear(j.onNode)
	copy(j.rackHead, j.rackOff[1:]) // every rack's list consumed
	j.noInMaps, j.noInHead = nil, 0
	j.nextAny = j.nMaps
}
