package replay

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/tracereplay/tracereplay/internal/flow"
)

// TestFlowXfer: flowNet keeps a flow's Transfer in one 64-byte cache line
// (flowXfer), and gives back every field of it but a batch round's sources,
// which only Start reads. The sample sets every field of Transfer, so a field
// added to Transfer and not kept fails here.
func TestFlowXfer(t *testing.T) {
	if n := unsafe.Sizeof(flowXfer{}); n != 64 {
		t.Errorf("flowXfer takes %d bytes, want 64 (one cache line)", n)
	}
	x := Transfer{Kind: TransferOutput, Copy: true, Merge: true, Round: 3, Job: 4, Task: 5, FetchOf: 6, Src: 7, Dst: 8,
		Bytes: 9, Start: 10, Pipeline: []int32{11, 12}, srcs: []roundSource{{node: 13, bytes: 14}}, srcTotal: 15}
	v := reflect.ValueOf(x)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the sample leaves Transfer.%s zero: set it, and keep it in flowXfer unless only Start reads it", v.Type().Field(i).Name)
		}
	}
	k := keptXfer(&x)
	got := k.transfer()
	want := x
	want.srcs, want.srcTotal = nil, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kept and given back: %+v, want %+v", got, want)
	}
}

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
