package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"
)

type eventKind uint8

const (
	evArrival eventKind = iota
	evHeartbeat
	evMapDone
	evReduceDone
	evSample
	evSweep
	evInitPoll      // lifecycle: the init poller's tick (b = 0) or its threads' round (b = 1)
	evInitDone      // lifecycle: an init worker (b = 0) or job a's own AM (b = 1) is done with job a
	evLifecycleDone // lifecycle: job a's setup (b = 2) or cleanup (b = 3) task is reported done
	evFetchStart    // network = "flow": reduce b of job a is started up and begins its fetches (b < 0: event_poll brings job a's first -b map outputs, shuffle.go)
	evAMReady       // cluster = "yarn": job a's AM has started and initialised the job (yarn.go)
	evTick          // the policy's timer (Ticker, yarn.go)
	evAMTick        // cluster = "yarn": a round of the MRAppMasters' allocate calls (yarn.go)
	evTaskFlow      // network = "flow": map b (b ≥ 0) or reduce -1-b of job a starts its next transfer (network_disk.go)
	evSpecKill      // map b's losing speculative attempt is killed (b ≥ 0) or map -1-b's frees its slot (lifecycle_kill.go)
)

// event is 24 bytes (TestEventSize): its kind is packed into the low
// kindBits bits of ks, below its sequence number (key). Sequence numbers
// order events of the same time; they are unique except for ties among
// heartbeats (key 0, WakeFirst's), which share a kind, so ordering by
// (t, ks) is ordering by (t, key).
type event struct {
	t    int64
	ks   uint64 // key<<kindBits | kind
	a, b int32  // job and task, or node
}

// kindBits is the number of low bits of event.ks that hold the kind.
const kindBits = 5

// A sequence number must fit above the kind: 2^59 keys.
const _ = uint(1<<kindBits - 1 - evSpecKill)

// mkEvent is the event of kind k at t with sequence number key.
func mkEvent(t int64, key uint64, k eventKind, a, b int32) event {
	return event{t: t, ks: key<<kindBits | uint64(k), a: a, b: b}
}

// key is e's sequence number: even for scheduled events (twice the counter
// Sim.seq), odd for a parked node's heartbeat (tickKey), 0 for WakeFirst's.
func (e *event) key() uint64 { return e.ks >> kindBits }

// kind is e's kind.
func (e *event) kind() eventKind { return eventKind(e.ks & (1<<kindBits - 1)) }

// eventQueue is a 4-ary min-heap on (t, ks): shallower than a binary heap, so
// fewer cache misses per operation on the large queues of big clusters. The key makes
// simultaneous events run in the order they were scheduled, which keeps runs
// deterministic. pop picks the first of the least children (the lowest
// index among equals), so events equal in (t, ks), which only heartbeats
// have, come out in an order fixed by the heap's layout: any change to push
// or pop must leave that layout as it is (TestEventQueueLayout).
type eventQueue []event

func (e *event) before(o *event) bool {
	return e.t < o.t || e.t == o.t && e.ks < o.ks
}

// beforeBit is 1 when e is before o, else 0, without a branch: the borrow
// of (t, ks) − (o.t, o.ks) taken as 128-bit unsigned numbers (t with its
// sign bit flipped, so that its order is kept). The children a pop chooses
// among are in no predictable order, and a mispredicted branch at each
// comparison cost more than the comparison.
func beforeBit(e, o *event) int {
	_, b := bits.Sub64(e.ks, o.ks, 0)
	_, b = bits.Sub64(uint64(e.t)^1<<63, uint64(o.t)^1<<63, b)
	return int(b)
}

func (q *eventQueue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *eventQueue) pop() event {
	top := (*q)[0]
	q.dropTop()
	return top
}

