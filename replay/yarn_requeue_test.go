package replay

import "testing"

// TestRequeueMap: a preempted map is found again by LocalMap, RackMap and
// AnyMap after the indexes' heads moved past it while it ran.
func TestRequeueMap(t *testing.T) {
	hw := DefaultHardware()
	hw.Racks, hw.NodesPerRack = 2, 2
	topo := NewTopology(&hw, 1)
	// Three maps, replicas: map 0 on nodes 0 and 2, map 1 on node 0, map 2 on node 3.
	j := &Job{Maps: make([]MapTask, 3), replication: 2, replicas: []int32{0, 2, 0, 0, 3, 3}}
	j.index(topo)
	if got := j.LocalMap(0); got != 0 {
		t.Fatalf("LocalMap(0) = %d, want 0", got)
	}
	j.Maps[0].State, j.Maps[1].State = Running, Running // both launched: the heads move past them
	if got := j.LocalMap(0); got != -1 {
		t.Fatalf("LocalMap(0) with both running = %d, want -1", got)
	}
	if got := j.RackMap(1); got != 2 {
		t.Fatalf("RackMap(1) = %d, want 2 (map 0 runs)", got)
	}
	if got := j.AnyMap(); got != 2 {
		t.Fatalf("AnyMap() = %d, want 2", got)
	}
	j.Maps[0].State = Pending // preempted
	j.requeueMap(0, topo)
	for _, c := range []struct {
		what string
		got  int32
	}{{"LocalMap(0)", j.LocalMap(0)}, {"LocalMap(2)", j.LocalMap(2)}, {"RackMap(0)", j.RackMap(0)}, {"RackMap(1)", j.RackMap(1)}, {"AnyMap()", j.AnyMap()}} {
		if c.got != 0 {
			t.Errorf("%s after the requeue = %d, want 0", c.what, c.got)
		}
	}
}
