package replay

import (
	"math"
	"math/bits"
	"slices"
)

// Intermediate data and the shuffle.
//
// Every finished map leaves its output on the node it ran on; the JobTracker
// learns of it from the map's completion report, so policies may read it
// (Job.MapOutputBytes, Job.MapOutputNodes). How reduces copy that data depends on
// the hardware model's shuffle key:
//
//   - "uniform" (the default): a reduce copies its whole share at the NIC rate,
//     from its launch or, for the last map's share, after the last map ends,
//     whatever the placement (ShuffleEnd = max(launch + start-up + share/NIC,
//     last map end + share/NIC/maps)).
//   - "topology": a reduce fetches its share of each finished map's output from
//     the node the map ran on, one fetch after another, in the order the maps
//     finished: the outputs already there when it launches right after its
//     start-up, each later one as soon as it appears and the previous fetch is
//     done. A fetch from its own node is free (a local disk read that the reduce
//     work already counts), one within its rack runs at the NIC rate, one across
//     racks at the rack uplink's per-node share. Its shuffle ends with the fetch
//     of the last map's output. Fetches do not slow each other down: rates are
//     per transfer, as in the map input model.
//
// Under network = "flow" the shuffle key is not used: each fetch is a flow
// sharing the links with every other transfer, parallel_copies at a time per
// reduce (network_flow.go); with event_poll a running reduce sees a map's
// output the poll chain's wait after the map's report (pollOutput).
//
// A reduce's share of a map's output is its shuffle bytes in proportion to that
// map's part of the job's map output (an even part when the job's maps output
// nothing), so the fetches of a reduce add up to its shuffle bytes.

// jobOutput is the intermediate data of one job.
type jobOutput struct {
	// bytes is, per node, the output of the job's finished maps stored
	// there, once a quarter of the nodes hold some (dense); nil before,
	// while outAt and at hold it (sparse), and once compact dropped it.
	bytes []int64
	outAt []int64 // instead of bytes: the output on nodes[k]
	// at finds a node's place in nodes while the output is sparse and the
	// maps are kept: an open-addressed table (a power of two, at least
	// twice len(nodes)) of k+1 at the first free slot from the node's hash
	// (outputSlot), 0 for free.
	at     []int32
	nodes  []int32      // nodes with output, in the order of their first output
	done   []int32      // finished maps, in finish order
	total  int64        // map output of all the job's maps (the simulator's knowledge)
	cursor []int64      // topology shuffle, per reduce: when its last fetch ends
	fs     []fetchState // network = "flow", per reduce (network_flow.go)
	disk   *jobDisk     // network = "flow": its tasks' flow stages (network_disk.go)
	// lagging are, under network = "flow" with event_poll, the reduces that
	// left the job's waiting list (its maps are all done) before the poll
	// chain brought them every map's output (pollOutput).
	lagging []int32
	// outs are, under flow_shuffle = "batch", the outputs of the maps in
	// done, in the same order: where each lies and its bytes, so that
	// sourceMix reads them in order rather than from the maps' records.
	outs []doneOutput
	// byRack is, under flow_shuffle = "batch", by rack: the indexes in outs
	// of the outputs on the rack, ascending, so that a round from the
	// reduce's own rack (sourceMix) reads those and not every output done
	// since its last (on FB-2010's first 3,000 jobs on 75 racks, 125
	// million outputs read under fifo for 1.7 million sources).
	byRack [][]int32
	// tally sums outs by node and rack under flow_shuffle = "batch" when
	// every reduce of the job has the same shuffle bytes (network_retimed.go).
	tally outputTally
	// quiet is, under flow_shuffle = "batch", per reduce: 1 + its rack while
	// it has started and a round from other racks is under way, else 0. A
	// map's end skips such a reduce when the output lies on another rack
	// (lazyMapEnds and catchUpQuiet, network_retimed.go).
	quiet []int32
}

// doneOutput is a done map's output as sourceMix reads it: its node (the
// map's, or its speculative copy's when that won), the node's rack and the
// map's output bytes; share is a reduce's share of it when every reduce's
// share is the same (outputTally.shares).
type doneOutput struct {
	node, rack int32
	bytes      int64
	share      int64
}

