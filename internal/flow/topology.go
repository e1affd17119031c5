package flow

import (
	"errors"
	"fmt"
	"math"
)

// ErrNode is a node or disk index outside the cluster.
var ErrNode = errors.New("no such node or disk")

// Cluster is the shape and the capacities of a Hadoop cluster, in plain
// numbers: racks of nodes, each node with a full-duplex NIC and its disks, each
// rack switch with a full-duplex uplink to the core. Capacities are bytes per
// second.
type Cluster struct {
	Racks        int
	NodesPerRack int
	// RackSizes, instead of Racks × NodesPerRack, gives each rack's number of
	// nodes, for clusters whose racks differ (one derived from a trace's
	// hosts). Give one form or the other.
	RackSizes []int
	// NICBytesPerSec is each node's NIC, in each direction.
	NICBytesPerSec float64
	// UplinkBytesPerSec is each rack switch's link to the core, in each
	// direction.
	UplinkBytesPerSec float64
	// CoreRatio is the core's oversubscription: the core carries at most
	// racks × UplinkBytesPerSec / CoreRatio in all (one resource shared by every
	// cross-rack flow). A ratio of 1 or less is a non-blocking core, which can
	// never be a bottleneck and is left out of the paths.
	CoreRatio float64
	// DisksPerNode and DiskBytesPerSec: each disk is one resource shared by the
	// reads and writes on it.
	DisksPerNode    int
	DiskBytesPerSec float64
}

// Nodes is the number of nodes: Racks × NodesPerRack, or the sum of
// RackSizes.
func (c Cluster) Nodes() int {
	if len(c.RackSizes) == 0 {
		return c.Racks * c.NodesPerRack
	}
	n := 0
	for _, k := range c.RackSizes {
		n += k
	}
	return n
}

// NumRacks is the number of racks: Racks, or the length of RackSizes.
func (c Cluster) NumRacks() int {
	if len(c.RackSizes) == 0 {
		return c.Racks
	}
	return len(c.RackSizes)
}

// Validate checks the shape and that every capacity and the ratio are positive
// and finite (ErrTopology, ErrCapacity, ErrRatio), naming the field.
func (c Cluster) Validate() error {
	if len(c.RackSizes) > 0 {
		if c.Racks != 0 || c.NodesPerRack != 0 {
			return fmt.Errorf("flow: cluster gives both %d racks × %d nodes and rack sizes %v: %w", c.Racks, c.NodesPerRack, c.RackSizes, ErrTopology)
		}
		for r, k := range c.RackSizes {
			if k <= 0 {
				return fmt.Errorf("flow: cluster rack %d has %d nodes: %w", r, k, ErrTopology)
			}
		}
	} else if c.Racks <= 0 || c.NodesPerRack <= 0 {
		return fmt.Errorf("flow: cluster of %d racks × %d nodes: %w", c.Racks, c.NodesPerRack, ErrTopology)
	}
	if c.DisksPerNode <= 0 {
		return fmt.Errorf("flow: cluster with %d disks per node: %w", c.DisksPerNode, ErrTopology)
	}
	for _, v := range []struct {
		name string
		v    float64
	}{{"NIC", c.NICBytesPerSec}, {"rack uplink", c.UplinkBytesPerSec}, {"disk", c.DiskBytesPerSec}} {
		if !(v.v > 0) || math.IsInf(v.v, 1) {
			return fmt.Errorf("flow: cluster %s capacity %v: %w", v.name, v.v, ErrCapacity)
		}
	}
	if !(c.CoreRatio > 0) || math.IsInf(c.CoreRatio, 1) {
		return fmt.Errorf("flow: cluster core oversubscription ratio %v: %w", c.CoreRatio, ErrRatio)
	}
	return nil
}

// Topology is a Cluster's resources in a Network. Nodes are numbered from 0
// rack by rack: rack 0's nodes first, then rack 1's (with equal racks, node =
// rack × NodesPerRack + index in rack).
type Topology struct {
	Cluster
	rackOf        []int32      // by node
	firstNode     []int        // by rack, and the node count at the end
	nicOut, nicIn []ResourceID // by node
	up, down      []ResourceID // by rack
	core          ResourceID   // -1 without a core resource
	disks         []ResourceID // node × DisksPerNode + disk
}

