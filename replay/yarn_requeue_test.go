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

// TestAMPreemptReduces: a job whose three reduces and AM hold the whole of a
// 4 GB NodeManager while two of its maps wait, none running, kills reduces
// for min(2 maps, max(1 map, half of the 3 GB it can use besides the AM)) =
// 1.5 GB of map memory: two reduces of 1 GB, its most recently launched;
// with a map running (what the job can use for maps holds a map) it kills
// none.
func TestAMPreemptReduces(t *testing.T) {
	for _, c := range []struct {
		runningMaps int32
		want        []TaskState
	}{{0, []TaskState{Running, Pending, Pending}}, {1, []TaskState{Running, Running, Running}}} {
		hw := DefaultHardware()
		hw.Cluster, hw.Racks, hw.NodesPerRack = ClusterYARN, 1, 1
		s := &Sim{hw: &hw, nodes: make([]nodeState, 1), pol: &nopPolicy{}}
		s.nodes[0].nextHB = -1
		s.yarn = yarnSim{on: true, total: Resource{4096, 4}, used: Resource{4096, 4}, free: []Resource{{}}}
		j := &Job{Maps: make([]MapTask, 4), Reduces: make([]ReduceTask, 3)}
		j.yarn.size = [3]Resource{{1024, 1}, {1024, 1}, {1024, 1}}
		j.PendingMaps, j.RunningMaps, j.RunningReduces, j.ready = 2, c.runningMaps, 3, true
		for i := range j.Reduces {
			j.Reduces[i] = ReduceTask{State: Running, Node: 0, LaunchUs: int64(i) * 1e6, FinishUs: 100e6, ShuffleEndUs: Unset}
		}
		s.running = 3 + int64(c.runningMaps)
		s.amPreemptReduces(j)
		for i, want := range c.want {
			if got := j.Reduces[i].State; got != want {
				t.Errorf("running maps %d: reduce %d is %d, want %d", c.runningMaps, i, got, want)
			}
		}
	}
}

// nopPolicy is a policy that does nothing, for engine unit tests.
type nopPolicy struct{ Base }

func (*nopPolicy) Name() string             { return "none" }
func (*nopPolicy) Heartbeat(Cluster, int32) {}