// shareOf is a reduce's share of the output, for a reduce of shuffleBytes
// in a job whose outputs total total bytes over maps maps: the share
// recorded when every reduce's is the same (shares: outputTally.shares),
// else computed as share computes it from the map's record.
func (x *doneOutput) shareOf(shares bool, shuffleBytes, total int64, maps int32) int64 {
	if shares {
		return x.share
	}
	return outputShare(shuffleBytes, x.bytes, total, maps)
}

// MapOutputBytes is the intermediate data of j's finished maps stored on node n,
// as the JobTracker knows it from their completion reports.
// O(1), or O(nodes holding output) once the job's maps were dropped
// (Sim.retireMaps; MapOutputAt is O(1) then too).
func (j *Job) MapOutputBytes(n int32) int64 {
	o := &j.out
	switch {
	case o.bytes != nil:
		return o.bytes[n]
	case o.at != nil:
		if k := o.find(n); k >= 0 {
			return o.outAt[k]
		}
		return 0
	}
	if k := slices.Index(o.nodes, n); k >= 0 && o.outAt != nil {
		return o.outAt[k]
	}
	return 0
}

// MapOutputAt is MapOutputBytes of MapOutputNodes()[k], in O(1).
func (j *Job) MapOutputAt(k int) int64 {
	if j.out.bytes == nil {
		return j.out.outAt[k]
	}
	return j.out.bytes[j.out.nodes[k]]
}

// compact replaces the per-node output by the output of each node of
// o.nodes, when that is smaller; the output no longer changes (every map
// has finished).
// It returns the per-node array it dropped, zeroed again (only the entries
// of o.nodes are non-zero), for the next job's output (Sim.outPool), or nil.
func (o *jobOutput) compact() []int64 {
	if o.bytes == nil {
		o.at = nil // MapOutputBytes scans nodes from here on
		return nil
	}
	if 3*len(o.nodes) >= 2*len(o.bytes) { // 12 bytes a node holding output against 8 a node
		return nil
	}
	o.outAt = make([]int64, len(o.nodes))
	for k, n := range o.nodes {
		o.outAt[k] = o.bytes[n]
		o.bytes[n] = 0
	}
	b := o.bytes
	o.bytes = nil
	return b
}

// outputSlot is node n's first slot in a table of 1<<b slots (jobOutput.at).
func outputSlot(n int32, b int) int {
	return int(uint32(n) * 0x9e3779b1 >> (32 - b))
}

// find is k with nodes[k] == n while the output is sparse (at), or -1.
func (o *jobOutput) find(n int32) int {
	mask, b := len(o.at)-1, bits.Len(uint(len(o.at)))-1
	for h := outputSlot(n, b); ; h = (h + 1) & mask {
		switch k := o.at[h]; {
		case k == 0:
			return -1
		case o.nodes[k-1] == n:
			return int(k - 1)
		}
	}
}

// place enters nodes[k] into at.
func (o *jobOutput) place(k int) {
	mask, b := len(o.at)-1, bits.Len(uint(len(o.at)))-1
	h := outputSlot(o.nodes[k], b)
	for o.at[h] != 0 {
		h = (h + 1) & mask
	}
	o.at[h] = int32(k + 1)
}

// add counts b > 0 bytes of output on node n, of a cluster of nodes nodes:
// sparse (nodes, outAt and at) until a quarter of the nodes hold output,
// then per node (bytes, taken from pool when it has one). It returns pool.
func (o *jobOutput) add(n int32, b int64, nodes int, pool [][]int64) [][]int64 {
	if o.bytes != nil {
		if o.bytes[n] == 0 {
			o.nodes = append(o.nodes, n)
		}
		o.bytes[n] += b
		return pool
	}
	if o.at != nil {
		if k := o.find(n); k >= 0 {
			o.outAt[k] += b
			return pool
		}
	}
	if 4*(len(o.nodes)+1) > nodes {
		if k := len(pool) - 1; k >= 0 {
			o.bytes, pool = pool[k], pool[:k]
		} else {
			o.bytes = make([]int64, nodes)
		}
		for k, m := range o.nodes {
			o.bytes[m] = o.outAt[k]
		}
		o.outAt, o.at = nil, nil
		o.nodes = append(o.nodes, n)
		o.bytes[n] = b
		return pool
	}
	o.nodes = append(o.nodes, n)
	o.outAt = append(o.outAt, b)
	if 2*len(o.nodes) > len(o.at) {
		o.at = make([]int32, max(16, 2*len(o.at)))
		for k := range o.nodes {
			o.place(k)
		}
	} else {
		o.place(len(o.nodes) - 1)
	}
	return pool
}