// dropTop removes the first event, which pop has read: apart from pop, so
// that the event returned is not held in registers across the descent (and
// restored into them after each level's prefetch call).
func (q *eventQueue) dropTop() {
	h := *q
	n := len(h) - 1
	*q = h[:n]
	if n == 0 {
		return
	}
	// Bottom-up (Floyd): the hole at the root goes down the path of least
	// children to a leaf without comparing them with last, which then rises
	// from there to its place. The children on the path are in order, so
	// last stops below the first of them that is not before it, where the
	// usual sift-down would have put it: the same layout (TestEventQueueLayout),
	// with one comparison a level fewer (last, a leaf's event, mostly goes
	// back to the bottom or near it).
	base := uintptr(unsafe.Pointer(&h[0]))
	i, hole := 0, &h[0]
	for {
		c := 4*i + 1
		if c+3 < n { // four children: a tournament without branches
			// The next level's four children are among these sixteen
			// grandchildren: fetch them while this level is compared, so
			// that one level's cache misses overlap the next one's. The
			// top levels (the first 64 events) stay in the cache anyway.
			if g := 4*c + 1; g+15 < n && g >= 64 {
				prefetchBlock(base + uintptr(g)*unsafe.Sizeof(event{}))
			}
			k := (*[4]event)(h[c : c+4])
			a := beforeBit(&k[1], &k[0])
			b := 2 + beforeBit(&k[3], &k[2])
			m := (a ^ (a^b)&-beforeBit(&k[b&3], &k[a&3])) & 3
			*hole = k[m]
			i, hole = c+m, &k[m]
			continue
		}
		if c < n { // one to three children, which have none
			m := c
			for k := c + 1; k < n; k++ {
				if h[k].before(&h[m]) {
					m = k
				}
			}
			*hole = h[m]
			i = m
		}
		break
	}
	// last is read only now, from its slot past the new end, which the
	// descent does not write: not held in registers across it (nor spilled
	// and reloaded around each level's prefetch call).
	last := h[n]
	h = h[:n]
	for i > 0 {
		p := (i - 1) >> 2
		if h[p].before(&last) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = last
}

type nodeState struct {
	freeMap, freeReduce int32
	nextHB              int64  // time of the node's scheduled heartbeat, -1 when dormant
	phase               int64  // offset of its periodic heartbeats
	hbSeq               uint64 // sequence number of the heartbeat at nextHB
}

// Options controls one run.
type Options struct {
	Seed        uint64
	RecordTasks bool // keep a TaskResult per task
	Timeline    bool // sample running tasks per job
	// CheckInvariants verifies, at every event, that no node exceeds its slots,
	// every task runs exactly once, no reduce phase starts before its job's last
	// map ends and time never goes back; a violation stops the run with an error.
	CheckInvariants bool
	TraceName       string
	HardwareName    string
	Workload        WorkloadOptions
	// Progress, if set, is called now and then with the fraction of jobs finished.
	Progress func(done, total int)
	// Alone, if set, makes Run replay every job alone too, each with a fresh
	// policy from it, and report slowdown against that flowtime (see alone.go).
	Alone func() (Policy, error)
	// Context, if set, stops the run with its error soon after it is done
	// (checked every few thousand events).
	Context context.Context
	// Out, if set, receives the run's job results (unless Alone is set), task
	// rows, timeline samples and node_net rows as they happen instead of the
	// Result (stream.go); WriteRun into Out's directory then completes the
	// run's files.
	Out *RunWriter
	// JobStats keeps the statistics and the digest of the jobs a run streams
	// to Out (Result.JobStats), which then are not in Result.Jobs.
	JobStats bool
	// Observers, if set, listen to the run's events (bus.go) after the
	// run's own metrics, checker and recorders.
	Observers []Observer
	// stats, if set, counts events by kind (eventstats.go; tests only).
	stats *eventStats
	// queueAll queues every heartbeat with the other events and handles each
	// (heartbeats.go; tests only, to check that cancelling changes nothing).
	queueAll bool
	// parkLogCap, if positive, replaces parkLogCap, the parking log's bound
	// (tests only: capLog on small runs).
	parkLogCap int
	// atEnd, if set, sees the engine after its last event (tests only: the
	// flow network and the queue left empty).
	atEnd func(*Sim)
}

// Result is everything one run produced.
type Result struct {
	Jobs     []JobResult
	Tasks    []TaskResult
	Timeline []TimelineSample
	// Nodes holds per-node totals; NodeNet the per-node network bytes of each
	// timeline interval, when Options.Timeline is set (netstats.go).
	Nodes   []NodeResult
	NodeNet []NodeNetSample
	// Queues is each queue's resources per timeline instant on a YARN
	// cluster (queues.parquet), when Options.Timeline is set.
	Queues []QueueSample
	// Links is each loaded link per timeline instant under network =
	// "flow" (links.parquet), when Options.Timeline is set.
	Links    []LinkSample
	Summary  RunSummary
	Wall     time.Duration
	out      *RunWriter // Options.Out, which holds the streamed rows
	flowCost *FlowCost  // network = "flow": what the flow network did (network_cost.go)
}

// Sim is one run of the simulator: a cluster, a workload and a policy. Policies
// see it as their view of the cluster.
type Sim struct {
	hbc    hbCount // the heartbeat under way's launches (maps_per_heartbeat; heartbeat_cap.go)
	hw     *Hardware
	topo   *Topology
	w      *Workload
	pol    Policy
	opt    Options
	policy *rand.Rand
	// outPCG draws an output pipeline's placement (mapWrite, startOutput),
	// re-seeded for each from the task's own seed: one generator a run,
	// not one a pipeline.
	outPCG rand.PCG

	now    int64
	seq    uint64
	curSeq uint64 // the sequence number of the event being handled
	events int64
	q      eventQueue
	hbq    eventQueue // the nodes' heartbeats, apart from q (heartbeats.go)
	hbf    hbFIFO     // the heartbeats scheduled one interval after the one handled (heartbeats.go)
	arr    arrivals   // the jobs' arrivals, apart from q (heartbeats.go)
	nodes  []nodeState

	jobs    []*Job // by workload position; nil before arrival and after finish
	active  []*Job // arrived, unfinished, in submission order (candidates.go)
	pending int64  // maps and ready reduces waiting for a slot, over all jobs

	views    []*JobView // the active jobs' views, in step with active (Active; candidates.go)
	mapCands []*JobView // the active jobs with a pending map, in submission order (MapCandidates)
	redCands []*JobView // the active jobs with a launchable reduce, in submission order (ReduceCandidates)

	// The wake-up sweep: nodes in heartbeat-phase order, and the position and
	// interval start of the next dormant node to visit.
	phaseOrder []int32
	sweeping   bool
	sweepIdx   int
	sweepBase  int64
	sweepEv    event // the sweep's one scheduled event, apart from q, when sweepDue (heartbeats.go)
	sweepDue   bool
	pk         parking      // parked nodes (park.go)
	idx        indexScratch // Job.indexWith's scratch
	splits     []int64      // Workload.build's scratch

	runningRemote int32
	running       int64 // tasks holding a slot
	lastChange    int64 // last arrival, launch or finish, for stall detection
	res           Result
	finished      int
	sampling      bool
	chk           *checker // Options.CheckInvariants; also an observer on bus
	bus           bus

	busyMapUs, busyReduceUs int64
	netBytes                int64
	mapsLaunched            int64
	dataNodes               int
	mm                      machineMetrics
	net                     netAcct
	lc                      lcSim
	specRunning             int           // speculative map copies holding a slot
	yarn                    yarnSim       // cluster = "yarn" (yarn.go)
	preempted               int64         // containers preempted (yarn.go)
	ticker                  Ticker        // the policy, when it has a timer (yarn.go)
	ticking                 bool          // an evTick is queued
	polErr                  PolicyError   // the policy, when it can fail (PolicyError)
	netm                    NetworkModel  // the network key's model (network.go)
	fn                      Flows         // netm's transfer network when it re-times transfers; nil otherwise
	flowErr                 error         // a transfer that failed to start (a bug): stops the run
	inflight                inflightTally // transfers of fn under way between nodes, by start time (netstats.go)
	flowCancels             int64         // transfers of fn withdrawn before their end (network_cancel.go)
	xi                      xferIndex     // each attempt's transfers under way (network_cancel.go)
	xscratch                []int32       // withdraw's ids
	batchOut                batchOut      // flow_shuffle = "batch": outputs' bytes out of their hosts not yet reported (network_retimed.go)
	roundMix                roundMix      // flow_shuffle = "batch": sourceMix's scratch (network_retimed.go)
	roundSrcs               []roundSource // flow_shuffle = "batch": the sources of the round being started (sourceMix)
	roundIdx                []int32       // sourceMix's scratch
	roundTotal              int64         // the bytes of the round's sources, those capped off included (0: the sources' sum)

	hbSent hbSentAt   // HeartbeatsSent's last answer (heartbeats.go)
	phases []int64    // the nodes' phases in phase order (orderPhases), for HeartbeatsSent's walk and parking's searches
	phaseX phaseIndex // finds a time's place in phases (heartbeats.go)

	// outPool holds zeroed per-node map output arrays (jobOutput.bytes)
	// that retired jobs gave back (retireMaps), for the next jobs' outputs
	// (mapOutput): one array a job with maps running rather than one a job.
	outPool [][]int64
	// slotPool holds zeroed per-node tally slot tables (outputTally.slot)
	// that jobs gave back when their maps were dropped (retireMaps), for
	// the next jobs' tallies (tallyOutput).
	slotPool [][]int32
}

// Run replays w through policy p and returns the results.
func Run(w *Workload, p Policy, opt Options) (*Result, error) {
	start := time.Now()
	if w.perJob {
		return nil, errors.New("the workload was built for the observed schedule only (WorkloadOptions.Observed)")
	}
	s := &Sim{hw: w.hw, topo: w.topo, w: w, pol: p, opt: opt, policy: PolicyRand(opt.Seed)}
	s.nodes = make([]nodeState, len(s.topo.Nodes))
	s.mm.init(len(s.nodes), min(s.hw.Replication, len(s.topo.DataNodes)))
	hb := rand.New(rand.NewPCG(opt.Seed, streamHeartbeat<<40))
	for i := range s.nodes {
		n := &s.topo.Nodes[i]
		s.nodes[i] = nodeState{freeMap: n.MapSlots, freeReduce: n.ReduceSlots, nextHB: -1}
		if s.hw.HeartbeatJitter {
			s.nodes[i].phase = hb.Int64N(int64(s.hw.Heartbeat))
		}
		if n.MapSlots > 0 {
			s.dataNodes++
		}
	}
	s.orderPhases()
	s.initYARN()
	if err := CheckPolicyKind(s.hw, p); err != nil {
		return nil, err
	}
	s.netm = w.net
	fn, err := s.netm.NewFlows(s.topo)
	if err != nil {
		return nil, err
	}
	s.fn = fn
	s.initParking()
	s.jobs = make([]*Job, w.Len())
	s.net = newNetAcct(len(s.nodes), int64(s.hw.TimelineSample), opt.Timeline, &s.now, s.addNodeNet)
	if s.fn != nil {
		s.net.floor = s.earliestStart
	}
	s.res.out = opt.Out
	var adjust func(*Job, *JobResult)
	if s.hw.Lifecycle {
		adjust = s.lcHistoryTimes
	}
	if rep, ok := p.(QueueReporter); ok && s.yarn.on {
		adjust = leafQueues(rep, adjust)
	}
	jm := newJobMetrics(&s.res.Jobs, adjust)
	jm.sink = s.jobSink() // stream.go
	s.bus.register(jm, jobMetricsEvents)
	s.bus.register(&s.mm, onJobArrived|onTaskLaunched|onTaskEnded)
	s.bus.register(&s.net, onTransfer)
	if opt.RecordTasks {
		s.bus.register(taskRecorder{s: s}, onTaskEnded)
	}
	if opt.Timeline {
		s.bus.register(timelineRecorder{add: s.addSample}, onSample)
		if s.yarn.on {
			s.bus.register(&queueRecorder{s: s}, onSample)
		}
		if s.fn != nil {
			s.bus.register(linkRecorder{s: s}, onSample)
		}
	}
	if opt.CheckInvariants {
		s.chk = newChecker(s)
		s.bus.register(s.chk, onTaskLaunched|onTaskEnded|onJobFinished)
	}
	for _, o := range opt.Observers {
		s.bus.register(o, onAll)
	}
	s.scheduleArrivals()
	defer s.arr.src.close()
	p.Init(s)
	if pe, ok := p.(PolicyError); ok {
		if err := pe.Err(); err != nil {
			return nil, fmt.Errorf("policy %s: %w", p.Name(), err)
		}
		s.polErr = pe
	}
	if err := s.loop(); err != nil {
		return nil, fmt.Errorf("policy %s: %w", p.Name(), err)
	}
	if opt.atEnd != nil {
		opt.atEnd(s)
	}
	if opt.Alone != nil {
		if err := s.measureAlone(); err != nil {
			return nil, fmt.Errorf("policy %s: %w", p.Name(), err)
		}
	}
	s.summarise()
	if q, ok := s.fn.(*flowNet); ok {
		s.res.flowCost = q.cost()
	}
	s.res.Wall = time.Since(start)
	return &s.res, nil
}

func (s *Sim) schedule(t int64, k eventKind, a, b int32) {
	s.seq++
	s.q.push(mkEvent(t, s.seq<<1, k, a, b))
}

// stallLimit is how long a run may go with tasks waiting, none running and no
// job arriving before it is stopped as stalled: a policy that never launches
// what waits would otherwise heartbeat forever.
const stallLimit = int64(24 * time.Hour / time.Microsecond)

func (s *Sim) loop() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(invariantError); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	for len(s.q) > 0 || s.arr.due() || s.sweepDue || (len(s.hbq) > 0 || s.hbf.len() > 0 || !s.pk.wq.empty()) && s.wantsHeartbeats() || s.fn != nil && s.fn.Active() {
		if s.pk.on {
			s.noteZero()
		}
		if s.fn != nil {
			if done, err := s.flowStep(); err != nil {
				return err
			} else if done {
				continue
			}
		}
		e, ok := s.next()
		if !ok {
			continue
		}
		if s.chk != nil {
			s.chk.time(e.t)
		}
		s.now, s.curSeq = e.t, e.key()
		if s.pk.on {
			s.pk.record(e.t, e.key(), s.seq)
			if s.pk.log.n >= s.pk.logCap {
				s.capLog()
			}
		}
		s.events++
		if s.opt.stats != nil {
			s.opt.stats.ByKind[e.kind()]++
		}
		if s.events&4095 == 0 && s.opt.Context != nil && s.opt.Context.Err() != nil {
			return fmt.Errorf("stopped at %s of simulated time: %w", Duration(s.now), s.opt.Context.Err())
		}
		if s.running == 0 && s.pending > 0 && s.now-s.lastChange > stallLimit {
			return fmt.Errorf("stalled at %s of simulated time: %d tasks wait on an idle cluster and nothing was launched for %s",
				Duration(s.now), s.pending, Duration(stallLimit))
		}
		switch e.kind() {
		case evArrival:
			s.arrive(int(e.a))
		case evHeartbeat:
			s.heartbeat(e.a, e.t)
		case evMapDone:
			if s.specOn() {
				if j := s.jobs[e.a]; j == nil || j.Maps[e.b].State != Running || j.Maps[e.b].FinishUs != e.t {
					continue // stale: a speculative copy completed the map earlier
				}
			}
			s.mapDone(s.jobs[e.a], e.b)
		case evReduceDone:
			s.reduceDone(s.jobs[e.a], e.b)
		case evSample:
			s.sample()
		case evSweep:
			s.sweep()
		case evInitPoll:
			s.lcPoll(e.b)
		case evInitDone:
			switch e.b {
			case initSlotAMAsks:
				s.admit(s.jobs[e.a]) // yarn_slotam.go
			case initSlotAMReduces:
				s.slotAMReducesAsked(s.jobs[e.a]) // yarn_slotam.go
			default:
				s.lcInitDone(s.jobs[e.a], e.b == 1)
			}
		case evLifecycleDone:
			s.lcDone(s.jobs[e.a], e.b)
		case evFetchStart:
			s.fetchStart(s.jobs[e.a], e.b)
		case evAMReady:
			s.amReady(s.jobs[e.a])
		case evTick:
			s.tick()
		case evAMTick:
			s.amTick()
		case evTaskFlow:
			s.taskFlowStage(s.jobs[e.a], e.b)
		case evSpecKill:
			s.specKill(e.a, e.b)
		}
		if s.polErr != nil {
			if err := s.polErr.Err(); err != nil {
				return err
			}
		}
		if s.arr.err != nil {
			return s.arr.err
		}
	}
	if s.finished != s.w.Len() {
		return fmt.Errorf("the run stopped with %d of %d jobs unfinished: the policy left tasks it never launched", s.w.Len()-s.finished, s.w.Len())
	}
	if s.chk != nil {
		s.chk.final()
	}
	return nil
}

