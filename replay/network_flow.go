package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// The flow model inside the engine (network = "flow").
//
// One flow.Network holds the cluster's NICs (each direction), rack uplinks and
// downlinks, with core_oversubscription > 1 the core, and each node's disk.
// Four kinds of transfer become flows (network_disk.go has the tasks' stages):
//
//   - a map's input read, from the replica it reads (nearestReplica, its own
//     node when node-local): that node's disk, then the network path to the
//     map's node, after the map's start-up, beside its compute;
//   - the map's output spill to its own disk, after its read and compute;
//   - each reduce's fetch of its share of a finished map's output, from the
//     map node's disk to the reduce node's, at most parallel_copies at a time
//     per reduce, in the order the maps finished, from the reduce's start-up
//     on (a fetch from its own node crosses its disk only);
//     shuffle_fetch_latency adds its share per fetch as under shuffle =
//     "topology". The shuffle ends with the last fetch;
//   - the reduce's output write through its HDFS replication pipeline, beside
//     its merge and reduce work.
//
// It is a re-timing model (network.go): the engine takes the network as a
// second event source (network_retimed.go). A flow whose rate moves needs no
// event: Next already knows its new end. Maps whose duration comes from the
// trace keep it (trace_locality rescales it at the fixed rates).

// NetworkFlow makes map reads and spills, shuffle fetches and reduce output
// writes flows that share disks, NICs, rack uplinks and an optional
// oversubscribed core max-min fairly (internal/flow); a task's end moves as
// other transfers start and end.
const NetworkFlow NetworkName = "flow"

// flowNetwork is the flow model; its NewFlows builds a run's flowNet. Its
// nominal read time is the fixed model's.
type flowNetwork struct{ fixedNetwork }

func newFlowNetwork(h *Hardware) NetworkModel { return flowNetwork{fixedNetwork{h}} }

// Retimes is true: reads, spills, fetches and output writes are flows.
func (flowNetwork) Retimes() bool { return true }

// NewFlows builds the flow network of the run's cluster.
func (m flowNetwork) NewFlows(t *Topology) (Flows, error) {
	fn, err := newFlowNet(m.h, t)
	if err != nil {
		return nil, err
	}
	return fn, nil
}

// flowNet is the run's flow network and what each of its flows is for.
type flowNet struct {
	n     *flow.Network
	node  []int // replay node → flow node
	xfers []Transfer
	free  []flow.FlowID
	path  []flow.ResourceID
	// pending are the flows started at the current time, added in one batch
	// (one re-solve) before the network is next asked for its next end.
	pending []flow.Spec
	paths   []flow.ResourceID       // backing store of pending's paths
	wts     []float64               // the weight of each entry of paths (1 but on a batch round's sources)
	pendW   []bool                  // by pending flow: its path has weights (a batch round's sources)
	rackW   []float64               // sourcePath's scratch: a round's bytes by source rack
	racks   []int                   // sourcePath's scratch: the racks with bytes
	labels  []string                // each resource's name in the replay's hosts and racks (Links)
	links   []flow.ResourceID       // the resources that are links (not disks), in order (Links)
	res     flowRes                 // each node's and rack's resources (paths)
	started [numTransferKinds]int64 // transfers started, by kind (FlowCost)
	live    []flow.FlowID           // Cancel's scratch: the flows under way it removes
	moved   []int64                 // Cancel's scratch: the bytes each transfer moved
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
	if err := fn.n.SetUpdateQuantum(int64(h.FlowUpdate)); err != nil {
		return nil, fmt.Errorf("flow_update = %s: %w", h.FlowUpdate, err)
	}
	if fn.res, err = newFlowRes(topo, fn.node); err != nil {
		return nil, fmt.Errorf("network = \"flow\": %w", err)
	}
	fn.labels = linkLabels(fn.n, t, fn.node)
	for r, l := range fn.labels {
		if l != "" {
			fn.links = append(fn.links, flow.ResourceID(r))
		}
	}
	return fn, nil
}

