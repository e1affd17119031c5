package replay

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Node is one machine of the simulated cluster.
type Node struct {
	ID          int32
	Rack        int32
	Host        string
	MapSlots    int32
	ReduceSlots int32
}

// Topology is the cluster's machines and racks, derived from a Hardware model.
type Topology struct {
	Nodes     []Node
	RackNames []string
	RackNodes [][]int32 // nodes of each rack, in id order
	// DataNodes are the nodes that hold HDFS blocks: map-capable nodes, limited
	// to a seeded subset when the model skews placement.
	DataNodes     []int32
	dataRacks     [][]int32 // data nodes of each rack
	dataRackCount int       // racks holding at least one data node

	// hosts maps host names to nodes when the cluster is derived from a trace
	// (Hardware.Layout); nil otherwise.
	hosts map[string]int32
}

// NewTopology builds the cluster's nodes rack by rack; node i is host
// "node<i>" in rack "rack<i / nodes_per_rack>", or, when the model has a Layout
// (a cluster derived from a trace), the layout's hosts and racks in order. The
// seed only chooses the data nodes when data_node_fraction < 1.
func NewTopology(h *Hardware, seed uint64) *Topology {
	t := &Topology{RackNodes: make([][]int32, h.Racks), dataRacks: make([][]int32, h.Racks)}
	width := len(fmt.Sprint(h.Nodes() - 1))
	for r := range h.Racks {
		t.RackNames = append(t.RackNames, fmt.Sprintf("rack%0*d", len(fmt.Sprint(h.Racks-1)), r))
	}
	rackOf, hostNames := t.applyLayout(h)
	var mapNodes []int32
	for i := range h.Nodes() {
		m, red := h.nodeSlots(i)
		n := Node{ID: int32(i), Rack: int32(i / h.NodesPerRack), Host: fmt.Sprintf("node%0*d", width, i),
			MapSlots: int32(m), ReduceSlots: int32(red)}
		if rackOf != nil {
			n.Rack, n.Host = rackOf[i], hostNames[i]
		}
		t.Nodes = append(t.Nodes, n)
		t.RackNodes[n.Rack] = append(t.RackNodes[n.Rack], n.ID)
		if m > 0 {
			mapNodes = append(mapNodes, n.ID)
		}
	}
	data := mapNodes
	if h.DataNodeFraction < 1 {
		k := max(1, int(float64(len(mapNodes))*h.DataNodeFraction+0.5))
		rng := rand.New(rand.NewPCG(seed, streamDataNodes))
		perm := rng.Perm(len(mapNodes))[:k]
		slices.Sort(perm)
		data = make([]int32, k)
		for i, p := range perm {
			data[i] = mapNodes[p]
		}
	}
	t.DataNodes = data
	for _, n := range data {
		r := t.Nodes[n].Rack
		if len(t.dataRacks[r]) == 0 {
			t.dataRackCount++
		}
		t.dataRacks[r] = append(t.dataRacks[r], n)
	}
	return t
}

// placeBlock appends the replica nodes of one block to dst. Rack-aware placement
// follows HDFS's BlockPlacementPolicyDefault for a writer outside the cluster: the
// first replica on a random data node, the second on a data node of another rack,
// the third on another node of the second's rack, the rest on random distinct
// nodes; a step that has no candidate falls back to a random distinct node. Random
// placement draws distinct data nodes uniformly. The replication is capped at the
// number of data nodes. Candidates are drawn by rejection, so a block costs O(r)
// expected draws whatever the cluster size.
func (t *Topology) placeBlock(rng *rand.Rand, replication int, rackAware bool, dst []int32) []int32 {
	n := len(t.DataNodes)
	replication = min(replication, n)
	start := len(dst)
	has := func(x int32) bool {
		for _, y := range dst[start:] {
			if y == x {
				return true
			}
		}
		return false
	}
	randomDistinct := func() int32 {
		for {
			if c := t.DataNodes[rng.IntN(n)]; !has(c) {
				return c
			}
		}
	}
	for i := 0; i < replication; i++ {
		c := int32(-1)
		switch {
		case rackAware && i == 1 && t.dataRackCount > 1:
			first := t.Nodes[dst[start]].Rack
			for c < 0 {
				if x := t.DataNodes[rng.IntN(n)]; t.Nodes[x].Rack != first {
					c = x
				}
			}
		case rackAware && i == 2:
			rack := t.dataRacks[t.Nodes[dst[start+1]].Rack]
			used := 0
			for _, y := range dst[start:] {
				if t.Nodes[y].Rack == t.Nodes[dst[start+1]].Rack {
					used++
				}
			}
			if len(rack) > used {
				for c < 0 {
					if x := rack[rng.IntN(len(rack))]; !has(x) {
						c = x
					}
				}
			}
		}
		if c < 0 {
			c = randomDistinct()
		}
		dst = append(dst, c)
	}
	return dst
}