// Now is the current simulated time in microseconds.
func (s *Sim) Now() int64 { return s.now }

// Hardware is the run's hardware model.
func (s *Sim) Hardware() *Hardware { return s.hw }

// Topology is the run's cluster.
func (s *Sim) Topology() *Topology { return s.topo }

// Rand is the policy's own random stream.
func (s *Sim) Rand() *rand.Rand { return s.policy }

// FreeMapSlots is the number of idle map slots on node n; during n's
// heartbeat with maps_per_heartbeat set, at most the maps it may still
// launch at it (heartbeat_cap.go).
func (s *Sim) FreeMapSlots(n int32) int32 {
	return s.capFree(n, s.nodes[n].freeMap, s.hw.MapsPerHeartbeat, s.hbc.maps)
}

// FreeReduceSlots is the number of idle reduce slots on node n; during n's
// heartbeat with reduces_per_heartbeat set, at most the reduces it may
// still launch at it.
func (s *Sim) FreeReduceSlots(n int32) int32 {
	return s.capFree(n, s.nodes[n].freeReduce, s.hw.ReducesPerHeartbeat, s.hbc.reduces)
}

// RunningRemoteMaps is the number of maps now reading their input over the
// network.
func (s *Sim) RunningRemoteMaps() int32 { return s.runningRemote }

