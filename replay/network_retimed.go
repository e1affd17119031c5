package replay

import (
	"math/bits"
	"slices"
)

// The engine's side of a re-timing network model (network.go): every map
// read and spill, shuffle fetch and reduce output write (network_disk.go) is
// a transfer of the model's Flows, a second event source. The loop compares
// the next event (of q, the arrivals, the sweep and, when a heartbeat can
// change anything, the heartbeats and parked nodes' wake-ups: nextDue) with
// the next transfer end and handles the earlier, the transfer end first on a
// tie. A map's done event is scheduled only when
// its spill has ended, and a reduce's only when its output write has, so
// neither is ever stale; ends the model moves while a transfer is under way
// need no event.

// flowStep handles the network's next transfer end if it comes no later than
// the queue's next event; it reports whether it handled one.
func (s *Sim) flowStep() (bool, error) {
	fn := s.fn
	if s.flowErr != nil {
		return false, s.flowErr
	}
	id, at, ok, err := fn.Next(s.now)
	if err != nil {
		return false, err
	}
	nt, nok := s.nextDue()
	if q, isFlow := fn.(*flowNet); isFlow {
		// A re-solve deferred by flow_update comes before the flow ends and
		// events of its time, or later ones.
		if due, dirty := q.due(); dirty && (!ok || due <= at) && (!nok || due <= nt) {
			due = max(due, s.now)
			if s.chk != nil {
				s.chk.time(due)
			}
			s.stepAt(due)
			if s.opt.stats != nil {
				s.opt.stats.Settles++
			}
			return true, q.settle(due)
		}
	}
	if !ok || nok && nt < at {
		return false, nil
	}
	if s.chk != nil {
		s.chk.time(at)
	}
	s.stepAt(at)
	if s.pk.on {
		s.pk.record(at, s.curSeq, s.seq)
	}
	s.events++
	x, err := fn.End(id, at)
	if err != nil {
		return false, err
	}
	if s.opt.stats != nil {
		s.opt.stats.FlowEnds[x.Kind]++
	}
	s.xunlink(&x, int32(id)) // network_cancel.go
	s.flowTransferred(x, at)
	s.inflight.done(&x)
	j := s.jobs[x.Job]
	switch {
	case x.Kind != TransferFetch:
		s.flowTaskEnded(j, x) // network_disk.go
	case x.Round > 0:
		j.out.fs[x.Task].roundEnded(x.Round - 1)
		if x.Round-1 == roundFar && j.out.quiet != nil {
			j.out.quiet[x.Task] = 0 // mapOutput visits it again
		}
		s.pumpRounds(j, x.Task)
	default:
		j.out.fs[x.Task].free(x.Src)
		s.pumpFetches(j, x.Task)
	}
	return true, s.flowErr
}

// stepAt moves the clock to a flow network's step at t (no earlier than
// now). The step comes right after the last event handled and before every
// event not yet handled (flowStep), so it takes that event's place in the
// order of events (Sim.curSeq) if it is at the same time, and comes before
// every event of its time (sequence number 0) if it is later: heartbeats
// before that place fell due before the step (cancelled, beforeNow) and
// the park log records the step there (parking.record).
func (s *Sim) stepAt(t int64) {
	if t != s.now {
		s.now, s.curSeq = t, 0
	}
}

