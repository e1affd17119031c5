package replay

import (
	"fmt"
	"math"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// The flow model inside the engine (network = "flow").
//
// One flow.Network holds the cluster's NICs (each direction), rack uplinks and
// downlinks and, with core_oversubscription > 1, the core. Two kinds of
// transfer become flows:
//
//   - a remote map's input read, from the replica it reads (nearestReplica)
//     to its node, started at the map's launch; the map ends at the read's end
//     plus its node-local time (start-up, disk read and compute, as a
//     node-local map);
//   - each reduce's fetch of its share of a finished map's output, from the
//     map's node, at most parallel_copies at a time per reduce, in the order
//     the maps finished, from the reduce's start-up on. A fetch from its own
//     node is free, as under shuffle = "topology"; shuffle_fetch_latency adds
//     its share per fetch as there. The shuffle ends with the last fetch.
//
// The engine takes the network as a second event source: its loop compares
// the queue's next event with the network's next flow end and handles the
// earlier, the flow end first on a tie. A flow whose rate moves needs no event
// then: Next already knows its new end. A map's done event is scheduled only
// when its read has ended, so it is never stale.
//
// Disks are not shared resources yet: a task's disk time is in its node-local
// time as under the other models. Maps whose duration comes from the trace
// keep it (trace_locality rescales it at the fixed rates).

// flowNet is the run's flow network and what each of its flows is for.
type flowNet struct {
	n     *flow.Network
	topo  *flow.Topology
	node  []int // replay node → flow node
	xfers []xfer
	free  []flow.FlowID
	path  []flow.ResourceID
	err   error
	// pending are the flows started at the current time, added in one batch
	// (one re-solve) before the network is next asked for its next end.
	pending []flow.Spec
	paths   []flow.ResourceID // backing store of pending's paths
	// inflight counts the flows under way by their start time, so that the
	// network accounting keeps open every interval a flow may still spread
	// its bytes into (earliestStart).
	inflight map[int64]int
}

// earliestStart is the start time of the earliest flow under way or about to
// start, math.MaxInt64 when there is none. Linear in the distinct start times
// of the flows under way.
func (fn *flowNet) earliestStart() int64 {
	m := int64(math.MaxInt64)
	for t := range fn.inflight {
		m = min(m, t)
	}
	return m
}

// xfer is what a flow carries: the input of map task (fetchOf < 0) or reduce
// task's fetch of map fetchOf's output, both of job (its workload index).
type xfer struct {
	job, task, fetchOf int32
	src, dst           int32
	bytes, start       int64
}

// newFlowNet builds the flow network of the run's cluster.
func newFlowNet(h *Hardware, t *Topology) (*flowNet, error) {
	fn := &flowNet{n: flow.New(), node: make([]int, len(t.Nodes))}
	var sizes []int
	k := 0
	for _, rack := range t.RackNodes {
		if len(rack) == 0 {
			continue
		}
		sizes = append(sizes, len(rack))
		for _, n := range rack {
			fn.node[n] = k
			k++
		}
	}
	c := flow.Cluster{RackSizes: sizes, NICBytesPerSec: h.NICMBps * 1e6, UplinkBytesPerSec: h.RackUplinkMBps * 1e6,
		CoreRatio: h.coreRatio(), DisksPerNode: 1, DiskBytesPerSec: h.DiskMBps * 1e6}
	topo, err := c.Build(fn.n)
	if err != nil {
		return nil, fmt.Errorf("network = \"flow\": %w", err)
	}
	fn.topo = topo
	return fn, nil
}

// active reports whether a flow is under way or about to start; false
// without a flow network.
func (fn *flowNet) active() bool { return fn != nil && (fn.n.Active() > 0 || len(fn.pending) > 0) }

// start begins a transfer at now: it joins the batch added at the next flush.
func (fn *flowNet) start(now int64, x xfer) error {
	k := len(fn.paths)
	p, err := fn.topo.Path(fn.paths, fn.node[x.src], fn.node[x.dst])
	if err != nil {
		return err
	}
	fn.paths = p
	var id flow.FlowID
	if k := len(fn.free); k > 0 {
		id, fn.free = fn.free[k-1], fn.free[:k-1]
	} else {
		id = flow.FlowID(len(fn.xfers))
		fn.xfers = append(fn.xfers, xfer{})
	}
	x.start = now
	fn.xfers[id] = x
	if fn.inflight == nil {
		fn.inflight = map[int64]int{}
	}
	fn.inflight[now]++
	// The path is p[k:] once every path of the batch is in paths (appends may
	// move it), so it is set by flush.
	fn.pending = append(fn.pending, flow.Spec{ID: id, Bytes: x.bytes, Path: p[k:len(p):len(p)]})
	return nil
}

// flush adds the pending flows at now in one batch.
func (fn *flowNet) flush(now int64) error {
	if len(fn.pending) == 0 {
		return nil
	}
	off := 0
	for i := range fn.pending {
		n := len(fn.pending[i].Path)
		fn.pending[i].Path = fn.paths[off : off+n : off+n]
		off += n
	}
	_, err := fn.n.AddBatch(now, fn.pending)
	if err != nil {
		err = fmt.Errorf("flow network: start %d flows at %d µs: %w", len(fn.pending), now, err)
	}
	fn.pending, fn.paths = fn.pending[:0], fn.paths[:0]
	return err
}

// estimateUs is what policies are told a transfer of b bytes from src to dst
// started now would take: under max-min a new flow gets at least the smallest
// equal split of its path's resources (capacity / (flows on it + 1)), so the
// bytes over that split bound its time from above while nothing else changes.
// It costs O(path), not a re-solve.
func (fn *flowNet) estimateUs(b int64, src, dst int32) int64 {
	p, err := fn.topo.Path(fn.path[:0], fn.node[src], fn.node[dst])
	if err != nil || len(p) == 0 {
		return 0
	}
	fn.path = p
	rate := math.Inf(1)
	for _, r := range p {
		rate = min(rate, fn.n.Capacity(r)/float64(fn.n.FlowsOn(r)+1))
	}
	return int64(math.Ceil(float64(b) / rate * 1e6))
}

// flowStep handles the network's next flow end if it comes no later than the
// queue's next event; it reports whether it handled one.
func (s *Sim) flowStep() (bool, error) {
	fn := s.fn
	if err := fn.flush(s.now); err != nil {
		return false, err
	}
	if fn.err != nil {
		return false, fn.err
	}
	id, at, ok := fn.n.Next()
	if !ok || len(s.q) > 0 && s.q[0].t < at {
		return false, nil
	}
	if s.chk != nil {
		s.chk.time(at)
	}
	s.now = at
	s.events++
	x := fn.xfers[id]
	if _, err := fn.n.Remove(at, id); err != nil {
		return false, fmt.Errorf("flow network: end flow %d at %d µs: %w", id, at, err)
	}
	fn.free = append(fn.free, id)
	s.net.transfer(x.src, x.dst, x.bytes, x.start, at)
	if fn.inflight[x.start]--; fn.inflight[x.start] <= 0 {
		delete(fn.inflight, x.start)
	}
	j := s.jobs[x.job]
	if x.fetchOf < 0 {
		m := &j.Maps[x.task]
		old := m.FinishUs
		m.FinishUs = s.reported(m.Node, at+m.retryUs+m.localUs)
		s.mm.retime(m, old)
		s.schedule(m.FinishUs, evMapDone, j.Index, x.task)
	} else {
		st := &j.out.fs[x.task]
		st.active--
		s.pumpFetches(j, x.task)
	}
	return true, fn.err
}

// startMapRead starts remote map i's input read as a flow.
func (s *Sim) startMapRead(j *Job, i int32) {
	m := &j.Maps[i]
	s.flowStart(xfer{job: j.Index, task: i, fetchOf: -1, src: m.srcNode, dst: m.Node, bytes: m.InputBytes})
}

// flowStart starts a flow; an error (a bug) stops the run at its next step.
func (s *Sim) flowStart(x xfer) {
	if err := s.fn.start(s.now, x); err != nil && s.fn.err == nil {
		s.fn.err = err
	}
}

// retime moves a running map's input load from its estimated finish (old) to
// its actual one (mapLaunched counted it at the estimate).
func (mm *machineMetrics) retime(m *MapTask, old int64) {
	if old == m.FinishUs || m.InputBytes <= 0 {
		return
	}
	if d := old - m.LaunchUs; d > 0 {
		rate := float64(m.InputBytes) / float64(d)
		mm.loadA[m.srcNode] -= rate * float64(old)
		mm.loadRate[m.srcNode] -= rate
	}
	if d := m.FinishUs - m.LaunchUs; d > 0 {
		rate := float64(m.InputBytes) / float64(d)
		mm.loadA[m.srcNode] += rate * float64(m.FinishUs)
		mm.loadRate[m.srcNode] += rate
	}
}

// fetchState is one reduce's shuffle under the flow model.
type fetchState struct {
	queue   []int32 // maps whose output it fetches, in finish order
	head    int     // next in queue to start
	active  int32   // fetches under way
	started bool    // its start-up is over
	phase   bool    // the job's maps are all done
	latUs   int64   // shuffle_fetch_latency's share of its fetches
}

// flowReduceLaunched sets up reduce i's shuffle and queues the outputs of the
// maps already done; its fetches start after its start-up.
func (s *Sim) flowReduceLaunched(j *Job, i int32) {
	o := &j.out
	if o.fs == nil {
		o.fs = make([]fetchState, len(j.Reduces))
	}
	o.fs[i].queue = append(o.fs[i].queue, o.done...)
	s.schedule(s.now+int64(s.hw.TaskStartup), evFetchStart, j.Index, i)
}

// fetchStart is the end of reduce i's start-up: its fetches begin.
func (s *Sim) fetchStart(j *Job, i int32) {
	j.out.fs[i].started = true
	s.pumpFetches(j, i)
}

// flowFetch queues reduce r's fetch of map m's output.
func (s *Sim) flowFetch(j *Job, r, m int32) {
	st := &j.out.fs[r]
	st.queue = append(st.queue, m)
	s.pumpFetches(j, r)
}

// pumpFetches starts reduce r's queued fetches up to parallel_copies under
// way, and ends its shuffle when its maps are done and nothing is left.
func (s *Sim) pumpFetches(j *Job, r int32) {
	st := &j.out.fs[r]
	if !st.started {
		return
	}
	red := &j.Reduces[r]
	p := int32(max(s.hw.ParallelCopies, 1))
	for st.active < p && st.head < len(st.queue) {
		m := st.queue[st.head]
		st.head++
		mp := &j.Maps[m]
		if L := int64(s.hw.ShuffleFetchLatency); L > 0 {
			st.latUs += (L + int64(p) - 1) / int64(p)
		}
		b := s.share(j, red, mp)
		if mp.Node == red.Node || b <= 0 {
			continue
		}
		s.netBytes += b
		st.active++
		s.flowStart(xfer{job: j.Index, task: r, fetchOf: m, src: mp.Node, dst: red.Node, bytes: b})
	}
	if st.phase && st.active == 0 && st.head == len(st.queue) {
		st.phase = false
		red.ShuffleEndUs = s.now + st.latUs
		red.FinishUs = s.reported(red.Node, red.ShuffleEndUs+red.workUs)
		if s.chk != nil {
			s.chk.reducePhase(j, r)
		}
		s.schedule(red.FinishUs, evReduceDone, j.Index, r)
	}
}

// flowReducePhase is startReducePhase under the flow model: the job's maps
// are all done, so the reduce's shuffle ends with its last fetch.
func (s *Sim) flowReducePhase(j *Job, i int32) {
	j.out.fs[i].phase = true
	s.pumpFetches(j, i)
}