// locality is how close node n is to map i of job j: NodeLocal everywhere for
// a map without input (MapTask.NoInput).
func (s *Sim) locality(j *Job, i int32, n int32) Locality {
	reps := j.Replicas(i)
	if len(reps) == 0 {
		return NodeLocal
	}
	rack := s.topo.Nodes[n].Rack
	best := OffRack
	for _, r := range reps {
		if r == n {
			return NodeLocal
		}
		if s.topo.Nodes[r].Rack == rack {
			best = RackLocal
		}
	}
	return best
}

func (s *Sim) mapCost(j *Job, i int32, n int32) (int64, Locality, int32) {
	m := &j.Maps[i]
	loc := s.locality(j, i, n)
	var retryUs int64
	var x *mapExtra
	if j.mx != nil {
		x = &j.mx[i]
		retryUs = x.retryUs
	}
	if loc == NodeLocal {
		return retryUs + m.localUs, loc, n
	}
	src := s.nearestReplica(j, i, n)
	if x != nil && x.obs != obsNone {
		return retryUs + s.hw.observedUs(x.obs, x.obsUs, loc), loc, src
	}
	if s.fn != nil {
		return retryUs + m.localUs + s.fn.EstimateUs(m.InputBytes, src, n), loc, src
	}
	extra := s.netm.ReadUs(m.InputBytes, loc, s.runningRemote+1)
	return retryUs + m.localUs + int64(math.Ceil(extra)), loc, src
}

