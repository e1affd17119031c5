package replay

import (
	"slices"
	"testing"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// TestFlowResPaths: the paths flowNet builds from its table of resources
// (flowRes) are flow.Topology's, for every pair of nodes of clusters with
// racks of different sizes, with and without a core resource, and with the
// replay's nodes in another order than the flow network's.
func TestFlowResPaths(t *testing.T) {
	for _, core := range []float64{1, 2} {
		c := flow.Cluster{RackSizes: []int{3, 1, 4}, NICBytesPerSec: 1e8, UplinkBytesPerSec: 1e9,
			CoreRatio: core, DisksPerNode: 1, DiskBytesPerSec: 5e7}
		topo, err := c.Build(flow.New())
		if err != nil {
			t.Fatal(err)
		}
		n := c.Nodes()
		node := make([]int, n) // replay node → flow node: reversed
		for i := range node {
			node[i] = n - 1 - i
		}
		res, err := newFlowRes(topo, node)
		if err != nil {
			t.Fatal(err)
		}
		for a := range int32(n) {
			d, _ := topo.Disk(node[a], 0)
			if got := res.node[a].disk; got != d {
				t.Errorf("core %g: disk of node %d: %d, want %d", core, a, got, d)
			}
			for _, far := range []bool{false, true} {
				want, _ := topo.Inbound(nil, node[a], far)
				if got := res.inbound(nil, a, far); !slices.Equal(got, want) {
					t.Errorf("core %g: inbound of node %d (far %v): %v, want %v", core, a, far, got, want)
				}
			}
			for b := range int32(n) {
				want, _ := topo.Path([]flow.ResourceID{7}, node[a], node[b])
				if got := res.path([]flow.ResourceID{7}, a, b); !slices.Equal(got, want) {
					t.Errorf("core %g: path %d → %d: %v, want %v", core, a, b, got, want)
				}
			}
		}
	}
}
