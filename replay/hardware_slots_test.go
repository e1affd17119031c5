package replay

import "testing"

// TestTotalSlotsClosedForm checks totalSlots against summing nodeSlots over
// the nodes, with and without dedicated map and reduce nodes (also more of
// them than there are nodes) and on a YARN cluster.
func TestTotalSlotsClosedForm(t *testing.T) {
	for _, c := range []struct{ racks, per, mapNodes, redNodes int }{
		{4, 20, 0, 0}, {4, 20, 10, 0}, {4, 20, 0, 7}, {4, 20, 30, 25}, {2, 5, 8, 5}, {2, 5, 12, 3}, {3, 1, 1, 1},
	} {
		for _, yarn := range []bool{false, true} {
			h := Hardware{Racks: c.racks, NodesPerRack: c.per, MapNodes: c.mapNodes, ReduceNodes: c.redNodes,
				MapSlots: 3, ReduceSlots: 2, NodeMemoryMB: 8192, NodeVCores: 8, MinAllocationMB: 1024, MinAllocationVCores: 1}
			if yarn {
				h.Cluster = ClusterYARN
			}
			var wm, wr int
			for i := range h.Nodes() {
				m, r := h.nodeSlots(i)
				wm += m
				wr += r
			}
			if m, r := h.TotalMapSlots(), h.TotalReduceSlots(); m != wm || r != wr {
				t.Errorf("%+v yarn %v: %d map and %d reduce slots, want %d and %d", c, yarn, m, r, wm, wr)
			}
		}
	}
}