// nearestReplica is the replica a remote map reads: one in n's rack if any, else
// the first listed.
func (s *Sim) nearestReplica(j *Job, i int32, n int32) int32 {
	reps := j.Replicas(i)
	rack := s.topo.Nodes[n].Rack
	for _, r := range reps {
		if s.topo.Nodes[r].Rack == rack {
			return r
		}
	}
	return reps[0]
}

// launchMap starts map i of job j on node n, which must have a free map slot, and
// returns its locality. Launching a task that is not pending is a policy bug and
// panics.
func (s *Sim) launchMap(j *Job, i int32, n int32) Locality {
	if j.life.fail.failed {
		return s.locality(j, i, n) // a plan made before its job failed: nothing to launch (jobfail.go)
	}
	m := &j.Maps[i]
	ns := &s.nodes[n]
	if m.State != Pending || j.finished || !s.takeMapSlot(j, n) {
		panic(fmt.Sprintf("policy %s launched map %d of job %s on node %d: task state %d, free map slots %d, %s",
			s.pol.Name(), i, j.Trace.ID, n, m.State, ns.freeMap, s.yarnRoom(j, n, MapContainer)))
	}
	d, loc, src := s.mapCost(j, i, n)
	flowRead := s.fn != nil && j.obsOf(i) == obsNone // under flow a modelled map's transfers are flows (network_disk.go)
	saved := s.jvmTake(n, j, false, i)               // JVM reuse (lifecycle_ext.go)
	d -= saved
	amWait := s.amWaitUs(j) // YARN: the AM takes the container at its next heartbeat (yarn.go)
	d += amWait
	m.State, m.Node, m.Locality, m.LaunchUs, m.FinishUs, m.srcNode = Running, n, loc, s.now, s.reportedTask(j, false, i, n, s.now+d), src
	m.endUs = s.now + d
	j.taken[i>>6] |= 1 << (i & 63)
	s.countLaunch(n, false)
	j.PendingMaps--
	j.RunningMaps++
	s.noteCands(j)
	if j.hist != nil {
		j.hist.started(s.now, j.hist.maps[i], int64(s.hw.TaskStartup), false)
	}
	s.taskLaunched(j)
	if loc != NodeLocal {
		s.runningRemote++
		s.netBytes += m.InputBytes
		if !flowRead {
			s.bus.transfer(TransferEvent{Src: src, Dst: n, Bytes: m.InputBytes, Start: s.now, End: s.now + d})
		}
	}
	s.bus.taskLaunched(TaskEvent{Time: s.now, Job: j, Kind: TaskMap, Index: i, Node: n, Locality: loc})
	s.obsMapLaunched(j, i) // an observed speculative copy (lifecycle_specobs.go)
	s.mapsLaunched++
	if s.dataNodes > 0 && s.mapsLaunched%int64(s.dataNodes) == 0 {
		s.sampleUnprocessedLoad()
	}
	if flowRead {
		s.flowMapLaunched(j, i, saved, amWait) // its spill's end schedules the map's end
	} else {
		s.schedule(m.FinishUs, evMapDone, j.Index, i)
	}
	return loc
}

// launchReduce starts the job's next pending reduce on node n, which must have a
// free reduce slot, and returns its index; it returns -1 and launches nothing when
// the job has no pending reduce or its slow-start threshold is not reached.
func (s *Sim) launchReduce(j *Job, n int32) int32 {
	if j.life.fail.failed {
		return -1 // its job failed (jobfail.go)
	}
	ns := &s.nodes[n]
	if j.finished || !s.yarn.on && ns.freeReduce <= 0 || s.yarn.on && !j.yarn.size[ReduceContainer].Fits(s.yarn.free[n]) {
		panic(fmt.Sprintf("policy %s launched a reduce of job %s on node %d with %d free reduce slots, %s",
			s.pol.Name(), j.Trace.ID, n, ns.freeReduce, s.yarnRoom(j, n, ReduceContainer)))
	}
	if !j.ready || j.PendingReduces == 0 || !s.rampUpAllows(j) {
		return -1
	}
	i := j.nextRed
	if len(j.redAgain) > 0 {
		i, j.redAgain = j.redAgain[0], j.redAgain[1:]
	} else {
		j.nextRed++
	}
	r := &j.Reduces[i]
	s.takeReduceSlot(j, n)
	saved := s.jvmTake(n, j, true, i) // JVM reuse (lifecycle_ext.go)
	r.copyUs -= saved
	j.setRedAMWaitUs(i, s.amWaitUs(j))
	r.State, r.Node, r.LaunchUs = Running, n, s.now
	s.countLaunch(n, true)
	j.PendingReduces--
	j.RunningReduces++
	s.noteCands(j)
	if j.hist != nil {
		j.hist.started(s.now, j.hist.reduces[i], int64(s.hw.TaskStartup), true)
	}
	s.taskLaunched(j)
	s.reduceLaunched(j, i, saved)
	s.bus.taskLaunched(TaskEvent{Time: s.now, Job: j, Kind: TaskReduce, Index: i, Node: n})
	if s.launchFailingReduce(j, i) { // jobfail.go
		return i
	}
	if j.MapsDone() {
		s.startReducePhase(j, i)
	} else {
		j.waiting = append(j.waiting, i)
	}
	return i
}

