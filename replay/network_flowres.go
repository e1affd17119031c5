package replay

import (
	"fmt"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// flowRes is the flow network's resources by the replay's node and by rack,
// read once from its flow.Topology, so that a flow's path is built from
// them in O(path) with no range checks or errors on the hot path (until
// Topology.Nodes was counted at Build, the topology's lookups summed the 75
// racks' sizes at each call: on FB-2010's first 3,000 jobs under fifo on
// fb-3000 more of the profile than building the paths; docs/network-model.md,
// h-flowengine). The paths are those of flow.Topology's Path, Inbound and
// Disk (TestFlowResPaths).
type flowRes struct {
	node     []nodeRes         // by the replay's node
	up, down []flow.ResourceID // by flow rack
	core     flow.ResourceID   // -1 without a core resource
}

// nodeRes is one node's resources in the flow network.
type nodeRes struct {
	fnode               int32 // its flow node
	rack                int32 // its flow rack
	disk, nicOut, nicIn flow.ResourceID
}

// newFlowRes reads the resources of every replay node (node: replay node →
// flow node) and rack of t.
func newFlowRes(t *flow.Topology, node []int) (flowRes, error) {
	r := flowRes{node: make([]nodeRes, len(node)), core: -1}
	if c, ok := t.Core(); ok {
		r.core = c
	}
	var buf []flow.ResourceID
	for n, f := range node {
		d, err := t.Disk(f, 0)
		if err != nil {
			return r, fmt.Errorf("the disk of node %d: %w", n, err)
		}
		o, err := t.NICOut(f)
		if err != nil {
			return r, fmt.Errorf("the NIC of node %d: %w", n, err)
		}
		if buf, err = t.Inbound(buf[:0], f, false); err != nil || len(buf) != 1 {
			return r, fmt.Errorf("the NIC in of node %d (%d resources): %w", n, len(buf), err)
		}
		r.node[n] = nodeRes{fnode: int32(f), rack: int32(t.Rack(f)), disk: d, nicOut: o, nicIn: buf[0]}
	}
	for k := range t.Racks() {
		u, err := t.Uplink(k)
		if err != nil {
			return r, fmt.Errorf("the uplink of rack %d: %w", k, err)
		}
		first, end := t.RackNodes(k)
		if first == end {
			return r, fmt.Errorf("rack %d has no node", k)
		}
		// Inbound from another rack: the core (if any), the rack's
		// downlink, the node's NIC in.
		if buf, err = t.Inbound(buf[:0], first, true); err != nil || len(buf) < 2 {
			return r, fmt.Errorf("the downlink of rack %d (%d resources): %w", k, len(buf), err)
		}
		r.up = append(r.up, u)
		r.down = append(r.down, buf[len(buf)-2])
	}
	return r, nil
}

// path appends to dst the network resources a transfer from replay node a
// to replay node b crosses, as flow.Topology's Path does for their flow
// nodes: nothing within a node; a's NIC out and b's NIC in within a rack;
// across racks also a's rack uplink, the core (if any) and b's rack
// downlink.
func (r *flowRes) path(dst []flow.ResourceID, a, b int32) []flow.ResourceID {
	x, y := &r.node[a], &r.node[b]
	if x.fnode == y.fnode {
		return dst
	}
	dst = append(dst, x.nicOut)
	if x.rack != y.rack {
		dst = append(dst, r.up[x.rack])
		if r.core >= 0 {
			dst = append(dst, r.core)
		}
		dst = append(dst, r.down[y.rack])
	}
	return append(dst, y.nicIn)
}

// inbound appends to dst the resources every transfer into replay node b
// from another node crosses on b's side, as flow.Topology's Inbound does:
// from its rack its NIC in; from another rack (far) first the core (if any)
// and its rack's downlink.
func (r *flowRes) inbound(dst []flow.ResourceID, b int32, far bool) []flow.ResourceID {
	y := &r.node[b]
	if far {
		if r.core >= 0 {
			dst = append(dst, r.core)
		}
		dst = append(dst, r.down[y.rack])
	}
	return append(dst, y.nicIn)
}