// Build validates the cluster and adds its resources to n: per node
// "node<i>/nic-out", "node<i>/nic-in" and "node<i>/disk<j>", per rack
// "rack<r>/uplink" (towards the core) and "rack<r>/downlink", and "core" when
// CoreRatio is above 1.
func (c Cluster) Build(n *Network) (*Topology, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	t := &Topology{Cluster: c, core: -1}
	var err error
	add := func(name string, capacity float64) ResourceID {
		id, e := n.AddResource(name, capacity)
		if e != nil && err == nil {
			err = e
		}
		return id
	}
	for r := range c.NumRacks() {
		k := c.NodesPerRack
		if len(c.RackSizes) > 0 {
			k = c.RackSizes[r]
		}
		t.firstNode = append(t.firstNode, len(t.rackOf))
		for range k {
			t.rackOf = append(t.rackOf, int32(r))
		}
	}
	t.firstNode = append(t.firstNode, len(t.rackOf))
	for i := range c.Nodes() {
		t.nicOut = append(t.nicOut, add(fmt.Sprintf("node%d/nic-out", i), c.NICBytesPerSec))
		t.nicIn = append(t.nicIn, add(fmt.Sprintf("node%d/nic-in", i), c.NICBytesPerSec))
		for j := range c.DisksPerNode {
			t.disks = append(t.disks, add(fmt.Sprintf("node%d/disk%d", i, j), c.DiskBytesPerSec))
		}
	}
	for r := range c.NumRacks() {
		t.up = append(t.up, add(fmt.Sprintf("rack%d/uplink", r), c.UplinkBytesPerSec))
		t.down = append(t.down, add(fmt.Sprintf("rack%d/downlink", r), c.UplinkBytesPerSec))
	}
	if c.CoreRatio > 1 {
		t.core = add("core", float64(c.NumRacks())*c.UplinkBytesPerSec/c.CoreRatio)
	}
	if err != nil {
		return nil, fmt.Errorf("flow: building a cluster of %d nodes: %w", c.Nodes(), err)
	}
	return t, nil
}

// Nodes is the number of nodes, counted when the topology was built: the
// Cluster's Nodes sums RackSizes at every call, and Disk, NICOut, Inbound
// and Path check their nodes against it on every transfer.
func (t *Topology) Nodes() int { return len(t.rackOf) }

// Rack is the rack of a node; it panics on a node out of range.
func (t *Topology) Rack(node int) int { return int(t.rackOf[node]) }

// RackNodes is the range of a rack's nodes, [first, end); it panics on a rack
// out of range.
func (t *Topology) RackNodes(rack int) (first, end int) {
	return t.firstNode[rack], t.firstNode[rack+1]
}

// Core is the core's resource; ok is false for a non-blocking core.
func (t *Topology) Core() (id ResourceID, ok bool) { return t.core, t.core >= 0 }

// Disk is disk j of a node (ErrNode when either is out of range).
func (t *Topology) Disk(node, j int) (ResourceID, error) {
	if node < 0 || node >= t.Nodes() || j < 0 || j >= t.DisksPerNode {
		return 0, fmt.Errorf("flow: disk %d of node %d in a cluster of %d nodes × %d disks: %w", j, node, t.Nodes(), t.DisksPerNode, ErrNode)
	}
	return t.disks[node*t.DisksPerNode+j], nil
}

// Inbound appends to dst the network resources that every transfer into node
// dstNode from another node crosses on dstNode's side, and returns the
// extended slice: from a node of its rack its NIC in; from another rack (far)
// also the core (if oversubscribed) and its rack's downlink. A transfer's
// Path from any such node ends with these. ErrNode when dstNode is out of
// range.
func (t *Topology) Inbound(dst []ResourceID, dstNode int, far bool) ([]ResourceID, error) {
	if dstNode < 0 || dstNode >= t.Nodes() {
		return dst, fmt.Errorf("flow: transfers into node %d in a cluster of %d nodes: %w", dstNode, t.Nodes(), ErrNode)
	}
	if far {
		if t.core >= 0 {
			dst = append(dst, t.core)
		}
		dst = append(dst, t.down[t.Rack(dstNode)])
	}
	return append(dst, t.nicIn[dstNode]), nil
}

// Racks is the number of racks.
func (t *Topology) Racks() int { return len(t.up) }

// NICOut is a node's NIC in the outbound direction (ErrNode when the node is
// out of range).
func (t *Topology) NICOut(node int) (ResourceID, error) {
	if node < 0 || node >= t.Nodes() {
		return 0, fmt.Errorf("flow: NIC out of node %d in a cluster of %d nodes: %w", node, t.Nodes(), ErrNode)
	}
	return t.nicOut[node], nil
}

// Uplink is a rack's uplink toward the core (ErrNode when the rack is out of
// range).
func (t *Topology) Uplink(rack int) (ResourceID, error) {
	if rack < 0 || rack >= len(t.up) {
		return 0, fmt.Errorf("flow: uplink of rack %d of %d: %w", rack, len(t.up), ErrNode)
	}
	return t.up[rack], nil
}

// Path appends to dst the network resources a transfer from node src to node
// dst crosses and returns the extended slice: nothing within a node; src's NIC
// out and dstNode's NIC in within a rack; across racks also src's rack uplink,
// the core (if oversubscribed) and dstNode's rack downlink. Disks are not
// included: append the disks read or written. ErrNode when a node is out of
// range.
func (t *Topology) Path(dst []ResourceID, src, dstNode int) ([]ResourceID, error) {
	nodes := t.Nodes()
	if src < 0 || src >= nodes || dstNode < 0 || dstNode >= nodes {
		return dst, fmt.Errorf("flow: path from node %d to node %d in a cluster of %d nodes: %w", src, dstNode, nodes, ErrNode)
	}
	if src == dstNode {
		return dst, nil
	}
	dst = append(dst, t.nicOut[src])
	if rs, rd := t.Rack(src), t.Rack(dstNode); rs != rd {
		dst = append(dst, t.up[rs])
		if t.core >= 0 {
			dst = append(dst, t.core)
		}
		dst = append(dst, t.down[rd])
	}
	return append(dst, t.nicIn[dstNode]), nil
}