// startReducePhase schedules reduce i's end once the job's last map has ended: the
// copy of its whole share from its launch, or of the last map's share after the
// last map, whichever ends later, then its reduce work.
func (s *Sim) startReducePhase(j *Job, i int32) {
	if s.fn != nil {
		s.flowReducePhase(j, i)
		return
	}
	r := &j.Reduces[i]
	r.ShuffleEndUs = s.shuffleEnd(j, i)
	r.FinishUs = s.reportedTask(j, true, i, r.Node, r.ShuffleEndUs+r.workUs)
	if s.chk != nil {
		s.chk.reducePhase(j, i)
	}
	s.schedule(r.FinishUs, evReduceDone, j.Index, i)
}

func (s *Sim) arrive(k int) {
	rj := s.arr.job
	if s.arr.k != k {
		panic(fmt.Sprintf("arrival of job %d handled while job %d's was due", k, s.arr.k))
	}
	s.arr.k++
	s.loadArrival()
	j := s.w.build(k, rj, &s.splits)
	j.FirstLaunchUs, j.LastMapEndUs = Unset, Unset
	s.jobs[k] = j
	if s.yarn.on {
		s.yarnSubmit(j)
		return
	}
	if s.hw.Lifecycle {
		s.lcSubmit(j)
		return
	}
	s.admit(j)
}

// admit hands job j's maps and reduces to the policy: at its arrival, or with
// the lifecycle when its setup is done.
func (s *Sim) admit(j *Job) {
	j.indexWith(s.topo, &s.idx)
	j.ownTaken = true
	s.bus.jobArrived(JobEvent{Time: s.now, Job: j})
	j.PendingMaps = int32(len(j.Maps))
	j.PendingReduces = int32(len(j.Reduces))
	s.addActive(j)
	s.lastChange = s.now
	s.pending += int64(j.PendingMaps)
	s.checkReady(j)
	s.pol.JobArrived(s, j.View())
	if !s.sampling && s.opt.Timeline {
		s.sampling = true
		step := int64(s.hw.TimelineSample)
		s.schedule((s.now+step-1)/step*step, evSample, 0, 0)
	}
	s.wake()
}

// checkReady marks the job's reduces launchable once its slow-start fraction of
// maps has finished.
func (s *Sim) checkReady(j *Job) {
	if j.ready || len(j.Reduces) == 0 {
		return
	}
	need := int32(math.Ceil(s.hw.SlowStart * float64(len(j.Maps))))
	if j.FinishedMaps < need {
		return
	}
	if j.yarn.slotAM {
		s.slotAMSlowStart(j) // its AM asks for them (yarn_slotam.go)
		return
	}
	s.markReady(j, false)
}

// markReady makes the job's reduces launchable; with wake, at an event of
// its own (yarn_slotam.go), it wakes the dormant nodes when nothing waited
// before, as a job's arrival does.
func (s *Sim) markReady(j *Job, wake bool) {
	j.ready = true
	s.noteCands(j)
	was := s.pending
	s.pending += int64(j.PendingReduces)
	if j.PendingReduces > 0 {
		if wake && was == 0 {
			s.lastChange = s.now
			s.wake()
		}
		s.wakeReduceNodes()
	}
}

// wake starts visiting dormant nodes now that there is work. A node goes dormant
// when it has no free slot or nothing waits anywhere, since a heartbeat then
// cannot change anything; a node whose slot frees schedules its own heartbeat
// (slotFreed). So when work appears, the nodes to visit are the dormant ones with
// a free slot, at their periodic ticks. Rather than scheduling a heartbeat for
// each, one sweep event walks them in tick order and stops as soon as nothing
// waits: the same heartbeats at the same times, without an event for each idle
// node of a large cluster on every job arrival.
func (s *Sim) wake() {
	if s.pending == 0 {
		return
	}
	s.settleAll()
	s.catchUp()
	s.cancelHeartbeats()
	if s.sweeping {
		return
	}
	iv := int64(s.hw.Heartbeat)
	t0 := max(s.now, s.w.upUs) // no tracker heartbeats before the cluster is up (lifecycle.go)
	r := t0 % iv
	s.sweepBase = t0 - r
	s.sweepIdx = s.phaseX.search(r)
	if s.sweepIdx == len(s.phaseOrder) {
		s.sweepIdx, s.sweepBase = 0, s.sweepBase+iv
	}
	s.sweeping = true
	s.nextSweep()
}

// nextSweep schedules the sweep at the next dormant node with a free slot, in
// tick order, or ends the sweep when a whole interval holds none.
func (s *Sim) nextSweep() {
	iv := int64(s.hw.Heartbeat)
	for range len(s.phaseOrder) {
		n := s.phaseOrder[s.sweepIdx]
		ns := &s.nodes[n]
		if ns.nextHB < 0 && s.hasRoom(n) {
			s.scheduleSweep(s.sweepBase+ns.phase, n)
			return
		}
		s.sweepIdx++
		if s.sweepIdx == len(s.phaseOrder) {
			s.sweepIdx, s.sweepBase = 0, s.sweepBase+iv
		}
	}
	s.sweeping = false
}

