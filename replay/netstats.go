package replay

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/tracereplay/tracereplay/trace"
)

// Per-node network accounting (the Coupling paper's Fig. 14 plots, at each time,
// the largest number of bytes any node sent or received).
//
// A transfer of b bytes from node u to node v over [t0, t1) counts b bytes out of
// u and into v; for the time series its bytes are spread evenly over the time it
// takes and summed per timeline interval. Counted transfers: remote map input
// (from the replica it reads, over the map's whole run) and, under the topology
// shuffle, each fetch of map output by a reduce on another node. The uniform
// shuffle has no per-node sources, so its bytes appear only in
// RunSummary.NetworkBytes.

// NodeResult is one node's totals in one run.
type NodeResult struct {
	Policy      string `parquet:"policy"`
	Node        int32  `parquet:"node"`
	Host        string `parquet:"host"`
	Rack        string `parquet:"rack"`
	NetInBytes  int64  `parquet:"net_in_bytes"`
	NetOutBytes int64  `parquet:"net_out_bytes"`
}

// NodeNetSample is the network bytes one node received and sent during the
// timeline interval [TimeUs, TimeUs + timeline_sample). Only intervals in which
// the node moved data are listed.
type NodeNetSample struct {
	Policy   string `parquet:"policy"`
	TimeUs   int64  `parquet:"time_us"`
	Node     int32  `parquet:"node"`
	InBytes  int64  `parquet:"in_bytes"`
	OutBytes int64  `parquet:"out_bytes"`
}

// netAcct accumulates per-node network bytes, in total and per interval.
type netAcct struct {
	width   int64
	series  bool
	in, out []int64 // totals per node
	// samples holds the bytes in and out per (interval, node), sparse: a trace
	// of real job histories can span months with the network mostly idle.
	samples map[netSlot][2]int64
}

// netSlot is one node in one timeline interval.
type netSlot struct {
	k    int64
	node int32
}

func newNetAcct(nodes int, width int64, series bool) netAcct {
	a := netAcct{width: width, series: series, in: make([]int64, nodes), out: make([]int64, nodes)}
	if series {
		a.samples = map[netSlot][2]int64{}
	}
	return a
}

// transfer counts b bytes moved from u to v over [t0, t1).
func (a *netAcct) transfer(u, v int32, b int64, t0, t1 int64) {
	a.out[u] += b
	a.in[v] += b
	if a.series {
		a.spread(u, 1, b, t0, t1)
		a.spread(v, 0, b, t0, t1)
	}
}

// spread adds b bytes evenly over [t0, t1) to node's interval counts in
// direction dir (0 in, 1 out); the last interval takes the rounding remainder.
// An instantaneous transfer counts in the interval holding t0.
func (a *netAcct) spread(node int32, dir int, b int64, t0, t1 int64) {
	add := func(k int64, x int64) {
		c := a.samples[netSlot{k, node}]
		c[dir] += x
		a.samples[netSlot{k, node}] = c
	}
	if t1 <= t0 {
		add(t0/a.width, b)
		return
	}
	left := b
	for t := t0; t < t1; {
		k := t / a.width
		end := min(t1, (k+1)*a.width)
		part := left
		if end < t1 {
			part = int64(float64(b) * float64(end-t) / float64(t1-t0))
		}
		add(k, part)
		left -= part
		t = end
	}
}

// summariseNodes writes the per-node results, nodes in id order and samples in
// time then node order.
func (s *Sim) summariseNodes() {
	name := s.pol.Name()
	a := &s.net
	for i := range s.topo.Nodes {
		n := &s.topo.Nodes[i]
		s.res.Nodes = append(s.res.Nodes, NodeResult{Policy: name, Node: n.ID, Host: n.Host,
			Rack: s.topo.RackNames[n.Rack], NetInBytes: a.in[i], NetOutBytes: a.out[i]})
	}
	if !a.series {
		return
	}
	slots := make([]netSlot, 0, len(a.samples))
	for k, c := range a.samples {
		if c != [2]int64{} {
			slots = append(slots, k)
		}
	}
	slices.SortFunc(slots, func(x, y netSlot) int { return cmp.Or(cmp.Compare(x.k, y.k), cmp.Compare(x.node, y.node)) })
	for _, k := range slots {
		c := a.samples[k]
		s.res.NodeNet = append(s.res.NodeNet, NodeNetSample{Policy: name, TimeUs: k.k * a.width,
			Node: k.node, InBytes: c[0], OutBytes: c[1]})
	}
}

// writeNodes writes nodes.parquet and, when the run sampled its timeline,
// node_net.parquet.
func writeNodes(dir string, res *Result, meta map[string]string) error {
	if err := trace.WriteParquetFile(filepath.Join(dir, NodesFile), res.Nodes, meta,
		trace.ParquetOptions{SortedBy: []string{"node"}}); err != nil {
		return err
	}
	if res.NodeNet == nil {
		return nil
	}
	return trace.WriteParquetFile(filepath.Join(dir, NodeNetFile), res.NodeNet, meta,
		trace.ParquetOptions{SortedBy: []string{"time_us", "node"}})
}