// linkLabels names the flow network's resources by the replay's hosts and
// racks: flow node k is the replay node that node maps to it, flow rack r
// the r-th rack with nodes.
func linkLabels(n *flow.Network, t *Topology, node []int) []string {
	host := make([]string, len(node))
	for i, k := range node {
		host[k] = t.Nodes[i].Host
	}
	var racks []string
	for r, nodes := range t.RackNodes {
		if len(nodes) > 0 {
			racks = append(racks, t.RackNames[r])
		}
	}
	labels := make([]string, n.NumResources())
	for r := range labels {
		name := n.ResourceName(flow.ResourceID(r))
		labels[r] = name
		prefix, rest, ok := strings.Cut(name, "/")
		if !ok {
			continue
		}
		if strings.HasPrefix(rest, "disk") {
			labels[r] = "" // disks are not links (Links leaves them out)
			continue
		}
		if k, err := strconv.Atoi(strings.TrimPrefix(prefix, "node")); err == nil && strings.HasPrefix(prefix, "node") && k < len(host) {
			labels[r] = host[k] + "/" + rest
		} else if k, err := strconv.Atoi(strings.TrimPrefix(prefix, "rack")); err == nil && strings.HasPrefix(prefix, "rack") && k < len(racks) {
			labels[r] = racks[k] + "/" + rest
		}
	}
	return labels
}

// Links visits the resources that carry a flow now, in resource order.
func (fn *flowNet) Links(visit func(link string, capacity, load float64, flows int)) {
	for _, id := range fn.links { // disks are not links
		if k := fn.n.FlowsOn(id); k > 0 {
			visit(fn.labels[id], fn.n.Capacity(id), fn.n.Load(id), k)
		}
	}
}

// Active reports whether a flow is under way or about to start.
func (fn *flowNet) Active() bool { return fn.n.Active() > 0 || len(fn.pending) > 0 }

// Start begins a transfer at now: it joins the batch added at the next flush.
func (fn *flowNet) Start(now int64, x Transfer) (int, error) {
	k := len(fn.paths)
	p, err := fn.xferPath(fn.paths, x)
	if err != nil {
		return -1, err
	}
	weighted := len(x.srcs) > 0
	if weighted {
		if p, err = fn.sourcePath(p, x.srcs, x.srcTotal, x.Round-1 == roundFar); err != nil {
			return -1, err
		}
		x.srcs, x.srcTotal = nil, 0
	} else {
		for len(fn.wts) < len(p) {
			fn.wts = append(fn.wts, 1)
		}
	}
	fn.paths = p
	var id flow.FlowID
	if k := len(fn.free); k > 0 {
		id, fn.free = fn.free[k-1], fn.free[:k-1]
	} else {
		id = flow.FlowID(len(fn.xfers))
		fn.xfers = append(fn.xfers, Transfer{})
	}
	x.Start = now
	fn.xfers[id] = x
	fn.started[x.Kind]++
	// The path is p[k:] once every path of the batch is in paths (appends may
	// move it), so it is set by flush.
	fn.pending = append(fn.pending, flow.Spec{ID: id, Bytes: x.Bytes, Path: p[k:len(p):len(p)]})
	fn.pendW = append(fn.pendW, weighted)
	return int(id), nil
}