// sweep gives the dormant node it reached its heartbeat, then moves on.
func (s *Sim) sweep() {
	if s.pending == 0 {
		s.sweeping = false
		return
	}
	n := s.phaseOrder[s.sweepIdx]
	if ns := &s.nodes[n]; ns.nextHB < 0 && s.hasRoom(n) {
		ns.nextHB = s.now
		s.heartbeat(n, s.now)
	}
	s.sweepIdx++
	if s.sweepIdx == len(s.phaseOrder) {
		s.sweepIdx, s.sweepBase = 0, s.sweepBase+int64(s.hw.Heartbeat)
	}
	s.nextSweep()
}

// orderPhases lists the nodes by heartbeat phase, ties by id.
func (s *Sim) orderPhases() {
	s.phaseOrder = make([]int32, len(s.nodes))
	for i := range s.phaseOrder {
		s.phaseOrder[i] = int32(i)
	}
	slices.SortStableFunc(s.phaseOrder, func(a, b int32) int { return cmpInt64(s.nodes[a].phase, s.nodes[b].phase) })
	s.phases = make([]int64, len(s.phaseOrder))
	for i, n := range s.phaseOrder {
		s.phases[i] = s.nodes[n].phase
	}
	s.phaseX.init(s.phases, int64(s.hw.Heartbeat))
	s.hbSent = hbSentAt{}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *Sim) heartbeat(n int32, t int64) {
	ns := &s.nodes[n]
	if ns.nextHB != t {
		if s.opt.stats != nil {
			s.opt.stats.Stale++
		}
		return // superseded by an out-of-band heartbeat
	}
	ns.nextHB = -1
	if !s.hasRoom(n) || !s.wantsHeartbeats() {
		if s.opt.stats != nil {
			s.opt.stats.Dormant++
		}
		return // dormant until a slot frees or work arrives
	}
	launched := s.running
	s.pk.firstNow = false
	if s.chk != nil {
		s.chk.checkCands()
		defer s.chk.checkCands()
	}
	if !s.hw.Lifecycle || s.yarn.on || !s.lcAssign(n) {
		s.hbc = hbCount{on: true, node: n}
		s.pol.Heartbeat(s, n)
		s.hbc.on = false
		if s.specOn() {
			s.speculate(n)
		}
	}
	if st := s.opt.stats; st != nil {
		st.heartbeat(s, n, s.running-launched)
	}
	if s.hasRoom(n) && s.wantsHeartbeats() && !s.park(n, t+int64(s.hw.Heartbeat)) {
		s.scheduleNextHeartbeat(n, t+int64(s.hw.Heartbeat))
	}
}

// wantsHeartbeats reports whether a heartbeat can change anything: some task
// waits, or, with speculation, some task runs that a copy might overtake.
func (s *Sim) wantsHeartbeats() bool {
	return s.pending > 0 || s.specOn() && s.running > 0
}

// slotFreed gives node n a heartbeat now (out-of-band) or at its next periodic
// tick, unless one is already due.
func (s *Sim) slotFreed(n int32) {
	s.Wake(n)
	s.expireHeartbeat(n)
	ns := &s.nodes[n]
	if s.hw.ReportAtHeartbeat && !s.hw.OutOfBandHeartbeat && ns.nextHB < 0 {
		// The completion came with the node's heartbeat, which is now: it may
		// be given work at once.
		s.scheduleHeartbeat(n, s.now)
		return
	}
	if s.hw.OutOfBandHeartbeat {
		if ns.nextHB == s.now {
			return
		}
		s.scheduleHeartbeat(n, s.now)
		return
	}
	if ns.nextHB >= 0 {
		return
	}
	iv := int64(s.hw.Heartbeat)
	t := ns.phase
	if t <= s.now {
		t += (s.now - t + iv) / iv * iv
	}
	s.scheduleHeartbeat(n, t)
}

// taskLaunched does the cluster-wide bookkeeping common to map and reduce
// launches.
func (s *Sim) taskLaunched(j *Job) {
	s.pending--
	s.running++
	s.lastChange = s.now
	if j.FirstLaunchUs < 0 {
		j.FirstLaunchUs = s.now
	}
}

// taskEnded is the bookkeeping common to map and reduce ends.
func (s *Sim) taskEnded() {
	s.running--
	s.lastChange = s.now
}

func (s *Sim) mapDone(j *Job, i int32) {
	if j.life.fail.mapFails(i) && s.mapFailed(j, i) { // jobfail.go
		return
	}
	m := &j.Maps[i]
	m.State = Done
	atReport := !m.specWon && j.reportUs(false, i) >= 0
	// With a speculative copy, the losing attempt keeps its slot until it is
	// killed and its kill reported (lifecycle_kill.go).
	origLost := m.specNode >= 0 && s.holdLoser(j, i)
	if !origLost {
		s.freeMapSlot(j, m.Node, m.LaunchUs)
	}
	s.jvmRelease(m.Node, j, false, i)
	if m.specNode >= 0 {
		s.specEnded(j, i, true)
	}
	if m.Locality != NodeLocal {
		s.runningRemote--
	}
	s.busyMapUs += m.FinishUs - m.LaunchUs
	j.RunningMaps--
	j.FinishedMaps++
	s.taskEnded()
	s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskMap, Index: i, Node: m.Node, Locality: m.Locality})
	s.mapOutput(j, i)
	wasPending := s.pending
	s.checkReady(j)
	if j.MapsDone() {
		j.LastMapEndUs = s.now
		for _, r := range j.waiting {
			s.startReducePhase(j, r)
		}
		j.waiting = nil
	}
	s.pol.TaskFinished(s, j.View(), false, i)
	if s.mapsRetire(j) {
		s.retireMaps(j) // job.go
	}
	if j.MapsDone() && len(j.Reduces) == 0 {
		s.finishJob(j)
	}
	if wasPending == 0 && s.pending > 0 {
		s.wake()
	}
	if atReport {
		s.reportBeat(m.Node) // its recorded report was the node's heartbeat (taskReportUs)
		return
	}
	s.slotFreed(m.Node)
}