// MapOutputNodes lists the nodes holding intermediate data of j, in the order
// their first map output appeared. The slice is the simulator's own: do not keep
// or modify it.
func (j *Job) MapOutputNodes() []int32 { return j.out.nodes }

// topologyShuffle reports whether reduces fetch map outputs over the topology.
func (s *Sim) topologyShuffle() bool { return s.hw.Shuffle == ShuffleTopology }

// linkRate is the transfer rate in MB/s between two nodes at the given distance:
// the NIC within a rack, the rack uplink's per-node share across racks.
func (s *Sim) linkRate(loc Locality) float64 { return s.hw.linkRate(loc) }

// fetchUs is the time to move b bytes from node u to node v.
func (s *Sim) fetchUs(b int64, u, v int32) int64 {
	switch {
	case u == v:
		return 0
	case s.topo.Nodes[u].Rack == s.topo.Nodes[v].Rack:
		return int64(math.Ceil(bytesUs(b, s.linkRate(RackLocal))))
	}
	return int64(math.Ceil(bytesUs(b, s.linkRate(OffRack))))
}

// mapOutput records the output of map i, which just finished, on its node and,
// under the topology shuffle, lets the job's copying reduces fetch it.
func (s *Sim) mapOutput(j *Job, i int32) {
	o := &j.out
	if len(o.done) == 0 {
		for k := range j.Maps {
			o.total += j.Maps[k].OutputBytes
		}
	}
	m := &j.Maps[i]
	if m.OutputBytes > 0 {
		n := s.outputNode(j, i) // m.Node, or under flow its speculative copy's when that won (lifecycle_flowspec.go)
		s.outPool = o.add(n, m.OutputBytes, len(s.topo.Nodes), s.outPool)
	}
	o.done = append(o.done, i)
	if s.fn != nil {
		if s.hw.FlowShuffle == FlowShuffleBatch {
			n := s.outputNode(j, i)
			rack := s.topo.Nodes[n].Rack
			if o.byRack == nil {
				o.byRack = make([][]int32, len(s.topo.RackNodes))
			}
			o.byRack[rack] = append(o.byRack[rack], int32(len(o.outs)))
			o.outs = append(o.outs, doneOutput{node: n, rack: rack, bytes: m.OutputBytes})
			s.tallyOutput(j, m) // network_retimed.go
		}
		w, polled := s.eventPollUs(j), false
		lazy := w == 0 && s.lazyMapEnds(j)
		var x *doneOutput
		if lazy {
			x = &o.outs[len(o.outs)-1]
		}
		var skipped int64
		for _, r := range j.waiting {
			if lazy && s.chk != nil {
				s.checkQuiet(j, r, x)
			}
			if lazy && o.quiet[r] != 0 && o.quiet[r]-1 != x.rack {
				skipped++ // catchUpQuiet queues the output later
				continue
			}
			if w > 0 && s.pollsFor(j, r) {
				polled = true
				if j.MapsDone() {
					o.lagging = append(o.lagging, r)
				}
				continue
			}
			s.flowFetch(j, r, i)
		}
		if skipped > 0 && x.share > 0 {
			// The skipped reduces' share of the output out of its host, as
			// their queueOutput would count it (all to the same host).
			s.batchOut.add(x.node, skipped*x.share, len(s.topo.Nodes))
		}
		if polled {
			s.schedule(s.now+w, evFetchStart, j.Index, -int32(len(o.done))) // pollOutput
		}
		s.flushBatchOut() // flow_shuffle = "batch" (network_retimed.go)
	} else if s.topologyShuffle() {
		for _, r := range j.waiting {
			s.fetch(j, r, i)
		}
	}
}

