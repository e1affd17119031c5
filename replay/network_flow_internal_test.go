package replay

import (
	"slices"
	"strings"
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

// TestLinksVisitsLoadedLinks: flowNet.Links visits every resource that is
// not a disk and carries a flow, in resource order, and nothing else; here
// with a fetch from every node to the next, across both racks.
func TestLinksVisitsLoadedLinks(t *testing.T) {
	h, err := ParseHardware([]byte("racks = 2\nnodes_per_rack = 3\nnetwork = \"flow\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	topo := NewTopology(&h, 1)
	fn, err := newFlowNet(&h, topo)
	if err != nil {
		t.Fatal(err)
	}
	n := int32(len(topo.Nodes))
	for a := range n {
		if _, err := fn.Start(0, Transfer{Kind: TransferFetch, Src: a, Dst: (a + 1) % n, Bytes: 1e6}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := fn.Next(0); err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for r := range fn.n.NumResources() {
		id := flow.ResourceID(r)
		if !strings.Contains(fn.n.ResourceName(id), "/disk") && fn.n.FlowsOn(id) > 0 {
			want = append(want, fn.labels[r])
		}
	}
	fn.Links(func(link string, _, _ float64, _ int) { got = append(got, link) })
	if len(want) < 2*int(n) || !slices.Equal(got, want) {
		t.Errorf("links visited %q, want %q (at least the %d NICs)", got, want, 2*n)
	}
}