func (s *Sim) reduceDone(j *Job, i int32) {
	if j.life.fail.reduceFails(i) && s.reduceFailed(j, i) { // jobfail.go
		return
	}
	r := &j.Reduces[i]
	r.State = Done
	s.freeReduceSlot(j, r.Node, r.LaunchUs)
	s.jvmRelease(r.Node, j, true, i)
	s.busyReduceUs += r.FinishUs - r.LaunchUs
	j.RunningReduces--
	j.FinishedReduces++
	s.taskEnded()
	s.bus.taskEnded(TaskEvent{Time: s.now, Job: j, Kind: TaskReduce, Index: i, Node: r.Node})
	s.pol.TaskFinished(s, j.View(), true, i)
	if j.FinishedReduces == int32(len(j.Reduces)) {
		s.finishJob(j)
	}
	if j.reportUs(true, i) >= 0 {
		s.reportBeat(r.Node) // its recorded report was the node's heartbeat (taskReportUs)
		return
	}
	s.slotFreed(r.Node)
}

func (s *Sim) finishJob(j *Job) {
	if s.hw.Lifecycle && !s.yarn.on && j.life.phase != lcDone {
		s.lcWorkDone(j)
		return
	}
	if len(s.lc.losers) > 0 {
		s.killLosersNow(j) // lifecycle_kill.go
	}
	j.finished = true
	s.bus.jobFinished(JobEvent{Time: s.now, Job: j}) // the job's result (metrics_job.go)
	if !s.hw.Lifecycle || s.yarn.on {
		s.pol.JobFinished(s, j.View()) // with the lifecycle: when its work was done (lcWorkDone)
	}
	s.removeActive(j)
	s.jobs[j.Index] = nil
	s.finished++
	if s.yarn.on {
		s.yarnJobDone(j)
	}
	if s.opt.Progress != nil && s.finished%256 == 0 {
		s.opt.Progress(s.finished, s.w.Len())
	}
}

func (s *Sim) recordMap(j *Job, i int32) {
	if !s.opt.RecordTasks {
		return
	}
	m := &j.Maps[i]
	n := &s.topo.Nodes[m.Node]
	s.addTask(TaskResult{JobIndex: j.Index, JobID: j.Trace.ID, Type: "MAP", Index: i,
		Node: m.Node, Host: n.Host, Rack: s.topo.RackNames[n.Rack], Locality: m.Locality.String(),
		LaunchUs: m.LaunchUs, ShuffleEndUs: Unset, FinishUs: m.FinishUs, InputBytes: m.InputBytes})
}

func (s *Sim) recordReduce(j *Job, i int32) {
	if !s.opt.RecordTasks {
		return
	}
	r := &j.Reduces[i]
	n := &s.topo.Nodes[r.Node]
	s.addTask(TaskResult{JobIndex: j.Index, JobID: j.Trace.ID, Type: "REDUCE", Index: i,
		Node: r.Node, Host: n.Host, Rack: s.topo.RackNames[n.Rack], LaunchUs: r.LaunchUs,
		ShuffleEndUs: r.ShuffleEndUs, FinishUs: r.FinishUs, InputBytes: r.ShuffleBytes})
}

func (s *Sim) sample() {
	if len(s.active) == 0 {
		s.sampling = false
		return
	}
	s.bus.sample(SampleEvent{Time: s.now, Active: s.active})
	s.schedule(s.now+int64(s.hw.TimelineSample), evSample, 0, 0)
}

func (s *Sim) summarise() {
	sum := &s.res.Summary
	sum.Policy, sum.Trace, sum.Hardware, sum.Seed = s.pol.Name(), s.opt.TraceName, s.opt.HardwareName, s.opt.Seed
	// The jobs' sums: taken as they finished when they were streamed, else
	// over the results in finish order (results.go).
	var acc runAcc
	if w := s.opt.Out; w != nil && w.jobsOn {
		acc = w.run
	} else {
		acc.init()
		for i := range s.res.Jobs {
			acc.add(&s.res.Jobs[i])
		}
	}
	sum.Jobs = acc.jobs
	sum.Maps, sum.Reduces, sum.TotalFlowtimeUs = acc.maps, acc.reduces, acc.flowUs
	sum.MakespanUs = acc.last - acc.first
	if sum.Maps > 0 {
		sum.MapLocality = float64(acc.local) / float64(sum.Maps)
		sum.RackLocality = float64(acc.rack) / float64(sum.Maps)
	}
	if sec := float64(sum.MakespanUs) / 1e6; sec > 0 {
		sum.MapThroughput = float64(sum.Maps) / sec
		sum.ReduceThroughput = float64(sum.Reduces) / sec
		sum.MapUtilisation = float64(s.busyMapUs) / (float64(s.hw.TotalMapSlots()) * float64(sum.MakespanUs))
		sum.ReduceUtilisation = float64(s.busyReduceUs) / (float64(s.hw.TotalReduceSlots()) * float64(sum.MakespanUs))
	}
	s.yarnUtilisation(sum)
	sum.JainFairness = acc.jain()
	s.mm.summarise(sum)
	sum.NetworkBytes = s.netBytes
	s.summariseNodes()
	sum.Events = s.events
	sum.JobsLeftOut = s.w.leftOut
	slices.SortFunc(s.res.Jobs, func(a, b JobResult) int { return int(a.JobIndex - b.JobIndex) })
	for i := range s.res.Jobs {
		s.res.Jobs[i].Policy = sum.Policy
	}
	for i := range s.res.Tasks {
		s.res.Tasks[i].Policy = sum.Policy
	}
	for i := range s.res.Timeline {
		s.res.Timeline[i].Policy = sum.Policy
	}
}