// sourcePath appends to a batch round's path dst (the reduce side's
// resources, each of weight 1, which it gives fn.wts) the resources of its
// sources, each loaded by the fraction of the round's bytes that crosses it:
// a source host's disk and NIC out by its bytes' share, for a round from
// other racks (far) each source rack's uplink by its hosts' share.
func (fn *flowNet) sourcePath(dst []flow.ResourceID, srcs []roundSource, total int64, far bool) ([]flow.ResourceID, error) {
	for len(fn.wts) < len(dst) {
		fn.wts = append(fn.wts, 1)
	}
	if total == 0 {
		for _, x := range srcs {
			total += x.bytes
		}
	}
	B := float64(total)
	for _, x := range srcs {
		nr := &fn.res.node[x.node]
		w := float64(x.bytes) / B
		dst = append(dst, nr.disk, nr.nicOut)
		fn.wts = append(fn.wts, w, w)
		if far {
			rk := int(nr.rack)
			if fn.rackW == nil {
				fn.rackW = make([]float64, len(fn.res.up))
			}
			if fn.rackW[rk] == 0 {
				fn.racks = append(fn.racks, rk)
			}
			fn.rackW[rk] += float64(x.bytes)
		}
	}
	for _, rk := range fn.racks {
		dst = append(dst, fn.res.up[rk])
		fn.wts = append(fn.wts, fn.rackW[rk]/B)
		fn.rackW[rk] = 0
	}
	fn.racks = fn.racks[:0]
	return dst, nil
}

// Cancel withdraws transfers ids, each under way or about to start, at now,
// before their ends: one not yet added leaves the pending batch (and its
// path the batch's paths), those under way leave the network in one batch
// (RemoveBatch: one re-solve of the flows that shared their resources).
// visit is then called for each, in the order of ids, with what it carried
// and the bytes it moved by now (0 for one that had not started).
func (fn *flowNet) Cancel(now int64, ids []int32, visit func(id int32, x Transfer, moved int64)) error {
	live := fn.live[:0]
	moved := fn.moved[:0]
	for _, id := range ids {
		if fn.dropPending(id) {
			moved = append(moved, 0)
			continue
		}
		if len(live) == 0 {
			if err := fn.n.Advance(now); err != nil {
				return fmt.Errorf("flow network: cancel %d flows at %d µs: %w", len(ids), now, err)
			}
		}
		left, _ := fn.n.Remaining(flow.FlowID(id))
		live = append(live, flow.FlowID(id))
		moved = append(moved, max(0, fn.xfers[id].Bytes-int64(math.Ceil(left))))
	}
	fn.live, fn.moved = live, moved
	if len(live) > 0 {
		if _, err := fn.n.RemoveBatch(now, live); err != nil {
			return fmt.Errorf("flow network: cancel %d flows at %d µs: %w", len(live), now, err)
		}
	}
	for k, id := range ids {
		x := fn.xfers[id]
		fn.xfers[id] = Transfer{}
		fn.free = append(fn.free, flow.FlowID(id))
		visit(id, x, moved[k])
	}
	return nil
}

// dropPending takes transfer id out of the batch waiting to join the
// network, if it is there, and reports whether it was.
func (fn *flowNet) dropPending(id int32) bool {
	off := 0
	for k := range fn.pending {
		n := len(fn.pending[k].Path)
		if fn.pending[k].ID != flow.FlowID(id) {
			off += n
			continue
		}
		// flush sets the paths from their lengths, in order: the later
		// entries' paths move down with the backing store.
		fn.paths = append(fn.paths[:off], fn.paths[off+n:]...)
		fn.wts = append(fn.wts[:off], fn.wts[off+n:]...)
		fn.pending = append(fn.pending[:k], fn.pending[k+1:]...)
		fn.pendW = append(fn.pendW[:k], fn.pendW[k+1:]...)
		return true
	}
	return false
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
		if fn.pendW[i] {
			fn.pending[i].Weights = fn.wts[off : off+n : off+n]
		}
		off += n
	}
	_, err := fn.n.AddBatch(now, fn.pending)
	if err != nil {
		err = fmt.Errorf("flow network: start %d flows at %d µs: %w", len(fn.pending), now, err)
	}
	for i := range fn.pending {
		fn.pending[i].Weights = nil
	}
	fn.pending, fn.paths, fn.wts, fn.pendW = fn.pending[:0], fn.paths[:0], fn.wts[:0], fn.pendW[:0]
	return err
}