// reduceLaunched does the shuffle bookkeeping of reduce i, just launched
// (saved: the start-up its reused JVM saves).
func (s *Sim) reduceLaunched(j *Job, i int32, saved int64) {
	r := &j.Reduces[i]
	if s.fn != nil {
		s.flowReduceLaunched(j, i, saved)
		return
	}
	if !s.topologyShuffle() {
		// Shuffle data comes from every map; the share held on n itself is local.
		s.netBytes += r.ShuffleBytes - r.ShuffleBytes/int64(max(1, s.dataNodes))
		return
	}
	o := &j.out
	if o.cursor == nil {
		o.cursor = make([]int64, len(j.Reduces))
	}
	o.cursor[i] = s.now + j.redAMWaitUs(i) + int64(s.hw.TaskStartup)
	for _, m := range o.done {
		s.fetch(j, i, m)
	}
}

// fetch copies reduce r's share of map m's output to the reduce's node, as soon
// as the reduce's previous fetch is done and the output exists.
func (s *Sim) fetch(j *Job, r, m int32) {
	red, mp := &j.Reduces[r], &j.Maps[m]
	b := s.share(j, red, mp)
	start := max(j.out.cursor[r], mp.FinishUs)
	if mp.FinishUs > red.LaunchUs {
		start = max(start, mp.FinishUs+s.eventPollUs(j)) // the reduce learns of the map through the poll chain
	}
	end := start + s.fetchUs(b, mp.Node, red.Node)
	if L := int64(s.hw.ShuffleFetchLatency); L > 0 {
		// parallel_copies fetches overlap their latency: each adds its share.
		end += (L + int64(s.hw.ParallelCopies) - 1) / int64(s.hw.ParallelCopies)
	}
	j.out.cursor[r] = end
	if mp.Node != red.Node && b > 0 {
		s.netBytes += b
		s.bus.transfer(TransferEvent{Src: mp.Node, Dst: red.Node, Bytes: b, Start: start, End: end})
	}
}

// share is the part of map m's output that reduce r copies.
func (s *Sim) share(j *Job, r *ReduceTask, m *MapTask) int64 {
	return outputShare(r.ShuffleBytes, m.OutputBytes, j.out.total, j.NumMaps())
}

// outputShare is a reduce's share of one map output: its shuffle bytes in
// proportion to the output's bytes among the job's total output, an even
// part over the job's maps when they output nothing, nothing when the reduce
// has no shuffle bytes.
func outputShare(shuffleBytes, outputBytes, total int64, maps int32) int64 {
	if shuffleBytes <= 0 {
		return 0
	}
	if total <= 0 {
		return shuffleBytes / int64(maps)
	}
	// shuffleBytes * outputBytes / total without overflow; the quotient is at
	// most shuffleBytes since outputBytes <= total.
	hi, lo := bits.Mul64(uint64(shuffleBytes), uint64(max(outputBytes, 0)))
	q, _ := bits.Div64(hi, lo, uint64(total))
	return int64(q)
}

// shuffleEnd is when reduce i of j has copied all its input; the job's maps are
// all done.
func (s *Sim) shuffleEnd(j *Job, i int32) int64 {
	r := &j.Reduces[i]
	if s.topologyShuffle() {
		return j.out.cursor[i]
	}
	if r.obsTail {
		return obsTailEnd(j, i)
	}
	wait := int64(0)
	if r.LaunchUs < j.LastMapEndUs {
		wait = s.eventPollUs(j) // the last map's completion reaches the copier through the poll chain
	}
	return max(r.LaunchUs+j.redAMWaitUs(i)+r.copyUs, j.LastMapEndUs+r.tailUs+wait)
}

// Hadoop 1's reduce-side poll chain (event_poll; Hadoop 1's TaskTracker and
// ReduceTask). A map's completion reaches the JobTracker with its
// TaskTracker's heartbeat (report_at_heartbeat); then
//
//   - the reduce's TaskTracker asks the JobTracker for the job's completed
//     maps at most once a heartbeat interval
//     (TaskTracker.FetchStatus.fetchMapCompletionEvents skips a query less
//     than heartbeatInterval after the last one);
//   - the reduce's GetMapEventsThread asks its TaskTracker every 1 s
//     (ReduceTask.ReduceCopier, SLEEP_TIME = 1000);
//   - ReduceCopier.fetchOutputs sleeps 5 s whenever it has no copy in flight
//     and none to schedule.
//
// Their phases are independent of the map's end, so the expected wait is
// heartbeat/2 + 0.5 s + 2.5 s, under every network model (the fixed
// shuffles' fetch and shuffleEnd, the flow shuffle's pollOutput). A YARN job (cluster = "yarn", or a job
// whose trace records an ApplicationMaster) has none of it: the AM learns of
// the map at once and the reduce's EventFetcher polls it every 1 s with no
// 5 s sleep, which the fetch latency already stands for.
const (
	eventPollChildUs = 500_000   // half of GetMapEventsThread's 1 s poll
	eventPollSleepUs = 2_500_000 // half of fetchOutputs' 5 s sleep
)