// flowStart starts a transfer and returns its id; an error (a bug) stops
// the run at its next step.
func (s *Sim) flowStart(x Transfer) int32 {
	id, err := s.fn.Start(s.now, x)
	if err != nil {
		s.setFlowErr(err)
		return -1
	}
	s.xlink(&x, int32(id)) // its attempt's transfers (network_cancel.go)
	s.inflight.add(&x, s.now)
	return int32(id)
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

// fetchState is one reduce's shuffle under a re-timing network model. Its
// fetches go host by host, as Hadoop 2's shuffle does
// (org.apache.hadoop.mapreduce.task.reduce.ShuffleSchedulerImpl with its
// Fetcher threads): a fetcher takes a host with ready map outputs
// (getHost), copies up to maxMapsAtOnce of them over one connection
// (getMapsForHost, MAX_MAPS_AT_ONCE = 20) and the host stays busy for that
// reduce until the copy ends (freeHost); parallel_copies fetchers run at once
// (mapreduce.reduce.shuffle.parallelcopies). So a reduce has at most one fetch
// from each host under way, and it is one flow carrying the reduce's share of
// every output it copies. Under flow_fetch_order = "random" (the default) a
// fetcher takes a host drawn among those waiting (drawHost), as Hadoop does
// (Hadoop 2/3's getHost picks a pending host at random; Hadoop 1's
// ReduceCopier.fetchOutputs shuffles its host list), which spreads a job's
// reduces over the hosts; under "ready" (the default before h-fetchrandom)
// hosts are taken in the order their first waiting output became ready, the
// same order for every reduce of a job, so a job's reduces crowd onto the
// same few hosts at once (docs/network-model.md, "Which host a fetcher
// takes").
//
// Under flow_shuffle = "batch" the outputs wait in counters instead, by class
// of source (rounds, below), and hosts, slot and out stay nil.
type fetchState struct {
	// The fields a map's end reads and writes for every waiting reduce
	// (flowFetch) come first, within the struct's first 128 bytes.
	rounds  [numRoundClasses]roundClass // flow_shuffle = "batch": outputs waiting by class of source
	waiting int                         // outputs waiting, over all hosts
	active  int32                       // fetches under way
	seen    int32                       // outputs queued: the job's first seen done maps' (event_poll delays them, shuffle.go)
	node1   int32                       // 1 + the reduce's node, 0 until queueOutput reads it (a reset fetchState reads it again)
	rack    int32                       // the reduce's node's rack, when node1 > 0
	started bool                        // its start-up is over
	phase   bool                        // the job's maps are all done
	failUs  int64                       // > 0 while its failed attempts fetch: when they fail (lifecycle_flowreduce.go)
	hosts   []int32                     // hosts (indexes in out) with outputs waiting and no fetch under way, in order
	hhead   int                         // next in hosts
	slot    []int32                     // by node: 1 + its index in out, 0 before its first output
	out     []hostOutputs               // every host an output came from
	latUs   int64                       // shuffle_fetch_latency's share of its fetches
	draws   uint64                      // flow_fetch_order = "random": hosts drawn so far (drawHost)
}

// hostOutputs is one host's map outputs for one reduce.
type hostOutputs struct {
	node  int32
	ready []int32 // maps whose output waits, in finish order
	busy  bool    // a fetch from the host is under way
}

// maxMapsAtOnce is the most map outputs one fetch copies from a host (Hadoop
// 2's ShuffleSchedulerImpl.MAX_MAPS_AT_ONCE).
const maxMapsAtOnce = 20

// queue makes map m's output, on host node of a cluster of nodes nodes,
// wait for the reduce's fetch.
func (st *fetchState) queue(node, m int32, nodes int) {
	if st.slot == nil {
		st.slot = make([]int32, nodes)
	}
	k := st.slot[node] - 1
	if k < 0 {
		st.out = append(st.out, hostOutputs{node: node})
		k = int32(len(st.out) - 1)
		st.slot[node] = k + 1
	}
	h := &st.out[k]
	if len(h.ready) == 0 && !h.busy {
		st.hosts = append(st.hosts, k)
	}
	h.ready = append(h.ready, m)
	st.waiting++
}

// drawHost draws one of n hosts waiting (0 ≤ k < n) for a fetcher of a
// reduce whose seed is seed, under flow_fetch_order = "random" (Hadoop 2's
// ShuffleSchedulerImpl.getHost picks a pending host at random). The draws are
// SplitMix64's sequence from the seed (the reduce's own, jobDisk.redSeed,
// mixed with streamFetchHost), the k-th draw the k-th term, so a reduce's
// picks depend on its seed and its own history only; the draw is scaled to n
// by the high half of a 128-bit product (a bias below n / 2⁶⁴).
func (st *fetchState) drawHost(seed uint64, n int) int {
	st.draws++
	z := seed ^ streamFetchHost<<40 + st.draws*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	hi, _ := bits.Mul64(z, uint64(n))
	return int(hi)
}

// streamFetchHost separates flow_fetch_order = "random"'s draws from the
// other streams seeded by a reduce's seed (streamOutput).
const streamFetchHost = 8

// free ends the fetch from host node: its outputs that became ready meanwhile
// wait for the next fetcher.
func (st *fetchState) free(node int32) {
	st.active--
	k := st.slot[node] - 1
	h := &st.out[k]
	h.busy = false
	if len(h.ready) > 0 {
		st.hosts = append(st.hosts, k)
	}
}

// A reduce's shuffle under flow_shuffle = "batch" moves in rounds instead of
// fetches. Its waiting outputs are kept as byte and output counts in three
// classes by where they lie: on its own node (roundOwn), on another node of
// its rack (roundRack), on another rack (roundFar). When the reduce may fetch
// and a class has outputs waiting and no round under way, one flow carries
// all of that class's waiting bytes; outputs that become ready while it runs
// wait for the class's next round. So a reduce has at most three flows under
// way (on FB-2010's first 300 jobs under fifo, 176,931 rounds against
// 4,830,787 fetches per host and up to 20 outputs).
//
// A round crosses the reduce side's resources: its own disk, and for the
// outputs of other nodes its NIC in, from other racks also its rack's
// downlink and the core (flow.Topology.Inbound), each with weight 1. It
// loads its sources by fraction (flow.Spec.Weights): the disk and NIC out
// of each source host by the share of the round's bytes that comes from it,
// and for a round from other racks each source rack's uplink by its hosts'
// share. The mix is fixed when the round starts (sourceMix). A round loads
// at most roundSourceCap hosts, those it takes the most bytes from; the
// others' disks, NICs out and uplink shares are left out (without a cap,
// the paths of rounds of hundreds of hosts made the 300-job FB-2010 run
// 135 CPU-s instead of about 5; docs/network-model.md). A round is one flow, so at a shared resource it
// gets one max-min share where the per-fetch model's parallel_copies
// fetchers get up to parallel_copies shares; and a class's next round waits
// for the whole round to end where a fetcher would take the next host at
// once. What these change is measured against the per-fetch model in
// docs/network-model.md. The rest is as per fetch: shuffle_fetch_latency
// counts per output, bytes from other nodes count in the run's network
// bytes, and the per-node accounting counts an output's bytes out of its host
// when it joins the counters and the round's into the reduce's node over the
// round.

// Classes of a batch round's sources.
const (
	roundOwn        = iota // the reduce's own node: its disk only
	roundRack              // another node of its rack
	roundFar               // another rack
	numRoundClasses        // the number of classes
)

// roundClass is one class of a reduce's waiting outputs under batch rounds.
type roundClass struct {
	bytes int64 // the reduce's share of the outputs waiting
	n     int32 // outputs waiting
	busy  bool  // a round is under way
	// from is where the class's waiting outputs start in the job's list of
	// done maps (jobOutput.done, and jobOutput.outs beside it): a launched
	// reduce has every done map's output queued, in that order, so those of
	// this class in done[from:] are the ones waiting (sourceMix).
	from int32
}

// roundSource is one source host of a batch round and the bytes the round
// carries from it.
type roundSource struct {
	node  int32
	bytes int64
}

// sourceMix lists, in s.roundSrcs, the hosts of the outputs of class c
// waiting for reduce r (those in the job's done maps from the class's cursor
// on, which it moves to the end) and the reduce's bytes from each, in the
// order of each host's first output; hosts whose outputs are empty are left
// out. It reads the done outputs in order (jobOutput.outs) and the share as
// tallyOutput recorded it (or, when the reduces' shares differ, as share
// computes it). A round from the reduce's rack costs one step per output of
// that rack done since the class's last round, which the job's index by
// rack lists (jobOutput.byRack), found by a binary search; one from other
// racks one step per map done since then, or, when it takes every done
// output, one step per host holding them (outputTally).
func (s *Sim) sourceMix(j *Job, r int32, c int) []roundSource {
	o := &j.out
	st := &o.fs[r]
	rc := &st.rounds[c]
	from, seen := int(rc.from), int(st.seen) // outs[from:seen]: the outputs queued (event_poll may hold later ones back)
	if c == roundOwn {
		rc.from = st.seen
		return nil
	}
	red := &j.Reduces[r]
	m := &s.roundMix
	if m.acc == nil {
		m.acc, m.order = make([]int64, len(s.topo.Nodes)), make([]int32, len(s.topo.Nodes)+1)
	}
	srcs := s.roundSrcs[:0]
	var total int64 // the sources' bytes
	node := red.Node
	rack := s.topo.Nodes[node].Rack
	sb := red.ShuffleBytes
	t := &o.tally
	switch {
	case sb <= 0:
		// No share of any output (outputShare).
	case c == roundRack:
		// The outputs of the reduce's rack only: outs[from:seen] in order
		// less those of other racks, which this class leaves out. (The
		// tally's way below would read every host holding outputs.)
		var ks []int32
		if o.byRack != nil {
			ks = o.byRack[rack]
		}
		lo, _ := slices.BinarySearch(ks, int32(from))
		maps := j.NumMaps()
		acc, order, k := m.acc, m.order, 0
		for _, i := range ks[lo:] {
			if int(i) >= seen {
				break
			}
			x := &o.outs[i]
			if x.node == node {
				continue
			}
			if b := x.shareOf(t.shares, sb, o.total, maps); b > 0 {
				k = mixAdd(acc, order, k, x.node, b)
				total += b
			}
		}
		srcs = m.collect(srcs, k)
	case t.on && from == 0 && int(t.n) == seen:
		// From other racks, every done output: as the job's tally has them
		// by host, the same hosts in the same order (each one's first
		// output with a positive share) and bytes, in O(hosts) instead of
		// O(outputs).
		for _, k := range t.pos {
			if e := &t.nodes[k]; e.rack != rack {
				srcs = append(srcs, roundSource{node: e.node, bytes: e.bytes})
				total += e.bytes
			}
		}
	default:
		// From other racks: outs[from:seen] less the reduce's rack's
		// outputs (its node's among them).
		maps := j.NumMaps()
		acc, order, k := m.acc, m.order, 0
		for _, x := range o.outs[from:seen] {
			if x.rack == rack {
				continue
			}
			if b := x.shareOf(t.shares, sb, o.total, maps); b > 0 {
				k = mixAdd(acc, order, k, x.node, b)
				total += b
			}
		}
		srcs = m.collect(srcs, k)
	}
	if s.chk != nil {
		s.chk.sourceMix(j, r, c, srcs, total)
	}
	rc.from = st.seen
	s.roundSrcs = srcs
	if k := roundSourceCap; k > 0 && len(srcs) > k {
		// The k hosts with the most bytes (the earlier first on a tie),
		// in their order; the others' sides are left out.
		idx := topSources(srcs, k, s.roundIdx[:0])
		kept := srcs[len(srcs):]
		for _, i := range idx {
			kept = append(kept, srcs[i])
		}
		s.roundIdx = idx
		s.roundTotal = total
		return kept
	}
	s.roundTotal = 0
	return srcs
}

// topSources appends to idx the indexes in srcs of the k sources with the
// most bytes, ties going to the earlier, in increasing order, and returns it
// (all of them when there are at most k). It is what a stable sort of the
// indexes by bytes, decreasing, cut to k and sorted back gives, in one pass
// keeping the k best so far by insertion: O(len(srcs) · k) instead of
// O(n log n) with a comparison closure. Once k are kept, a source is
// compared with the k-th best's bytes, kept aside (th), and most go no
// further: a round's sources are often hundreds of hosts.
func topSources(srcs []roundSource, k int, idx []int32) []int32 {
	if k <= 0 {
		return idx
	}
	base := len(idx)
	var th int64 // the k-th best's bytes once k are kept
	for i := range srcs {
		b := srcs[i].bytes
		if len(idx)-base == k && b <= th {
			continue // not more than the k-th best: the earlier wins a tie
		}
		// top is by bytes, decreasing, the earlier first on a tie: i goes
		// after every kept source with at least its bytes.
		top := idx[base:]
		p := len(top)
		for p > 0 && srcs[top[p-1]].bytes < b {
			p--
		}
		if len(top) < k {
			idx = append(idx, 0)
			top = idx[base:]
		}
		copy(top[p+1:], top[p:len(top)-1])
		top[p] = int32(i)
		if len(top) == k {
			th = srcs[top[k-1]].bytes
		}
	}
	slices.Sort(idx[base:])
	return idx
}

// roundSourceCap is the most source hosts a batch round loads (0: all).
const roundSourceCap = 4

// roundMix is sourceMix's scratch: by node, the bytes counted from it into
// the round being mixed (mixAdd), 0 when none; and room for a round's
// nodes, listed in the order of their first; acc all 0 between rounds
// (collect). A dense table of bytes and a list that grows without a branch
// (mixAdd): a round from other racks counts hundreds of hosts, and whether
// an output's host is new to the round is close to a coin toss (on FB-2010's
// first 3,000 jobs, 68 million hosts listed for 128 million outputs read
// under fifo, 93 for 127 under fair). The branch-free count was measured
// cheaper (docs/network-model.md, "Cheaper batch-round source mixes");
// whether mispredicted branches were what it saved was not measured
// (this machine has no hardware counters).
type roundMix struct {
	acc   []int64 // by node
	order []int32 // one entry a node, and one more: mixAdd writes one past the nodes listed
}

// mixAdd counts b > 0 bytes from node v into acc, the first k entries of
// order listing the nodes counted so far, and returns k + 1 when v is new
// (listed at order[k]), else k: order[k] is written either way, which
// lets the compiler count without branching.
func mixAdd(acc []int64, order []int32, k int, v int32, b int64) int {
	a := acc[v]
	order[k] = v
	acc[v] = a + b
	if a == 0 {
		k++
	}
	return k
}

// collect appends to srcs the first k nodes of m.order, which mixAdd
// counted, with their bytes, clears m.acc for the next round, and returns
// srcs.
func (m *roundMix) collect(srcs []roundSource, k int) []roundSource {
	for _, n := range m.order[:k] {
		srcs = append(srcs, roundSource{node: n, bytes: m.acc[n]})
		m.acc[n] = 0
	}
	return srcs
}

// roundEnded ends the round of class c.
func (st *fetchState) roundEnded(c uint8) {
	st.active--
	st.rounds[c].busy = false
}

// queueOutput makes map m's output wait for reduce r's fetches: its host in
// the per-fetch model's table, or its bytes in the batch model's counters.
func (s *Sim) queueOutput(j *Job, r, m int32) {
	st := &j.out.fs[r]
	if s.hw.FlowShuffle != FlowShuffleBatch {
		st.seen++
		st.queue(s.outputNode(j, m), m, len(s.topo.Nodes))
		return
	}
	var node, rack int32
	var b int64
	if o := &j.out; int(st.seen) < len(o.outs) && o.done[st.seen] == m {
		// Outputs are queued in the job's done order, so this is outs[seen],
		// its node, bytes and (when every reduce's is the same,
		// outputTally.shares) share recorded when the map was done
		// (mapOutput, tallyOutput). Otherwise the reduces' shares differ and
		// r's is computed from the bytes, as share does from the map's
		// record, which may have been dropped (flowRetiresMaps).
		x := &o.outs[st.seen]
		node, rack = x.node, x.rack
		b = x.shareOf(o.tally.shares, j.Reduces[r].ShuffleBytes, o.total, j.NumMaps())
	} else {
		node = s.outputNode(j, m)
		rack = s.topo.Nodes[node].Rack
		b = s.share(j, &j.Reduces[r], &j.Maps[m])
	}
	st.seen++
	v, vrack := s.reduceAt(j, st, r)
	c := roundFar
	switch {
	case node == v:
		c = roundOwn
	case rack == vrack:
		c = roundRack
	}
	rc := &st.rounds[c]
	rc.bytes += b
	rc.n++
	st.waiting++
	if c != roundOwn && b > 0 {
		s.batchOut.add(node, b, len(s.topo.Nodes))
	}
}

// reduceAt is reduce r's node and its rack, kept in its fetchState (st) so
// that a map's end, which queues its output for each of the job's waiting
// reduces, reads neither the reduce nor the node: on FB-2010's day under
// flow that is 10⁸ and more outputs queued, and those two reads were most of
// queueOutput's time (docs/network-model.md, h-acct). A reduce's node is set
// at its launch, which clears the copy (flowReduceLaunched), as does a
// fetchState reset.
func (s *Sim) reduceAt(j *Job, st *fetchState, r int32) (node, rack int32) {
	if st.node1 == 0 {
		n := j.Reduces[r].Node
		st.node1, st.rack = n+1, s.topo.Nodes[n].Rack
	}
	if s.chk != nil && (st.node1-1 != j.Reduces[r].Node || st.rack != s.topo.Nodes[st.node1-1].Rack) {
		s.chk.fail("reduce %d of job %s queues outputs for node %d, rack %d; it runs on node %d", r, j.Trace.ID, st.node1-1, st.rack, j.Reduces[r].Node)
	}
	return st.node1 - 1, st.rack
}

// outputTally sums a job's done map outputs (jobOutput.outs) by the node and
// the rack that hold them, under flow_shuffle = "batch", when every reduce of
// the job has the same shuffle bytes (a SWIM job's reduces do), so that a
// reduce's share of every output is the same and is computed once per output
// (doneOutput.share) instead of once per output and reduce. A reduce launched
// after n maps are done then queues their outputs in O(nodes holding them)
// instead of O(n) (queueTallied): on FB-2010's whole day under fifo, queueing
// each done output one by one at the reduces' launches was a quarter of the
// flow run's CPU (docs/network-model.md, "Cost in the engine").
type outputTally struct {
	on, set bool // on: the tally is kept (decided once, set, at the job's first done map)
	// shares: every reduce's share of an output is the same (the job has
	// reduces, all with the same shuffle bytes), so doneOutput.share holds
	// it, also for a job of one reduce, which keeps no tally (on is false):
	// the rounds' source mix (sourceMix) and queueOutput read it instead of
	// dividing (outputShare) once per output, reduce and class.
	shares bool
	slot   []int32     // by node: 1 + its index in nodes, 0 before its first output; nil once the maps were dropped (dropSlot)
	nodes  []tallyNode // the nodes holding outputs, in the order of their first
	pos    []int32     // indexes in nodes, in the order of each node's first output with a positive share
	rackN  []int32     // by rack: outputs
	rackB  []int64     // by rack: their shares
	n      int32       // outputs
	bytes  int64       // their shares
	// sums are the shares of the job's first k done outputs, by k (one more
	// than outs): catchUpQuiet counts the outputs a quiet reduce skipped in
	// O(1) instead of one by one.
	sums []int64
}

// find is node v's index in t.nodes, -1 when it holds no output: by the
// slot table while the job's maps run, by a scan of the nodes holding
// outputs once it was given back (dropSlot).
func (t *outputTally) find(v int32) int32 {
	if t.slot != nil {
		return t.slot[v] - 1
	}
	for k := range t.nodes {
		if t.nodes[k].node == v {
			return int32(k)
		}
	}
	return -1
}

// dropSlot gives t's slot table back, zeroed, to pool once no output is
// added (the job's maps are done and dropped, Sim.retireMaps): one table a
// job running maps rather than one a job alive (12 KB on 3,000 nodes).
func (t *outputTally) dropSlot(pool [][]int32) [][]int32 {
	if t.slot == nil {
		return pool
	}
	for k := range t.nodes {
		t.slot[t.nodes[k].node] = 0
	}
	pool = append(pool, t.slot)
	t.slot = nil
	return pool
}

// tallyNode is one node's outputs in a job's outputTally: how many, and a
// reduce's share of them.
type tallyNode struct {
	node, rack, n int32
	bytes         int64
}

// tallyOutput records, when every reduce's share of an output is the same
// (outputTally.shares), the share of map m's output (just appended to outs),
// and when the job's tally is on counts it by node and rack. The tally is on
// for a job with at least two reduces, all with the same shuffle bytes.
func (s *Sim) tallyOutput(j *Job, m *MapTask) {
	o := &j.out
	t := &o.tally
	if !t.set {
		t.set = true
		t.shares = len(j.Reduces) > 0
		for k := range j.Reduces {
			t.shares = t.shares && j.Reduces[k].ShuffleBytes == j.Reduces[0].ShuffleBytes
		}
		t.on = t.shares && len(j.Reduces) > 1
		if t.on {
			if k := len(s.slotPool) - 1; k >= 0 {
				t.slot, s.slotPool = s.slotPool[k], s.slotPool[:k]
			} else {
				t.slot = make([]int32, len(s.topo.Nodes))
			}
			t.rackN = make([]int32, len(s.topo.RackNodes))
			t.rackB = make([]int64, len(s.topo.RackNodes))
		}
	}
	if !t.shares {
		return
	}
	x := &o.outs[len(o.outs)-1]
	x.share = s.share(j, &j.Reduces[0], m)
	if !t.on {
		return
	}
	if len(t.sums) == 0 {
		t.sums = append(t.sums, 0)
	}
	t.sums = append(t.sums, t.sums[len(t.sums)-1]+x.share)
	k := t.slot[x.node] - 1
	if k < 0 {
		t.nodes = append(t.nodes, tallyNode{node: x.node, rack: x.rack})
		k = int32(len(t.nodes) - 1)
		t.slot[x.node] = k + 1
	}
	e := &t.nodes[k]
	if e.bytes == 0 && x.share > 0 {
		t.pos = append(t.pos, k)
	}
	e.n++
	e.bytes += x.share
	t.rackN[x.rack]++
	t.rackB[x.rack] += x.share
	t.n++
	t.bytes += x.share
}

// queueAllOutputs queues for reduce r every output of the job's done maps,
// in done order, as queueOutput does one by one: by the job's tally when it
// is on (queueTallied), else one by one.
func (s *Sim) queueAllOutputs(j *Job, r int32) {
	o := &j.out
	if o.tally.on && s.hw.FlowShuffle == FlowShuffleBatch && o.fs[r].seen == 0 && len(o.outs) == len(o.done) {
		if s.chk != nil {
			s.checkTallied(j, r)
			return
		}
		s.queueTallied(j, r)
		return
	}
	for _, m := range o.done {
		s.queueOutput(j, r, m)
	}
}

// queueTallied is queueOutput for every output of the job's done maps, for
// reduce r with none queued yet, from the job's tally: the same counts, bytes
// and hosts' bytes out (batchOut, the hosts in the order of their first
// output with a positive share, as the one-by-one adds make it), in
// O(nodes holding outputs).
func (s *Sim) queueTallied(j *Job, r int32) {
	o := &j.out
	t := &o.tally
	st := &o.fs[r]
	v := j.Reduces[r].Node
	rack := s.topo.Nodes[v].Rack
	var ownN int32
	var ownB int64
	if k := t.find(v); k >= 0 {
		ownN, ownB = t.nodes[k].n, t.nodes[k].bytes
	}
	add := func(c int, n int32, b int64) {
		rc := &st.rounds[c]
		rc.n += n
		rc.bytes += b
	}
	add(roundOwn, ownN, ownB)
	add(roundRack, t.rackN[rack]-ownN, t.rackB[rack]-ownB)
	add(roundFar, t.n-t.rackN[rack], t.bytes-t.rackB[rack])
	st.seen += t.n
	st.waiting += int(t.n)
	for _, k := range t.pos {
		if e := &t.nodes[k]; e.node != v {
			s.batchOut.add(e.node, e.bytes, len(s.topo.Nodes))
		}
	}
}

// checkTallied is queueTallied under the invariant checker: it queues the
// outputs one by one as well, from the same state, and fails unless the
// reduce's counters and the hosts' bytes out (batchOut, in order) agree.
func (s *Sim) checkTallied(j *Job, r int32) {
	st := &j.out.fs[r]
	o := &s.batchOut
	before, nodes := *st, append([]int32(nil), o.nodes...)
	bytes := make([]int64, len(nodes))
	for k, n := range nodes {
		bytes[k] = o.bytes[n]
	}
	for _, m := range j.out.done {
		s.queueOutput(j, r, m)
	}
	want, wantOut := *st, batchOutState(o)
	// Back to the state before, then the tally's way.
	for _, n := range o.nodes {
		o.bytes[n] = 0
	}
	o.nodes = append(o.nodes[:0], nodes...)
	for k, n := range nodes {
		o.bytes[n] = bytes[k]
	}
	*st = before
	s.queueTallied(j, r)
	if got, gotOut := *st, batchOutState(o); got.rounds != want.rounds || got.seen != want.seen || got.waiting != want.waiting || !slices.Equal(gotOut, wantOut) {
		s.chk.fail("reduce %d of job %s queued from the outputs' tally: rounds %v, %d seen, %d waiting, bytes out %v; one by one: %v, %d, %d, %v",
			r, j.Trace.ID, got.rounds, got.seen, got.waiting, gotOut, want.rounds, want.seen, want.waiting, wantOut)
	}
	s.chk.tallies++
}

// batchOutState is o's hosts and bytes, in order, as pairs.
func batchOutState(o *batchOut) [][2]int64 {
	var x [][2]int64
	for _, n := range o.nodes {
		x = append(x, [2]int64{int64(n), o.bytes[n]})
	}
	return x
}

// batchOut sums, by host, the bytes of outputs that joined reduces' waiting
// outputs under flow_shuffle = "batch" at the current time, so that each
// host's are reported as one transfer (flush) instead of one per output and
// reduce.
type batchOut struct {
	bytes []int64 // by node
	nodes []int32 // nodes with bytes, in the order of their first
}

// add counts b bytes out of node (of nodes).
func (o *batchOut) add(node int32, b int64, nodes int) {
	if o.bytes == nil {
		o.bytes = make([]int64, nodes)
	}
	if o.bytes[node] == 0 {
		o.nodes = append(o.nodes, node)
	}
	o.bytes[node] += b
}

// flushBatchOut reports the bytes batchOut holds as transfers out of their
// hosts at now (EndsOut), in the order the hosts were added, and clears it.
// When the per-node accounting is the only observer of transfers it counts
// them all at once (netAcct.transfersOut), as it would one by one.
func (s *Sim) flushBatchOut() {
	o := &s.batchOut
	if len(o.nodes) == 0 {
		return
	}
	if t := s.bus.transfers; len(t) == 1 && t[0] == Observer(&s.net) {
		s.net.transfersOut(o.nodes, o.bytes, s.now)
		for _, n := range o.nodes {
			o.bytes[n] = 0
		}
		o.nodes = o.nodes[:0]
		return
	}
	for _, n := range o.nodes {
		s.bus.transfer(TransferEvent{Src: n, Dst: n, Bytes: o.bytes[n], Start: s.now, End: s.now, Ends: EndsOut})
		o.bytes[n] = 0
	}
	o.nodes = o.nodes[:0]
}

// pumpRounds is pumpFetches under flow_shuffle = "batch": each class of
// waiting outputs with no round under way starts its next round, and the
// shuffle ends when the job's maps are done and nothing is waiting or under
// way.
func (s *Sim) pumpRounds(j *Job, r int32) {
	st := &j.out.fs[r]
	if !st.started {
		return
	}
	if s.lazyMapEnds(j) {
		s.catchUpQuiet(j, r, len(j.out.outs))
	}
	red := &j.Reduces[r]
	p := int64(max(s.hw.ParallelCopies, 1))
	for c := range st.rounds {
		rc := &st.rounds[c]
		if rc.busy || rc.n == 0 {
			continue
		}
		if L := int64(s.hw.ShuffleFetchLatency); L > 0 {
			st.latUs += int64(rc.n) * ((L + p - 1) / p)
		}
		st.waiting -= int(rc.n)
		b := rc.bytes
		rc.bytes, rc.n = 0, 0
		srcs := s.sourceMix(j, r, c)
		if b <= 0 {
			continue
		}
		if c != roundOwn {
			s.netBytes += b
		}
		rc.busy = true
		st.active++
		if c == roundFar && j.out.quiet != nil {
			_, rack := s.reduceAt(j, st, r)
			j.out.quiet[r] = rack + 1 // mapOutput may skip it (skipQuiet)
		}
		s.flowStart(Transfer{Kind: TransferFetch, Round: uint8(c + 1), Job: j.Index, Task: r, FetchOf: -1, Src: red.Node, Dst: red.Node, Bytes: b, srcs: srcs, srcTotal: s.roundTotal})
	}
	s.shuffleDone(j, r)
}

// shuffleDone ends reduce r's shuffle when the job's maps are done and
// nothing is waiting or under way.
func (s *Sim) shuffleDone(j *Job, r int32) {
	st := &j.out.fs[r]
	// Not while failed attempts fetch, nor before the poll chain has
	// brought every map's output (shuffle.go).
	if st.phase && st.active == 0 && st.waiting == 0 && st.failUs == 0 && int(st.seen) == len(j.out.done) {
		st.phase = false
		st.slot, st.out, st.hosts = nil, nil, nil
		red := &j.Reduces[r]
		red.ShuffleEndUs = s.now + st.latUs
		if s.chk != nil {
			s.chk.reducePhase(j, r)
		}
		s.flowShuffleEnded(j, r) // network_disk.go
	}
}

// pump starts reduce r's next fetches or rounds (flow_shuffle).
func (s *Sim) pump(j *Job, r int32) {
	if s.hw.FlowShuffle == FlowShuffleBatch {
		s.pumpRounds(j, r)
		return
	}
	s.pumpFetches(j, r)
}

// flowReduceLaunched sets up reduce i's shuffle and queues the outputs of the
// maps already done; its fetches start after its failed attempts and
// start-up (network_disk.go; saved: what a reused JVM saves).
func (s *Sim) flowReduceLaunched(j *Job, i int32, saved int64) {
	o := &j.out
	if o.fs == nil {
		o.fs = make([]fetchState, len(j.Reduces))
		if s.hw.FlowShuffle == FlowShuffleBatch {
			o.quiet = make([]int32, len(j.Reduces))
		}
	}
	o.clearQuiet(i)
	o.fs[i].seen = 0
	o.fs[i].node1 = 0 // its node is new (reduceAt)
	s.queueAllOutputs(j, i)
	s.flushBatchOut()
	if s.reduceAttemptsFetch(j, i, saved) { // lifecycle_flowreduce.go
		return
	}
	s.schedule(s.now+j.redAMWaitUs(i)+o.disk.reduceWaitUs(s.hw, i, saved), evFetchStart, j.Index, i)
}

// fetchStart is an evFetchStart event: for i ≥ 0 the end of reduce i's
// start-up, its fetches begin (or its failed attempts', or their failure:
// lifecycle_flowreduce.go); for i < 0 the poll chain brings the outputs of
// the job's first −i reported maps (event_poll, shuffle.go).
func (s *Sim) fetchStart(j *Job, i int32) {
	if i < 0 {
		s.pollOutput(j, -i)
		return
	}
	if st := &j.out.fs[i]; st.failUs > 0 && s.now >= st.failUs {
		s.reduceAttemptsFailed(j, i)
		return
	}
	j.out.fs[i].started = true
	s.pump(j, i)
}

// flowFetch queues reduce r's fetch of map m's output and starts what it
// can. Under flow_shuffle = "batch" a map's end queues its output for every
// waiting reduce, and most of them are not started yet or have a round of
// the output's class under way, so it pumps only when pumpRounds would do
// something (roundsDue).
func (s *Sim) flowFetch(j *Job, r, m int32) {
	if s.lazyMapEnds(j) && j.out.fs[r].started {
		s.catchUpQuiet(j, r, len(j.out.outs)-1) // those before m's, which mapOutput appended
	}
	s.queueOutput(j, r, m)
	if s.hw.FlowShuffle == FlowShuffleBatch && !j.out.fs[r].roundsDue() {
		if s.chk != nil {
			s.checkRoundsIdle(j, r)
		}
		return
	}
	s.pump(j, r)
}

// roundsDue reports whether pumpRounds would start a round for a reduce an
// output just joined: whether the reduce has started and a class has
// outputs waiting and no round under way. (pumpRounds's other work,
// ending the shuffle, needs no output waiting, and one just joined.)
func (st *fetchState) roundsDue() bool {
	if !st.started {
		return false
	}
	for c := range st.rounds {
		if rc := &st.rounds[c]; !rc.busy && rc.n > 0 {
			return true
		}
	}
	return false
}

// checkRoundsIdle is, under the invariant checker, the pump flowFetch left
// out: it pumps reduce r and fails unless that changed nothing.
func (s *Sim) checkRoundsIdle(j *Job, r int32) {
	st := &j.out.fs[r]
	before, flows := *st, s.fn.Active()
	s.pump(j, r)
	if st.rounds != before.rounds || st.waiting != before.waiting || st.active != before.active || st.phase != before.phase || st.latUs != before.latUs || s.fn.Active() != flows {
		s.chk.fail("reduce %d of job %s: pumping it after a map's end changed its rounds (%v to %v), but flowFetch left it out", r, j.Trace.ID, before.rounds, st.rounds)
	}
}

// pumpFetches starts reduce r's fetches, host by host, up to parallel_copies
// under way, and ends its shuffle when its maps are done and nothing is left.
// Outputs on the reduce's own node are read from its disk (a flow that moves
// no network bytes, network_disk.go); outputs whose share is empty move
// nothing; shuffle_fetch_latency counts once per output.
func (s *Sim) pumpFetches(j *Job, r int32) {
	st := &j.out.fs[r]
	if !st.started {
		return
	}
	red := &j.Reduces[r]
	p := int32(max(s.hw.ParallelCopies, 1))
	random := s.hw.FlowFetchOrder == FlowFetchRandom
	for st.active < p && st.hhead < len(st.hosts) {
		if n := len(st.hosts) - st.hhead; random && n > 1 {
			// Hadoop's getHost: a host drawn among those waiting.
			k := st.hhead + st.drawHost(j.out.disk.redSeed[r], n)
			st.hosts[st.hhead], st.hosts[k] = st.hosts[k], st.hosts[st.hhead]
		}
		hk := st.hosts[st.hhead]
		h := &st.out[hk]
		st.hhead++
		node := h.node
		k := min(len(h.ready), maxMapsAtOnce)
		take := h.ready[:k]
		h.ready = h.ready[k:]
		if len(h.ready) == 0 {
			h.ready = h.ready[:0:0]
		}
		st.waiting -= k
		var b int64
		for _, m := range take {
			if L := int64(s.hw.ShuffleFetchLatency); L > 0 {
				st.latUs += (L + int64(p) - 1) / int64(p)
			}
			b += s.share(j, red, &j.Maps[m])
		}
		if b <= 0 {
			if len(h.ready) > 0 {
				st.hosts = append(st.hosts, hk)
			}
			continue
		}
		// A fetch from the reduce's own node reads that node's disk
		// (network_disk.go): a flow too, but no network bytes.
		h.busy = true
		if node != red.Node {
			s.netBytes += b
		}
		st.active++
		s.flowStart(Transfer{Kind: TransferFetch, Job: j.Index, Task: r, FetchOf: take[0], Src: node, Dst: red.Node, Bytes: b})
	}
	if st.hhead == len(st.hosts) {
		st.hosts, st.hhead = st.hosts[:0], 0
	}
	s.shuffleDone(j, r)
}

// flowReducePhase is startReducePhase under a re-timing model: the job's maps
// are all done, so the reduce's shuffle ends with its last fetch.
func (s *Sim) flowReducePhase(j *Job, i int32) {
	j.out.fs[i].phase = true
	s.pump(j, i)
}

// Skipping quiet reduces at a map's end (h-flowcpu). Under flow_shuffle =
// "batch" a map's end queues its output for every waiting reduce of the job
// (mapOutput), and on FB-2010 nearly all of them have started and have a
// round from other racks under way, so an output of another rack only joins
// their counters: no round starts (roundsDue). Touching each reduce's
// fetchState for that was most of a map's end's time under flow
// (docs/network-model.md, "Cheaper map ends under flow (h-flowcpu)"). So,
// when the job's outputs are tallied (every reduce's share of an output is
// the same, doneOutput.share) and no poll chain holds outputs back, a map's
// end reads only the job's dense jobOutput.quiet (1 + the reduce's rack
// while it has started and its far round is under way) and skips a quiet
// reduce of another rack than the output's: the output's bytes out of its
// host are counted for all the skipped reduces at once, as their
// queueOutput would have counted them, and the reduce queues the skipped
// outputs (all of the far class) when a round of it may next start:
// catchUpQuiet, at the head of pumpRounds and of flowFetch. A reduce is quiet
// from the start of its far round (pumpRounds) to its end (flowStep), or to
// any reset of its fetchState (clearQuiet).

// lazyMapEnds reports whether job j's map ends may skip its quiet reduces:
// under flow_shuffle = "batch", with the job's outputs tallied and no poll
// chain.
func (s *Sim) lazyMapEnds(j *Job) bool {
	return j.out.quiet != nil && j.out.tally.on && s.eventPollUs(j) == 0
}

// clearQuiet marks reduce r as not quiet (its fetchState is reset or new).
func (o *jobOutput) clearQuiet(r int32) {
	if o.quiet != nil {
		o.quiet[r] = 0
	}
}

// catchUpQuiet queues for reduce r, which has started, the outputs of the job's
// first n done maps it has not queued: those its map ends skipped while it
// was quiet, all of them from other racks than its own. Their bytes out of
// their hosts were counted when the maps ended (mapOutput).
func (s *Sim) catchUpQuiet(j *Job, r int32, n int) {
	o := &j.out
	st := &o.fs[r]
	if int(st.seen) >= n {
		return
	}
	v, vrack := s.reduceAt(j, st, r)
	rc := &st.rounds[roundFar]
	if s.chk != nil {
		for k := int(st.seen); k < n; k++ {
			if x := &o.outs[k]; x.node == v || x.rack == vrack {
				s.chk.fail("reduce %d of job %s catches up on output %d of node %d, rack %d; it is on node %d, rack %d, and was skipped only for outputs of other racks", r, j.Trace.ID, k, x.node, x.rack, v, vrack)
			}
		}
	}
	// Their shares, as one by one: the job's outputs are tallied
	// (lazyMapEnds), so outputTally.sums holds them.
	rc.bytes += o.tally.sums[n] - o.tally.sums[st.seen]
	rc.n += int32(n - int(st.seen))
	st.waiting += n - int(st.seen)
	st.seen = int32(n)
	if s.chk != nil {
		s.checkCaughtUp(j, r, v, vrack)
	}
}

// checkCaughtUp is, under the invariant checker, catchUpQuiet's result for
// reduce r of j (on node v of rack vrack) against the eager queueing's: each
// class's outputs waiting and their bytes must be those of the job's done
// outputs the class has queued since its last round (outs[from:seen]), as
// queueOutput would have counted them one by one.
func (s *Sim) checkCaughtUp(j *Job, r, v, vrack int32) {
	st := &j.out.fs[r]
	for c := range st.rounds {
		rc := &st.rounds[c]
		var n int32
		var b int64
		for _, x := range j.out.outs[rc.from:st.seen] {
			k := roundFar
			switch {
			case x.node == v:
				k = roundOwn
			case x.rack == vrack:
				k = roundRack
			}
			if k == c {
				n++
				b += x.share
			}
		}
		if n != rc.n || b != rc.bytes {
			s.chk.fail("reduce %d of job %s caught up: class %d has %d outputs waiting, %d bytes; queued one by one since its last round: %d, %d", r, j.Trace.ID, c, rc.n, rc.bytes, n, b)
		}
	}
}

// checkQuiet is, under the invariant checker, mapOutput's look at reduce r
// of j for output x: jobOutput.quiet must hold what the reduce's fetchState
// says (1 + its rack when it has started and its far round is under way,
// else 0), and when mapOutput skips it (quiet, the output on another rack),
// queueing the output, of the far class for it, must start no round
// (roundsDue: its other classes have a round under way or nothing waiting).
func (s *Sim) checkQuiet(j *Job, r int32, x *doneOutput) {
	st := &j.out.fs[r]
	_, rack := s.reduceAt(j, st, r)
	want := int32(0)
	if st.started && st.rounds[roundFar].busy {
		want = rack + 1
	}
	if q := j.out.quiet[r]; q != want {
		s.chk.fail("reduce %d of job %s: quiet %d at a map's end, want %d (started %v, far round under way %v, rack %d)",
			r, j.Trace.ID, q, want, st.started, st.rounds[roundFar].busy, rack)
	}
	if want == 0 || x.rack == rack {
		return
	}
	for c := range roundFar {
		if rc := &st.rounds[c]; !rc.busy && rc.n > 0 {
			s.chk.fail("reduce %d of job %s skipped at a map's end with %d outputs of class %d waiting and no round under way", r, j.Trace.ID, rc.n, c)
		}
	}
	s.chk.quietSkips++
}