// EstimateUs is what policies are told a transfer of b bytes from src to dst
// started now would take: under max-min a new flow gets at least the smallest
// equal split of its path's resources (capacity / (flows on it + 1)), so the
// bytes over that split bound its time from above while nothing else changes.
// It costs O(path), not a re-solve.
func (fn *flowNet) EstimateUs(b int64, src, dst int32) int64 {
	p := fn.res.path(fn.path[:0], src, dst)
	if len(p) == 0 {
		return 0
	}
	fn.path = p
	rate := math.Inf(1)
	for _, r := range p {
		rate = min(rate, fn.n.Capacity(r)/float64(fn.n.FlowsOn(r)+1))
	}
	return int64(math.Ceil(float64(b) / rate * 1e6))
}

// Next flushes the flows started at now and returns the network's next flow
// end.
func (fn *flowNet) Next(now int64) (int, int64, bool, error) {
	if err := fn.flush(now); err != nil {
		return 0, 0, false, err
	}
	id, at, ok := fn.n.Next()
	return int(id), at, ok, nil
}

// End removes flow id at its end at and returns what it carried.
func (fn *flowNet) End(id int, at int64) (Transfer, error) {
	x := fn.xfers[id]
	if _, err := fn.n.Remove(at, flow.FlowID(id)); err != nil {
		return x, fmt.Errorf("flow network: end flow %d at %d µs: %w", id, at, err)
	}
	fn.free = append(fn.free, flow.FlowID(id))
	return x, nil
}

// flowKeys is the flow model's key group added after the frozen JSON formats
// (optionalKeyGroups): flow_update and flow_shuffle, left out of the run identity and the
// manifest while it holds its default, so that a model that does not set it
// (every fixed or bar run among them) keeps the identity it had before.
type flowKeys struct {
	FlowUpdate  Duration
	FlowShuffle FlowShuffleMode
}

func flowKeysOf(h *Hardware) flowKeys { return flowKeys{h.FlowUpdate, h.FlowShuffle} }

// fetchOrderKeys is the key group of flow_fetch_order, added after flowKeys
// and a group of its own so that a run that sets flow_update or flow_shuffle
// but not it records the same hardware JSON as before it existed.
//
// Unlike the other groups it is not left out at its default: its default
// changed ("ready" → "random", h-fetchrandom), and a run's identity must tell
// the two orders apart, old results included. So it is left out when it holds
// the value that its absence stands for (omittedHardware): "ready" where the
// key acts (network = "flow", flow_shuffle = "fetch"), as every run recorded
// before the key existed or while "ready" was the default fetched that way;
// the default "random" where it does not act (every other network and
// "batch"), whose results neither order changes. A flow per-fetch run that
// leaves the key at its default therefore writes flow_fetch_order = "random"
// and gets a new identity, one that sets "ready" keeps the identity of the
// runs before, and every other run keeps its identity and hardware JSON.
type fetchOrderKeys struct {
	FlowFetchOrder FlowFetchOrder
}

func fetchOrderKeysOf(h *Hardware) fetchOrderKeys { return fetchOrderKeys{h.FlowFetchOrder} }

// fetchOrderActs reports whether flow_fetch_order changes h's results: under
// network = "flow" with flow_shuffle = "fetch" (pumpFetches).
func fetchOrderActs(h *Hardware) bool {
	return h.Network == NetworkFlow && h.FlowShuffle == FlowShuffleFetch
}

// omittedHardware is the model that the optional key groups left out of h's
// JSON stand for (optionalKeyGroups): the defaults, except flow_fetch_order,
// which stands for "ready" where it acts (fetchOrderKeys).
func omittedHardware(h *Hardware) Hardware {
	d := DefaultHardware()
	if fetchOrderActs(h) {
		d.FlowFetchOrder = FlowFetchReady
	}
	return d
}