// eventPollUs is the expected wait of the poll chain between a map's report
// and the fetch of its output by a reduce already running, 0 without
// event_poll or in a YARN job.
func (s *Sim) eventPollUs(j *Job) int64 {
	if !s.hw.EventPoll || s.hw.Cluster == ClusterYARN || (j.Trace != nil && j.Trace.AMStartMs >= 0) {
		return 0
	}
	return int64(s.hw.Heartbeat)/2 + eventPollChildUs + eventPollSleepUs
}

// Under network = "flow" a reduce running when a map is reported sees the
// map's output eventPollUs later, as the fixed topology shuffle's fetch
// starts then: mapOutput queues it at once for the reduces launched at the
// report's instant or later and for those that replay an observed copy tail
// (trace mode: the tail holds the chain), and for the others schedules one
// evFetchStart event (b = −(done maps)) at the report plus the wait, whose
// pollOutput queues, for every reduce still behind, the outputs of the
// maps reported up to that one. The wait is the same for every map of a
// job and reports come in time order, so every reduce queues the job's
// outputs in the order the maps were reported (fetchState.seen counts
// them), the order the batch rounds' source mix reads them in.

// pollsFor reports whether running reduce r of j learns of a map reported
// now through the poll chain: it was launched before now and does not
// replay an observed copy tail.
func (s *Sim) pollsFor(j *Job, r int32) bool {
	red := &j.Reduces[r]
	return red.LaunchUs < s.now && !red.obsTail
}

// pollOutput is an evFetchStart event with b = −n: the poll chain brings the
// outputs of j's first n reported maps to the running reduces that launched
// before the n-th was reported; each queues those it has not queued and
// fetches. Once the job's last map is delivered no reduce lags.
func (s *Sim) pollOutput(j *Job, n int32) {
	o := &j.out
	for _, r := range j.waiting {
		s.pollReduce(j, r, n)
	}
	for _, r := range o.lagging {
		s.pollReduce(j, r, n)
	}
	if int(n) == len(o.done) && j.MapsDone() {
		o.lagging = nil
	}
	s.flushBatchOut()
}

// pollReduce queues, for reduce r of j, the outputs of the job's first n
// reported maps that it has not queued, and starts its fetches.
func (s *Sim) pollReduce(j *Job, r, n int32) {
	st := &j.out.fs[r]
	if st.seen >= n {
		return
	}
	for st.seen < n {
		s.queueOutput(j, r, j.out.done[st.seen]) // counts seen
	}
	s.pump(j, r)
}

// dropFetcher takes reduce r of j off the lists of reduces that receive map
// outputs (its attempts are over).
func (s *Sim) dropFetcher(j *Job, r int32) {
	del := func(l []int32) []int32 { return slices.DeleteFunc(l, func(x int32) bool { return x == r }) }
	j.waiting = del(j.waiting)
	j.out.lagging = del(j.out.lagging)
}

// obsTailEnd is when reduce i's shuffle ends by its observed copy tail
// (obsTail, tracemode.go; its tailUs): the tail after the later of its start-up and the
// job's last map attempt's end, and never before the last map's completion
// is reported. The fixed shuffle ends then; under network = "flow" the
// shuffle ends then or with its last fetch, whichever is later
// (flowShuffleEnded).
func obsTailEnd(j *Job, i int32) int64 {
	r := &j.Reduces[i]
	return max(j.LastMapEndUs, max(r.LaunchUs+j.redAMWaitUs(i)+r.copyUs, j.mapAttemptsEndUs())+r.tailUs)
}

// eventPollKeys is event_poll's key group, added after the frozen JSON
// formats (optionalKeyGroups): left out of the run identity and the manifest
// while false, so that a model without it keeps the identity it had before.
type eventPollKeys struct {
	EventPoll bool
}

func eventPollKeysOf(h *Hardware) eventPollKeys { return eventPollKeys{h.EventPoll} }
